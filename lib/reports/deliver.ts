import type { WebClient } from '@slack/web-api';
import * as z from 'zod';
import type { ManagedIssue } from '../api/operations/managed.js';
import type { RenderedMessage } from '../slack-kit/blocks.js';
import { rateLimitedFor } from '../slack-kit/slack-refusals.js';
import { withoutRetries } from '../slack-kit/web-client.js';
import type { AlertClaim, AlertClaimRepository } from '../store/alert-claims.js';
import type { AlertSnoozeRepository, SnoozeTarget } from '../store/alert-snoozes.js';
import type { AuditLogRepository } from '../store/audit-log.js';
import type { OnFirstUse } from '../store/lazy.js';
import type { ReportSubscription } from '../store/report-subscriptions.js';
import type { AccountFeed } from './account-feed.js';
import { renderStatsChart } from './chart.js';
import type { HistoryBudget } from './history-budget.js';
import { type ChannelPacer, certainlyNotPosted, RunDeadlineError, type SendOptions } from './pacer.js';
import { inQuietHours, quietHoursJustEnded, quietHoursText } from './quiet-hours.js';
import {
  type AlertGroupReason,
  type KnownServices,
  renderAlertGroup,
  renderIssueAlert,
  renderIssueReopened,
  renderIssuesDigest,
  renderStatsReport,
  statsFileName,
} from './render.js';
import '../zod-settings.js';

/**
 * Runs one subscription's report against its account's feed and posts it: the digest, the alerts
 * for issues the subscription has not seen, or the chart with its summary. Posting goes through
 * the pacer, so a channel with several reports gets them a second apart.
 */

export interface DeliveryContext {
  readonly slack: WebClient;
  readonly pacer: ChannelPacer;
  readonly feed: AccountFeed;
  readonly now: Date;
  /** Charts of this account by time zone: subscriptions in the same zone share one picture. */
  readonly charts: Map<string, Buffer>;
  readonly claims: OnFirstUse<AlertClaimRepository>;
  /** What the bot ran, to tell events it made from those made outside it. */
  readonly audit: Pick<AuditLogRepository, 'list'>;
  /** The run's allowance of channel-history reads, for the in-doubt checks (Slack's limits by install). */
  readonly history: HistoryBudget;
  /** Epoch ms (wall clock) by which the run stops posting; what is left waits for the next run. */
  readonly deadline?: number | undefined;
  /** Alerts: the snoozes people set from alerts; none are read without it. */
  readonly snoozes?: Pick<AlertSnoozeRepository, 'active'> | undefined;
}

export interface DeliveryResult {
  readonly messages: number;
  readonly files: number;
  /**
   * The issue ids to remember as seen. Alerts: those still open that were seen, plus the ones just
   * posted. Digests: the issues this digest listed, so the next one marks what is new.
   */
  readonly seenIssueIds?: readonly number[];
  /** Events: the newest done event's `created`, from which the next run reads (less a margin). */
  readonly eventsSeenAt?: string;
  /** What a kind that follows things by name remembers for its next run (`ReportSubscription.seenKeys`). */
  readonly seenKeys?: readonly string[];
  /** Alerts and events: the issues or events posted by this run. */
  readonly alerted?: readonly number[];
  /** Set when the run failed part-way: what was posted before is still counted above. */
  readonly error?: unknown;
  /** Alerts: stopped by the run's deadline with alerts left, which the next run posts. */
  readonly unfinished?: boolean;
  /** Alerts: claim writes that failed after the post went out or was refused. */
  readonly notSaved?: readonly UnsavedWrite[];
}

/** One report message to `channel`, paced and within the run's deadline. */
async function post(ctx: DeliveryContext, channel: string, message: RenderedMessage): Promise<void> {
  await ctx.pacer.send(
    channel,
    () =>
      ctx.slack.chat.postMessage({
        channel,
        text: message.text,
        blocks: message.blocks,
        unfurl_links: false,
      }),
    deadlineOption(ctx),
  );
}

export async function deliverDigest(ctx: DeliveryContext, sub: ReportSubscription): Promise<DeliveryResult> {
  const [issues, services] = await Promise.all([ctx.feed.issues(), ctx.feed.services()]);
  const previous = sub.lastRun === null ? undefined : sub.seenIssueIds;
  await post(ctx, sub.channel, renderIssuesDigest(sub, issues, services, { now: ctx.now, previous }));
  // Remembered so the next digest can mark what is new since this one.
  return { messages: 1, files: 0, seenIssueIds: issues.map((issue) => issue.id) };
}

/** Oldest first, so the channel reads in the order things went wrong. */
function byCreation(a: ManagedIssue, b: ManagedIssue): number {
  return a.created.localeCompare(b.created) || a.id - b.id;
}

