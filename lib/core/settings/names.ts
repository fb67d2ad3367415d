import { OPERATION_CLASSES } from '../../api/operation.js';
import { findOperation } from '../../api/operations/index.js';
import { runbookNameFault, stepFaults, stepProblem } from '../../changes/runbooks.js';
import { reportKindOf } from '../../reports/kinds.js';
import { formatInterval, parseDailyTime, parseInterval, parseTimeZone } from '../../reports/schedule.js';
import type { ApprovalRule, ChannelPolicy, ReportSchedule } from '../../store/index.js';
import type { ReportKind } from '../../store/report-kind-names.js';
import {
  DEFAULT_REPORT_NOISE,
  type ReportNoise,
  ReportNoiseSchema,
} from '../../store/report-subscriptions.js';
import { checkExpansion, type ExpansionProblem, MAX_ALIASES_PER_SCOPE } from '../aliases.js';
import { MAX_SUBSCRIPTIONS_PER_CHANNEL } from '../report-subscriptions.js';
import {
  type ApprovalsDocument,
  type ChannelSettingsDocument,
  QUIET_HOURS_PATTERN,
  type ReportDocument,
  type RuleDocument,
  SCHEDULE_PATTERN,
  SETTINGS_FORMAT,
  type SettingsDocument,
} from './document.js';
import type { ChannelSettings, ReportSettings, WorkspaceSettings } from './model.js';
import type { DocumentProblem, PathPart } from './yaml-text.js';

/**
 * Between the settings as stored (ids) and the document people write (names): `toDocument` names
 * every channel, person and user group through the surface's directory, `fromDocument` resolves
 * what was written back to ids and checks the result by the same rules the commands apply (a rule
 * for a class or an operation, enough approvers for the count, people for break-glass, an alias
 * that runs an operation, runbook steps that parse, reports only as their owners subscribed them).
 */

export type DirectoryKind = 'channel' | 'user' | 'group';

export type Resolved =
  | { readonly ok: true; readonly id: string }
  | { readonly ok: false; readonly problem: string };

