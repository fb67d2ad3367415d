import type { Logger } from '@aws-lambda-powertools/logger';
import type { WebClient } from '@slack/web-api';
import type { ApiCallEvent } from '../api/client.js';
import { type ApiSettings, createApiClient } from '../api/client-factory.js';
import { isApiError } from '../api/errors.js';
import { runStatusWatches, type StatusWatchSurface, type WatchTickSummary } from '../changes/status-watch.js';
import { settleWithConcurrency } from '../concurrency.js';
import { channelRefusalOf } from '../slack/channel-access.js';
import { inSlackTeam } from '../slack/web-client.js';
import type { ReportSubscription, Store, TokenLink } from '../store/index.js';
import { AccountFeed } from './account-feed.js';
import { pauseForChannelProblem } from './channel-notices.js';
import { type DeliveryContext, type DeliveryResult, deliverReport } from './deliver.js';
import { failureReason } from './failures.js';
import { HistoryBudget, type SlackInstallKind } from './history-budget.js';
import { reportKindOf } from './kinds.js';
import { ChannelPacer } from './pacer.js';
import { nextRunAfter } from './schedule.js';
import {
  pauseForTokenProblem,
  remindOfExpiry,
  type TokenAccount,
  type TokenProblem,
} from './token-notices.js';

/**
 * One run of the reporter: the subscriptions that are due, then the status watches.
 *
 * Due subscriptions are claimed first (the store's conditional `advance` moves each to its next
 * run, so of two overlapping ticks only one runs a subscription), then grouped by the token that
 * runs them: each account's issues, services and stats are fetched once, at most
 * `accountConcurrency` accounts at a time, and fanned out to every subscribed channel. Posting is
 * paced per channel. Whatever fails is recorded against its subscription and the rest go on; a
 * 401 pauses only the subscriptions of the token the API rejected.
 *
 * A run has a deadline (the Lambda's remaining time less a margin for the final writes). Past it no
 * post starts and no answer is awaited; alerts posted so far stay posted (each has its own claim,
 * see `deliver.ts`), and a subscription cut off with work left is left due rather than advanced,
 * so the next run carries on with it. Writes that fail after something was posted (claim marks,
 * seen issues, the run record) are listed in the summary's failures: nothing unsaved goes unsaid.
 */

export interface ReporterDeps {
  readonly store: Store;
  readonly api: ApiSettings;
  /** Slack's Web API with the bot token, rate-limited calls rejected (the pacer waits them out). */
  readonly slack: WebClient;
  readonly logger: Logger;
  /** Accounts fetched at the same time. */
  readonly accountConcurrency?: number;
  /** Subscriptions run per tick at most; the rest stay due for the next one. */
  readonly maxSubscriptionsPerTick?: number;
  /**
   * Which of Slack's history limits apply: `internal` in one-workspace mode, `distributed` with
   * "Add to Slack" (the stricter, and the default when not said).
   */
  readonly slackInstall?: SlackInstallKind | undefined;
  /** The pacer of Slack calls; a fresh one per tick by default. */
  readonly pacer?: ChannelPacer;
  /** Sees every API attempt with the account it was made for (metrics, tests). */
  readonly onApiCall?: (account: string, event: ApiCallEvent) => void;
  /** Where status watches are shown, pacing its posts with this tick's pacer. */
  readonly statusWatchSurface: (pacer: ChannelPacer) => StatusWatchSurface;
}

export const DEFAULT_ACCOUNT_CONCURRENCY = 8;
export const DEFAULT_MAX_SUBSCRIPTIONS_PER_TICK = 1000;
/** DynamoDB writes (claims, run records) in flight at once. */
const STORE_CONCURRENCY = 16;

/**
 * What failed: the report itself (`run`), or a write that records what was done — the mark of a
 * posted alert's claim, the release of a refused one's, the seen issues, the run record.
 */
export type FailureStep = 'run' | 'alert_mark' | 'alert_release' | 'seen_issues' | 'run_record';

export interface SubscriptionFailure {
  readonly subscription: string;
  readonly team: string;
  readonly channel: string;
  readonly step: FailureStep;
  /** An error code or a short reason; never a token or a response body. */
  readonly reason: string;
}

export interface TickOptions {
  /** Epoch ms (wall clock) by which the run stops starting work; see the module comment. */
  readonly deadline?: number | undefined;
}