/**
 * A subscription that never ran only learns what is open: alerts are for issues that appear after
 * subscribing. Afterwards each issue not seen before is posted once, oldest first, each under its
 * own claim (`lib/store/alert-claims.ts`) so that overlapping runs never post one twice:
 *
 * 1. Claim the (subscription, issue) alert. Held by another run: posted already (remember it as
 *    seen) or being posted right now (leave it; that run remembers it, or the next run will).
 * 2. Post it with a marker (Slack message metadata naming the subscription and the issue), then
 *    mark the claim posted.
 * 3. A claim left `posting` beyond its lease means a run died or lost Slack's answer between 1
 *    and 2: the alert is in doubt. The run that takes the claim over reads the channel's history
 *    for the marker; found, the claim is marked posted, otherwise the alert is posted now.
 *
 * An issue posted before and no longer listed is closed (the API's issue has no state of its own):
 * its claim records when. Listed again within the subscription's flapping window, it is told once
 * per reopening in the alert's thread; after the window, it is alerted again (`tellReopened`).
 *
 * Slack refusing a post (an error answer, a 429) means nothing was posted: the claim is released
 * for the next run. A post whose answer is lost, and the run's deadline, leave the claim as it is,
 * and the run stops: so a run leaves at most one alert in doubt. Issues left over stay unseen and
 * the next run carries on with them.
 */
export async function deliverAlerts(ctx: DeliveryContext, sub: ReportSubscription): Promise<DeliveryResult> {
  const open = await ctx.feed.issues();
  const openIds = open.map((issue) => issue.id);
  if (sub.lastRun === null) return { messages: 0, files: 0, seenIssueIds: openIds, alerted: [] };

  // Closings not recorded stay seen, so the next run records them.
  const unrecorded = await recordClosings(ctx, sub, openIds);
  const stillOpenSeen = [...openIds.filter((id) => sub.seenIssueIds.has(id)), ...unrecorded];
  const fresh = open.filter((issue) => !sub.seenIssueIds.has(issue.id)).sort(byCreation);
  const nothing = { messages: 0, files: 0, seenIssueIds: stillOpenSeen, alerted: [] };
  // Quiet: the new issues are held, left out of the seen set, for the summary when quiet ends.
  const { quietHours } = sub.noise;
  if (fresh.length === 0 || (quietHours !== null && inQuietHours(quietHours, ctx.now))) return nothing;
  const services = await ctx.feed.services();
  const snoozed = await snoozedIssues(ctx, sub, fresh, services);
  // Passed over under a snooze until resolved: done. Held under a timed one: left unseen, so an
  // issue still open when the snooze ends is posted then, once.
  const unsnoozed = fresh.filter((issue) => !snoozed.has(issue.id));
  const passedOver = fresh.filter((issue) => snoozed.get(issue.id) === 'pass_over').map((issue) => issue.id);
  if (unsnoozed.length === 0) return { ...nothing, seenIssueIds: [...stillOpenSeen, ...passedOver] };
  const flapping = await tellReopened(ctx, sub, unsnoozed);
  const seenBefore = [...stillOpenSeen, ...passedOver, ...flapping.done];
  if (flapping.stopped !== undefined || flapping.rest.length === 0) {
    return {
      messages: flapping.messages,
      files: 0,
      alerted: [],
      ...flapping.stopped,
      seenIssueIds: seenBefore,
    };
  }
  const fresher = flapping.rest;
  const single = (issue: ManagedIssue) => ({
    id: issue.id,
    message: () => renderIssueAlert(sub, issue, services),
  });
  let run: PostRun;
  if (quietHoursJustEnded(quietHours, sub.lastRun.at, ctx.now) && fresher.length > 1) {
    run = await postAlertGroup(ctx, sub, fresher, services, {
      kind: 'quiet',
      hours: quietHoursText(quietHours),
    });
  } else if (fresher.length >= sub.noise.burstAt) {
    run = await postAlertGroup(ctx, sub, fresher, services, { kind: 'burst' });
  } else {
    run = await postEachOnce(ctx, sub, ISSUE_ALERT_MARKER, fresher.map(single));
  }
  return { ...run, messages: run.messages + flapping.messages, seenIssueIds: [...seenBefore, ...run.done] };
}

/**
 * Records on their alert claims that issues seen before are no longer listed: closed, as far as
 * the API says (its issue has no open or closed state). Answers those whose closing could not be
 * recorded (storage failing), to try again next run; issues never alerted have no claim to mark.
 */
async function recordClosings(
  ctx: DeliveryContext,
  sub: ReportSubscription,
  openIds: readonly number[],
): Promise<number[]> {
  const listed = new Set(openIds);
  const unrecorded: number[] = [];
  for (const id of sub.seenIssueIds) {
    if (listed.has(id)) continue;
    try {
      await ctx.claims.recordClosed({ team: sub.team, subscription: sub.id, issue: id });
    } catch {
      unrecorded.push(id);
    }
  }
  return unrecorded;
}

/** What `tellReopened` did: replies posted, issues done with, those left to alert, and why it stopped. */
interface ReopenedRun {
  readonly messages: number;
  readonly done: readonly number[];
  readonly rest: readonly ManagedIssue[];
  readonly stopped?: Partial<DeliveryResult>;
}