/** Names for ids and ids for names, as the surface knows them (Slack: its Web API). */
export interface SettingsDirectory {
  /** How each id is written (`#ops`, `@alice`, `@oncall`); an id it cannot name is left out. */
  names(kind: DirectoryKind, ids: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /** The id each written name stands for, or why none. */
  resolve(kind: DirectoryKind, written: readonly string[]): Promise<ReadonlyMap<string, Resolved>>;
}

// ---------------------------------------------------------------------------------------------
// stored → document

export async function toDocument(
  settings: WorkspaceSettings,
  directory: SettingsDirectory,
): Promise<SettingsDocument> {
  const ids: Record<DirectoryKind, Set<string>> = { channel: new Set(), user: new Set(), group: new Set() };
  const rules = (policy: {
    approverUsers?: readonly string[] | undefined;
    approverGroup?: string | null | undefined;
  }) => {
    for (const user of policy.approverUsers ?? []) ids.user.add(user);
    if (policy.approverGroup) ids.group.add(policy.approverGroup);
  };
  rules(settings.approvals);
  for (const admin of settings.approvals.admins) ids.user.add(admin);
  for (const [channel, own] of Object.entries(settings.channels)) {
    ids.channel.add(channel);
    if (own.policy) {
      for (const rule of Object.values(own.policy.rules)) rules(rule);
      for (const user of own.policy.breakGlass.users) ids.user.add(user);
      if (own.policy.auditChannel) ids.channel.add(own.policy.auditChannel);
    }
    for (const report of own.reports) ids.user.add(report.owner);
  }
  const [channels, users, groups] = await Promise.all([
    directory.names('channel', [...ids.channel]),
    directory.names('user', [...ids.user]),
    directory.names('group', [...ids.group]),
  ]);
  const channel = (id: string) => channels.get(id) ?? id;
  const user = (id: string) => users.get(id) ?? id;
  const group = (id: string) => groups.get(id) ?? id;
  const approvals = settings.approvals;
  return {
    settings: SETTINGS_FORMAT,
    workspace: {
      approvals: {
        approvers: approvals.approverUsers.map(user),
        approverGroup: approvals.approverGroup === null ? null : group(approvals.approverGroup),
        required: approvals.requiredApprovals,
        selfApproval: approvals.allowSelfApproval,
        expiryMinutes: approvals.expiryMinutes,
        stepUp: approvals.stepUp,
        requireReason: approvals.requireReason,
        admins: approvals.admins.map(user),
      },
      aliases: { ...settings.aliases },
      runbooks: copyRunbooks(settings.runbooks),
    },
    channels: Object.fromEntries(
      Object.entries(settings.channels).map(([id, own]) => [
        channel(id),
        channelDocument(own, { channel, user, group }),
      ]),
    ),
  };
}

interface Namer {
  channel(id: string): string;
  user(id: string): string;
  group(id: string): string;
}

function channelDocument(own: ChannelSettings, name: Namer): ChannelSettingsDocument {
  return {
    ...(own.policy && {
      allow: [...own.policy.allowedClasses],
      ...(Object.keys(own.policy.rules).length > 0 && {
        rules: Object.fromEntries(
          Object.entries(own.policy.rules).map(([key, rule]) => [key, ruleDocument(rule, name)]),
        ),
      }),
      ...((own.policy.breakGlass.enabled || own.policy.breakGlass.users.length > 0) && {
        breakGlass: {
          enabled: own.policy.breakGlass.enabled,
          people: own.policy.breakGlass.users.map(name.user),
        },
      }),
      ...(own.policy.auditChannel && { auditChannel: name.channel(own.policy.auditChannel) }),
    }),
    ...(Object.keys(own.aliases).length > 0 && { aliases: { ...own.aliases } }),
    ...(Object.keys(own.runbooks).length > 0 && { runbooks: copyRunbooks(own.runbooks) }),
    ...(own.reports.length > 0 && { reports: own.reports.map((report) => reportDocument(report, name)) }),
  };
}

function ruleDocument(rule: ApprovalRule, name: Namer): RuleDocument {
  return {
    ...(rule.requiredApprovals !== undefined && { required: rule.requiredApprovals }),
    ...(rule.approverUsers !== undefined && { approvers: rule.approverUsers.map(name.user) }),
    ...(rule.approverGroup !== undefined && {
      approverGroup: rule.approverGroup === null ? null : name.group(rule.approverGroup),
    }),
    ...(rule.allowSelfApproval !== undefined && { selfApproval: rule.allowSelfApproval }),
    ...(rule.expiryMinutes !== undefined && { expiryMinutes: rule.expiryMinutes }),
    ...(rule.stepUp !== undefined && { stepUp: rule.stepUp }),
    ...(rule.requireReason !== undefined && { requireReason: rule.requireReason }),
  };
}

function reportDocument(report: ReportSettings, name: Namer): ReportDocument {
  return {
    id: report.id,
    kind: report.kind,
    owner: name.user(report.owner),
    profile: report.profile,
    schedule: scheduleText(report.schedule),
    ...(Object.keys(report.filter).length > 0 && {
      filter: Object.fromEntries(Object.entries(report.filter).map(([key, words]) => [key, [...words]])),
    }),
    paused: report.paused,
    // Only the kinds that post each new thing keep quiet (`eachNew`, as `reports quiet` asks):
    // digests and charts have no such settings.
    ...(keepsQuiet(report.kind) && {
      quietHours: report.noise.quietHours && quietHoursText(report.noise.quietHours),
      burstAt: report.noise.burstAt,
      flapMinutes: report.noise.flapMinutes,
    }),
  };
}

function keepsQuiet(kind: ReportKind): boolean {
  return reportKindOf(kind).eachNew !== undefined;
}

function quietHoursText(quiet: NonNullable<ReportNoise['quietHours']>): string {
  return `${quiet.from}-${quiet.to} ${quiet.tz}`;
}

export function scheduleText(schedule: ReportSchedule): string {
  return schedule.type === 'every'
    ? `every ${formatInterval(schedule.minutes)}`
    : `daily ${schedule.time} ${schedule.tz}`;
}

function copyRunbooks(runbooks: Readonly<Record<string, readonly string[]>>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(runbooks).map(([key, steps]) => [key, [...steps]]));
}

// ---------------------------------------------------------------------------------------------
// document → stored

/** An id the surface is asked about, with where the document names it. */
export interface NamedId {
  readonly id: string;
  readonly path: readonly PathPart[];
}

