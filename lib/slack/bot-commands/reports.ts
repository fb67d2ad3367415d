import type { WebClient } from '@slack/web-api';
import * as z from 'zod';
import type { ParsedCommand } from '../../commands/parse.js';
import { listSnoozes, snoozeAlerts, unsnooze } from '../../core/alert-snoozes.js';
import {
  type AddReportOutcome,
  addReport,
  checkReportRun,
  listReports,
  type NotAllowed,
  pauseReport,
  type ReportChannels,
  type ReportNoiseChange,
  type ReportNotFound,
  type ReportRef,
  type ReportRunDeps,
  type ReportRunOutcome,
  type ReportSubscriptionDeps,
  type ReportTokenProblem,
  removeReport,
  resumeReport,
  runReportJob,
  setReportNoise,
} from '../../core/report-subscriptions.js';
import { isReportKind, REPORT_KIND_SPECS, reportKindOf } from '../../reports/kinds.js';
import {
  DEFAULT_ZONE,
  describeSchedule,
  parseDailyTime,
  parseTimeZone,
  scheduleFromFlags,
} from '../../reports/schedule.js';
import { mrkdwnFallback, sectionBlock } from '../../slack-kit/blocks.js';
import { channelRefusalHint, ensureBotCanPost } from '../../slack-kit/channel-access.js';
import { decodeActionValue } from '../../slack-kit/interactions.js';
import { notice, type Reply } from '../../slack-kit/reply.js';
import {
  codeSpan,
  countOf,
  escapeKeepingMentions,
  escapeMrkdwn,
  slackDate,
  userMention,
} from '../../slack-kit/text.js';
import type { SnoozeTarget } from '../../store/alert-snoozes.js';
import type { ReportKind, ReportSubscription } from '../../store/index.js';
import type { ReportFilter, ReportNoise } from '../../store/report-subscriptions.js';
import type { ReportRunJob } from '../../worker/handoff.js';
import { callerOf } from '../caller.js';
import type { BotCommandContext } from '../context.js';
import { republishHome } from '../home-refresh.js';
import { loginPrompt } from '../token-resolution.js';
import '../../zod-settings.js';

/**
 * `/cloud reports add|list|remove|pause|resume|run`: channel subscriptions to the managed issues
 * digest, new-issue alerts and the stats chart, as Slack asks for them and shows them. What may be
 * subscribed, changed or run is decided in `lib/core/report-subscriptions.ts`; this reads the
 * command, words each outcome, and keeps the Homes of the people concerned up to date.
 */

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;

const titleOf = (kind: ReportKind): string => reportKindOf(kind).title;
const KIND_NAMES = REPORT_KIND_SPECS.map((spec) => spec.kind).join('|');

function textFlag(parsed: BotParsed, name: string): string | undefined {
  const value = parsed.flags[name];
  return typeof value === 'string' ? value : undefined;
}

function inChannel(text: string): Reply {
  return { text: mrkdwnFallback(text), blocks: [sectionBlock(text)], visibility: 'in_channel' };
}

function shortId(sub: ReportSubscription): string {
  return codeSpan(sub.id.slice(0, 8));
}

/** Whether the bot can post a channel's reports, as the core asks it: Slack's membership, joined if public. */
function slackReportChannels(client: WebClient): ReportChannels {
  return {
    canPostReports: async (channel) => {
      const access = await ensureBotCanPost(client, channel);
      if (access.kind === 'refused' || access.kind === 'joined') return access;
      // A channel Slack would not describe is tried anyway: the first run will tell.
      return { kind: 'open' };
    },
  };
}

function reportDeps({ deps, client }: BotCommandContext): ReportSubscriptionDeps & {
  readonly channels: ReportChannels;
} {
  return { ...deps, channels: slackReportChannels(client) };
}

