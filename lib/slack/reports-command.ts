import type { Logger } from '@aws-lambda-powertools/logger';
import type { WebClient } from '@slack/web-api';
import { type ApiSettings, createApiClient } from '../api/client-factory.js';
import { isApiError } from '../api/errors.js';
import type { ParsedCommand } from '../commands/parse.js';
import { AccountFeed, apiDateTime } from '../reports/account-feed.js';
import { failureReason } from '../reports/failures.js';
import type { SlackInstallKind } from '../reports/history-budget.js';
import { isReportKind, type ProbeResult, REPORT_KIND_SPECS, reportKindOf } from '../reports/kinds.js';
import { ChannelPacer } from '../reports/pacer.js';
import { describeSchedule, firstRunAt, nextRunAfter, scheduleFromFlags } from '../reports/schedule.js';
import { pauseForTokenProblem } from '../reports/token-notices.js';
import { mrkdwnFallback, sectionBlock } from '../slack-kit/blocks.js';
import { channelRefusalHint, ensureBotCanPost } from '../slack-kit/channel-access.js';
import { notice, type Reply } from '../slack-kit/reply.js';
import { codeSpan, countOf, escapeMrkdwn, slackDate, userMention } from '../slack-kit/text.js';
import type { ReportKind, ReportSubscription, Store, TokenLink } from '../store/index.js';
import type { ReportFilter } from '../store/report-subscriptions.js';
import type { ReportRunJob } from '../worker/handoff.js';
import type { BotCommandContext } from './context.js';
import { republishHome } from './home-refresh.js';
import { loginPrompt } from './token-resolution.js';

/**
 * `/cloud reports add|list|remove|pause|resume|run`: channel subscriptions to the managed issues
 * digest, new-issue alerts and the stats chart. A subscription runs with the linked token of the
 * person who added it, so `add` checks that token can read managed monitoring before subscribing.
 */

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;

const titleOf = (kind: ReportKind): string => reportKindOf(kind).title;
const KIND_NAMES = REPORT_KIND_SPECS.map((spec) => spec.kind).join('|');
/** More than this in one channel is more likely a mistake than a wish. */
const MAX_SUBSCRIPTIONS_PER_CHANNEL = 20;

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

export async function handleReportsCommand(context: BotCommandContext, parsed: BotParsed): Promise<Reply> {
  switch (parsed.subcommand) {
    case 'add':
      return addReport(context, parsed);
    case 'list':
      return listReports(context);
    case 'remove':
    case 'pause':
    case 'resume':
    case 'run':
      return changeReport(context, parsed.subcommand, parsed.args[0] ?? '');
  }
  return notice(
    `Usage: \`/cloud reports add ${KIND_NAMES}\`, \`reports list\`, \`reports remove|pause|resume|run ID\`.`,
  );
}

// ---------------------------------------------------------------------------------------------
// add

/** Whether a token's scopes (space-separated, `*` for all) let it read what the report kind reads. */
export function scopesCoverReports(scopes: string, kind: ReportKind): boolean {
  const covering = reportKindOf(kind).scopes;
  return scopes.split(/\s+/).some((scope) => covering.includes(scope));
}

