import type { Context } from 'aws-lambda';
import { type SweepSummary, sweepApprovals } from '../../lib/changes/sweep.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/observability/logger.js';
import {
  type ReporterDeps,
  runReporterTick,
  type TickOptions,
  type TickSummary,
} from '../../lib/reports/tick.js';
import { createCoreDeps } from '../../lib/runtime.js';
import { withSecretsFromSsm } from '../../lib/secrets.js';
import { runbookFollower } from '../../lib/slack/approval-answers.js';
import { slackExecutionSurface } from '../../lib/slack/approved-run-surface.js';
import { slackReporterSurface } from '../../lib/slack/reporter-surface.js';
import { createSlackAccess } from '../../lib/slack-access.js';

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

export interface ReporterRunOptions extends TickOptions {
  /**
   * Log the summary only when the run did something. In AWS every run is logged (one line per
   * schedule event); the local stack runs every 10 s in a terminal that shows the demo login.
   */
  readonly quietWhenIdle?: boolean;
}

type ApprovalSweepOutcome = SweepSummary | { readonly failed: true };

/** Whether a run found nothing to do: nothing due, no watch checked, no approval swept, nothing failed. */
export function isIdleRun(summary: TickSummary, approvals: ApprovalSweepOutcome): boolean {
  const counts = [
    summary.due,
    summary.run,
    summary.leftDue,
    summary.messagesPosted,
    summary.filesUploaded,
    summary.alertsPosted,
    summary.failures.length,
    summary.paused.length,
    summary.channelPauses,
    summary.expiryReminders,
    summary.slackRateLimited,
    Object.keys(summary.apiCalls).length,
    summary.watches.checked,
    summary.watches.updated,
    summary.watches.finished,
    summary.watches.failures,
  ];
  if ('failed' in approvals) return false;
  counts.push(approvals.expired, approvals.notRun, approvals.settled, approvals.stillInDoubt);
  counts.push(approvals.failures.length);
  return counts.every((count) => count === 0);
}

/** One reporter run, with the summary logged: what the schedule and the local stack's timer call. */
export async function runReports(
  deps: ReporterDeps,
  now: Date = new Date(),
  options: ReporterRunOptions = {},
): Promise<TickSummary> {
  // Approvals first: a stuck request is a person waiting on a card, and the sweep is short.
  const approvals: ApprovalSweepOutcome = await sweepApprovals(
    deps,
    slackExecutionSurface(deps, runbookFollower(deps)),
  ).catch((error: unknown) => {
    deps.logger.error('approval sweep failed', { error });
    return { failed: true } as const;
  });
  const { quietWhenIdle, ...tickOptions } = options;
  const summary = await runReporterTick(deps, now, tickOptions);
  if (quietWhenIdle && isIdleRun(summary, approvals)) return summary;
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
  return {
    ...core,
    slack: slack.client,
    slackInstall: slack.install,
    surface: slackReporterSurface({ ...core, slack: slack.client, logger }, { followRunbooks: true }),
  };
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