export interface TickSummary {
  readonly at: string;
  /** Subscriptions found due. */
  readonly due: number;
  /** Of those, run by this tick (the others were claimed by an overlapping one, or paused meanwhile). */
  readonly run: number;
  /** Of those run, left due because the deadline came first: the next run continues them. */
  readonly leftDue: number;
  /** API attempts per account (`team/owner/profile`) and operation. */
  readonly apiCalls: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly messagesPosted: number;
  readonly filesUploaded: number;
  readonly alertsPosted: number;
  readonly failures: readonly SubscriptionFailure[];
  readonly paused: readonly (TokenAccount & {
    readonly problem: TokenProblem;
    readonly subscriptions: number;
  })[];
  /** Subscriptions paused by this tick because their channel refused the bot's posts. */
  readonly channelPauses: number;
  readonly expiryReminders: number;
  /** Rate-limited answers from Slack that were waited out. */
  readonly slackRateLimited: number;
  readonly watches: WatchTickSummary;
}

interface Claimed {
  readonly sub: ReportSubscription;
  readonly next: Date;
}

export function accountKey(account: TokenAccount): string {
  return `${account.team}/${account.owner}/${account.profile}`;
}

/** Whether the run's deadline has passed (never, without one). */
function pastDeadline(options: TickOptions): boolean {
  return options.deadline !== undefined && Date.now() >= options.deadline;
}

