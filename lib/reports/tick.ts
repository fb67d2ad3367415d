import type { Logger } from '@aws-lambda-powertools/logger';
import type { WebClient } from '@slack/web-api';
import type { ApiCallEvent } from '../api/client.js';
import { type ApiSettings, createApiClient } from '../api/client-factory.js';
import { isApiError } from '../api/errors.js';
import { settleWithConcurrency } from '../concurrency.js';
import { channelRefusalOf } from '../slack-kit/channel-access.js';
import { inSlackTeam } from '../slack-kit/web-client.js';
import type { ReportKind, ReportSubscription, Store, TokenLink } from '../store/index.js';
import { AccountFeed } from './account-feed.js';
import { pauseForChannelProblem } from './channel-notices.js';
import type { DeliveryContext, DeliveryResult } from './deliver.js';
import { failureReason } from './failures.js';
import { HistoryBudget, type SlackInstallKind } from './history-budget.js';
import { reportKindOf } from './kinds.js';
import { ChannelPacer } from './pacer.js';
import { nextRunAfter } from './schedule.js';
import {
  type NoticeDeps,
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
  /** What the tick does beside its reports, through the surface they are shown on. */
  readonly surface: ReporterSurface;
}

/**
 * What each tick needs of the surface besides its own posts (`lib/slack/` implements it, wiring
 * the status watches of `lib/changes/`), so that the reports know nothing of the change workflow.
 */
export interface ReporterSurface {
  /** Runs the status watches of long changes, pacing their posts with this tick's pacer. */
  statusWatches(pacer: ChannelPacer, now: Date): Promise<WatchTickSummary>;
  /** Publishes these people's Homes again: a rejected token and paused reports show there. */
  refreshHomes(team: string, users: readonly string[]): Promise<void>;
}

/** What the status watches did on a tick (see `runStatusWatches` in `lib/changes/status-watch.ts`). */
export type WatchTickSummary = Readonly<
  Record<'running' | 'checked' | 'updated' | 'finished' | 'failures', number>
>;

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

type PausedAccount = TickSummary['paused'][number];

export function accountKey(account: TokenAccount): string {
  return `${account.team}/${account.owner}/${account.profile}`;
}

/** Whether the run's deadline has passed (never, without one). */
function pastDeadline(options: TickOptions): boolean {
  return options.deadline !== undefined && Date.now() >= options.deadline;
}

/**
 * What one run did so far. Each phase adds what it saw here; failures are logged as they are
 * recorded, so a run that dies later still leaves its warnings behind.
 */
class TickTally {
  readonly apiCalls: Record<string, Record<string, number>> = {};
  readonly failures: SubscriptionFailure[] = [];
  readonly paused: PausedAccount[] = [];
  messagesPosted = 0;
  filesUploaded = 0;
  alertsPosted = 0;
  expiryReminders = 0;
  leftDue = 0;
  channelPauses = 0;

  constructor(private readonly logger: Logger) {}

  fail(sub: ReportSubscription, error: unknown, step: FailureStep = 'run'): void {
    const failure = failureOf(sub, step, error);
    this.failures.push(failure);
    this.logger.warn(step === 'run' ? 'report failed' : 'report progress not saved', { ...failure });
  }

  countApiCall(account: string, operationId: string): void {
    const calls = this.apiCalls[account] ?? {};
    calls[operationId] = (calls[operationId] ?? 0) + 1;
    this.apiCalls[account] = calls;
  }

  /** A report that ran: what it posted, and whatever it could not do or save. */
  delivered(sub: ReportSubscription, result: DeliveryResult): void {
    this.messagesPosted += result.messages;
    this.filesUploaded += result.files;
    this.alertsPosted += result.alerted?.length ?? 0;
    if (result.error !== undefined) this.fail(sub, result.error);
    for (const unsaved of result.notSaved ?? []) this.fail(sub, unsaved.error, unsaved.step);
  }
}

/** One run's shared state: its dependencies, its clock, its pacing and allowances, its tally. */
interface TickRun {
  readonly deps: ReporterDeps;
  readonly now: Date;
  readonly options: TickOptions;
  readonly pacer: ChannelPacer;
  /** One allowance per run, shared by the subscriptions of each workspace. */
  readonly history: HistoryBudget;
  readonly notices: NoticeDeps;
  readonly tally: TickTally;
  /** Each account's posting, started once its data is in. */
  readonly deliveries: Promise<void>[];
}

