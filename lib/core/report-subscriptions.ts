import type { Logger } from '@aws-lambda-powertools/logger';
import { type ApiSettings, createApiClient } from '../api/client-factory.js';
import { isApiError } from '../api/errors.js';
import type { ChannelRefusal } from '../changes/ports.js';
import { AccountFeed, apiDateTime } from '../reports/account-feed.js';
import type { DeliveryContext } from '../reports/deliver.js';
import { failureReason } from '../reports/failures.js';
import type { SlackInstallKind } from '../reports/history-budget.js';
import { type ProbeResult, reportKindOf } from '../reports/kinds.js';
import { ChannelPacer } from '../reports/pacer.js';
import { firstRunAt, nextRunAfter } from '../reports/schedule.js';
import type { SubscriptionFailure } from '../reports/tick.js';
import { type NoticeDeps, pauseForTokenProblem } from '../reports/token-notices.js';
import type { ReportKind, ReportSchedule, ReportSubscription, Store } from '../store/index.js';
import { type ReportFilter, type ReportNoise, ReportNoiseSchema } from '../store/report-subscriptions.js';
import { type AdminDeps, isPolicyAdmin } from './admins.js';
import type { Caller } from './caller.js';

/**
 * A channel's report subscriptions (the managed issues digest, new-issue alerts, the stats chart,
 * account events) and who may change them. A subscription runs with the linked token of the
 * person who added it, so adding one proves that token may read what the report reads; its owner
 * or a policy admin may pause, resume or remove it; anyone in its channel may run it now. What a
 * run posts is `lib/reports/`'s; when and whether it runs is decided here.
 */

/** More than this in one channel is more likely a mistake than a wish. */
export const MAX_SUBSCRIPTIONS_PER_CHANNEL = 20;

export interface ReportSubscriptionDeps extends AdminDeps {
  readonly store: Store;
  readonly api: ApiSettings;
  readonly logger: Logger;
  /** How long the probe of `addReport` may wait for the API: the surface answers within it. */
  readonly inlineBudgetMs: number;
}

/** Whether the surface can post a channel's reports, joining it when it may. */
export type ReportChannelAccess =
  /** It can post there (or could not tell: the first run will). */
  | { readonly kind: 'open' }
  /** It has just joined the channel to post there. */
  | { readonly kind: 'joined' }
  | { readonly kind: 'refused'; readonly refusal: ChannelRefusal };

/** Where the reports are posted, as the core asks it of the surface. */
export interface ReportChannels {
  /** Asked before a subscription is stored or resumed: a channel that refuses would only collect failed runs. */
  canPostReports(channel: string): Promise<ReportChannelAccess>;
}

/** Whether a token's scopes (space-separated, `*` for all) let it read what the report kind reads. */
export function scopesCoverReports(scopes: string, kind: ReportKind): boolean {
  const covering = reportKindOf(kind).scopes;
  return scopes.split(/\s+/).some((scope) => covering.includes(scope));
}

// ---------------------------------------------------------------------------------------------
// add

export interface AddReportRequest {
  readonly kind: ReportKind;
  readonly schedule: ReportSchedule;
  readonly filter: ReportFilter;
}

export type AddReportOutcome =
  /** The caller has no linked token to run the report with. */
  | { readonly kind: 'no_token' }
  /** The API rejected the caller's token before (the link is marked invalid). */
  | { readonly kind: 'token_invalid'; readonly profile: string }
  /** The token's scopes do not cover what the kind reads; nothing was asked of the API. */
  | { readonly kind: 'scope_missing'; readonly profile: string; readonly scopes: string }
  | { readonly kind: 'channel_full'; readonly count: number }
  /** The API answered the probe with 401: the link is marked invalid now. */
  | { readonly kind: 'token_rejected' }
  /** The API answered the probe with 403: the token may not read what the kind reads. */
  | { readonly kind: 'api_refused' }
  | { readonly kind: 'channel_refused'; readonly refusal: ChannelRefusal }
  | {
      readonly kind: 'subscribed';
      readonly subscription: ReportSubscription;
      /** The surface joined the channel to post the report there. */
      readonly joined: boolean;
      /** Kinds that learn first: what the first run takes as seen, when that was recorded now. */
      readonly primed: readonly number[] | undefined;
    };