async function addReport(context: BotCommandContext, parsed: BotParsed): Promise<Reply> {
  const { deps, ctx } = context;
  // Read as a report kind by the parser (`KIND` is of kind `report-kind`); this only narrows it.
  const kind = parsed.args[0] ?? '';
  if (!isReportKind(kind)) return notice(`Usage: \`/cloud reports add ${KIND_NAMES}\`.`);
  const reportKind = kind;
  const spec = reportKindOf(reportKind);
  const schedule = scheduleFromFlags(spec.schedule, {
    every: textFlag(parsed, 'every'),
    daily: textFlag(parsed, 'daily'),
    tz: textFlag(parsed, 'tz'),
  });
  if (!schedule.ok) return notice(schedule.message);
  const filter = filterFromFlags(reportKind, parsed);
  if (!filter.ok) return notice(filter.message);

  const lookup = await deps.store.tokenLinks.getToken(ctx.team, ctx.user);
  if (lookup.status === 'missing') {
    return loginPrompt(
      `Reports run with your linked token, and you have none yet. Run \`/cloud login\` with a token that has \`${spec.scopes[0]}\`, then add the report again.`,
    );
  }
  if (lookup.status === 'invalid') {
    return loginPrompt(
      `The API no longer accepts the token of your profile *${escapeMrkdwn(lookup.link.profile)}*. Run \`/cloud login\` with a new token, then add the report again.`,
    );
  }
  const { link, token } = lookup;
  if (link.scopes !== 'unknown' && !scopesCoverReports(link.scopes, reportKind)) {
    return notice(
      `Reports run with your token of profile \`${escapeMrkdwn(link.profile)}\`, whose scopes are \`${escapeMrkdwn(link.scopes)}\`. ` +
        `The ${spec.title} reads ${spec.reads}, which needs ${spec.scopes.map((scope) => `\`${scope}\``).join(' or ')}; ` +
        `that scope is missing. Create a token with \`${spec.scopes[0]}\` and link it with \`/cloud login\`, then add the report again.`,
    );
  }
  const inChannelCount = (await deps.store.reports.list(ctx.team, { channel: ctx.channel })).length;
  if (inChannelCount >= MAX_SUBSCRIPTIONS_PER_CHANNEL) {
    return notice(
      `This channel already has ${inChannelCount} report subscriptions. Remove one first (\`/cloud reports list\` shows them).`,
    );
  }

  // One read now: it proves the token may read what the report reads before anything is stored,
  // and gives kinds that learn first what is already there (open issues, the newest event).
  const probe = await probeReport(context, reportKind, token, link.profile);
  if (probe.kind === 'refused') return probe.reply;

  // Reports are the bot's own posts: a channel it cannot post in would only collect failed runs.
  const access = await ensureBotCanPost(context.client, ctx.channel);
  if (access.kind === 'refused')
    return notice(`Nothing was subscribed. ${channelRefusalHint(access.refusal)}`);

  const now = deps.store.now();
  const created = await deps.store.reports.create({
    team: ctx.team,
    kind: reportKind,
    channel: ctx.channel,
    owner: ctx.user,
    profile: link.profile,
    schedule: schedule.value,
    nextRunAt: firstRunAt(schedule.value, now),
    filter: filter.value,
  });
  let primed: readonly number[] | undefined;
  if (spec.learnsOpenIssuesFirst && probe.kind === 'read') {
    const next = nextRunAfter(created.schedule, created.nextRunAt, now);
    const seenIssueIds = probe.seen;
    // The subscription exists now: a failed priming write must not turn into "nothing changed".
    // Unprimed, the first run takes the open issues as seen instead.
    const saved = await deps.store.reports
      .advance(created, next, {
        lastRunAt: now,
        lastRunStatus: 'ok',
        seenIssueIds,
        ...(probe.eventsSeenAt && { eventsSeenAt: apiDateTime(probe.eventsSeenAt.getTime()) }),
      })
      .catch((error: unknown) => {
        deps.logger.warn('what is there already not recorded for a new subscription', { kind, error });
        return false;
      });
    if (saved) primed = seenIssueIds;
  }

  const when =
    schedule.value.type === 'every'
      ? `${describeSchedule(schedule.value)}, starting within a few minutes`
      : `${describeSchedule(schedule.value)}, first on ${slackDate(created.nextRunAt)}`;
  const lines = [
    `:white_check_mark: ${userMention(ctx.user)} subscribed this channel to the *${spec.title}*, ${when}.`,
    `It runs with their token of profile ${codeSpan(link.profile)}. ID ${shortId(created)}: ` +
      `\`/cloud reports pause|resume|run|remove ${created.id.slice(0, 8)}\`.`,
  ];
  if (access.kind === 'joined') lines.push('I joined this channel to post the report here.');
  const filtered = describeFilter(filter.value);
  if (filtered) lines.push(`Only events ${filtered}.`);
  if (spec.learnedNote) lines.push(spec.learnedNote(primed));
  await republishHome(deps, ctx.team, [ctx.user], ctx.correlationId);
  return inChannel(lines.join('\n'));
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

type Probe =
  /** What a first run would learn without posting (see the kind's `probe`). */
  | ({ readonly kind: 'read' } & ProbeResult)
  /** The API did not answer in time: subscribe anyway, the first run will tell. */
  | { readonly kind: 'unknown' }
  | { readonly kind: 'refused'; readonly reply: Reply };