export async function handleReportsCommand(context: BotCommandContext, parsed: BotParsed): Promise<Reply> {
  switch (parsed.subcommand) {
    case 'add':
      return answerReportAdd(context, parsed);
    case 'list':
      return answerReportList(context);
    case 'remove':
    case 'pause':
    case 'resume':
    case 'run':
      return (await answerReportChange(context, parsed.subcommand, { typed: parsed.args[0] ?? '' })).reply;
    case 'quiet':
    case 'set':
      return answerReportNoise(context, parsed);
    case 'snoozes':
      return answerSnoozeList(context);
    case 'unsnooze':
      return answerUnsnooze(context, parsed);
  }
  return notice(
    `Usage: \`/cloud reports add ${KIND_NAMES}\`, \`reports list\`, \`reports remove|pause|resume|run ID\`, \`reports quiet ID HH:MM-HH:MM|off\`, \`reports set ID --burst N --flap MINUTES\`.`,
  );
}

// ---------------------------------------------------------------------------------------------
// add

async function answerReportAdd(context: BotCommandContext, parsed: BotParsed): Promise<Reply> {
  const { deps, ctx } = context;
  // Read as a report kind by the parser (`KIND` is of kind `report-kind`); this only narrows it.
  const kind = parsed.args[0] ?? '';
  if (!isReportKind(kind)) return notice(`Usage: \`/cloud reports add ${KIND_NAMES}\`.`);
  const spec = reportKindOf(kind);
  const schedule = scheduleFromFlags(spec.schedule, {
    every: textFlag(parsed, 'every'),
    daily: textFlag(parsed, 'daily'),
    tz: textFlag(parsed, 'tz'),
  });
  if (!schedule.ok) return notice(schedule.message);
  const filter = filterFromFlags(kind, parsed);
  if (!filter.ok) return notice(filter.message);

  const outcome = await addReport(reportDeps(context), callerOf(context), {
    kind,
    schedule: schedule.value,
    filter: filter.value,
  });
  // Home shows the new report, or the profile as rejected from now on.
  if (outcome.kind === 'subscribed' || outcome.kind === 'token_rejected') {
    await republishHome(deps, ctx.team, [ctx.user], ctx.correlationId);
  }
  return addReply(context, kind, outcome);
}

function addReply({ ctx }: BotCommandContext, kind: ReportKind, outcome: AddReportOutcome): Reply {
  const spec = reportKindOf(kind);
  switch (outcome.kind) {
    case 'no_token':
      return loginPrompt(
        `Reports run with your linked token, and you have none yet. Run \`/cloud login\` with a token that has \`${spec.scopes[0]}\`, then add the report again.`,
      );
    case 'token_invalid':
      return loginPrompt(
        `The API no longer accepts the token of your profile *${escapeMrkdwn(outcome.profile)}*. Run \`/cloud login\` with a new token, then add the report again.`,
      );
    case 'scope_missing':
      return notice(
        `Reports run with your token of profile \`${escapeMrkdwn(outcome.profile)}\`, whose scopes are \`${escapeMrkdwn(outcome.scopes)}\`. ` +
          `The ${spec.title} reads ${spec.reads}, which needs ${spec.scopes.map((scope) => `\`${scope}\``).join(' or ')}; ` +
          `that scope is missing. Create a token with \`${spec.scopes[0]}\` and link it with \`/cloud login\`, then add the report again.`,
      );
    case 'channel_full':
      return notice(
        `This channel already has ${outcome.count} report subscriptions. Remove one first (\`/cloud reports list\` shows them).`,
      );
    case 'token_rejected':
      return loginPrompt(
        'The API rejected your token (revoked or expired). Run `/cloud login` with a new one, then add the report again.',
      );
    case 'api_refused': {
      const why = spec.refusedWhy === '' ? '' : ` (${spec.refusedWhy})`;
      return notice(
        `The API refused to show ${spec.reads} to your token: it needs \`${spec.scopes[0]}\`${why}. Nothing was subscribed.`,
      );
    }
    case 'channel_refused':
      return notice(`Nothing was subscribed. ${channelRefusalHint(outcome.refusal)}`);
    case 'subscribed': {
      const created = outcome.subscription;
      const when =
        created.schedule.type === 'every'
          ? `${describeSchedule(created.schedule)}, starting within a few minutes`
          : `${describeSchedule(created.schedule)}, first on ${slackDate(created.nextRunAt)}`;
      const lines = [
        `:white_check_mark: ${userMention(ctx.user)} subscribed this channel to the *${spec.title}*, ${when}.`,
        `It runs with their token of profile ${codeSpan(created.profile)}. ID ${shortId(created)}: ` +
          `\`/cloud reports pause|resume|run|remove ${created.id.slice(0, 8)}\`.`,
      ];
      if (outcome.joined) lines.push('I joined this channel to post the report here.');
      const filtered = describeFilter(created.filter);
      if (filtered) lines.push(`Only events ${filtered}.`);
      if (spec.learnedNote) lines.push(spec.learnedNote(outcome.primed));
      return inChannel(lines.join('\n'));
    }
  }
}