export async function runReporterTick(
  deps: ReporterDeps,
  now: Date,
  options: TickOptions = {},
): Promise<TickSummary> {
  const pacer = deps.pacer ?? new ChannelPacer();
  const rateLimitedBefore = pacer.rateLimitedCount;
  const tally = new TickTally(deps.logger);
  const run: TickRun = {
    deps,
    now,
    options,
    pacer,
    history: new HistoryBudget(deps.slackInstall ?? 'distributed'),
    notices: {
      store: deps.store,
      slack: deps.slack,
      pacer,
      logger: deps.logger,
      refreshHomes: (team, users) => deps.surface.refreshHomes(team, users),
    },
    tally,
    deliveries: [],
  };

  const { due, claimed } = await claimDueSubscriptions(run);
  await runAccounts(run, byAccount(claimed));
  const watches = await checkStatusWatches(run);

  return {
    at: now.toISOString(),
    due: due.length,
    run: claimed.length,
    leftDue: tally.leftDue,
    apiCalls: tally.apiCalls,
    messagesPosted: tally.messagesPosted,
    filesUploaded: tally.filesUploaded,
    alertsPosted: tally.alertsPosted,
    failures: tally.failures,
    paused: tally.paused,
    channelPauses: tally.channelPauses,
    expiryReminders: tally.expiryReminders,
    slackRateLimited: pacer.rateLimitedCount - rateLimitedBefore,
    watches,
  };
}

/**
 * Claims the due subscriptions: the store's conditional `advance` moves each to its next run, so of
 * two overlapping ticks only one runs a subscription. A claim that failed is a failed run.
 */
async function claimDueSubscriptions(
  run: TickRun,
): Promise<{ due: readonly ReportSubscription[]; claimed: Claimed[] }> {
  const { deps, now } = run;
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
      run.tally.fail(due[index], claim.reason);
    }
  });
  return { due, claimed };
}

/** The claimed subscriptions by the token that runs them (`accountKey`), in the order claimed. */
function byAccount(claimed: readonly Claimed[]): Map<string, Claimed[]> {
  const accounts = new Map<string, Claimed[]>();
  for (const item of claimed) {
    const key = accountKey({ team: item.sub.team, owner: item.sub.owner, profile: item.sub.profile });
    accounts.set(key, [...(accounts.get(key) ?? []), item]);
  }
  return accounts;
}

/**
 * Fetches each account's data, at most `accountConcurrency` accounts at a time, and waits for the
 * postings they started. An account that failed outside a single report (the token lookup, the
 * store) has every one of its reports marked failed.
 */
async function runAccounts(run: TickRun, accounts: Map<string, Claimed[]>): Promise<void> {
  const outcomes = await settleWithConcurrency(
    [...accounts],
    run.deps.accountConcurrency ?? DEFAULT_ACCOUNT_CONCURRENCY,
    // Slack calls made for an account's reports carry its team's bot token.
    ([key, items]) => inSlackTeam(items[0]?.sub.team, () => fetchAccount(run, key, items)),
  );
  const accountItems = [...accounts.values()];
  const unrecorded: Promise<void>[] = [];
  outcomes.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') return;
    for (const item of accountItems[index] ?? []) {
      run.tally.fail(item.sub, outcome.reason);
      unrecorded.push(recordOutcome(run, item, 'failed'));
    }
  });
  await Promise.all([...unrecorded, ...run.deliveries]);
}

/**
 * Reads what the account's reports need (issues, stats, services) once, then starts their posting.
 * Past the deadline the reports are left due; a token that is missing or that the API rejects
 * pauses the account's subscriptions instead.
 */
async function fetchAccount(run: TickRun, key: string, items: Claimed[]): Promise<void> {
  const { deps, tally } = run;
  const first = items[0];
  if (!first) return;
  if (pastDeadline(run.options)) {
    await Promise.all(items.map((item) => leaveDue(run, item)));
    return;
  }
  const account: TokenAccount = { team: first.sub.team, owner: first.sub.owner, profile: first.sub.profile };
  const pause = async (problem: TokenProblem) => {
    const affected = await pauseForTokenProblem(run.notices, account, problem);
    tally.paused.push({ ...account, problem, subscriptions: affected.length });
  };

  const lookup = await deps.store.tokenLinks.getToken(account.team, account.owner, account.profile);
  if (lookup.status !== 'found') return pause(lookup.status === 'invalid' ? 'rejected' : 'unlinked');

  const client = createApiClient(deps.api, lookup.token, {
    observe: (event) => {
      tally.countApiCall(key, event.operationId);
      deps.onApiCall?.(key, event);
    },
  });
  const feed = new AccountFeed(client);
  // Each kind starts what it reads for its reports of the account; the feed reads each once.
  const byKind = new Map<ReportKind, ReportSubscription[]>();
  for (const { sub } of items) byKind.set(sub.kind, [...(byKind.get(sub.kind) ?? []), sub]);
  const reads = await Promise.allSettled(
    [...byKind].flatMap(([kind, subs]) => reportKindOf(kind).prefetch(feed, subs, run.now)),
  );
  if (reads.some((read) => read.status === 'rejected' && isApiError(read.reason, 'unauthorized'))) {
    return pause('rejected');
  }
  // Service labels name the affected services of a digest (read with its issues above), and of
  // alerts when there is news.
  const alerting = items.filter(
    ({ sub }) => reportKindOf(sub.kind).servicesWhenNewIssues && sub.lastRun !== null,
  );
  if (alerting.length > 0) {
    const issues = await feed.issues().catch(() => []);
    if (alerting.some(({ sub }) => issues.some((issue) => !sub.seenIssueIds.has(issue.id)))) {
      await feed.services();
    }
  }

  // The account's slot is free once its data is in: posting is paced per channel, not per account.
  run.deliveries.push(deliverAccount(run, key, items, feed, lookup.link));
}

