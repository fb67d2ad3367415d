import type { ConfirmationDialog, KnownBlock, Overflow } from '@slack/types';
import { getOperation, type OperationId } from '../api/operations/index.js';
import type {
  ManagedIssue,
  ManagedService,
  ManagedStats,
  ManagedStatsSeries,
} from '../api/operations/managed.js';
import {
  actionButton,
  actionsBlock,
  blocksLength,
  confirmDialog,
  contextBlock,
  fallbackText,
  headerBlock,
  MESSAGE_BUDGET,
  mrkdwnFallback,
  type RenderedMessage,
  sectionBlock,
  truncateMrkdwn,
} from '../slack-kit/blocks.js';
import { issueTitle, serviceName as serviceWords, titleNamesId } from '../slack-kit/field-words.js';
import { ActionId, type SnoozeOption } from '../slack-kit/interaction-ids.js';
import { SLACK_LIMITS } from '../slack-kit/limits.js';
import {
  capitalize,
  codeSpan,
  countOf,
  escapeMrkdwn,
  link,
  parseApiDate,
  slackDate,
  statusText,
  userMention,
} from '../slack-kit/text.js';
import type { ReportSubscription } from '../store/report-subscriptions.js';
import { truncate } from '../truncate.js';
import { describeSchedule } from './schedule.js';
import { formatValue, type SeriesSummary, summarizeSeries } from './stats-series.js';

/**
 * What the reporter posts: the issues digest, one alert per new issue, and the text beside the
 * stats chart. Pure functions of the API's data; every message stays within Slack's limits, and a
 * digest with more issues than fit says how many it left out.
 */

/** What an alert or a digest says about a service, from one `managed services-list` per account. */
export type ServiceSummary = Pick<ManagedService, 'id' | 'label' | 'address' | 'status'>;

/** Service id → summary. */
export type KnownServices = ReadonlyMap<number, ServiceSummary>;

/** Room kept for the header, the footer and the "more" line. */
const DIGEST_BUDGET = MESSAGE_BUDGET - 1_500;
/** Header, footer, "more" line. */
const DIGEST_FIXED_BLOCKS = 3;
/** Services of one alert that get their own line and buttons; an actions block holds 25 elements. */
const ALERT_SERVICES_WITH_BUTTONS = 5;

function serviceName(id: number, services: KnownServices): string {
  return escapeMrkdwn(serviceWords(id, services.get(id)?.label));
}

/** `*shop* · `203.0.113.7` · :red_circle: problem`, or `service 12` when the list did not name it. */
function serviceLine(id: number, services: KnownServices): string {
  const service = services.get(id);
  if (!service) return `*${escapeMrkdwn(serviceWords(id))}* · not in the services list`;
  return `*${escapeMrkdwn(service.label)}* · ${codeSpan(service.address)} · ${statusText(service.status)}`;
}

/** The ticket the issue opened, linked: `<url|Ticket 98823>: label` (no label when it has none). */
function ticketText(issue: ManagedIssue): string {
  const subject = issueTitle(issue);
  const label = titleNamesId(subject, issue.id) ? '' : `: ${escapeMrkdwn(truncate(subject, 200))}`;
  const name = `${issue.entity.type === 'ticket' ? 'Ticket' : issue.entity.type} ${issue.entity.id}`;
  return /^https?:\/\//.test(issue.entity.url)
    ? `${link(issue.entity.url, name)}${label}`
    : `${escapeMrkdwn(name)}${label}`;
}