/**
 * Subscribes the caller's channel to a report that runs with the caller's linked token. Nothing is
 * stored unless the token may read what the report reads (its scopes, then one read of the API)
 * and the surface can post in the channel.
 */
export async function addReport(
  deps: ReportSubscriptionDeps & { readonly channels: ReportChannels },
  caller: Caller,
  request: AddReportRequest,
): Promise<AddReportOutcome> {
  const spec = reportKindOf(request.kind);
  const lookup = await deps.store.tokenLinks.getToken(caller.team, caller.user);
  if (lookup.status === 'missing') return { kind: 'no_token' };
  if (lookup.status === 'invalid') return { kind: 'token_invalid', profile: lookup.link.profile };
  const { link, token } = lookup;
  if (link.scopes !== 'unknown' && !scopesCoverReports(link.scopes, request.kind)) {
    return { kind: 'scope_missing', profile: link.profile, scopes: link.scopes };
  }
  const count = (await deps.store.reports.list(caller.team, { channel: caller.channel })).length;
  if (count >= MAX_SUBSCRIPTIONS_PER_CHANNEL) return { kind: 'channel_full', count };

  // One read now: it proves the token may read what the report reads before anything is stored,
  // and gives kinds that learn first what is already there (open issues, the newest event).
  const probe = await probeReport(deps, caller, request.kind, token, link.profile);
  if (probe.kind === 'rejected') return { kind: 'token_rejected' };
  if (probe.kind === 'forbidden') return { kind: 'api_refused' };

  const access = await deps.channels.canPostReports(caller.channel);
  if (access.kind === 'refused') return { kind: 'channel_refused', refusal: access.refusal };

  const now = deps.store.now();
  const created = await deps.store.reports.create({
    team: caller.team,
    kind: request.kind,
    channel: caller.channel,
    owner: caller.user,
    profile: link.profile,
    schedule: request.schedule,
    nextRunAt: firstRunAt(request.schedule, now),
    filter: request.filter,
  });
  const primed =
    spec.learnsOpenIssuesFirst && probe.kind === 'read' ? await prime(deps, created, probe, now) : undefined;
  return { kind: 'subscribed', subscription: created, joined: access.kind === 'joined', primed };
}

type Probe =
  /** What a first run would learn without posting (see the kind's `probe`). */
  | ({ readonly kind: 'read' } & ProbeResult)
  /** The API did not answer in time: subscribe anyway, the first run will tell. */
  | { readonly kind: 'unknown' }
  | { readonly kind: 'rejected' }
  | { readonly kind: 'forbidden' };

async function probeReport(
  deps: ReportSubscriptionDeps,
  caller: Caller,
  kind: ReportKind,
  token: string,
  profile: string,
): Promise<Probe> {
  const client = createApiClient(deps.api, token, { timeoutMs: deps.inlineBudgetMs, maxRetries: 0 });
  try {
    return { kind: 'read', ...(await reportKindOf(kind).probe(new AccountFeed(client), deps.store.now())) };
  } catch (error) {
    if (isApiError(error, 'unauthorized')) {
      await deps.store.tokenLinks.markInvalid(caller.team, caller.user, profile);
      return { kind: 'rejected' };
    }
    if (isApiError(error, 'forbidden')) return { kind: 'forbidden' };
    return { kind: 'unknown' };
  }
}

/**
 * Records what the probe saw as the first run's, so the first run posts only what is new. The
 * subscription exists now: a failed write must not turn into "nothing changed"; unprimed, the
 * first run takes what is there as seen instead. Returns the ids recorded, or undefined.
 */
async function prime(
  deps: ReportSubscriptionDeps,
  created: ReportSubscription,
  probe: ProbeResult,
  now: Date,
): Promise<readonly number[] | undefined> {
  const next = nextRunAfter(created.schedule, created.nextRunAt, now);
  const saved = await deps.store.reports
    .advance(created, next, {
      lastRunAt: now,
      lastRunStatus: 'ok',
      seenIssueIds: probe.seen,
      ...(probe.eventsSeenAt && { eventsSeenAt: apiDateTime(probe.eventsSeenAt.getTime()) }),
      ...(probe.seenKeys && { seenKeys: probe.seenKeys }),
    })
    .catch((error: unknown) => {
      deps.logger.warn('what is there already not recorded for a new subscription', {
        kind: created.kind,
        error,
      });
      return false;
    });
  return saved ? probe.seen : undefined;
}

