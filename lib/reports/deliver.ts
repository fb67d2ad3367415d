import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { ManagedIssue } from '../api/operations/managed.js';
import type { RenderedMessage } from '../slack/render/blocks.js';
import { withoutRetries } from '../slack/web-client.js';
import type { AlertClaimRepository } from '../store/alert-claims.js';
import type { OnFirstUse } from '../store/lazy.js';
import type { ReportSubscription } from '../store/report-subscriptions.js';
import type { AccountFeed } from './account-feed.js';
import { renderStatsChart } from './chart.js';
import { type DelivererName, reportKindOf } from './kinds.js';
import { type ChannelPacer, certainlyNotPosted, RunDeadlineError, type SendOptions } from './pacer.js';
import { renderIssueAlert, renderIssuesDigest, renderStatsReport, statsFileName } from './render.js';

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
  /** Epoch ms (wall clock) by which the run stops posting; what is left waits for the next run. */
  readonly deadline?: number | undefined;
}

export interface DeliveryResult {
  readonly messages: number;
  readonly files: number;
  /**
   * The issue ids to remember as seen. Alerts: those still open that were seen, plus the ones just
   * posted. Digests: the issues this digest listed, so the next one marks what is new.
   */
  readonly seenIssueIds?: readonly number[];
  /** Alerts: the issues posted by this run. */
  readonly alerted?: readonly number[];
  /** Set when the run failed part-way: what was posted before is still counted above. */
  readonly error?: unknown;
  /** Alerts: stopped by the run's deadline with alerts left, which the next run posts. */
  readonly unfinished?: boolean;
  /** Alerts: claim writes that failed after the post went out or was refused. */
  readonly notSaved?: readonly UnsavedWrite[];
}

export async function deliverReport(ctx: DeliveryContext, sub: ReportSubscription): Promise<DeliveryResult> {
  return DELIVERERS[reportKindOf(sub.kind).deliverer](ctx, sub);
}

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