const ISSUE_REOPENED_MARKER: PostMarker = { eventType: 'managed_issue_reopened', idField: 'issue' };

/**
 * Issues listed again that were alerted before. Closed within the subscription's flapping window:
 * the claim counts the reopening (once, whichever run gets there first) and the channel is told in
 * the alert's thread, not with a new alert. Closed before the window: the old claim goes and the
 * issue is alerted again as a new occurrence. The reply is taken on in the claim before it is
 * posted, so a run that dies after posting it, or loses Slack's answer, is not followed by a
 * second reply; a run that dies between counting and taking it on leaves the count untold, and the
 * next run tells it. Slack refusing the reply gives it back for the next run.
 */
async function tellReopened(
  ctx: DeliveryContext,
  sub: ReportSubscription,
  fresh: readonly ManagedIssue[],
): Promise<ReopenedRun> {
  const since = new Date(ctx.now.getTime() - sub.noise.flapMinutes * 60_000);
  let messages = 0;
  const done: number[] = [];
  const rest: ManagedIssue[] = [];
  const stop = (stopped: Partial<DeliveryResult>, from: number): ReopenedRun => ({
    messages,
    done,
    rest: [...rest, ...fresh.slice(from)],
    stopped,
  });
  for (const [index, issue] of fresh.entries()) {
    if (ctx.deadline !== undefined && Date.now() >= ctx.deadline) return stop({ unfinished: true }, index);
    const key = { team: sub.team, subscription: sub.id, issue: issue.id };
    let claim: AlertClaim | undefined;
    try {
      claim = await ctx.claims.reopen(key, since);
      if (claim?.status === 'posted' && claim.closedAt !== null) {
        // Back after the window: a new occurrence, claimed and alerted afresh below.
        await ctx.claims.forgetClosed(claim);
        claim = undefined;
      }
    } catch (error) {
      return stop({ error }, index);
    }
    // A posted claim without the message's ts has no thread to tell in: the reopening goes untold.
    if (claim === undefined || claim.status !== 'posted' || !claim.messageTs) {
      rest.push(issue);
      continue;
    }
    const count = claim.reopenCount;
    let taken = false;
    try {
      taken = count > claim.toldCount && (await ctx.claims.takeTelling(key, count));
    } catch (error) {
      return stop({ error }, index);
    }
    if (!taken) {
      done.push(issue.id);
      continue;
    }
    try {
      await postMarked(
        ctx,
        sub,
        ISSUE_REOPENED_MARKER,
        renderIssueReopened(issue.id, count, sub.noise.flapMinutes),
        { issue: issue.id, reopened: count },
        claim.threadTs ?? claim.messageTs,
      );
      messages += 1;
      done.push(issue.id);
    } catch (error) {
      if (!certainlyNotPosted(error)) {
        // Sent, answer lost: told at most once, so it stays taken.
        done.push(issue.id);
        return stop(error instanceof RunDeadlineError ? { unfinished: true } : { error }, index + 1);
      }
      if (!(error instanceof RunDeadlineError) && rateLimitedFor(error) === undefined) {
        // Refused for good (the alert's thread gone, say): this reopening goes untold, rather than
        // its reply being refused again every run ahead of the subscription's new alerts.
        done.push(issue.id);
        continue;
      }
      try {
        await ctx.claims.giveBackTelling(key, count);
      } catch {
        // Left taken: this reopening goes untold rather than told twice.
      }
      return stop(error instanceof RunDeadlineError ? { unfinished: true } : { error }, index);
    }
  }
  return { messages, done, rest };
}

/**
 * The new issues a snooze in force covers (`lib/store/alert-snoozes.ts`): one of the issue itself,
 * or one for each service it affects. A snooze until resolved passes them over for good; a timed
 * one holds them. A service's snooze until resolved ends once the service reports no problem.
 */
async function snoozedIssues(
  ctx: DeliveryContext,
  sub: ReportSubscription,
  fresh: readonly ManagedIssue[],
  services: KnownServices,
): Promise<Map<number, 'hold' | 'pass_over'>> {
  const covered = new Map<number, 'hold' | 'pass_over'>();
  if (ctx.snoozes === undefined) return covered;
  const resolved = (serviceId: number) => {
    const status = services.get(serviceId)?.status;
    return status !== undefined && status !== 'problem';
  };
  const inForce = (await ctx.snoozes.active(sub.team, sub.id, ctx.now)).filter(
    (snooze) => !(snooze.until === null && snooze.target.kind === 'service' && resolved(snooze.target.id)),
  );
  if (inForce.length === 0) return covered;
  const of = (kind: SnoozeTarget['kind'], id: number) =>
    inForce.find((snooze) => snooze.target.kind === kind && snooze.target.id === id);
  for (const issue of fresh) {
    const own = of('issue', issue.id);
    const byService = issue.services.map((id) => of('service', id));
    const applying = own
      ? [own]
      : issue.services.length > 0 && byService.every((snooze) => snooze !== undefined)
        ? byService
        : [];
    if (applying.length === 0) continue;
    covered.set(issue.id, applying.some((snooze) => snooze?.until === null) ? 'pass_over' : 'hold');
  }
  return covered;
}