// ---------------------------------------------------------------------------------------------
// list

/** The subscriptions of the caller's channel, oldest first. */
export async function listReports(
  deps: Pick<ReportSubscriptionDeps, 'store'>,
  caller: Caller,
): Promise<ReportSubscription[]> {
  const subs = await deps.store.reports.list(caller.team, { channel: caller.channel });
  return subs.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
}

// ---------------------------------------------------------------------------------------------
// remove, pause, resume, run

/**
 * Which report a change is for: `typed`, its id or the first characters of it (lists show 8) as
 * the person typed it in a channel; `id`, its whole id as something showing that report carries
 * it (a Home button), which acts as if typed in the report's own channel.
 */
export type ReportRef = { readonly typed: string } | { readonly id: string };

/** Why no one report was found. */
export type ReportNotFound =
  /** What was typed is not (the start of) a report id. */
  | { readonly kind: 'not_an_id' }
  /** `id`: what was looked for, as it was compared (trimmed, lower case). */
  | { readonly kind: 'not_found'; readonly id: string }
  | { readonly kind: 'ambiguous'; readonly id: string };

/** Neither the report's owner nor a policy admin. */
export interface NotAllowed {
  readonly kind: 'not_allowed';
  readonly subscription: ReportSubscription;
}

/** Why the report's token cannot run it. */
export type ReportTokenProblem =
  /** The owner's link of the report's profile is gone (logged out, or the token expired). */
  | { readonly kind: 'unlinked' }
  /** The API rejected that token. */
  | { readonly kind: 'rejected' }
  /** Its scopes do not cover what the report reads. */
  | { readonly kind: 'scope_missing'; readonly scopes: string };

export type RemoveReportOutcome =
  | ReportNotFound
  | NotAllowed
  | { readonly kind: 'removed'; readonly subscription: ReportSubscription };

export type PauseReportOutcome =
  | ReportNotFound
  | NotAllowed
  | { readonly kind: 'already_paused'; readonly subscription: ReportSubscription }
  | { readonly kind: 'paused'; readonly subscription: ReportSubscription };

export type ResumeReportOutcome =
  | ReportNotFound
  | NotAllowed
  | { readonly kind: 'not_paused'; readonly subscription: ReportSubscription }
  | {
      readonly kind: 'token_problem';
      readonly subscription: ReportSubscription;
      readonly problem: ReportTokenProblem;
    }
  /** The report's channel refuses the surface's posts: it stays paused. */
  | {
      readonly kind: 'channel_refused';
      readonly subscription: ReportSubscription;
      readonly refusal: ChannelRefusal;
    }
  | { readonly kind: 'resumed'; readonly subscription: ReportSubscription; readonly nextRunAt: Date };

export type RunReportOutcome =
  | ReportNotFound
  /** A report is run from the channel it posts in, where its posts will show. */
  | { readonly kind: 'elsewhere'; readonly subscription: ReportSubscription }
  | { readonly kind: 'is_paused'; readonly subscription: ReportSubscription }
  | {
      readonly kind: 'token_problem';
      readonly subscription: ReportSubscription;
      readonly problem: ReportTokenProblem;
    }
  /** Everything that can be checked at once holds: the surface hands the run to `runReportJob`. */
  | { readonly kind: 'may_run'; readonly subscription: ReportSubscription };

/** A report id, or the start of one, as typed. */
const REPORT_ID_START = /^[0-9a-f-]{4,36}$/;

/** The caller's team's one subscription `ref` names. */
async function findReport(
  deps: Pick<ReportSubscriptionDeps, 'store'>,
  caller: Caller,
  ref: ReportRef,
): Promise<{ readonly kind: 'found'; readonly subscription: ReportSubscription } | ReportNotFound> {
  if ('id' in ref) {
    const subscription = await deps.store.reports.get(caller.team, ref.id);
    return subscription ? { kind: 'found', subscription } : { kind: 'not_found', id: ref.id };
  }
  const wanted = ref.typed.trim().toLowerCase();
  if (!REPORT_ID_START.test(wanted)) return { kind: 'not_an_id' };
  const matches = (await deps.store.reports.list(caller.team)).filter((sub) => sub.id.startsWith(wanted));
  const [subscription] = matches;
  if (!subscription) return { kind: 'not_found', id: wanted };
  if (matches.length > 1) return { kind: 'ambiguous', id: wanted };
  return { kind: 'found', subscription };
}