export type FromDocument =
  | {
      readonly ok: true;
      readonly settings: WorkspaceSettings;
      /** Approver groups and audit channels, which only the surface can check. */
      readonly groups: readonly NamedId[];
      readonly auditChannels: readonly NamedId[];
    }
  | { readonly ok: false; readonly problems: readonly DocumentProblem[] };

interface Written {
  readonly kind: DirectoryKind;
  readonly text: string;
  readonly path: readonly PathPart[];
}

/**
 * The settings a document asks for, with every name resolved and every rule checked against
 * `current` (what the store holds: reports are matched to their subscriptions by id).
 */
export async function fromDocument(
  document: SettingsDocument,
  current: WorkspaceSettings,
  directory: SettingsDirectory,
  lineOf: (path: readonly PathPart[]) => number,
): Promise<FromDocument> {
  const written = writtenNames(document);
  const resolved: Record<DirectoryKind, ReadonlyMap<string, Resolved>> = {
    channel: new Map(),
    user: new Map(),
    group: new Map(),
  };
  await Promise.all(
    (['channel', 'user', 'group'] as const).map(async (kind) => {
      const texts = [...new Set(written.filter((name) => name.kind === kind).map((name) => name.text))];
      if (texts.length > 0) resolved[kind] = await directory.resolve(kind, texts);
    }),
  );
  const problems: DocumentProblem[] = [];
  const problem = (path: readonly PathPart[], message: string) =>
    problems.push({ line: lineOf(path), path: path.join('.'), message });
  for (const name of written) {
    const found = resolved[name.kind].get(name.text);
    if (!found) problem(name.path, `\`${name.text}\` could not be looked up.`);
    else if (!found.ok) problem(name.path, found.problem);
  }
  if (problems.length > 0) return { ok: false, problems };
  const id = (kind: DirectoryKind, text: string): string => {
    const found = resolved[kind].get(text);
    return found?.ok ? found.id : text;
  };
  const settings = build(document, current, id, problem);
  if (problems.length > 0) return { ok: false, problems };
  const named = (kind: DirectoryKind, key: 'approverGroup' | 'auditChannel') =>
    written.flatMap((name) =>
      name.kind === kind && name.path[name.path.length - 1] === key
        ? [{ id: id(kind, name.text), path: name.path }]
        : [],
    );
  return {
    ok: true,
    settings,
    groups: named('group', 'approverGroup'),
    auditChannels: named('channel', 'auditChannel'),
  };
}

/** Every channel, person and group the document names, with where. */
function writtenNames(document: SettingsDocument): Written[] {
  const found: Written[] = [];
  const add = (kind: DirectoryKind, text: string, path: readonly PathPart[]): void => {
    found.push({ kind, text, path });
  };
  const approvals = document.workspace.approvals;
  for (const [i, text] of approvals.approvers.entries())
    add('user', text, ['workspace', 'approvals', 'approvers', i]);
  for (const [i, text] of approvals.admins.entries())
    add('user', text, ['workspace', 'approvals', 'admins', i]);
  if (approvals.approverGroup !== null)
    add('group', approvals.approverGroup, ['workspace', 'approvals', 'approverGroup']);
  for (const [channel, own] of Object.entries(document.channels)) {
    const at = ['channels', channel];
    add('channel', channel, at);
    for (const [key, rule] of Object.entries(own.rules ?? {})) {
      for (const [i, text] of (rule.approvers ?? []).entries())
        add('user', text, [...at, 'rules', key, 'approvers', i]);
      if (rule.approverGroup) add('group', rule.approverGroup, [...at, 'rules', key, 'approverGroup']);
    }
    for (const [i, text] of (own.breakGlass?.people ?? []).entries())
      add('user', text, [...at, 'breakGlass', 'people', i]);
    if (own.auditChannel) add('channel', own.auditChannel, [...at, 'auditChannel']);
    for (const [i, report] of (own.reports ?? []).entries())
      add('user', report.owner, [...at, 'reports', i, 'owner']);
  }
  return found;
}

type Problem = (path: readonly PathPart[], message: string) => void;