export async function runReporterTick(
  deps: ReporterDeps,
  now: Date,
  options: TickOptions = {},
): Promise<TickSummary> {
  const pacer = deps.pacer ?? new ChannelPacer();
  // One allowance per run, shared by the subscriptions of each workspace.
  const history = new HistoryBudget(deps.slackInstall ?? 'distributed');
  const rateLimitedBefore = pacer.rateLimitedCount;
  const apiCalls: Record<string, Record<string, number>> = {};
  const failures: SubscriptionFailure[] = [];
  const paused: TickSummary['paused'][number][] = [];
  let messagesPosted = 0;
  let filesUploaded = 0;
  let alertsPosted = 0;
  let expiryReminders = 0;
  let leftDue = 0;
  let channelPauses = 0;
  const fail = (sub: ReportSubscription, error: unknown, step: FailureStep = 'run') => {
    const failure = failureOf(sub, step, error);
    failures.push(failure);
    deps.logger.warn(step === 'run' ? 'report failed' : 'report progress not saved', { ...failure });
  };

  const due = await deps.store.reports.dueSubscriptions(
    now,
    deps.maxSubscriptionsPerTick ?? DEFAULT_MAX_SUBSCRIPTIONS_PER_TICK,
  );
  const claims = await settleWithConcurrency(
    due,
    STORE_CONCURRENCY,
    async (sub): Promise<Claimed | undefined> => {
      const next = nextRunAfter(sub.schedule, sub.nextRunAt, now);
      return (await deps.store.reports.advance(sub, next)) ? { sub, next } : undefined;
    },
  );
  const claimed: Claimed[] = [];
  claims.forEach((claim, index) => {
    if (claim.status === 'fulfilled') {
      if (claim.value) claimed.push(claim.value);
    } else if (due[index]) {
      fail(due[index], claim.reason);
    }
  });

  const accounts = new Map<string, Claimed[]>();
  for (const item of claimed) {
    const key = accountKey({ team: item.sub.team, owner: item.sub.owner, profile: item.sub.profile });
    accounts.set(key, [...(accounts.get(key) ?? []), item]);
  }
  const noticeDeps = { store: deps.store, slack: deps.slack, pacer, logger: deps.logger };
  /** Each account's posting, started once its data is in. */
  const deliveries: Promise<void>[] = [];

  /**
   * Stores how the run went. The schedule moved when the subscription was claimed; a run cut off by
   * the deadline moves it back to when it was due, so the next run picks it up again.
   */
  const record = async (item: Claimed, status: 'ok' | 'failed', result?: DeliveryResult) => {
    if (result?.unfinished) leftDue += 1;
    const saved = await recordRun(deps, item.sub, item.next, now, status, result);
    if (saved !== true) fail(item.sub, saved.error, saved.step);
  };

  /** Claimed but not started before the deadline: due again at once, nothing else recorded. */
  const leaveDue = async (item: Claimed) => {
    leftDue += 1;
    try {
      if (!(await deps.store.reports.advance({ ...item.sub, nextRunAt: item.next }, item.sub.nextRunAt))) {
        fail(item.sub, new SubscriptionChangedError(), 'run_record');
      }
    } catch (error) {
      fail(item.sub, error, 'run_record');
    }
  };

  const runAccount = async (key: string, items: Claimed[]) => {
    const first = items[0];
    if (!first) return;
    if (pastDeadline(options)) {
      await Promise.all(items.map(leaveDue));
      return;
    }
    const account: TokenAccount = {
      team: first.sub.team,
      owner: first.sub.owner,
      profile: first.sub.profile,
    };
    const pause = async (problem: TokenProblem) => {
      const affected = await pauseForTokenProblem(noticeDeps, account, problem);
      paused.push({ ...account, problem, subscriptions: affected.length });
    };

    const lookup = await deps.store.tokenLinks.getToken(account.team, account.owner, account.profile);
    if (lookup.status !== 'found') return pause(lookup.status === 'invalid' ? 'rejected' : 'unlinked');

    const client = createApiClient(deps.api, lookup.token, {
      observe: (event) => {
        const calls = apiCalls[key] ?? {};
        calls[event.operationId] = (calls[event.operationId] ?? 0) + 1;
        apiCalls[key] = calls;
        deps.onApiCall?.(key, event);
      },
    });
    const feed = new AccountFeed(client);
    const reads = new Set(items.flatMap((item) => reportKindOf(item.sub.kind).prefetch));
    const [issues, stats] = await Promise.allSettled([
      reads.has('issues') ? feed.issues() : undefined,
      reads.has('stats') ? feed.stats() : undefined,
      reads.has('services') ? feed.services() : undefined,
    ]);
    if (
      [issues, stats].some((read) => read?.status === 'rejected' && isApiError(read.reason, 'unauthorized'))
    ) {
      return pause('rejected');
    }
    // Service labels name the affected services of a digest, and of alerts when there is news.
    const hasNews =
      issues.status === 'fulfilled' &&
      items.some(
        ({ sub }) =>
          reportKindOf(sub.kind).servicesWhenNewIssues &&
          sub.lastRun !== null &&
          issues.value?.some((i) => !sub.seenIssueIds.has(i.id)),
      );
    if (reads.has('services') || hasNews) await feed.services();

    // The account's slot is free once its data is in: posting is paced per channel, not per account.
    deliveries.push(deliverAccount(key, items, feed, lookup.link));
  };

  /** A channel that refuses the bot's posts pauses the subscription (see `channel-notices.ts`). */
  const pauseIfChannelRefused = async (sub: ReportSubscription, error: unknown) => {
    const refusal = channelRefusalOf(error);
    if (refusal === undefined) return;
    try {
      if (await pauseForChannelProblem(noticeDeps, sub, refusal)) channelPauses += 1;
    } catch (pauseError) {
      fail(sub, pauseError, 'run_record');
    }
  };

  const deliverAccount = async (key: string, items: Claimed[], feed: AccountFeed, link: TokenLink) => {
    const context: DeliveryContext = {
      slack: deps.slack,
      pacer,
      feed,
      now,
      charts: new Map<string, Buffer>(),
      claims: deps.store.alertClaims,
      history,
      deadline: options.deadline,
    };
    await Promise.all(
      items.map(async (item) => {
        let result: DeliveryResult;
        try {
          result = await deliverReport(context, item.sub);
        } catch (error) {
          fail(item.sub, error);
          await record(item, 'failed');
          // Recorded first: the pause takes the subscription off the schedule the record moves.
          return pauseIfChannelRefused(item.sub, error);
        }
        messagesPosted += result.messages;
        filesUploaded += result.files;
        alertsPosted += result.alerted?.length ?? 0;
        if (result.error !== undefined) fail(item.sub, result.error);
        for (const unsaved of result.notSaved ?? []) fail(item.sub, unsaved.error, unsaved.step);
        await record(item, result.error === undefined ? 'ok' : 'failed', result);
        await pauseIfChannelRefused(item.sub, result.error);
      }),
    );
    try {
      if (await remindOfExpiry(noticeDeps, link, now)) expiryReminders += 1;
    } catch (error) {
      // The reports went out; a reminder that could not be claimed is tried again next run.
      deps.logger.warn('expiry reminder failed', { account: key, reason: failureReason(error) });
    }
  };

  const outcomes = await settleWithConcurrency(
    [...accounts],
    deps.accountConcurrency ?? DEFAULT_ACCOUNT_CONCURRENCY,
    // Slack calls made for an account's reports carry its team's bot token.
    ([key, items]) => inSlackTeam(items[0]?.sub.team, () => runAccount(key, items)),
  );
  const accountItems = [...accounts.values()];
  const unrecorded: Promise<void>[] = [];
  outcomes.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') return;
    // Something outside a single report failed (the token lookup, the store): every report of the account is marked.
    for (const item of accountItems[index] ?? []) {
      fail(item.sub, outcome.reason);
      unrecorded.push(record(item, 'failed'));
    }
  });
  await Promise.all([...unrecorded, ...deliveries]);

  // Watches are checked again next run; past the deadline they would only eat the final margin.
  const watches = pastDeadline(options)
    ? { running: 0, checked: 0, updated: 0, finished: 0, failures: 0 }
    : await runStatusWatches(deps, deps.statusWatchSurface(pacer), now).catch(
        (error: unknown): WatchTickSummary => {
          deps.logger.error('status watches failed', { reason: failureReason(error) });
          return { running: 0, checked: 0, updated: 0, finished: 0, failures: 1 };
        },
      );

  return {
    at: now.toISOString(),
    due: due.length,
    run: claimed.length,
    leftDue,
    apiCalls,
    messagesPosted,
    filesUploaded,
    alertsPosted,
    failures,
    paused,
    channelPauses,
    expiryReminders,
    slackRateLimited: pacer.rateLimitedCount - rateLimitedBefore,
    watches,
  };
}