/** The owner and the policy admins (`isPolicyAdmin`) may change a subscription. */
async function mayChange(
  deps: ReportSubscriptionDeps,
  caller: Caller,
  sub: ReportSubscription,
): Promise<boolean> {
  if (sub.owner === caller.user) return true;
  return isPolicyAdmin(deps, caller, await deps.store.approvalPolicy.get(caller.team));
}

/** The report the caller names, when they may change it. */
async function findChangeable(
  deps: ReportSubscriptionDeps,
  caller: Caller,
  ref: ReportRef,
): Promise<
  { readonly kind: 'found'; readonly subscription: ReportSubscription } | ReportNotFound | NotAllowed
> {
  const found = await findReport(deps, caller, ref);
  if (found.kind !== 'found') return found;
  if (!(await mayChange(deps, caller, found.subscription)))
    return { kind: 'not_allowed', subscription: found.subscription };
  return found;
}

export async function removeReport(
  deps: ReportSubscriptionDeps,
  caller: Caller,
  request: { readonly report: ReportRef },
): Promise<RemoveReportOutcome> {
  const found = await findChangeable(deps, caller, request.report);
  if (found.kind !== 'found') return found;
  await deps.store.reports.delete(caller.team, found.subscription.id);
  return { kind: 'removed', subscription: found.subscription };
}

export async function pauseReport(
  deps: ReportSubscriptionDeps,
  caller: Caller,
  /** `reason`: why, as the report's lists will show it, in the surface's words. */
  request: { readonly report: ReportRef; readonly reason: string },
): Promise<PauseReportOutcome> {
  const found = await findChangeable(deps, caller, request.report);
  if (found.kind !== 'found') return found;
  const { subscription } = found;
  if (subscription.paused) return { kind: 'already_paused', subscription };
  await deps.store.reports.pause(caller.team, subscription.id, request.reason);
  return { kind: 'paused', subscription };
}

/**
 * Resumes a paused report from its schedule's next run after now, unless its token could not run
 * it or its channel refuses the surface's posts: either would only pause it again.
 */
export async function resumeReport(
  deps: ReportSubscriptionDeps & { readonly channels: ReportChannels },
  caller: Caller,
  request: { readonly report: ReportRef },
): Promise<ResumeReportOutcome> {
  const found = await findChangeable(deps, caller, request.report);
  if (found.kind !== 'found') return found;
  const { subscription } = found;
  if (!subscription.paused) return { kind: 'not_paused', subscription };
  const problem = await tokenProblem(deps, subscription);
  if (problem) return { kind: 'token_problem', subscription, problem };
  const access = await deps.channels.canPostReports(subscription.channel);
  if (access.kind === 'refused') return { kind: 'channel_refused', subscription, refusal: access.refusal };
  const nextRunAt = firstRunAt(subscription.schedule, deps.store.now());
  await deps.store.reports.resume(caller.team, subscription.id, nextRunAt);
  return { kind: 'resumed', subscription, nextRunAt };
}

// ---------------------------------------------------------------------------------------------
// noise: quiet hours, bursts, flapping

/** A change of some of a report's noise settings; what is left out stays as it is. */
export type ReportNoiseChange = Partial<ReportNoise>;

export type SetReportNoiseOutcome =
  | ReportNotFound
  | NotAllowed
  /** Only kinds that post each new item (alerts, events) can be held, grouped or counted. */
  | { readonly kind: 'not_applicable'; readonly subscription: ReportSubscription }
  /** Nothing was stored; `problems` names each setting that is wrong (`burstAt: …`). */
  | { readonly kind: 'invalid'; readonly problems: readonly string[] }
  /** Removed while being changed. */
  | { readonly kind: 'gone'; readonly subscription: ReportSubscription }
  | {
      readonly kind: 'changed';
      readonly subscription: ReportSubscription;
      readonly before: ReportNoise;
    };

/**
 * Changes a report's quiet hours, burst size or flapping window, by the rule of every change of a
 * report: its owner or a policy admin. The whole result is checked before anything is written.
 */