/** `3 h`, `2 d`, `40 min`: how long the issue has been open. */
export function ageText(created: string, now: Date): string {
  const opened = parseApiDate(created);
  if (!opened) return 'age unknown';
  const minutes = Math.max(0, Math.floor((now.getTime() - opened.getTime()) / 60_000));
  if (minutes < 60) return `${minutes} min`;
  if (minutes < 48 * 60) return `${Math.floor(minutes / 60)} h`;
  return `${Math.floor(minutes / (24 * 60))} d`;
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

export interface DigestContext {
  readonly now: Date;
  /** The issues the previous digest listed; undefined before the first digest, when nothing is "new". */
  readonly previous?: ReadonlySet<number> | undefined;
}

interface ServiceGroup {
  /** Undefined for issues that name no service. */
  readonly service: number | undefined;
  readonly issues: ManagedIssue[];
}

/** Issues under each service they affect, the group with the newest issue first. */
function groupByService(issues: readonly ManagedIssue[]): ServiceGroup[] {
  const groups = new Map<number | undefined, ServiceGroup>();
  for (const issue of newestFirst(issues)) {
    const keys = issue.services.length > 0 ? issue.services : [undefined];
    for (const service of keys) {
      const group = groups.get(service) ?? { service, issues: [] };
      group.issues.push(issue);
      groups.set(service, group);
    }
  }
  return [...groups.values()];
}

function digestIssueLine(issue: ManagedIssue, context: DigestContext): string {
  const isNew = context.previous !== undefined && !context.previous.has(issue.id);
  return (
    `${isNew ? ':new: ' : ''}*Issue ${issue.id}* — ${ticketText(issue)}` +
    ` · open ${ageText(issue.created, context.now)} (since ${slackDate(issue.created)})`
  );
}

/**
 * The issues digest: open issues grouped by the service they affect, each with its age, the ones
 * that were not open at the previous digest marked :new:. Nothing open is one "all clear" line.
 */
export function renderIssuesDigest(
  sub: ReportSubscription,
  issues: readonly ManagedIssue[],
  services: KnownServices,
  context: DigestContext,
): RenderedMessage {
  if (issues.length === 0) {
    const text = ':white_check_mark: All clear: no open managed issues.';
    return { text: fallbackText(text), blocks: [sectionBlock(text), footer(sub)] };
  }
  const fresh = context.previous ? issues.filter((i) => !context.previous?.has(i.id)).length : 0;
  const title = `Managed issues: ${countOf(issues.length, 'open issue')}${fresh > 0 ? `, ${fresh} new since the last digest` : ''}`;
  const blocks: KnownBlock[] = [headerBlock(title)];
  const maxIssueBlocks = SLACK_LIMITS.blocksPerMessage - DIGEST_FIXED_BLOCKS;
  const shown = new Set<number>();
  let complete = true;
  for (const group of groupByService(issues)) {
    const heading = group.service === undefined ? '*No service named*' : serviceLine(group.service, services);
    let text = `${heading} — ${countOf(group.issues.length, 'issue')}`;
    let listed = 0;
    for (const issue of group.issues) {
      const line = `\n${digestIssueLine(issue, context)}`;
      if (text.length + line.length > SLACK_LIMITS.sectionText - 100) break;
      text += line;
      listed += 1;
    }
    if (listed < group.issues.length) text += `\n…and ${countOf(group.issues.length - listed, 'more issue')}`;
    const block = sectionBlock(text);
    if (blocks.length - 1 >= maxIssueBlocks || blocksLength([...blocks, block]) > DIGEST_BUDGET) {
      complete = false;
      break;
    }
    blocks.push(block);
    for (const issue of group.issues.slice(0, listed)) shown.add(issue.id);
    if (listed < group.issues.length) complete = false;
  }
  if (!complete || shown.size < issues.length) {
    const left = issues.length - shown.size;
    blocks.push(
      contextBlock(
        `…and ${countOf(left, 'more issue')}. \`/cloud managed issues list --all\` lists them all.`,
      ),
    );
  }
  blocks.push(footer(sub));
  return { text: fallbackText(title), blocks };
}

function runButton(
  label: string,
  operationId: OperationId,
  input: Record<string, unknown>,
  style?: 'primary' | 'danger',
  confirm?: ConfirmationDialog,
) {
  const op = getOperation(operationId);
  return actionButton({
    label,
    actionId: ActionId.run,
    payload: { operationId: op.id, input },
    ...(style ? { style } : {}),
    ...(confirm ? { confirm } : {}),
  });
}

const SNOOZE_LENGTHS: readonly { readonly d: SnoozeOption['d']; readonly words: string }[] = [
  { d: '1h', words: 'for 1 h' },
  { d: '4h', words: 'for 4 h' },
  { d: 'r', words: 'until resolved' },
];

/** An overflow of an alert: snooze the issue or a service it affects for 1 h, 4 h or until resolved. */
function snoozeMenu(sub: ReportSubscription, k: SnoozeOption['k'], id: number, name: string): Overflow {
  return {
    type: 'overflow',
    action_id: ActionId.alertSnooze,
    options: SNOOZE_LENGTHS.map(({ d, words }) => ({
      text: { type: 'plain_text', text: truncate(`Snooze ${name} ${words}`, SLACK_LIMITS.optionText) },
      value: JSON.stringify({ s: sub.id, k, t: id, d } satisfies SnoozeOption),
    })),
  };
}

/**
 * One new issue, posted once: the ticket, each affected service (label, address, status) and
 * buttons to view the issue, view a service and switch its monitoring off or on. The buttons run
 * their operations the way a typed command does (the clicker's token, the channel's guardrails,
 * approval when the operation needs it).
 */
export function renderIssueAlert(
  sub: ReportSubscription,
  issue: ManagedIssue,
  services: KnownServices,
): RenderedMessage {
  const subject = issueTitle(issue);
  const text = titleNamesId(subject, issue.id)
    ? `New managed issue ${issue.id}`
    : `New managed issue ${issue.id}: ${subject}`;
  const affected = issue.services.slice(0, ALERT_SERVICES_WITH_BUTTONS);
  const blocks: KnownBlock[] = [
    sectionBlock(
      `:rotating_light: *New managed issue ${issue.id}* — ${ticketText(issue)}\nOpened ${slackDate(issue.created)}`,
    ),
  ];
  if (issue.services.length === 0) blocks.push(sectionBlock('No service named.'));
  for (const id of affected) {
    blocks.push(sectionBlock(`Affected: ${serviceLine(id, services)}`));
    const service = services.get(id);
    const monitoring =
      service?.status === 'disabled'
        ? runButton('Enable monitoring', 'managed.services-enable', { serviceId: id }, 'primary')
        : runButton(
            'Disable monitoring',
            'managed.services-disable',
            { serviceId: id },
            'danger',
            // Asked first: a disabled service raises no issues, so this alert may be its last.
            confirmDialog({
              title: 'Disable monitoring?',
              text: `${service?.label ?? capitalize(serviceWords(id))} will raise no new issues until its monitoring is enabled again.`,
              confirm: 'Disable',
              style: 'danger',
            }),
          );
    const actions = actionsBlock([
      runButton(`View ${truncate(serviceWords(id, service?.label), 60)}`, 'managed.services-view', {
        serviceId: id,
      }),
      monitoring,
      snoozeMenu(sub, 's', id, truncate(serviceWords(id, service?.label), 40)),
    ]);
    if (actions) blocks.push(actions);
  }
  if (issue.services.length > affected.length) {
    const rest = issue.services.slice(affected.length).map((id) => serviceName(id, services));
    blocks.push(contextBlock(`Also affected: ${rest.join(', ')}`));
  }
  const viewIssue = actionsBlock([
    runButton('View issue', 'managed.issues-view', { issueId: issue.id }, 'primary'),
    snoozeMenu(sub, 'i', issue.id, 'this issue'),
  ]);
  if (viewIssue) blocks.push(viewIssue);
  blocks.push(footer(sub));
  return { text: fallbackText(text), blocks };
}

/** Issues of a burst listed per section, to stay under a section's 3,000 characters (SLACK-FACTS, Block Kit limits). */
const BURST_LINES_PER_SECTION = 8;
/** Longest line of one issue in a burst's message. */
const BURST_LINE_MAX = 300;

/** Why a group of alerts is posted as one message. */
export type AlertGroupReason =
  /** Many new at once (`ReportNoise.burstAt`). */
  | { readonly kind: 'burst' }
  /** Held through the subscription's quiet hours, which `hours` names. */
  | { readonly kind: 'quiet'; readonly hours: string };

/** `1st`, `2nd`, `3rd`, `11th`, `22nd`: how often an issue has come back. */
function ordinalText(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** A flapping window in words: `an hour`, `2 hours`, `30 min`. */
function windowText(minutes: number): string {
  if (minutes === 60) return 'an hour';
  return minutes % 60 === 0 ? `${minutes / 60} hours` : `${minutes} min`;
}

/**
 * The reply in an alert's thread when its issue is listed again within the flapping window of
 * being closed: `reopenings` times since the alert, so this is its `reopenings + 1`th time open.
 */
export function renderIssueReopened(
  issueId: number,
  reopenings: number,
  flapMinutes: number,
): RenderedMessage {
  const text = `Issue ${issueId} reopened — the ${ordinalText(reopenings + 1)} time, each within ${windowText(flapMinutes)} of closing: it is flapping`;
  return { text, blocks: [sectionBlock(`:repeat: ${text}.`)] };
}

/**
 * Several new issues as one message: their count and a line each (ticket, affected services);
 * each issue's own alert, with its buttons, is a reply in its thread.
 */
export function renderAlertGroup(
  sub: ReportSubscription,
  issues: readonly ManagedIssue[],
  services: KnownServices,
  reason: AlertGroupReason,
): RenderedMessage {
  const count = countOf(issues.length, 'new managed issue');
  const head =
    reason.kind === 'quiet'
      ? `:crescent_moon: *${capitalize(count)}* while this channel was quiet (${escapeMrkdwn(reason.hours)})`
      : `:rotating_light: *${capitalize(count)}* at once`;
  const lines = issues.map((issue) => {
    const affected =
      issue.services.length === 0
        ? 'no service named'
        : issue.services.map((id) => serviceName(id, services)).join(', ');
    return truncateMrkdwn(`• *Issue ${issue.id}* — ${ticketText(issue)} · ${affected}`, BURST_LINE_MAX);
  });
  const blocks: KnownBlock[] = [sectionBlock(`${head}; each alert, with its buttons, is in the thread.`)];
  for (let start = 0; start < lines.length; start += BURST_LINES_PER_SECTION) {
    blocks.push(sectionBlock(lines.slice(start, start + BURST_LINES_PER_SECTION).join('\n')));
  }
  blocks.push(footer(sub));
  const named = issues
    .slice(0, 3)
    .map((issue) => `${issue.id}`)
    .join(', ');
  return {
    text: fallbackText(`${capitalize(count)}: ${named}${issues.length > 3 ? ', …' : ''}`),
    blocks,
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
    const text = statsUnavailableText(stats.data);
    return {
      kind: 'unavailable',
      message: { text: mrkdwnFallback(text), blocks: [sectionBlock(text), footer(sub)] },
    };
  }
  const summaries = summarizeSeries(stats.data);
  const zone = sub.schedule.type === 'daily' ? sub.schedule.tz : 'UTC';
  const summary = statsSummary(
    summaries,
    `_Report \`${sub.id.slice(0, 8)}\` · ${escapeMrkdwn(describeSchedule(sub.schedule))}. Times on the chart: ${escapeMrkdwn(zone)}._`,
  );
  return { kind: 'chart', series: stats.data, summary, summaries };
}

/** The summary beside a chart: a line per series (colour, latest, min, avg, max), then `footnote`. */
export function statsSummary(summaries: readonly SeriesSummary[], footnote: string): string {
  return [
    '*Managed stats, last 24 hours* (all managed nodes, values as the API reports them)',
    ...summaries.map(seriesLine),
    footnote,
  ].join('\n');
}

/** Why there is no chart: the API's own reasons, as text. */
export function statsUnavailableText(reasons: readonly string[]): string {
  return `:bar_chart: ${escapeMrkdwn(`Managed stats are not available yet: ${reasons.join(' ') || 'no data yet.'}`)}`;
}

/** The chart's file name: stable per subscription and day, so uploads are easy to tell apart. */
export function statsFileName(sub: ReportSubscription, at: Date): string {
  return `managed-stats-${at.toISOString().slice(0, 10)}-${sub.id.slice(0, 8)}.png`;
}