/** The words of each filter flag the kind takes; a filter flag of another kind is refused. */
function filterFromFlags(
  kind: ReportKind,
  parsed: BotParsed,
): { ok: true; value: ReportFilter } | { ok: false; message: string } {
  const taken = reportKindOf(kind).filterFlags ?? [];
  const value: Record<string, readonly string[]> = {};
  for (const other of REPORT_KIND_SPECS.flatMap((spec) => spec.filterFlags ?? [])) {
    const words = parsed.flags[other.name];
    if (words === undefined) continue;
    if (!taken.some((flag) => flag.name === other.name)) {
      const takers = REPORT_KIND_SPECS.filter((spec) => spec.filterFlags?.some((f) => f.name === other.name));
      return {
        ok: false,
        message: `\`--${other.name}\` filters ${takers.map((spec) => `\`${spec.kind}\``).join(', ')} reports, not \`${kind}\`. Nothing was subscribed.`,
      };
    }
    if (Array.isArray(words) && words.length > 0) value[other.name] = words;
  }
  return { ok: true, value };
}

/** `of actions a, b on entities c`: the filter as the subscription's reply states it. */
function describeFilter(filter: ReportFilter): string {
  return Object.entries(filter)
    .map(([name, words]) => `with ${name} ${words.map(codeSpan).join(' or ')}`)
    .join(' and ');
}

// ---------------------------------------------------------------------------------------------
// quiet, set: the noise settings

/** `22:00-07:00` (either half may wrap past midnight), in `--tz` or UTC; `off` is none. */
function quietHoursFromArgs(
  parsed: BotParsed,
): { ok: true; value: ReportNoise['quietHours'] } | { ok: false; message: string } {
  const text = (parsed.args[1] ?? '').trim();
  const tz = textFlag(parsed, 'tz');
  if (text.toLowerCase() === 'off') {
    if (tz !== undefined) return { ok: false, message: '`--tz` goes with quiet hours, not with `off`.' };
    return { ok: true, value: null };
  }
  const usage =
    'Give quiet hours as `HH:MM-HH:MM` in 24-hour time, e.g. `/cloud reports quiet ID 22:00-07:00 --tz Europe/Berlin`, or `off`.';
  const [fromText, toText, ...rest] = text.split('-');
  if (fromText === undefined || toText === undefined || rest.length > 0)
    return { ok: false, message: `\`${escapeMrkdwn(text)}\` is not a span of hours. ${usage}` };
  const from = parseDailyTime(fromText);
  const to = parseDailyTime(toText);
  if (!from.ok || !to.ok)
    return { ok: false, message: `\`${escapeMrkdwn(text)}\` is not a span of hours. ${usage}` };
  if (from.value === to.value)
    return { ok: false, message: `Quiet hours from ${from.value} to ${to.value} would never end. ${usage}` };
  const zone = parseTimeZone(tz ?? DEFAULT_ZONE);
  if (!zone.ok) return zone;
  return { ok: true, value: { from: from.value, to: to.value, tz: zone.value } };
}

/** `22:00–07:00 Europe/Berlin`. */
export function quietHoursWords(quiet: NonNullable<ReportNoise['quietHours']>): string {
  return `${quiet.from}–${quiet.to} ${escapeMrkdwn(quiet.tz)}`;
}

/** The settings as a list shows them: `quiet 22:00–07:00 UTC · bursts of 3 or more grouped · flapping within 60 min`. */
function noiseWords(noise: ReportNoise): string {
  return [
    noise.quietHours ? `quiet ${quietHoursWords(noise.quietHours)}` : 'no quiet hours',
    `${noise.burstAt} or more new at once grouped`,
    `reopened within ${noise.flapMinutes} min counts as flapping`,
  ].join(' · ');
}