async function probeReport(
  context: BotCommandContext,
  kind: ReportKind,
  token: string,
  profile: string,
): Promise<Probe> {
  const { deps, ctx } = context;
  const spec = reportKindOf(kind);
  const client = createApiClient(deps.api, token, { timeoutMs: deps.inlineBudgetMs, maxRetries: 0 });
  try {
    return { kind: 'read', ...(await spec.probe(new AccountFeed(client), deps.store.now())) };
  } catch (error) {
    if (isApiError(error, 'unauthorized')) {
      await deps.store.tokenLinks.markInvalid(ctx.team, ctx.user, profile);
      // Home shows the profile as rejected from now on.
      await republishHome(deps, ctx.team, [ctx.user], ctx.correlationId);
      return {
        kind: 'refused',
        reply: loginPrompt(
          'The API rejected your token (revoked or expired). Run `/cloud login` with a new one, then add the report again.',
        ),
      };
    }
    if (isApiError(error, 'forbidden')) {
      const why = spec.refusedWhy === '' ? '' : ` (${spec.refusedWhy})`;
      return {
        kind: 'refused',
        reply: notice(
          `The API refused to show ${spec.reads} to your token: it needs \`${spec.scopes[0]}\`${why}. Nothing was subscribed.`,
        ),
      };
    }
    return { kind: 'unknown' };
  }
}

// ---------------------------------------------------------------------------------------------
// list

function scheduleState(sub: ReportSubscription): string {
  if (sub.paused)
    return `:pause_button: paused${sub.pauseReason ? `: ${escapeMrkdwn(sub.pauseReason)}` : ''}`;
  const last = sub.lastRun
    ? `, last run ${slackDate(sub.lastRun.at)}${sub.lastRun.status === 'failed' ? ' :warning: failed' : ''}`
    : '';
  return `next ${slackDate(sub.nextRunAt)}${last}`;
}

async function listReports({ deps, ctx }: BotCommandContext): Promise<Reply> {
  const subs = await deps.store.reports.list(ctx.team, { channel: ctx.channel });
  if (subs.length === 0) {
    return notice(
      'This channel has no report subscriptions. Add one with `/cloud reports add issues --daily 09:00`, ' +
        '`/cloud reports add alerts` or `/cloud reports add stats --every 6h`.',
    );
  }
  const lines = subs
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
    .map(
      (sub) =>
        `• ${shortId(sub)} *${titleOf(sub.kind)}*, ${escapeMrkdwn(describeSchedule(sub.schedule))}, by ${userMention(sub.owner)} ` +
        `(profile ${codeSpan(sub.profile)}): ${scheduleState(sub)}`,
    );
  return notice(`*Reports in this channel:*\n${lines.join('\n')}`);
}

// ---------------------------------------------------------------------------------------------
// remove, pause, resume, run

type Change = 'remove' | 'pause' | 'resume' | 'run';

/** The team's subscription whose id starts with `text` (the lists show 8 characters). */
async function findSubscription(
  context: BotCommandContext,
  text: string,
): Promise<{ sub: ReportSubscription } | { reply: Reply }> {
  const wanted = text.trim().toLowerCase();
  if (!/^[0-9a-f-]{4,36}$/.test(wanted)) {
    return {
      reply: notice(
        'Give the report ID as `/cloud reports list` shows it, e.g. `/cloud reports pause 1a2b3c4d`.',
      ),
    };
  }
  const all = await context.deps.store.reports.list(context.ctx.team);
  const matches = all.filter((sub) => sub.id.startsWith(wanted));
  const [sub] = matches;
  if (!sub)
    return {
      reply: notice(`No report has the ID \`${wanted}\`. \`/cloud reports list\` shows this channel's.`),
    };
  if (matches.length > 1)
    return { reply: notice(`Several reports start with \`${wanted}\`; give more of the ID.`) };
  return { sub };
}

/** The owner, the bot's configured admins and workspace admins may change a subscription. */
async function mayChange(
  { deps, ctx, client }: BotCommandContext,
  sub: ReportSubscription,
): Promise<boolean> {
  if (sub.owner === ctx.user || deps.approvalAdmins.includes(ctx.user)) return true;
  // A failed lookup (rate limited, Slack down) is thrown and answered as such, not taken for "no".
  const info = await client.users.info({ user: ctx.user });
  return info.user?.is_admin === true || info.user?.is_owner === true;
}