function build(
  document: SettingsDocument,
  current: WorkspaceSettings,
  id: (kind: DirectoryKind, text: string) => string,
  problem: Problem,
): WorkspaceSettings {
  const approvals = approvalsOf(document.workspace.approvals, id, problem);
  checkAliases(document.workspace.aliases, ['workspace', 'aliases'], problem);
  checkRunbooks(document.workspace.runbooks, ['workspace', 'runbooks'], problem);
  const channels = new Map<string, ChannelSettings>();
  const currentReports = new Map(
    Object.entries(current.channels).flatMap(([channel, own]) =>
      own.reports.map((report) => [report.id, { ...report, channel }] as const),
    ),
  );
  for (const [written, own] of Object.entries(document.channels)) {
    const at = ['channels', written];
    const channelId = id('channel', written);
    if (channels.has(channelId)) {
      problem(
        at,
        `\`${written}\` is a channel named twice in the document: merge its settings into one entry.`,
      );
      continue;
    }
    checkAliases(own.aliases ?? {}, [...at, 'aliases'], problem);
    checkRunbooks(own.runbooks ?? {}, [...at, 'runbooks'], problem);
    channels.set(channelId, {
      policy: policyOf(own, at, id, problem),
      aliases: { ...own.aliases },
      runbooks: Object.fromEntries(Object.entries(own.runbooks ?? {}).map(([k, steps]) => [k, [...steps]])),
      reports: (own.reports ?? []).flatMap((report, i) => {
        const settled = reportOf(report, channelId, [...at, 'reports', i], currentReports, id, problem);
        return settled ? [settled] : [];
      }),
    });
    if ((own.reports?.length ?? 0) > MAX_SUBSCRIPTIONS_PER_CHANNEL) {
      problem([...at, 'reports'], `A channel has at most ${MAX_SUBSCRIPTIONS_PER_CHANNEL} reports.`);
    }
  }
  const sorted = [...channels].filter(([, own]) => !isEmpty(own)).sort(([a], [b]) => (a < b ? -1 : 1));
  return {
    approvals,
    aliases: sortedCopy(document.workspace.aliases),
    runbooks: sortedCopy(document.workspace.runbooks),
    channels: Object.fromEntries(
      sorted.map(([key, own]) => [
        key,
        {
          ...own,
          aliases: sortedCopy(own.aliases),
          runbooks: sortedCopy(own.runbooks),
          reports: [...own.reports].sort((a, b) => a.id.localeCompare(b.id)),
        },
      ]),
    ),
  };
}

function isEmpty(own: ChannelSettings): boolean {
  return (
    own.policy === null &&
    Object.keys(own.aliases).length === 0 &&
    Object.keys(own.runbooks).length === 0 &&
    own.reports.length === 0
  );
}

function sortedCopy<V>(record: Readonly<Record<string, V>>): Record<string, V> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function approvalsOf(
  written: ApprovalsDocument,
  id: (kind: DirectoryKind, text: string) => string,
  problem: Problem,
): WorkspaceSettings['approvals'] {
  const approverUsers = unique(written.approvers.map((text) => id('user', text)));
  const approverGroup = written.approverGroup === null ? null : id('group', written.approverGroup);
  if (approverGroup === null && approverUsers.length > 0 && approverUsers.length < written.required) {
    problem(
      ['workspace', 'approvals', 'required'],
      `${written.required} approvals are required but only ${approverUsers.length} approvers are named: name more, or lower \`required\`.`,
    );
  }
  return {
    approverUsers,
    approverGroup,
    requiredApprovals: written.required,
    allowSelfApproval: written.selfApproval,
    expiryMinutes: written.expiryMinutes,
    stepUp: written.stepUp,
    requireReason: written.requireReason,
    admins: unique(written.admins.map((text) => id('user', text))),
  };
}

const POLICY_KEYS = ['allow', 'rules', 'breakGlass', 'auditChannel'] as const;