/** Alerts of one group at most (its message and a reply each); the next run, due at once, goes on. */
export const ALERTS_PER_GROUP = 20;

/**
 * New issues as one message that lists them, each issue's own alert a reply in its thread, every
 * issue still under its own claim (`postGroupOnce`): a run cut off anywhere posts none twice and
 * loses none. More than `ALERTS_PER_GROUP` leave the rest to the next run.
 */
async function postAlertGroup(
  ctx: DeliveryContext,
  sub: ReportSubscription,
  issues: readonly ManagedIssue[],
  services: KnownServices,
  reason: AlertGroupReason,
): Promise<PostRun> {
  const group = issues.slice(0, ALERTS_PER_GROUP);
  const run = await postGroupOnce(ctx, sub, ISSUE_ALERT_MARKER, group, {
    inMessage: 0,
    perReply: 1,
    message: (_shown, all) => renderAlertGroup(sub, all, services, reason),
    reply: ([issue]) => (issue ? renderIssueAlert(sub, issue, services) : { text: '', blocks: [] }),
  });
  return issues.length > group.length && run.error === undefined ? { ...run, unfinished: true } : run;
}

/** What a message posted once is found by in the channel, for the in-doubt check. */
export interface PostMarker {
  /** Slack message metadata's `event_type`. */
  readonly eventType: string;
  /** The payload field that holds the item's id. */
  readonly idField: string;
}

const ISSUE_ALERT_MARKER: PostMarker = { eventType: 'managed_issue_alert', idField: 'issue' };

export type PostRun = Omit<DeliveryResult, 'seenIssueIds'> & {
  /** Ids posted by this run or before it, in the order tried. */
  readonly done: readonly number[];
};

/**
 * Posts each item once, in order, under its own claim, stopping at the first it cannot settle
 * (see `deliverAlerts` for the steps). Messages are drawn only when about to be posted.
 */
export async function postEachOnce(
  ctx: DeliveryContext,
  sub: ReportSubscription,
  marker: PostMarker,
  items: readonly { readonly id: number; readonly message: () => RenderedMessage }[],
): Promise<PostRun> {
  const alerted: number[] = [];
  const done: number[] = [];
  const notSaved: UnsavedWrite[] = [];
  const foundGroups: FoundGroup[] = [];
  const result = (extra: Partial<DeliveryResult> = {}): PostRun => ({
    messages: alerted.length,
    files: 0,
    done,
    alerted,
    ...(notSaved.length > 0 ? { notSaved } : {}),
    ...extra,
  });
  for (const item of items) {
    if (ctx.deadline !== undefined && Date.now() >= ctx.deadline) return result({ unfinished: true });
    let outcome: AlertOutcome;
    try {
      outcome = await alertOnce(ctx, sub, marker, item.id, item.message(), notSaved, foundGroups);
    } catch (error) {
      // The claim or the history read failed: this one was not posted.
      return result({ error });
    }
    switch (outcome.kind) {
      case 'posted':
        alerted.push(item.id);
        done.push(item.id);
        // Without the mark the next claim would be unsaved too: stop rather than pile up doubt.
        if (!outcome.marked) return result({ error: notSaved.at(-1)?.error });
        break;
      case 'posted_before':
        done.push(item.id);
        break;
      case 'busy':
        break;
      case 'unchecked':
        // Still in doubt: the next run (due at once) checks on from where this one stopped.
        return result({ unfinished: true });
      case 'not_posted':
      case 'in_doubt':
        return outcome.error instanceof RunDeadlineError
          ? result({ unfinished: true })
          : result({ error: outcome.error });
    }
  }
  return result();
}

type AlertOutcome =
  /** Posted by this run; `marked` is false when the claim could not be marked. */
  | { readonly kind: 'posted'; readonly marked: boolean }
  /** Posted by another run, or found in the channel after a run lost track of it. */
  | { readonly kind: 'posted_before' }
  /** Another run holds the claim within its lease. */
  | { readonly kind: 'busy' }
  /** In doubt, and the channel could not be searched far enough within Slack's limits: left in doubt. */
  | { readonly kind: 'unchecked' }
  /** Slack refused it or the run ended before sending: nothing posted. */
  | { readonly kind: 'not_posted'; readonly error: unknown }
  /** Sent, with no answer: the claim stays for a later run's history check. */
  | { readonly kind: 'in_doubt'; readonly error: unknown };

/** The write that failed, and why: the tick summary lists them. */
export interface UnsavedWrite {
  readonly step: 'alert_mark' | 'alert_release';
  readonly error: unknown;
}

/** What identifies an alert's message in the channel, for the in-doubt check. */
export const ALERT_EVENT_TYPE = ISSUE_ALERT_MARKER.eventType;

