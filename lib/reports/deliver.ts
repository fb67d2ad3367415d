import type { WebClient } from '@slack/web-api';
import type { ManagedIssue } from '../api/operations/managed.js';
import type { RenderedMessage } from '../slack/render/blocks.js';
import type { ReportSubscription } from '../store/report-subscriptions.js';
import type { AccountFeed } from './account-feed.js';
import { renderStatsChart } from './chart.js';
import type { ChannelPacer } from './pacer.js';
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
}

export interface DeliveryResult {
  readonly messages: number;
  readonly files: number;
  /** Alerts: the issue ids to remember as seen (those still open that were seen, plus the ones just posted). */
  readonly seenIssueIds?: readonly number[];
  /** Alerts: the issues posted by this run. */
  readonly alerted?: readonly number[];
  /** Set when the run failed part-way: what was posted before is still counted above. */
  readonly error?: unknown;
}

export async function deliverReport(ctx: DeliveryContext, sub: ReportSubscription): Promise<DeliveryResult> {
  switch (sub.kind) {
    case 'issues':
      return deliverDigest(ctx, sub);
    case 'alerts':
      return deliverAlerts(ctx, sub);
    case 'stats':
      return deliverStats(ctx, sub);
  }
}

async function post(ctx: DeliveryContext, channel: string, message: RenderedMessage): Promise<void> {
  await ctx.pacer.send(channel, () =>
    ctx.slack.chat.postMessage({ channel, text: message.text, blocks: message.blocks, unfurl_links: false }),
  );
}

async function deliverDigest(ctx: DeliveryContext, sub: ReportSubscription): Promise<DeliveryResult> {
  const [issues, labels] = await Promise.all([ctx.feed.issues(), ctx.feed.serviceLabels()]);
  await post(ctx, sub.channel, renderIssuesDigest(sub, issues, labels));
  return { messages: 1, files: 0 };
}

/** Oldest first, so the channel reads in the order things went wrong. */
function byCreation(a: ManagedIssue, b: ManagedIssue): number {
  return a.created.localeCompare(b.created) || a.id - b.id;
}

/**
 * A subscription that never ran only learns what is open: alerts are for issues that appear after
 * subscribing. Afterwards each issue not seen before is posted once; an issue whose post failed
 * stays unseen and is tried again on the next run.
 */
async function deliverAlerts(ctx: DeliveryContext, sub: ReportSubscription): Promise<DeliveryResult> {
  const open = await ctx.feed.issues();
  const openIds = open.map((issue) => issue.id);
  if (sub.lastRun === null) return { messages: 0, files: 0, seenIssueIds: openIds, alerted: [] };

  const stillOpenSeen = openIds.filter((id) => sub.seenIssueIds.has(id));
  const fresh = open.filter((issue) => !sub.seenIssueIds.has(issue.id)).sort(byCreation);
  const alerted: number[] = [];
  if (fresh.length === 0) return { messages: 0, files: 0, seenIssueIds: stillOpenSeen, alerted };
  const labels = await ctx.feed.serviceLabels();
  for (const issue of fresh) {
    try {
      await post(ctx, sub.channel, renderIssueAlert(sub, issue, labels));
    } catch (error) {
      return {
        messages: alerted.length,
        files: 0,
        seenIssueIds: [...stillOpenSeen, ...alerted],
        alerted,
        error,
      };
    }
    alerted.push(issue.id);
  }
  return { messages: alerted.length, files: 0, seenIssueIds: [...stillOpenSeen, ...alerted], alerted };
}

async function deliverStats(ctx: DeliveryContext, sub: ReportSubscription): Promise<DeliveryResult> {
  const report = renderStatsReport(sub, await ctx.feed.stats());
  if (report.kind === 'unavailable') {
    await post(ctx, sub.channel, report.message);
    return { messages: 1, files: 0 };
  }
  const zone = sub.schedule.type === 'daily' ? sub.schedule.tz : 'UTC';
  const png = ctx.charts.get(zone) ?? renderStatsChart(report.series, { zone });
  ctx.charts.set(zone, png);
  await ctx.pacer.send(sub.channel, () =>
    ctx.slack.files.uploadV2({
      channel_id: sub.channel,
      initial_comment: report.summary,
      file: png,
      filename: statsFileName(sub, ctx.now),
      title: 'Managed stats, last 24 hours',
    }),
  );
  return { messages: 1, files: 1 };
}