function policyOf(
  own: ChannelSettingsDocument,
  at: readonly PathPart[],
  id: (kind: DirectoryKind, text: string) => string,
  problem: Problem,
): ChannelPolicy | null {
  if (!POLICY_KEYS.some((key) => own[key] !== undefined)) return null;
  const rules: Record<string, ApprovalRule> = {};
  for (const [key, rule] of Object.entries(own.rules ?? {})) {
    const path = [...at, 'rules', key];
    if (!(OPERATION_CLASSES as readonly string[]).includes(key) && findOperation(key)?.id !== key) {
      problem(path, `\`${key}\` is neither a class (read, change, costs, destructive) nor an operation id.`);
      continue;
    }
    if (Object.keys(rule).length === 0) {
      problem(path, `The rule for \`${key}\` sets nothing: give it a setting, or remove it.`);
      continue;
    }
    const approverUsers = rule.approvers && unique(rule.approvers.map((text) => id('user', text)));
    const approverGroup = rule.approverGroup && id('group', rule.approverGroup);
    const required = rule.required ?? 1;
    if (approverUsers && !approverGroup && approverUsers.length > 0 && approverUsers.length < required) {
      problem(
        [...path, 'required'],
        `${required} approvals are required but only ${approverUsers.length} approvers are named.`,
      );
    }
    rules[key] = {
      ...(rule.required !== undefined && { requiredApprovals: rule.required }),
      ...(approverUsers !== undefined && { approverUsers }),
      ...(rule.approverGroup !== undefined && {
        approverGroup: rule.approverGroup === null ? null : (approverGroup ?? null),
      }),
      ...(rule.selfApproval !== undefined && { allowSelfApproval: rule.selfApproval }),
      ...(rule.expiryMinutes !== undefined && { expiryMinutes: rule.expiryMinutes }),
      ...(rule.stepUp !== undefined && { stepUp: rule.stepUp }),
      ...(rule.requireReason !== undefined && { requireReason: rule.requireReason }),
    };
  }
  const breakGlass = {
    enabled: own.breakGlass?.enabled ?? false,
    users: unique((own.breakGlass?.people ?? []).map((text) => id('user', text))),
  };
  if (breakGlass.enabled && breakGlass.users.length === 0) {
    problem([...at, 'breakGlass', 'people'], 'Break-glass is on but names nobody who may use it.');
  }
  return {
    allowedClasses: unique(own.allow ?? [...OPERATION_CLASSES]),
    rules: sortedCopy(rules),
    breakGlass,
    auditChannel: own.auditChannel ? id('channel', own.auditChannel) : null,
  };
}

function checkAliases(
  aliases: Readonly<Record<string, string>>,
  at: readonly PathPart[],
  problem: Problem,
): void {
  if (Object.keys(aliases).length > MAX_ALIASES_PER_SCOPE) {
    problem(at, `At most ${MAX_ALIASES_PER_SCOPE} aliases per channel and for the workspace.`);
  }
}

function checkRunbooks(
  runbooks: Readonly<Record<string, readonly string[]>>,
  at: readonly PathPart[],
  problem: Problem,
): void {
  for (const [name, steps] of Object.entries(runbooks)) {
    const fault = runbookNameFault(name);
    if (fault) {
      problem(
        [...at, name],
        `\`${name}\` cannot be a runbook's name: ${fault === 'command' ? 'it is a command' : 'it is reserved or not lowercase letters, digits and dashes'}.`,
      );
      continue;
    }
    for (const stepFault of stepFaults(steps)) {
      const index = 'step' in stepFault ? stepFault.step - 1 : undefined;
      problem(index === undefined ? [...at, name] : [...at, name, index], stepProblem(stepFault));
    }
  }
}

/** Alias expansions are checked by the same parser a typed `/cloud alias add` goes through. */
export async function aliasProblems(
  document: SettingsDocument,
  lineOf: (path: readonly PathPart[]) => number,
): Promise<DocumentProblem[]> {
  const found: DocumentProblem[] = [];
  const scopes: [readonly PathPart[], Readonly<Record<string, string>>][] = [
    [['workspace', 'aliases'], document.workspace.aliases],
    ...Object.entries(document.channels).map(
      ([channel, own]): [readonly PathPart[], Readonly<Record<string, string>>] => [
        ['channels', channel, 'aliases'],
        own.aliases ?? {},
      ],
    ),
  ];
  for (const [at, aliases] of scopes) {
    for (const [name, expansion] of Object.entries(aliases)) {
      const check = await checkExpansion(name, expansion);
      if (!check.ok) {
        found.push({
          line: lineOf([...at, name]),
          path: [...at, name].join('.'),
          message: expansionText(check.problem),
        });
      }
    }
  }
  return found;
}