async function alertOnce(
  ctx: DeliveryContext,
  sub: ReportSubscription,
  marker: PostMarker,
  itemId: number,
  message: RenderedMessage,
  notSaved: UnsavedWrite[],
  found: FoundGroup[],
): Promise<AlertOutcome> {
  // A subscription is of one kind: its claims are all alerts, or all events.
  const attempt = await ctx.claims.claim({ team: sub.team, subscription: sub.id, issue: itemId });
  if (attempt.status === 'held') return { kind: attempt.by.status === 'posted' ? 'posted_before' : 'busy' };
  const { claim } = attempt;
  let threadTs: string | undefined;
  const mark = async (ts: string): Promise<boolean> => {
    try {
      if (await ctx.claims.markPosted(claim, ts, threadTs)) return true;
      notSaved.push({ step: 'alert_mark', error: new ClaimLostError() });
    } catch (error) {
      notSaved.push({ step: 'alert_mark', error });
    }
    return false;
  };

  // A post in doubt may have gone out alone or in a group (a burst cut off, then fewer left than
  // make a burst): found in a group's message but missing from its thread, it is replied there.
  if (attempt.inDoubt) {
    const check = await findGroupMessage(ctx, sub, marker, itemId, claim, attempt.inDoubt, found);
    if (check.kind === 'thread_missing') threadTs = check.parentTs;
    else if (check.kind === 'found') {
      await mark(check.ts);
      return { kind: 'posted_before' };
    }
    if (check.kind === 'unfinished') {
      // Never posted blindly: the claim stays `posting`, free for the next run to check on.
      try {
        if (!(await ctx.claims.leaveInDoubt(claim, check.checkedBefore)))
          notSaved.push({ step: 'alert_release', error: new ClaimLostError() });
      } catch (error) {
        // The lease runs out by itself; the next check after it starts over from the beginning.
        notSaved.push({ step: 'alert_release', error });
      }
      return { kind: 'unchecked' };
    }
  }

  let ts: string | undefined;
  try {
    const answer =
      threadTs === undefined
        ? await postMarked(ctx, sub, marker, message, { [marker.idField]: itemId })
        : await postMarked(ctx, sub, marker, message, { events: [itemId] }, threadTs);
    ts = answer.ts;
  } catch (error) {
    if (!certainlyNotPosted(error)) return { kind: 'in_doubt', error };
    try {
      if (!(await ctx.claims.release(claim)))
        notSaved.push({ step: 'alert_release', error: new ClaimLostError() });
    } catch (releaseError) {
      // The claim stays `posting`: a run after its lease finds no message and posts it then.
      notSaved.push({ step: 'alert_release', error: releaseError });
    }
    return { kind: 'not_posted', error };
  }
  return { kind: 'posted', marked: await mark(ts ?? '') };
}

// ---------------------------------------------------------------------------------------------
// A group of items as one message and its thread

/** How a group is laid out: the first few in the message itself, the rest in its thread. */
export interface GroupLayout<T extends { readonly id: number }> {
  /** Items shown in the message itself. */
  readonly inMessage: number;
  /** Items per reply in its thread. */
  readonly perReply: number;
  /** The message: `shown` of the `all` items of the group (the others go in its thread). */
  message(shown: readonly T[], all: readonly T[]): RenderedMessage;
  /** One reply in the thread. */
  reply(shown: readonly T[]): RenderedMessage;
}

/**
 * One post of a report that a later run can find again: paced per channel, tried once (an answer
 * lost in doubt is looked for, never sent blind again), and marked with the subscription and
 * `payload` in its metadata; in the thread of `threadTs` when given.
 */
function postMarked(
  ctx: DeliveryContext,
  sub: ReportSubscription,
  marker: PostMarker,
  message: RenderedMessage,
  payload: Record<string, unknown>,
  threadTs?: string,
) {
  return ctx.pacer.send(
    sub.channel,
    () =>
      singleAttemptClient(ctx.slack).chat.postMessage({
        channel: sub.channel,
        text: message.text,
        blocks: message.blocks,
        unfurl_links: false,
        ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
        metadata: { event_type: marker.eventType, event_payload: { subscription: sub.id, ...payload } },
      }),
    deadlineOption(ctx),
  );
}

/**
 * Posts the items a run has not done as one group: a message with the first few and the rest in
 * its thread, each item still under its own claim as `postEachOnce` keeps them, so that a run cut
 * off anywhere and run again neither posts an item twice nor loses one:
 *
 * 1. Claim every item. Posted before: done. Held within its lease: left to its run. In doubt (a
 *    run died between claiming and marking): the channel is searched for the group's message,
 *    whose metadata lists every item of the group and those it shows itself; an item it shows is
 *    done; an item meant for its thread is looked for in the thread (`conversations.replies`), and
 *    if not there, replied into that thread now; a group not found is posted afresh.
 * 2. Post the message with the new items, mark the claims of those it shows, then each reply and
 *    the claims of its items. Slack refusing the message releases the claims of the group, for
 *    the next run; a reply that fails leaves its items and those after it in doubt with their
 *    lease ended, so the next run finds the message that lists them and replies them into its
 *    thread; a lost answer leaves them in doubt.
 */