export async function setReportNoise(
  deps: ReportSubscriptionDeps,
  caller: Caller,
  request: { readonly report: ReportRef; readonly change: ReportNoiseChange },
): Promise<SetReportNoiseOutcome> {
  const found = await findChangeable(deps, caller, request.report);
  if (found.kind !== 'found') return found;
  const { subscription } = found;
  if (!reportKindOf(subscription.kind).eachNew) return { kind: 'not_applicable', subscription };
  const merged = ReportNoiseSchema.safeParse({ ...subscription.noise, ...request.change });
  if (!merged.success) {
    return {
      kind: 'invalid',
      problems: merged.error.issues.map((issue) =>
        issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
      ),
    };
  }
  const changed = await deps.store.reports.setNoise(caller.team, subscription.id, merged.data);
  if (!changed) return { kind: 'gone', subscription };
  return { kind: 'changed', subscription: changed, before: subscription.noise };
}

/**
 * What can be checked at once before a report is run outside its schedule; the run itself
 * (`runReportJob`) is the worker's, since posting goes at one message a second per channel.
 */
export async function checkReportRun(
  deps: Pick<ReportSubscriptionDeps, 'store'>,
  caller: Caller,
  request: { readonly report: ReportRef },
): Promise<RunReportOutcome> {
  const found = await findReport(deps, caller, request.report);
  if (found.kind !== 'found') return found;
  const { subscription } = found;
  if ('typed' in request.report && subscription.channel !== caller.channel)
    return { kind: 'elsewhere', subscription };
  if (subscription.paused) return { kind: 'is_paused', subscription };
  const problem = await tokenProblem(deps, subscription);
  if (problem) return { kind: 'token_problem', subscription, problem };
  return { kind: 'may_run', subscription };
}