async function answerReportNoise(context: BotCommandContext, parsed: BotParsed): Promise<Reply> {
  const { deps, ctx } = context;
  let change: ReportNoiseChange;
  if (parsed.subcommand === 'quiet') {
    const quiet = quietHoursFromArgs(parsed);
    if (!quiet.ok) return notice(`${quiet.message} Nothing was changed.`);
    change = { quietHours: quiet.value };
  } else {
    const burst = parsed.flags.burst;
    const flap = parsed.flags.flap;
    change = {
      ...(typeof burst === 'number' ? { burstAt: burst } : {}),
      ...(typeof flap === 'number' ? { flapMinutes: flap } : {}),
    };
    if (Object.keys(change).length === 0)
      return notice('Say what to set: `/cloud reports set ID --burst 5 --flap 30`. Nothing was changed.');
  }
  const report: ReportRef = { typed: parsed.args[0] ?? '' };
  const outcome = await setReportNoise(deps, callerOf(context), { report, change });
  switch (outcome.kind) {
    case 'not_an_id':
    case 'not_found':
    case 'ambiguous':
      return notFoundReply(outcome);
    case 'not_allowed':
      return notAllowedReply(outcome, 'change');
    case 'invalid':
      return notice(
        `Nothing was changed: ${outcome.problems.map((problem) => escapeMrkdwn(problem)).join('; ')}.`,
      );
  }
  const sub = outcome.subscription;
  switch (outcome.kind) {
    case 'not_applicable':
      return notice(
        `Report ${shortId(sub)} is the *${titleOf(sub.kind)}*, posted on its schedule; quiet hours, bursts and flapping are settings of \`alerts\` and \`events\` reports. Nothing was changed.`,
      );
    case 'gone':
      return notice(`Report ${shortId(sub)} was removed meanwhile; nothing was changed.`);
    case 'changed':
      await republishHome(deps, ctx.team, [sub.owner, ctx.user], ctx.correlationId);
      return inChannel(
        `${userMention(ctx.user)} changed how the *${titleOf(sub.kind)}* ${shortId(sub)} posts: ${noiseWords(sub.noise)}.`,
      );
  }
}

// ---------------------------------------------------------------------------------------------
// snoozes: from an alert's menu, listed and ended by command

const SnoozeOptionSchema = z.strictObject({
  s: z.string().regex(/^[0-9a-f-]{36}$/),
  k: z.enum(['i', 's']),
  t: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  d: z.enum(['1h', '4h', 'r']),
});

/** `issue 823`, `service 12`, as the snooze answers and lists name them. */
function snoozeTargetWords(target: SnoozeTarget): string {
  return `${target.kind} ${target.id}`;
}

function snoozeUntilWords(until: Date | null): string {
  return until === null ? 'until it is resolved' : `until ${slackDate(until)}`;
}

/** A choice in an alert's snooze menu: recorded, then said in the channel (who, what, until when). */
export async function answerSnoozeClick(
  context: BotCommandContext,
  value: string | undefined,
): Promise<Reply> {
  const option = decodeActionValue(SnoozeOptionSchema, value);
  if (!option) return notice('That menu is out of date.');
  const target: SnoozeTarget = { kind: option.k === 'i' ? 'issue' : 'service', id: option.t };
  const outcome = await snoozeAlerts(context.deps, callerOf(context), {
    subscriptionId: option.s,
    target,
    length: option.d === 'r' ? 'resolved' : option.d,
  });
  switch (outcome.kind) {
    case 'gone':
      return notice('That alerts report was removed; nothing was snoozed.');
    case 'elsewhere':
      return notice(`Those alerts post in <#${outcome.subscription.channel}>; snooze them from there.`);
    case 'not_recorded':
      return notice(
        `:warning: The snooze of ${snoozeTargetWords(target)} may not have been recorded (storage error: ${escapeMrkdwn(outcome.reason)}), so its alerts may still be posted. Choose it again: if it was recorded, that changes nothing.`,
      );
    case 'snoozed':
      return inChannel(
        `:zzz: ${userMention(context.ctx.user)} snoozed the alerts of ${snoozeTargetWords(target)} ${snoozeUntilWords(outcome.snooze.until)} for report ${shortId(outcome.subscription)}. \`/cloud reports unsnooze ${target.kind} ${target.id}\` ends it.`,
      );
  }
}