export async function postGroupOnce<T extends { readonly id: number }>(
  ctx: DeliveryContext,
  sub: ReportSubscription,
  marker: PostMarker,
  items: readonly T[],
  layout: GroupLayout<T>,
): Promise<PostRun> {
  const alerted: number[] = [];
  const done: number[] = [];
  const notSaved: UnsavedWrite[] = [];
  let messages = 0;
  const result = (extra: Partial<DeliveryResult> = {}): PostRun => ({
    messages,
    files: 0,
    done,
    alerted,
    ...(notSaved.length > 0 ? { notSaved } : {}),
    ...extra,
  });
  const claimed = new ClaimMarks(ctx, notSaved);

  const foundGroups: FoundGroup[] = [];
  const fresh: Claimed<T>[] = [];
  const repairs = new Map<string, Claimed<T>[]>();
  let stopped: Partial<DeliveryResult> | undefined;
  for (const item of items) {
    if (ctx.deadline !== undefined && Date.now() >= ctx.deadline) {
      stopped = { unfinished: true };
      break;
    }
    try {
      const attempt = await ctx.claims.claim({ team: sub.team, subscription: sub.id, issue: item.id });
      if (attempt.status === 'held') {
        if (attempt.by.status === 'posted') done.push(item.id);
        continue;
      }
      const entry = { item, claim: attempt.claim };
      if (attempt.inDoubt) {
        const check = await findGroupMessage(
          ctx,
          sub,
          marker,
          item.id,
          attempt.claim,
          attempt.inDoubt,
          foundGroups,
        );
        if (check.kind === 'found') {
          await claimed.mark(attempt.claim, check.ts);
          done.push(item.id);
          continue;
        }
        if (check.kind === 'thread_missing') {
          repairs.set(check.parentTs, [...(repairs.get(check.parentTs) ?? []), entry]);
          continue;
        }
        if (check.kind === 'unfinished') {
          await claimed.leaveInDoubt(attempt.claim, check.checkedBefore);
          stopped = { unfinished: true };
          break;
        }
      }
      fresh.push(entry);
    } catch (error) {
      // The claim or the channel read failed: this item was not posted; what is claimed is.
      stopped = { error };
      break;
    }
  }

  const post = (message: RenderedMessage, payload: Record<string, unknown>, threadTs?: string) =>
    postMarked(ctx, sub, marker, message, payload, threadTs);

  /** Posts the replies of `entries` into the thread of `parentTs`; false once one fails. */
  const replyAll = async (parentTs: string, entries: readonly Claimed<T>[]): Promise<boolean> => {
    for (let start = 0; start < entries.length; start += layout.perReply) {
      const chunk = entries.slice(start, start + layout.perReply);
      try {
        const answer = await post(
          layout.reply(chunk.map((e) => e.item)),
          { events: chunk.map((e) => e.item.id) },
          parentTs,
        );
        messages += 1;
        await settle(chunk, answer.ts ?? '', parentTs);
      } catch (error) {
        const unsent = certainlyNotPosted(error) ? entries.slice(start) : entries.slice(start + chunk.length);
        // Left in doubt rather than released: the group's message lists them, so the next run
        // finds it and replies them into its thread instead of starting a second group.
        for (const { claim } of unsent) await claimed.leaveInDoubt(claim, null);
        stopped ??= error instanceof RunDeadlineError ? { unfinished: true } : { error };
        return false;
      }
    }
    return true;
  };
  const settle = async (entries: readonly Claimed<T>[], ts: string, threadTs?: string) => {
    for (const { item, claim } of entries) {
      alerted.push(item.id);
      done.push(item.id);
      await claimed.mark(claim, ts, threadTs);
    }
  };

  for (const [parentTs, entries] of repairs) {
    if (!(await replyAll(parentTs, entries))) {
      await claimed.releaseAll(fresh);
      return result(stopped);
    }
  }
  if (fresh.length > 0) {
    const shown = fresh.slice(0, layout.inMessage);
    let parentTs: string;
    try {
      const answer = await post(
        layout.message(
          shown.map((e) => e.item),
          fresh.map((e) => e.item),
        ),
        { events: fresh.map((e) => e.item.id), shown: shown.map((e) => e.item.id) },
      );
      messages += 1;
      parentTs = answer.ts ?? '';
    } catch (error) {
      // Refused: nothing posted, the claims go back. Lost: all stay in doubt for the channel check.
      if (certainlyNotPosted(error)) await claimed.releaseAll(fresh);
      return result(stopped ?? (error instanceof RunDeadlineError ? { unfinished: true } : { error }));
    }
    await settle(shown, parentTs);
    await replyAll(parentTs, fresh.slice(layout.inMessage));
  }
  if (stopped === undefined && claimed.lost) return result({ error: notSaved.at(-1)?.error });
  return result(stopped);
}

interface Claimed<T> {
  readonly item: T;
  readonly claim: AlertClaim;
}