/** Why the subscription's token cannot run it, or undefined when it can. */
async function tokenProblem(
  deps: Pick<ReportSubscriptionDeps, 'store'>,
  sub: ReportSubscription,
): Promise<ReportTokenProblem | undefined> {
  const link = await deps.store.tokenLinks.getLink(sub.team, sub.owner, sub.profile);
  if (!link) return { kind: 'unlinked' };
  if (link.status === 'invalid') return { kind: 'rejected' };
  if (link.scopes !== 'unknown' && !scopesCoverReports(link.scopes, sub.kind)) {
    return { kind: 'scope_missing', scopes: link.scopes };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// the run the worker makes

/** The worker's Lambda times out at 120 s; the run stops posting well before, the rest waits for the schedule. */
const RUN_NOW_BUDGET_MS = 90_000;

export interface ReportRunDeps {
  readonly store: Store;
  readonly api: ApiSettings;
  readonly logger: Logger;
  /** What the report is posted through (the deliverers' and the pause notices'). */
  readonly slack: DeliveryContext['slack'];
  /** Which of Slack's history limits apply (`lib/reports/history-budget.ts`); the stricter when unknown. */
  readonly slackInstall?: SlackInstallKind | undefined;
  /** Publishes these people's Homes again, when a rejected token pauses their reports. */
  readonly refreshHomes: NoticeDeps['refreshHomes'];
}

/** A run handed off after `checkReportRun`; `correlationId` ties its logs to the request. */
export interface ReportRunRequest {
  readonly team: string;
  readonly subscriptionId: string;
  readonly correlationId: string;
}

/**
 * How a run outside the schedule ended. Every kind but `gone` carries the report as loaded before
 * the run (`failed` when it got that far), so the surface knows whose Home shows its last run.
 */
export type ReportRunOutcome =
  /** Removed before it could run. */
  | { readonly kind: 'gone' }
  | { readonly kind: 'is_paused'; readonly subscription: ReportSubscription }
  /** Its token could not be read; `problem` undefined when the link now looks usable again. */
  | {
      readonly kind: 'token_problem';
      readonly subscription: ReportSubscription;
      readonly problem: ReportTokenProblem | undefined;
    }
  | {
      readonly kind: 'posted';
      readonly subscription: ReportSubscription;
      /** Kinds that post each new item once: how many this run posted. */
      readonly alerted: number;
      /** Stopped by the run's deadline with items left for the next scheduled run. */
      readonly unfinished: boolean;
      /** What the run could not record (the next run checks the channel before posting again). */
      readonly notSaved: readonly SubscriptionFailure[];
    }
  /** The API timed out or failed: the schedule is moved to now, so the next tick posts it. */
  | { readonly kind: 'api_slow'; readonly subscription: ReportSubscription }
  /** The API rejected the token: every report running with it is paused (`paused` of them). */
  | { readonly kind: 'token_rejected'; readonly subscription: ReportSubscription; readonly paused: number }
  /** Posting failed; `reason` is a short code (`failureReason`), never a message that could carry a token. */
  | { readonly kind: 'not_posted'; readonly subscription: ReportSubscription; readonly reason: string }
  /** The run itself failed (storage, say), with the report if it was loaded before. */
  | {
      readonly kind: 'failed';
      readonly subscription: ReportSubscription | undefined;
      readonly reason: string;
    };

/**
 * The worker's half of running a report now: posts it outside its schedule (which stays as it
 * is), alerts under the same claims as the scheduled runs, so a run racing this one never posts
 * an issue twice. Never throws.
 */
export async function runReportJob(
  deps: ReportRunDeps,
  request: ReportRunRequest,
): Promise<ReportRunOutcome> {
  let sub: ReportSubscription | undefined;
  try {
    sub = await deps.store.reports.get(request.team, request.subscriptionId);
    if (!sub) return { kind: 'gone' };
    if (sub.paused) return { kind: 'is_paused', subscription: sub };
    return await runReport(deps, request, sub);
  } catch (error) {
    const reason = failureReason(error);
    deps.logger.error('report run failed', { correlationId: request.correlationId, reason });
    return { kind: 'failed', subscription: sub, reason };
  }
}

async function runReport(
  deps: ReportRunDeps,
  request: ReportRunRequest,
  sub: ReportSubscription,
): Promise<ReportRunOutcome> {
  const lookup = await deps.store.tokenLinks.getToken(sub.team, sub.owner, sub.profile);
  if (lookup.status !== 'found')
    return { kind: 'token_problem', subscription: sub, problem: await tokenProblem(deps, sub) };

  const now = deps.store.now();
  const feed = new AccountFeed(createApiClient(deps.api, lookup.token));
  const pacer = new ChannelPacer();
  try {
    // Loaded on first use: the chart code is not needed by any other command.
    const [deliver, { recordRunNow }, { HistoryBudget }] = await Promise.all([
      reportKindOf(sub.kind).deliverer(),
      import('../reports/tick.js'),
      import('../reports/history-budget.js'),
    ]);
    const result = await deliver(
      {
        slack: deps.slack,
        pacer,
        feed,
        now,
        charts: new Map(),
        claims: deps.store.alertClaims,
        snoozes: deps.store.alertSnoozes,
        audit: deps.store.audit,
        history: new HistoryBudget(deps.slackInstall ?? 'distributed'),
        deadline: Date.now() + RUN_NOW_BUDGET_MS,
      },
      sub,
    );
    const notSaved = result.seenIssueIds ? await recordRunNow(deps, sub, now, result) : [];
    for (const failure of notSaved) {
      deps.logger.warn('report progress not saved', { ...failure, correlationId: request.correlationId });
    }
    if (result.error !== undefined) throw result.error;
    return {
      kind: 'posted',
      subscription: sub,
      alerted: result.alerted?.length ?? 0,
      unfinished: result.unfinished === true,
      notSaved,
    };
  } catch (error) {
    if (isApiError(error, 'timeout') || isApiError(error, 'network') || isApiError(error, 'server_error')) {
      await deps.store.reports.advance(sub, now);
      return { kind: 'api_slow', subscription: sub };
    }
    if (isApiError(error, 'unauthorized')) {
      const paused = await pauseForTokenProblem(
        { store: deps.store, slack: deps.slack, pacer, logger: deps.logger, refreshHomes: deps.refreshHomes },
        { team: sub.team, owner: sub.owner, profile: sub.profile },
        'rejected',
      );
      return { kind: 'token_rejected', subscription: sub, paused: paused.length };
    }
    const reason = failureReason(error);
    deps.logger.warn('report run failed', {
      subscription: sub.id,
      correlationId: request.correlationId,
      reason,
    });
    return { kind: 'not_posted', subscription: sub, reason };
  }
}