function expansionText(problem: ExpansionProblem): string {
  switch (problem.kind) {
    case 'unreadable':
      return problem.message;
    case 'not_a_command':
      return `The alias is not a command: ${problem.message}`;
    case 'not_an_operation':
      return 'An alias runs an operation such as `volumes delete $1`, not help, the bot’s own commands or another alias.';
    case 'break_glass':
      return '`--break-glass` cannot be part of an alias: it is decided at the moment, with its reason.';
    case 'does_not_run':
      return `The alias is not a command that runs: ${problem.message ?? 'it does not parse'}`;
  }
}

function reportOf(
  report: ReportDocument,
  channel: string,
  at: readonly PathPart[],
  current: ReadonlyMap<string, ReportSettings & { readonly channel: string }>,
  id: (kind: DirectoryKind, text: string) => string,
  problem: Problem,
): ReportSettings | undefined {
  const existing = current.get(report.id);
  if (!existing) {
    problem(
      [...at, 'id'],
      'No report of this workspace has this id. A report runs with its owner’s token, so its owner subscribes it with `/cloud reports add`; export again to see it here.',
    );
    return undefined;
  }
  const owner = id('user', report.owner);
  if (
    existing.channel !== channel ||
    existing.kind !== report.kind ||
    existing.owner !== owner ||
    existing.profile !== report.profile
  ) {
    problem(
      at,
      'A report’s channel, kind, owner and profile are its owner’s to choose: remove it and have them subscribe again with `/cloud reports add`.',
    );
    return undefined;
  }
  const schedule = scheduleOf(report.schedule);
  if (!schedule.ok) {
    problem([...at, 'schedule'], schedule.message);
    return undefined;
  }
  const noise = noiseOf(report, existing.noise);
  if (!noise.ok) {
    problem([...at, 'quietHours'], noise.message);
    return undefined;
  }
  return {
    id: report.id,
    kind: report.kind,
    owner,
    profile: report.profile,
    schedule: schedule.value,
    filter: Object.fromEntries(Object.entries(report.filter ?? {}).map(([key, words]) => [key, [...words]])),
    paused: report.paused,
    noise: noise.value,
  };
}

/**
 * A report's noise settings as written; one left out is its default (the document is the whole
 * of the settings), and the subscriptions that have none (digests, charts) keep theirs.
 */
function noiseOf(
  report: ReportDocument,
  existing: ReportNoise,
): { ok: true; value: ReportNoise } | { ok: false; message: string } {
  if (!keepsQuiet(report.kind)) return { ok: true, value: existing };
  let quietHours: ReportNoise['quietHours'] = null;
  if (report.quietHours) {
    const match = QUIET_HOURS_PATTERN.exec(report.quietHours);
    if (!match) return { ok: false, message: 'Quiet hours are written `22:00-07:00 Europe/Berlin`.' };
    const zone = parseTimeZone(match[5] ?? '');
    if (!zone.ok) return zone;
    quietHours = { from: `${match[1]}:${match[2]}`, to: `${match[3]}:${match[4]}`, tz: zone.value };
  }
  const read = ReportNoiseSchema.safeParse({
    quietHours,
    burstAt: report.burstAt ?? DEFAULT_REPORT_NOISE.burstAt,
    flapMinutes: report.flapMinutes ?? DEFAULT_REPORT_NOISE.flapMinutes,
  });
  return read.success
    ? { ok: true, value: read.data }
    : { ok: false, message: `Quiet hours ${read.error.issues[0]?.message ?? 'are not valid'}.` };
}

function scheduleOf(text: string): { ok: true; value: ReportSchedule } | { ok: false; message: string } {
  const match = SCHEDULE_PATTERN.exec(text);
  if (!match)
    return { ok: false, message: 'A schedule is `every 15m`, `every 1h30m` or `daily 09:00 Europe/Berlin`.' };
  if (match[2] !== undefined) {
    const minutes = parseInterval(match[2]);
    return minutes.ok ? { ok: true, value: { type: 'every', minutes: minutes.value } } : minutes;
  }
  const time = parseDailyTime(match[3] ?? '');
  if (!time.ok) return time;
  const zone = parseTimeZone(match[4] ?? '');
  if (!zone.ok) return zone;
  return { ok: true, value: { type: 'daily', time: time.value, tz: zone.value } };
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