/** The claim writes of a group, with what failed noted for the tick summary. */
class ClaimMarks {
  lost = false;
  constructor(
    private readonly ctx: DeliveryContext,
    private readonly notSaved: UnsavedWrite[],
  ) {}

  async mark(claim: AlertClaim, ts: string, threadTs?: string): Promise<void> {
    await this.#write('alert_mark', () => this.ctx.claims.markPosted(claim, ts, threadTs));
  }

  async leaveInDoubt(claim: AlertClaim, checkedBefore: string | null): Promise<void> {
    await this.#write('alert_release', () => this.ctx.claims.leaveInDoubt(claim, checkedBefore));
  }

  async releaseAll(entries: readonly { readonly claim: AlertClaim }[]): Promise<void> {
    for (const { claim } of entries) await this.#write('alert_release', () => this.ctx.claims.release(claim));
  }

  async #write(step: UnsavedWrite['step'], write: () => Promise<boolean>): Promise<void> {
    try {
      if (await write()) return;
      this.notSaved.push({ step, error: new ClaimLostError() });
    } catch (error) {
      // A mark not saved leaves the claim in doubt; the channel check of a later run settles it.
      this.notSaved.push({ step, error });
    }
    this.lost = true;
  }
}

type GroupCheck =
  | HistoryCheck
  /** The group's message is there, but the item's reply is not in its thread. */
  | { readonly kind: 'thread_missing'; readonly parentTs: string };

/** Whether a message's metadata says it shows `itemId` (a group's, or a single item's from before groups). */
function listsItem(payload: Record<string, unknown>, key: string, itemId: number): boolean {
  const ids = payload[key];
  return Array.isArray(ids) && ids.some((id) => Number(id) === itemId);
}

/** A group's message found in the channel during a run, with the items its thread holds once read. */
interface FoundGroup {
  readonly ts: string;
  readonly payload: Record<string, unknown>;
  thread?: ReadonlySet<number>;
}

/**
 * Looks for the group message that lists the item, as `findAlertMessage` looks for an alert (a
 * message found earlier in the run is asked first: a group's items go into doubt together); when
 * the item was meant for its thread, reads the thread once (`conversations.replies`) for its reply.
 */
async function findGroupMessage(
  ctx: DeliveryContext,
  sub: ReportSubscription,
  marker: PostMarker,
  itemId: number,
  claim: AlertClaim,
  inDoubt: AlertClaim,
  found: FoundGroup[],
): Promise<GroupCheck> {
  let parent = found.find((group) => listsItem(group.payload, 'events', itemId));
  if (!parent) {
    const check = await findAlertMessage(
      ctx,
      sub,
      marker,
      itemId,
      claim,
      inDoubt,
      (payload) => listsItem(payload, 'events', itemId) || Number(payload[marker.idField]) === itemId,
    );
    if (check.kind !== 'found') return check;
    parent = { ts: check.ts, payload: check.payload };
    found.push(parent);
  }
  if (!Array.isArray(parent.payload.shown) || listsItem(parent.payload, 'shown', itemId))
    return { kind: 'found', ts: parent.ts, payload: parent.payload };
  if (parent.thread === undefined) {
    const read = await threadItems(ctx, sub, marker, parent.ts);
    if (read === undefined) return { kind: 'unfinished', checkedBefore: claim.checkedBefore };
    parent.thread = read;
  }
  return parent.thread.has(itemId)
    ? { kind: 'found', ts: parent.ts, payload: parent.payload }
    : { kind: 'thread_missing', parentTs: parent.ts };
}

/** The items the replies in a group's thread show; undefined when Slack's limits stop the read. */
async function threadItems(
  ctx: DeliveryContext,
  sub: ReportSubscription,
  marker: PostMarker,
  parentTs: string,
): Promise<ReadonlySet<number> | undefined> {
  const items = new Set<number>();
  let cursor: string | undefined;
  for (;;) {
    if (!ctx.history.take(sub.team)) return undefined;
    let raw: unknown;
    try {
      raw = await singleAttemptClient(ctx.slack).conversations.replies({
        channel: sub.channel,
        ts: parentTs,
        limit: ctx.history.pageSize,
        include_all_metadata: true,
        ...(cursor === undefined ? {} : { cursor }),
      });
    } catch (error) {
      if (rateLimitedFor(error) !== undefined) return undefined;
      throw error;
    }
    const answer = RepliesPageSchema.parse(raw);
    for (const m of answer.messages) {
      if (m.ts === parentTs || m.metadata?.event_type !== marker.eventType) continue;
      if (m.metadata.event_payload.subscription !== sub.id) continue;
      const ids = m.metadata.event_payload.events;
      if (Array.isArray(ids)) for (const id of ids) items.add(Number(id));
    }
    cursor = answer.response_metadata?.next_cursor || undefined;
    if (!answer.has_more || cursor === undefined) return items;
  }
}

