import type { KnownBlock } from '@slack/types';
import type { ManagedIssue, ManagedStats, ManagedStatsSeries } from '../api/operations/managed.js';
import { SLACK_LIMITS, truncate } from '../slack/limits.js';
import {
  blocksLength,
  contextBlock,
  fallbackText,
  headerBlock,
  MESSAGE_BUDGET,
  type RenderedMessage,
  sectionBlock,
} from '../slack/render/blocks.js';
import { countOf, escapeMrkdwn, link, slackDate, userMention } from '../slack/render/text.js';
import type { ReportSubscription } from '../store/report-subscriptions.js';
import { describeSchedule } from './schedule.js';
import { formatValue, type SeriesSummary, summarizeSeries } from './stats-series.js';

/**
 * What the reporter posts: the issues digest, one alert per new issue, and the text beside the
 * stats chart. Pure functions of the API's data; every message stays within Slack's limits, and a
 * digest with more issues than fit says how many it left out.
 */

/** Service id → label, from one `managed services-list` per account. */
export type ServiceLabels = ReadonlyMap<number, string>;

/** Room kept for the header, the footer and the "more" line. */
const DIGEST_BUDGET = MESSAGE_BUDGET - 1_500;
/** Header, footer, "more" line. */
const DIGEST_FIXED_BLOCKS = 3;

function servicesText(issue: ManagedIssue, labels: ServiceLabels): string {
  if (issue.services.length === 0) return 'no service named';
  return issue.services.map((id) => escapeMrkdwn(labels.get(id) ?? `service ${id}`)).join(', ');
}

/** The ticket the issue opened, linked: `<url|Ticket 98823: label>`. */
function ticketText(issue: ManagedIssue): string {
  const label = truncate(`${issue.entity.label}`, 200);
  const name = `${issue.entity.type === 'ticket' ? 'Ticket' : issue.entity.type} ${issue.entity.id}`;
  return /^https?:\/\//.test(issue.entity.url)
    ? `${link(issue.entity.url, name)}: ${escapeMrkdwn(label)}`
    : `${escapeMrkdwn(name)}: ${escapeMrkdwn(label)}`;
}

function issueLine(issue: ManagedIssue, labels: ServiceLabels): string {
  return (
    `:rotating_light: *Issue ${issue.id}* — ${ticketText(issue)}\n` +
    `Opened ${slackDate(issue.created)} · Affected: ${servicesText(issue, labels)}`
  );
}

function footer(sub: ReportSubscription): KnownBlock {
  return contextBlock(
    `Report \`${sub.id.slice(0, 8)}\` · ${escapeMrkdwn(describeSchedule(sub.schedule))} · runs with ${userMention(sub.owner)}'s token`,
  );
}

/** Newest first: the digest is read top down, and the newest problem is the one people ask about. */
function newestFirst(issues: readonly ManagedIssue[]): ManagedIssue[] {
  return [...issues].sort((a, b) => b.created.localeCompare(a.created) || b.id - a.id);
}

export function renderIssuesDigest(
  sub: ReportSubscription,
  issues: readonly ManagedIssue[],
  labels: ServiceLabels,
): RenderedMessage {
  if (issues.length === 0) {
    const text = ':white_check_mark: No open managed issues.';
    return { text: fallbackText(text), blocks: [sectionBlock(text), footer(sub)] };
  }
  const title = `Managed issues: ${countOf(issues.length, 'open issue')}`;
  const blocks: KnownBlock[] = [headerBlock(title)];
  const maxIssueBlocks = SLACK_LIMITS.blocksPerMessage - DIGEST_FIXED_BLOCKS;
  let shown = 0;
  for (const issue of newestFirst(issues)) {
    const block = sectionBlock(issueLine(issue, labels));
    if (shown >= maxIssueBlocks || blocksLength([...blocks, block]) > DIGEST_BUDGET) break;
    blocks.push(block);
    shown += 1;
  }
  if (shown < issues.length) {
    blocks.push(
      contextBlock(
        `…and ${countOf(issues.length - shown, 'more issue')}. \`/cloud managed issues-list --all\` lists them all.`,
      ),
    );
  }
  blocks.push(footer(sub));
  return { text: fallbackText(title), blocks };
}

/** One new issue, posted once. */
export function renderIssueAlert(
  sub: ReportSubscription,
  issue: ManagedIssue,
  labels: ServiceLabels,
): RenderedMessage {
  const text = `New managed issue ${issue.id}: ${issue.entity.label}`;
  return {
    text: fallbackText(text),
    blocks: [sectionBlock(`*New managed issue*\n${issueLine(issue, labels)}`), footer(sub)],
  };
}

function seriesLine(summary: SeriesSummary): string {
  const { style } = summary;
  const unit = style.unit ? ` ${style.unit}` : '';
  const name = `*${style.label}* (${style.colorName})`;
  if (
    summary.latest === undefined ||
    summary.min === undefined ||
    summary.average === undefined ||
    summary.max === undefined
  ) {
    return `${name}: no data`;
  }
  const value = (n: number) => `${formatValue(n)}${unit}`;
  return `${name}: latest ${value(summary.latest)} · min ${value(summary.min)} · avg ${value(summary.average)} · max ${value(summary.max)}`;
}

export type StatsReport =
  | {
      readonly kind: 'chart';
      readonly series: ManagedStatsSeries;
      readonly summary: string;
      readonly summaries: readonly SeriesSummary[];
    }
  | { readonly kind: 'unavailable'; readonly message: RenderedMessage };

/**
 * The text beside the chart (the upload's `initial_comment`, plain mrkdwn), or a message saying
 * why there is no chart when the API has no series yet.
 */
export function renderStatsReport(sub: ReportSubscription, stats: ManagedStats): StatsReport {
  if (Array.isArray(stats.data)) {
    const reasons = stats.data.join(' ') || 'no data yet.';
    const sentence = `Managed stats are not available yet: ${reasons}`;
    return {
      kind: 'unavailable',
      message: {
        text: fallbackText(sentence),
        blocks: [sectionBlock(`:bar_chart: ${escapeMrkdwn(sentence)}`), footer(sub)],
      },
    };
  }
  const summaries = summarizeSeries(stats.data);
  const lines = summaries.map(seriesLine);
  const zone =
    sub.schedule.type === 'daily'
      ? ` Times on the chart: ${escapeMrkdwn(sub.schedule.tz)}.`
      : ' Times on the chart: UTC.';
  const summary = [
    '*Managed stats, last 24 hours* (all managed nodes)',
    ...lines,
    `_Report \`${sub.id.slice(0, 8)}\` · ${escapeMrkdwn(describeSchedule(sub.schedule))}.${zone}_`,
  ].join('\n');
  return { kind: 'chart', series: stats.data, summary, summaries };
}

/** The chart's file name: stable per subscription and day, so uploads are easy to tell apart. */
export function statsFileName(sub: ReportSubscription, at: Date): string {
  return `managed-stats-${at.toISOString().slice(0, 10)}-${sub.id.slice(0, 8)}.png`;
}