async function answerSnoozeList(context: BotCommandContext): Promise<Reply> {
  const snoozes = await listSnoozes(context.deps, callerOf(context));
  if (snoozes.length === 0) return notice('No alerts are snoozed in this channel.');
  const lines = snoozes.map(
    ({ subscription, snooze }) =>
      `• ${snoozeTargetWords(snooze.target)} ${snoozeUntilWords(snooze.until)}, by ${userMention(snooze.by)} (report ${shortId(subscription)})`,
  );
  return notice(`*Snoozed alerts in this channel:*\n${lines.join('\n')}`);
}

async function answerUnsnooze(context: BotCommandContext, parsed: BotParsed): Promise<Reply> {
  const kind = (parsed.args[0] ?? '').toLowerCase();
  const id = Number(parsed.args[1]);
  if ((kind !== 'issue' && kind !== 'service') || !/^\d{1,15}$/.test(parsed.args[1] ?? ''))
    return notice('Say which: `/cloud reports unsnooze issue 823` or `/cloud reports unsnooze service 12`.');
  const target: SnoozeTarget = { kind, id };
  const removed = await unsnooze(context.deps, callerOf(context), target);
  return removed === 0
    ? notice(`The alerts of ${snoozeTargetWords(target)} are not snoozed in this channel.`)
    : inChannel(`${userMention(context.ctx.user)} ended the snooze of ${snoozeTargetWords(target)}.`);
}

// ---------------------------------------------------------------------------------------------
// list

function scheduleState(sub: ReportSubscription): string {
  if (sub.paused)
    return `:pause_button: paused${sub.pauseReason ? `: ${escapeKeepingMentions(sub.pauseReason)}` : ''}`;
  const last = sub.lastRun
    ? `, last run ${slackDate(sub.lastRun.at)}${sub.lastRun.status === 'failed' ? ' :warning: failed' : ''}`
    : '';
  return `next ${slackDate(sub.nextRunAt)}${last}`;
}

async function answerReportList(context: BotCommandContext): Promise<Reply> {
  const subs = await listReports(context.deps, callerOf(context));
  if (subs.length === 0) {
    return notice(
      'This channel has no report subscriptions. Add one with `/cloud reports add issues --daily 09:00`, ' +
        '`/cloud reports add alerts` or `/cloud reports add stats --every 6h`.',
    );
  }
  const lines = subs.map(
    (sub) =>
      `• ${shortId(sub)} *${titleOf(sub.kind)}*, ${escapeMrkdwn(describeSchedule(sub.schedule))}, by ${userMention(sub.owner)} ` +
      `(profile ${codeSpan(sub.profile)}): ${scheduleState(sub)}` +
      (reportKindOf(sub.kind).eachNew ? `\n    ${noiseWords(sub.noise)}` : ''),
  );
  return notice(`*Reports in this channel:*\n${lines.join('\n')}`);
}

// ---------------------------------------------------------------------------------------------
// remove, pause, resume, run

export type ReportChange = 'remove' | 'pause' | 'resume' | 'run';

/**
 * What a change typed or clicked came to: its reply, and what it did: `changed` the report,
 * `handed_off` its run to the worker, found `no_report`, or nothing (a refusal).
 */
export interface ReportChangeAnswer {
  readonly reply: Reply;
  readonly effect: 'changed' | 'handed_off' | 'no_report' | 'nothing';
}

/**
 * `/cloud reports remove|pause|resume|run ID`, or the same from a button that names the report by
 * its whole id (Home's), which acts as if typed in the report's own channel.
 */
