import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/observability/logger.js';
import { createCoreDeps } from '../../lib/runtime.js';
import { withSecretsFromSsm } from '../../lib/secrets.js';
import { WorkerJobSchema } from '../../lib/slack/handoff.js';
import { createSlackWebClient } from '../../lib/slack/web-client.js';
import { runWorkerJob } from '../../lib/slack/worker.js';

/** Jobs handed off by the Slack function (asynchronous invoke). */
const config = loadConfig(await withSecretsFromSsm(process.env));
const logger = createLogger('worker');
const deps = {
  ...createCoreDeps(config, logger),
  slack: createSlackWebClient(config.SLACK_BOT_TOKEN, config.SLACK_API_URL),
};

export const handler = async (event: unknown): Promise<void> => {
  const job = WorkerJobSchema.safeParse(event);
  if (!job.success) {
    // A malformed job cannot become valid by retrying: log it and drop it.
    logger.error('worker job rejected', { issues: job.error.issues.map((i) => i.path.join('.')) });
    return;
  }
  logger.appendKeys({ correlationId: job.data.correlationId });
  await runWorkerJob(deps, job.data);
};