/** Posts each of the account's reports to its channel, then reminds the owner of a token expiring soon. */
async function deliverAccount(
  run: TickRun,
  key: string,
  items: Claimed[],
  feed: AccountFeed,
  link: TokenLink,
): Promise<void> {
  const context: DeliveryContext = {
    slack: run.deps.slack,
    pacer: run.pacer,
    feed,
    now: run.now,
    charts: new Map<string, Buffer>(),
    claims: run.deps.store.alertClaims,
    snoozes: run.deps.store.alertSnoozes,
    audit: run.deps.store.audit,
    history: run.history,
    deadline: run.options.deadline,
  };
  await Promise.all(items.map((item) => deliverToChannel(run, context, item)));
  await remindOfTokenExpiry(run, key, link);
}

/** One subscription's report: posted, recorded, and its subscription paused if the channel refused it. */
async function deliverToChannel(run: TickRun, context: DeliveryContext, item: Claimed): Promise<void> {
  let result: DeliveryResult;
  try {
    const deliver = await reportKindOf(item.sub.kind).deliverer();
    result = await deliver(context, item.sub);
  } catch (error) {
    run.tally.fail(item.sub, error);
    await recordOutcome(run, item, 'failed');
    // Recorded first: the pause takes the subscription off the schedule the record moves.
    return pauseIfChannelRefused(run, item.sub, error);
  }
  run.tally.delivered(item.sub, result);
  await recordOutcome(run, item, result.error === undefined ? 'ok' : 'failed', result);
  await pauseIfChannelRefused(run, item.sub, result.error);
}

async function remindOfTokenExpiry(run: TickRun, key: string, link: TokenLink): Promise<void> {
  try {
    if (await remindOfExpiry(run.notices, link, run.now)) run.tally.expiryReminders += 1;
  } catch (error) {
    // The reports went out; a reminder that could not be claimed is tried again next run.
    run.deps.logger.warn('expiry reminder failed', { account: key, reason: failureReason(error) });
  }
}

/**
 * Stores how the run went. The schedule moved when the subscription was claimed; a run cut off by
 * the deadline moves it back to when it was due, so the next run picks it up again.
 */
async function recordOutcome(
  run: TickRun,
  item: Claimed,
  status: 'ok' | 'failed',
  result?: DeliveryResult,
): Promise<void> {
  if (result?.unfinished) run.tally.leftDue += 1;
  const saved = await recordRun(run.deps, item.sub, item.next, run.now, status, result);
  if (saved !== true) run.tally.fail(item.sub, saved.error, saved.step);
}

/** Claimed but not started before the deadline: due again at once, nothing else recorded. */
async function leaveDue(run: TickRun, item: Claimed): Promise<void> {
  run.tally.leftDue += 1;
  try {
    if (!(await run.deps.store.reports.advance({ ...item.sub, nextRunAt: item.next }, item.sub.nextRunAt))) {
      run.tally.fail(item.sub, new SubscriptionChangedError(), 'run_record');
    }
  } catch (error) {
    run.tally.fail(item.sub, error, 'run_record');
  }
}

/** A channel that refuses the bot's posts pauses the subscription (see `channel-notices.ts`). */
async function pauseIfChannelRefused(run: TickRun, sub: ReportSubscription, error: unknown): Promise<void> {
  const refusal = channelRefusalOf(error);
  if (refusal === undefined) return;
  try {
    if (await pauseForChannelProblem(run.notices, sub, refusal)) run.tally.channelPauses += 1;
  } catch (pauseError) {
    run.tally.fail(sub, pauseError, 'run_record');
  }
}

const NO_WATCHES_CHECKED: WatchTickSummary = { running: 0, checked: 0, updated: 0, finished: 0, failures: 0 };

/** The status watches, after the reports; one that fails to run at all counts as one failure. */
async function checkStatusWatches(run: TickRun): Promise<WatchTickSummary> {
  // Watches are checked again next run; past the deadline they would only eat the final margin.
  if (pastDeadline(run.options)) return { ...NO_WATCHES_CHECKED };
  return run.deps.surface.statusWatches(run.pacer, run.now).catch((error: unknown): WatchTickSummary => {
    run.deps.logger.error('status watches failed', { reason: failureReason(error) });
    return { ...NO_WATCHES_CHECKED, failures: 1 };
  });
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
      {
        lastRunAt: now,
        lastRunStatus: status,
        ...(seenIssueIds ? { seenIssueIds } : {}),
        ...(result?.eventsSeenAt === undefined ? {} : { eventsSeenAt: result.eventsSeenAt }),
        ...(result?.seenKeys === undefined ? {} : { seenKeys: result.seenKeys }),
      },
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
