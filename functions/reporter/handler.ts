import type { Context } from 'aws-lambda';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/observability/logger.js';
import {
  type ReporterDeps,
  runReporterTick,
  type TickOptions,
  type TickSummary,
} from '../../lib/reports/tick.js';
import { createCoreDeps, createSlackAccess } from '../../lib/runtime.js';
import { withSecretsFromSsm } from '../../lib/secrets.js';
import { sweepApprovals } from '../../lib/slack/approval-sweep.js';

/**
 * The scheduled reporter (EventBridge, every few minutes): due report subscriptions and status
 * watches. Importing this module has no side effects, so the local stack can call `runReports`
 * on a timer with its own dependencies; the Lambda wires its dependencies on the first event and
 * keeps them for warm invocations.
 */

/**
 * Kept free at the end of a run for what follows the last post: marking the alert's claim, the run
 * records, the summary. A DynamoDB call gives up after about 10 s (three 3 s attempts), so a few of
 * them fit with room to spare.
 */
export const REPORTER_SAFETY_MARGIN_MS = 30_000;

/** One reporter run, with the summary logged: what the schedule and the local stack's timer call. */
export async function runReports(
  deps: ReporterDeps,
  now: Date = new Date(),
  options: TickOptions = {},
): Promise<TickSummary> {
  // Approvals first: a stuck request is a person waiting on a card, and the sweep is short.
  const approvals = await sweepApprovals(deps).catch((error: unknown) => {
    deps.logger.error('approval sweep failed', { error });
    return { failed: true };
  });
  const summary = await runReporterTick(deps, now, options);
  const apiCalls = Object.values(summary.apiCalls).reduce(
    (total, perOperation) => total + Object.values(perOperation).reduce((sum, n) => sum + n, 0),
    0,
  );
  deps.logger.info('reporter run', {
    due: summary.due,
    run: summary.run,
    leftDue: summary.leftDue,
    accounts: Object.keys(summary.apiCalls).length,
    apiCalls,
    messagesPosted: summary.messagesPosted,
    filesUploaded: summary.filesUploaded,
    alertsPosted: summary.alertsPosted,
    failures: summary.failures,
    paused: summary.paused,
    expiryReminders: summary.expiryReminders,
    slackRateLimited: summary.slackRateLimited,
    watches: summary.watches,
    approvals,
  });
  return summary;
}

let wired: Promise<ReporterDeps> | undefined;

async function wire(): Promise<ReporterDeps> {
  const config = loadConfig(await withSecretsFromSsm(process.env));
  const logger = createLogger('reporter');
  const core = createCoreDeps(config, logger, { role: 'background' });
  // Each subscription, watch and approval posts with its own team's bot token (see `inSlackTeam`).
  const slack = createSlackAccess(config.slackAuth, core.store, config.SLACK_API_URL);
  return { ...core, slack: slack.client, slackInstall: slack.install };
}

export const handler = async (_event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) => {
  // Read first: wiring on a cold start spends part of the same budget.
  const deadline = Date.now() + context.getRemainingTimeInMillis() - REPORTER_SAFETY_MARGIN_MS;
  wired ??= wire().catch((error: unknown) => {
    // A failed start is retried on the next event rather than cached.
    wired = undefined;
    throw error;
  });
  await runReports(await wired, new Date(), { deadline });
};