async function changeReport(context: BotCommandContext, change: Change, idText: string): Promise<Reply> {
  const { deps, ctx } = context;
  const found = await findSubscription(context, idText);
  if ('reply' in found) return found.reply;
  const { sub } = found;
  const elsewhere = sub.channel === ctx.channel ? '' : ` (in <#${sub.channel}>)`;

  if (change === 'run') {
    if (sub.channel !== ctx.channel)
      return notice(`Report ${shortId(sub)} posts in <#${sub.channel}>; run it from there.`);
    return runNow(context, sub);
  }
  if (!(await mayChange(context, sub))) {
    return notice(
      `Only ${userMention(sub.owner)}, who added report ${shortId(sub)}, or a workspace admin can ${change} it.`,
    );
  }
  switch (change) {
    case 'remove': {
      await deps.store.reports.delete(ctx.team, sub.id);
      await republishHome(deps, ctx.team, [sub.owner, ctx.user], ctx.correlationId);
      return inChannel(
        `${userMention(ctx.user)} removed the *${titleOf(sub.kind)}* ${shortId(sub)}${elsewhere}.`,
      );
    }
    case 'pause': {
      if (sub.paused) return notice(`Report ${shortId(sub)} is paused already.`);
      await deps.store.reports.pause(ctx.team, sub.id, `paused by ${userMention(ctx.user)}`);
      await republishHome(deps, ctx.team, [sub.owner, ctx.user], ctx.correlationId);
      return inChannel(
        `${userMention(ctx.user)} paused the *${titleOf(sub.kind)}* ${shortId(sub)}${elsewhere}. \`/cloud reports resume ${sub.id.slice(0, 8)}\` starts it again.`,
      );
    }
    case 'resume': {
      if (!sub.paused) return notice(`Report ${shortId(sub)} is not paused.`);
      const problem = await tokenProblem(context, sub);
      if (problem) return notice(problem);
      // A report paused because its channel refused it would only pause again.
      const access = await ensureBotCanPost(context.client, sub.channel);
      if (access.kind === 'refused') {
        const other = sub.channel === ctx.channel ? undefined : sub.channel;
        return notice(`Report ${shortId(sub)} stays paused. ${channelRefusalHint(access.refusal, other)}`);
      }
      const next = firstRunAt(sub.schedule, deps.store.now());
      await deps.store.reports.resume(ctx.team, sub.id, next);
      await republishHome(deps, ctx.team, [sub.owner, ctx.user], ctx.correlationId);
      return inChannel(
        `${userMention(ctx.user)} resumed the *${titleOf(sub.kind)}* ${shortId(sub)}${elsewhere}; next run ${slackDate(next)}.`,
      );
    }
  }
}

/** Why the subscription's token cannot run it, or undefined when it can. */
async function tokenProblem(
  { deps }: { readonly deps: { readonly store: Store } },
  sub: ReportSubscription,
): Promise<string | undefined> {
  const link: TokenLink | undefined = await deps.store.tokenLinks.getLink(sub.team, sub.owner, sub.profile);
  const relink = `/cloud login${sub.profile === 'default' ? '' : ` --profile ${sub.profile}`}`;
  if (!link) {
    return `Report ${shortId(sub)} runs with ${userMention(sub.owner)}'s token of profile ${codeSpan(sub.profile)}, which is no longer linked. ${userMention(sub.owner)} has to run ${codeSpan(relink)} first.`;
  }
  if (link.status === 'invalid') {
    return `The API rejected ${userMention(sub.owner)}'s token of profile ${codeSpan(sub.profile)}, which report ${shortId(sub)} runs with. ${userMention(sub.owner)} has to run ${codeSpan(relink)} with a new token first.`;
  }
  if (link.scopes !== 'unknown' && !scopesCoverReports(link.scopes, sub.kind)) {
    return `The token report ${shortId(sub)} runs with has scopes ${codeSpan(link.scopes)}, without \`${reportKindOf(sub.kind).scopes[0]}\`; link one that has it.`;
  }
  return undefined;
}

/**
 * `/cloud reports run ID` checks what it can at once and hands the run to the worker: posting
 * goes at one message a second per channel, so a few alerts would already miss Slack's 3 s.
 */
async function runNow(context: BotCommandContext, sub: ReportSubscription): Promise<Reply> {
  const { deps, ctx } = context;
  if (sub.paused) return notice(`Report ${shortId(sub)} is paused; resume it first.`);
  const problem = await tokenProblem(context, sub);
  if (problem) return notice(problem);
  await deps.handoff.dispatch({
    kind: 'report-run',
    correlationId: ctx.correlationId,
    team: ctx.team,
    user: ctx.user,
    channel: ctx.channel,
    ...(ctx.responseUrl ? { responseUrl: ctx.responseUrl } : {}),
    subscriptionId: sub.id,
  });
  return {
    ...notice(`:hourglass_flowing_sand: Running report ${shortId(sub)} (${titleOf(sub.kind)}) now…`),
    outcome: 'handed_off',
  };
}