/** The claim was taken over by another run (this run outlived its lease): that run checks the channel. */
class ClaimLostError extends Error {
  override readonly name = 'ClaimLostError';
  readonly code = 'claim_lost';
}

const HistoryPageSchema = z.object({
  messages: z
    .array(
      z.object({
        ts: z.string(),
        metadata: z
          .object({
            event_type: z.string(),
            event_payload: z.record(z.string(), z.unknown()),
          })
          .optional(),
      }),
    )
    .default([]),
  has_more: z.boolean().default(false),
});

const RepliesPageSchema = HistoryPageSchema.extend({
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});

/** Clocks differ between us and Slack; a message posted just before the claim's time still counts. */
const HISTORY_CLOCK_MARGIN_MS = 5 * 60_000;

type HistoryCheck =
  | { readonly kind: 'found'; readonly ts: string; readonly payload: Record<string, unknown> }
  | { readonly kind: 'not_found' }
  /** Stopped by Slack's limits; `checkedBefore` is how far down it got (null: nowhere). */
  | { readonly kind: 'unfinished'; readonly checkedBefore: string | null };

function slackTs(ms: number): string {
  return (ms / 1000).toFixed(6);
}

/**
 * Looks for the alert's message in the window where any holder of the claim could have posted it:
 * from the first claim of the chain (`doubtSince`) to the end of the last holder's lease, each
 * widened by the clock margin. Pages go newest first, each under the next one's `latest`, so a
 * check cut short by Slack's limits continues from `checkedBefore` in a later run.
 */
async function findAlertMessage(
  ctx: DeliveryContext,
  sub: ReportSubscription,
  marker: PostMarker,
  itemId: number,
  claim: AlertClaim,
  inDoubt: AlertClaim,
  shows: (payload: Record<string, unknown>) => boolean = (payload) =>
    Number(payload[marker.idField]) === itemId,
): Promise<HistoryCheck> {
  const oldest = slackTs(claim.doubtSince.getTime() - HISTORY_CLOCK_MARGIN_MS);
  let latest = claim.checkedBefore ?? slackTs(inDoubt.leaseUntil.getTime() + HISTORY_CLOCK_MARGIN_MS);
  let checkedBefore = claim.checkedBefore;
  for (;;) {
    if (!ctx.history.take(sub.team)) return { kind: 'unfinished', checkedBefore };
    let raw: unknown;
    try {
      raw = await singleAttemptClient(ctx.slack).conversations.history({
        channel: sub.channel,
        oldest,
        latest,
        limit: ctx.history.pageSize,
        include_all_metadata: true,
      });
    } catch (error) {
      if (rateLimitedFor(error) !== undefined) return { kind: 'unfinished', checkedBefore };
      throw error;
    }
    const answer = HistoryPageSchema.parse(raw);
    const found = answer.messages.find(
      (m) =>
        m.metadata?.event_type === marker.eventType &&
        m.metadata.event_payload.subscription === sub.id &&
        shows(m.metadata.event_payload),
    );
    if (found) return { kind: 'found', ts: found.ts, payload: found.metadata?.event_payload ?? {} };
    const last = answer.messages.at(-1)?.ts;
    if (!answer.has_more || last === undefined) return { kind: 'not_found' };
    latest = last;
    checkedBefore = last;
  }
}

const singleAttemptClients = new WeakMap<WebClient, WebClient>();

/**
 * The bot's client without its retry: after a lost answer the retry would post a second message
 * that no claim knows of. An alert whose answer is lost stays in doubt instead, for the history check.
 */
function singleAttemptClient(slack: WebClient): WebClient {
  let client = singleAttemptClients.get(slack);
  if (!client) {
    client = withoutRetries(slack);
    singleAttemptClients.set(slack, client);
  }
  return client;
}

function deadlineOption(ctx: DeliveryContext): SendOptions {
  return ctx.deadline === undefined ? {} : { deadline: ctx.deadline };
}

export async function deliverStats(ctx: DeliveryContext, sub: ReportSubscription): Promise<DeliveryResult> {
  const report = renderStatsReport(sub, await ctx.feed.stats());
  if (report.kind === 'unavailable') {
    await post(ctx, sub.channel, report.message);
    return { messages: 1, files: 0 };
  }
  const zone = sub.schedule.type === 'daily' ? sub.schedule.tz : 'UTC';
  let png = ctx.charts.get(zone);
  if (!png) {
    png = await renderStatsChart(report.series, { zone });
    ctx.charts.set(zone, png);
  }
  await ctx.pacer.send(
    sub.channel,
    () =>
      ctx.slack.files.uploadV2({
        channel_id: sub.channel,
        initial_comment: report.summary,
        file: png,
        filename: statsFileName(sub, ctx.now),
        title: 'Managed stats, last 24 hours',
      }),
    deadlineOption(ctx),
  );
  return { messages: 1, files: 1 };
}

/** How a report kind posts its report: its entry in `kinds.ts` loads it on first use. */
export type Deliverer = (ctx: DeliveryContext, sub: ReportSubscription) => Promise<DeliveryResult>;