async function deliverDigest(ctx: DeliveryContext, sub: ReportSubscription): Promise<DeliveryResult> {
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
 * Slack refusing a post (an error answer, a 429) means nothing was posted: the claim is released
 * for the next run. A post whose answer is lost, and the run's deadline, leave the claim as it is,
 * and the run stops: so a run leaves at most one alert in doubt. Issues left over stay unseen and
 * the next run carries on with them.
 */
async function deliverAlerts(ctx: DeliveryContext, sub: ReportSubscription): Promise<DeliveryResult> {
  const open = await ctx.feed.issues();
  const openIds = open.map((issue) => issue.id);
  if (sub.lastRun === null) return { messages: 0, files: 0, seenIssueIds: openIds, alerted: [] };

  const stillOpenSeen = openIds.filter((id) => sub.seenIssueIds.has(id));
  const fresh = open.filter((issue) => !sub.seenIssueIds.has(issue.id)).sort(byCreation);
  const alerted: number[] = [];
  const postedBefore: number[] = [];
  const notSaved: UnsavedWrite[] = [];
  const result = (extra: Partial<DeliveryResult> = {}): DeliveryResult => ({
    messages: alerted.length,
    files: 0,
    seenIssueIds: [...stillOpenSeen, ...postedBefore, ...alerted],
    alerted,
    ...(notSaved.length > 0 ? { notSaved } : {}),
    ...extra,
  });
  if (fresh.length === 0) return result();
  const services = await ctx.feed.services();
  for (const issue of fresh) {
    if (ctx.deadline !== undefined && Date.now() >= ctx.deadline) return result({ unfinished: true });
    let outcome: AlertOutcome;
    try {
      outcome = await alertOnce(ctx, sub, issue, renderIssueAlert(sub, issue, services), notSaved);
    } catch (error) {
      // The claim or the history read failed: this alert was not posted.
      return result({ error });
    }
    switch (outcome.kind) {
      case 'posted':
        alerted.push(issue.id);
        // Without the mark the next claim would be unsaved too: stop rather than pile up doubt.
        if (!outcome.marked) return result({ error: notSaved.at(-1)?.error });
        break;
      case 'posted_before':
        postedBefore.push(issue.id);
        break;
      case 'busy':
        break;
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
export const ALERT_EVENT_TYPE = 'managed_issue_alert';

async function alertOnce(
  ctx: DeliveryContext,
  sub: ReportSubscription,
  issue: ManagedIssue,
  message: RenderedMessage,
  notSaved: UnsavedWrite[],
): Promise<AlertOutcome> {
  const attempt = await ctx.claims.claim({ team: sub.team, subscription: sub.id, issue: issue.id });
  if (attempt.status === 'held') return { kind: attempt.by.status === 'posted' ? 'posted_before' : 'busy' };
  const { claim } = attempt;
  const mark = async (ts: string): Promise<boolean> => {
    try {
      if (await ctx.claims.markPosted(claim, ts)) return true;
      notSaved.push({ step: 'alert_mark', error: new ClaimLostError() });
    } catch (error) {
      notSaved.push({ step: 'alert_mark', error });
    }
    return false;
  };

  if (attempt.inDoubt) {
    const ts = await findAlertMessage(ctx, sub, issue.id, attempt.inDoubt.claimedAt);
    if (ts !== undefined) {
      await mark(ts);
      return { kind: 'posted_before' };
    }
  }

  let ts: string | undefined;
  try {
    const answer = await ctx.pacer.send(
      sub.channel,
      () =>
        singleAttemptClient(ctx.slack).chat.postMessage({
          channel: sub.channel,
          text: message.text,
          blocks: message.blocks,
          unfurl_links: false,
          metadata: {
            event_type: ALERT_EVENT_TYPE,
            event_payload: { subscription: sub.id, issue: issue.id },
          },
        }),
      deadlineOption(ctx),
    );
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

/** The claim was taken over by another run (this run outlived its lease): that run checks the channel. */
class ClaimLostError extends Error {
  override readonly name = 'ClaimLostError';
  readonly code = 'claim_lost';
}

/** The history had more pages than are read: the alert stays in doubt rather than risk a second post. */
class HistoryTooLongError extends Error {
  override readonly name = 'HistoryTooLongError';
  readonly code = 'alert_history_too_long';
}

const HistoryPageSchema = z.object({
  messages: z
    .array(
      z.object({
        ts: z.string(),
        metadata: z
          .object({
            event_type: z.string(),
            event_payload: z.object({ subscription: z.unknown(), issue: z.unknown() }).partial(),
          })
          .optional(),
      }),
    )
    .default([]),
  has_more: z.boolean().default(false),
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});

/** Clocks differ between us and Slack; a message posted just before the claim's time still counts. */
const HISTORY_CLOCK_MARGIN_MS = 5 * 60_000;
const HISTORY_PAGE_SIZE = 200;
const HISTORY_MAX_PAGES = 10;

/** The ts of the alert's message if the channel has it, posted since the in-doubt claim was made. */
async function findAlertMessage(
  ctx: DeliveryContext,
  sub: ReportSubscription,
  issue: number,
  claimedAt: Date,
): Promise<string | undefined> {
  const oldest = ((claimedAt.getTime() - HISTORY_CLOCK_MARGIN_MS) / 1000).toFixed(6);
  let cursor: string | undefined;
  for (let page = 0; page < HISTORY_MAX_PAGES; page++) {
    const raw = await ctx.slack.conversations.history({
      channel: sub.channel,
      oldest,
      limit: HISTORY_PAGE_SIZE,
      include_all_metadata: true,
      ...(cursor ? { cursor } : {}),
    });
    const answer = HistoryPageSchema.parse(raw);
    const found = answer.messages.find(
      (m) =>
        m.metadata?.event_type === ALERT_EVENT_TYPE &&
        m.metadata.event_payload.subscription === sub.id &&
        Number(m.metadata.event_payload.issue) === issue,
    );
    if (found) return found.ts;
    cursor = answer.response_metadata?.next_cursor;
    if (!answer.has_more || !cursor) return undefined;
  }
  throw new HistoryTooLongError(`More than ${HISTORY_MAX_PAGES * HISTORY_PAGE_SIZE} messages to search.`);
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

async function deliverStats(ctx: DeliveryContext, sub: ReportSubscription): Promise<DeliveryResult> {
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

export type Deliverer = (ctx: DeliveryContext, sub: ReportSubscription) => Promise<DeliveryResult>;

/** The deliverers a report kind names (`kinds.ts`): one for every name, and no other. */
export const DELIVERERS = {
  digest: deliverDigest,
  alerts: deliverAlerts,
  stats: deliverStats,
} as const satisfies { readonly [N in DelivererName]: Deliverer };