/** The worker's Lambda times out at 120 s; the run stops posting well before, the rest waits for the schedule. */
const RUN_NOW_BUDGET_MS = 90_000;

export interface ReportRunDeps {
  readonly store: Store;
  readonly api: ApiSettings;
  readonly logger: Logger;
  readonly slack: WebClient;
  /** Which of Slack's history limits apply (`lib/reports/history-budget.ts`); the stricter when unknown. */
  readonly slackInstall?: SlackInstallKind | undefined;
}

/**
 * The worker's half of `/cloud reports run`: posts the report outside its schedule (which stays
 * as it is), alerts under the same claims as the scheduled runs, so a run racing this one never
 * posts an issue twice. Returns the summary for the person who asked; never throws.
 */
export async function runReportJob(deps: ReportRunDeps, job: ReportRunJob): Promise<Reply> {
  try {
    const sub = await deps.store.reports.get(job.team, job.subscriptionId);
    if (!sub) return notice('That report was removed before it could run.');
    if (sub.paused) return notice(`Report ${shortId(sub)} is paused; resume it first.`);
    return await runReport(deps, job, sub);
  } catch (error) {
    deps.logger.error('report run failed', {
      correlationId: job.correlationId,
      reason: failureReason(error),
    });
    return notice(`The report could not be run (${escapeMrkdwn(failureReason(error))}).`);
  }
}

async function runReport(deps: ReportRunDeps, job: ReportRunJob, sub: ReportSubscription): Promise<Reply> {
  const lookup = await deps.store.tokenLinks.getToken(sub.team, sub.owner, sub.profile);
  if (lookup.status !== 'found')
    return notice((await tokenProblem({ deps }, sub)) ?? 'The report cannot run now.');

  const now = deps.store.now();
  const api = createApiClient(deps.api, lookup.token);
  const feed = new AccountFeed(api);
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
        audit: deps.store.audit,
        history: new HistoryBudget(deps.slackInstall ?? 'distributed'),
        deadline: Date.now() + RUN_NOW_BUDGET_MS,
      },
      sub,
    );
    const notSaved = result.seenIssueIds ? await recordRunNow(deps, sub, now, result) : [];
    for (const failure of notSaved) {
      deps.logger.warn('report progress not saved', { ...failure, correlationId: job.correlationId });
    }
    if (result.error !== undefined) throw result.error;
    const unsaved =
      notSaved.length === 0
        ? ''
        : `\n:warning: ${countOf(notSaved.length, 'record')} of this run could not be saved (${escapeMrkdwn(
            [...new Set(notSaved.map((f) => `${f.step}: ${f.reason}`))].join(', '),
          )}); the next run checks the channel before posting anything again.`;
    const { eachNew } = reportKindOf(sub.kind);
    if (!eachNew) return notice(`Posted report ${shortId(sub)}.${unsaved}`);
    const count = result.alerted?.length ?? 0;
    const text =
      sub.lastRun === null
        ? `Report ${shortId(sub)} ${eachNew.learned}; new ones will be posted as they appear.`
        : count === 0
          ? `${eachNew.none} for report ${shortId(sub)}.`
          : `Posted ${countOf(count, eachNew.noun)}.`;
    const rest = result.unfinished ? ' The rest follow with the next scheduled run.' : '';
    return notice(`${text}${rest}${unsaved}`);
  } catch (error) {
    if (isApiError(error, 'timeout') || isApiError(error, 'network') || isApiError(error, 'server_error')) {
      await deps.store.reports.advance(sub, now);
      return notice(`The API is slow right now; report ${shortId(sub)} will be posted within a few minutes.`);
    }
    if (isApiError(error, 'unauthorized')) {
      const account = { team: sub.team, owner: sub.owner, profile: sub.profile };
      const paused = await pauseForTokenProblem(
        {
          store: deps.store,
          slack: deps.slack,
          pacer,
          logger: deps.logger,
          refreshHomes: async (team, users) =>
            (await import('./home.js')).refreshHomes(deps, deps.slack, team, users),
        },
        account,
        'rejected',
      );
      return notice(
        `The API rejected ${userMention(sub.owner)}'s token, which report ${shortId(sub)} runs with; ${countOf(paused.length, 'report')} paused.`,
      );
    }
    deps.logger.warn('report run failed', {
      subscription: sub.id,
      correlationId: job.correlationId,
      reason: failureReason(error),
    });
    return notice(`Report ${shortId(sub)} could not be posted (${escapeMrkdwn(failureReason(error))}).`);
  }
}