export async function answerReportChange(
  context: BotCommandContext,
  change: ReportChange,
  report: ReportRef,
): Promise<ReportChangeAnswer> {
  const { deps, ctx } = context;
  const caller = callerOf(context);
  const outcome =
    change === 'remove'
      ? await removeReport(deps, caller, { report })
      : change === 'pause'
        ? await pauseReport(deps, caller, { report, reason: `paused by ${userMention(ctx.user)}` })
        : change === 'resume'
          ? await resumeReport(reportDeps(context), caller, { report })
          : await checkReportRun(deps, caller, { report });
  switch (outcome.kind) {
    case 'not_an_id':
    case 'not_found':
    case 'ambiguous':
      return { reply: notFoundReply(outcome), effect: 'no_report' };
    case 'not_allowed':
      return { reply: notAllowedReply(outcome, change), effect: 'nothing' };
  }
  const sub = outcome.subscription;
  // Where the person is: a button acts from the report's own channel.
  const here = 'id' in report ? sub.channel : ctx.channel;
  const elsewhere = sub.channel === here ? '' : ` (in <#${sub.channel}>)`;
  const changed = async (text: string): Promise<ReportChangeAnswer> => {
    await republishHome(deps, ctx.team, [sub.owner, ctx.user], ctx.correlationId);
    return { reply: inChannel(text), effect: 'changed' };
  };
  const refused = (text: string): ReportChangeAnswer => ({ reply: notice(text), effect: 'nothing' });
  switch (outcome.kind) {
    case 'removed':
      return changed(
        `${userMention(ctx.user)} removed the *${titleOf(sub.kind)}* ${shortId(sub)}${elsewhere}.`,
      );
    case 'already_paused':
      return refused(`Report ${shortId(sub)} is paused already.`);
    case 'paused':
      return changed(
        `${userMention(ctx.user)} paused the *${titleOf(sub.kind)}* ${shortId(sub)}${elsewhere}. \`/cloud reports resume ${sub.id.slice(0, 8)}\` starts it again.`,
      );
    case 'not_paused':
      return refused(`Report ${shortId(sub)} is not paused.`);
    case 'token_problem':
      return refused(tokenProblemText(sub, outcome.problem));
    case 'channel_refused': {
      const other = sub.channel === here ? undefined : sub.channel;
      return refused(`Report ${shortId(sub)} stays paused. ${channelRefusalHint(outcome.refusal, other)}`);
    }
    case 'resumed':
      return changed(
        `${userMention(ctx.user)} resumed the *${titleOf(sub.kind)}* ${shortId(sub)}${elsewhere}; next run ${slackDate(outcome.nextRunAt)}.`,
      );
    case 'elsewhere':
      return refused(`Report ${shortId(sub)} posts in <#${sub.channel}>; run it from there.`);
    case 'is_paused':
      return refused(`Report ${shortId(sub)} is paused; resume it first.`);
    case 'may_run':
      return runNow(context, sub, here);
  }
}

function notFoundReply(outcome: ReportNotFound): Reply {
  switch (outcome.kind) {
    case 'not_an_id':
      return notice(
        'Give the report ID as `/cloud reports list` shows it, e.g. `/cloud reports pause 1a2b3c4d`.',
      );
    case 'not_found':
      return notice(`No report has the ID \`${outcome.id}\`. \`/cloud reports list\` shows this channel's.`);
    case 'ambiguous':
      return notice(`Several reports start with \`${outcome.id}\`; give more of the ID.`);
  }
}

function notAllowedReply({ subscription: sub }: NotAllowed, change: ReportChange | 'change'): Reply {
  return notice(
    `Only ${userMention(sub.owner)}, who added report ${shortId(sub)}, or a workspace admin can ${change} it.`,
  );
}

function tokenProblemText(sub: ReportSubscription, problem: ReportTokenProblem): string {
  const relink = `/cloud login${sub.profile === 'default' ? '' : ` --profile ${sub.profile}`}`;
  switch (problem.kind) {
    case 'unlinked':
      return `Report ${shortId(sub)} runs with ${userMention(sub.owner)}'s token of profile ${codeSpan(sub.profile)}, which is no longer linked. ${userMention(sub.owner)} has to run ${codeSpan(relink)} first.`;
    case 'rejected':
      return `The API rejected ${userMention(sub.owner)}'s token of profile ${codeSpan(sub.profile)}, which report ${shortId(sub)} runs with. ${userMention(sub.owner)} has to run ${codeSpan(relink)} with a new token first.`;
    case 'scope_missing':
      return `The token report ${shortId(sub)} runs with has scopes ${codeSpan(problem.scopes)}, without \`${reportKindOf(sub.kind).scopes[0]}\`; link one that has it.`;
  }
}