export function failureOf(sub: ReportSubscription, step: FailureStep, error: unknown): SubscriptionFailure {
  return { subscription: sub.id, team: sub.team, channel: sub.channel, step, reason: failureReason(error) };
}

/** The subscription was paused, removed or moved on by another run before the write. */
export class SubscriptionChangedError extends Error {
  override readonly name = 'SubscriptionChangedError';
  readonly code = 'subscription_changed';
}

/**
 * Writes a run's record (status, seen issues) and its next run: `next`, or, for a run cut off with
 * alerts left, the time it was due. True when saved; otherwise the step that was not.
 */
async function recordRun(
  deps: Pick<ReporterDeps, 'store'>,
  sub: ReportSubscription,
  next: Date,
  now: Date,
  status: 'ok' | 'failed',
  result: DeliveryResult | undefined,
): Promise<true | { step: FailureStep; error: unknown }> {
  // Alerts that never ran learn the open issues on their first good run; a failed first run
  // recorded as a run would make the next one post every open issue as new.
  if (status === 'failed' && reportKindOf(sub.kind).learnsOpenIssuesFirst && sub.lastRun === null)
    return true;
  const seenIssueIds = result?.seenIssueIds;
  const step: FailureStep = seenIssueIds ? 'seen_issues' : 'run_record';
  try {
    const saved = await deps.store.reports.advance(
      { ...sub, nextRunAt: next },
      result?.unfinished ? sub.nextRunAt : next,
      { lastRunAt: now, lastRunStatus: status, ...(seenIssueIds ? { seenIssueIds } : {}) },
    );
    return saved ? true : { step, error: new SubscriptionChangedError() };
  } catch (error) {
    return { step, error };
  }
}

/**
 * Records a run made outside the schedule (`/cloud reports run`): like a scheduled run's record,
 * but the next run stays as it is. When a scheduled run moved the schedule meanwhile, the record's
 * condition fails and the seen issues are added on their own; the alert claims cover the rest.
 * Returns what was not saved.
 */
export async function recordRunNow(
  deps: Pick<ReporterDeps, 'store'>,
  sub: ReportSubscription,
  now: Date,
  result: DeliveryResult,
): Promise<SubscriptionFailure[]> {
  const failures = (result.notSaved ?? []).map((unsaved) => failureOf(sub, unsaved.step, unsaved.error));
  const status = result.error === undefined ? 'ok' : 'failed';
  const saved = await recordRun(deps, sub, sub.nextRunAt, now, status, result);
  if (saved === true) return failures;
  if (saved.error instanceof SubscriptionChangedError && result.seenIssueIds && sub.lastRun !== null) {
    try {
      if (await deps.store.reports.addSeenIssues(sub.team, sub.id, result.seenIssueIds)) return failures;
    } catch (error) {
      return [...failures, failureOf(sub, 'seen_issues', error)];
    }
  }
  return [...failures, failureOf(sub, saved.step, saved.error)];
}
