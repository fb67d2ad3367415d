import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import type { Context } from 'aws-lambda';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/observability/logger.js';
import { createCoreDeps } from '../../lib/runtime.js';
import { withSecretsFromSsm } from '../../lib/secrets.js';
import { runWorkerJob } from '../../lib/slack/worker-handlers.js';
import { createSlackAccess } from '../../lib/slack-access.js';
import { inSlackTeam } from '../../lib/slack-kit/web-client.js';
import { createDynamoDbClient } from '../../lib/store/dynamodb-client.js';
import { workerIdempotencyPersistence } from '../../lib/store/worker-idempotency.js';
import { type WorkerJob, WorkerJobSchema } from '../../lib/worker/jobs.js';

/** Jobs handed off by the Slack function (asynchronous invoke). */
const config = loadConfig(await withSecretsFromSsm(process.env));
const logger = createLogger('worker');
const core = createCoreDeps(config, logger, { role: 'background' });
const slackAccess = createSlackAccess(config.slackAuth, core.store, config.SLACK_API_URL);
const deps = { ...core, slack: slackAccess.client, slackInstall: slackAccess.install };

// Lambda may deliver an asynchronous invocation more than once: a job id runs once.
const idempotency = new IdempotencyConfig({
  eventKeyJmesPath: 'correlationId',
  expiresAfterSeconds: 60 * 60,
});
const runOnce = makeIdempotent(
  async (job: WorkerJob) => {
    // The job's Slack calls go out with the bot token of the team it came from.
    await inSlackTeam(job.team, () => runWorkerJob(deps, job));
    return { done: job.correlationId };
  },
  {
    persistenceStore: workerIdempotencyPersistence(
      createDynamoDbClient(config, 'background'),
      config.TABLE_NAME,
    ),
    config: idempotency,
  },
);

export const handler = async (event: unknown, context: Context): Promise<void> => {
  const job = WorkerJobSchema.safeParse(event);
  if (!job.success) {
    // A malformed job cannot become valid by retrying: log it and drop it.
    logger.error('worker job rejected', { issues: job.error.issues.map((i) => i.path.join('.')) });
    return;
  }
  logger.appendKeys({ correlationId: job.data.correlationId });
  idempotency.registerLambdaContext(context);
  await runOnce(job.data);
};