/**
 * `/cloud reports run ID` checks what it can at once and hands the run to the worker: posting
 * goes at one message a second per channel, so a few alerts would already miss Slack's 3 s.
 */
async function runNow(
  { deps, ctx }: BotCommandContext,
  sub: ReportSubscription,
  channel: string,
): Promise<ReportChangeAnswer> {
  await deps.handoff.dispatch({
    kind: 'report-run',
    correlationId: ctx.correlationId,
    team: ctx.team,
    user: ctx.user,
    channel,
    ...(ctx.responseUrl ? { responseUrl: ctx.responseUrl } : {}),
    subscriptionId: sub.id,
  });
  return {
    reply: {
      ...notice(`:hourglass_flowing_sand: Running report ${shortId(sub)} (${titleOf(sub.kind)}) now…`),
      outcome: 'handed_off',
    },
    effect: 'handed_off',
  };
}

// ---------------------------------------------------------------------------------------------
// the worker's run

/** What the worker gives a report's run; the Homes it refreshes are published with `slack`. */
export type SlackReportRunDeps = Omit<ReportRunDeps, 'refreshHomes' | 'slack'> & {
  readonly slack: WebClient;
};

/**
 * The worker's half of `/cloud reports run`: the core runs the report; this words how it went for
 * the person who asked. Never throws.
 */
export async function answerReportRun(
  deps: SlackReportRunDeps,
  job: ReportRunJob,
): Promise<{ readonly outcome: ReportRunOutcome; readonly reply: Reply }> {
  const outcome = await runReportJob(
    {
      store: deps.store,
      api: deps.api,
      logger: deps.logger,
      slack: deps.slack,
      slackInstall: deps.slackInstall,
      refreshHomes: async (team, users) =>
        (await import('../home.js')).refreshHomes(deps, deps.slack, team, users),
    },
    job,
  );
  return { outcome, reply: runReply(outcome) };
}

function runReply(outcome: ReportRunOutcome): Reply {
  switch (outcome.kind) {
    case 'gone':
      return notice('That report was removed before it could run.');
    case 'failed':
      return notice(`The report could not be run (${escapeMrkdwn(outcome.reason)}).`);
  }
  const sub = outcome.subscription;
  switch (outcome.kind) {
    case 'is_paused':
      return notice(`Report ${shortId(sub)} is paused; resume it first.`);
    case 'token_problem':
      return notice(outcome.problem ? tokenProblemText(sub, outcome.problem) : 'The report cannot run now.');
    case 'api_slow':
      return notice(`The API is slow right now; report ${shortId(sub)} will be posted within a few minutes.`);
    case 'token_rejected':
      return notice(
        `The API rejected ${userMention(sub.owner)}'s token, which report ${shortId(sub)} runs with; ${countOf(outcome.paused, 'report')} paused.`,
      );
    case 'not_posted':
      return notice(`Report ${shortId(sub)} could not be posted (${escapeMrkdwn(outcome.reason)}).`);
    case 'posted':
      return postedReply(outcome);
  }
}

function postedReply(outcome: Extract<ReportRunOutcome, { kind: 'posted' }>): Reply {
  const { subscription: sub, notSaved } = outcome;
  const unsaved =
    notSaved.length === 0
      ? ''
      : `\n:warning: ${countOf(notSaved.length, 'record')} of this run could not be saved (${escapeMrkdwn(
          [...new Set(notSaved.map((f) => `${f.step}: ${f.reason}`))].join(', '),
        )}); the next run checks the channel before posting anything again.`;
  const { eachNew } = reportKindOf(sub.kind);
  if (!eachNew) return notice(`Posted report ${shortId(sub)}.${unsaved}`);
  const count = outcome.alerted;
  const text =
    sub.lastRun === null
      ? `Report ${shortId(sub)} ${eachNew.learned}; new ones will be posted as they appear.`
      : count === 0
        ? `${eachNew.none} for report ${shortId(sub)}.`
        : `Posted ${countOf(count, eachNew.noun)}.`;
  const rest = outcome.unfinished ? ' The rest follow with the next scheduled run.' : '';
  return notice(`${text}${rest}${unsaved}`);
}
