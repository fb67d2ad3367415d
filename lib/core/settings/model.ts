import { createHash } from 'node:crypto';
import type {
  ApprovalPolicy,
  ChannelPolicy,
  ReportKind,
  ReportSubscription,
  Store,
} from '../../store/index.js';
import {
  type ReportNoise,
  type ReportSchedule,
  ReportScheduleSchema,
} from '../../store/report-subscriptions.js';

/**
 * A workspace's settings as the store keeps them, with ids: the workspace's approval policy,
 * aliases and runbooks, and per channel its policy, aliases, runbooks and report subscriptions.
 * Read whole from the store (`readSettings`), written as one canonical JSON text whose digest says
 * whether two reads saw the same settings: a plan from CI names the digest it was made against,
 * and an apply refuses when today's differs.
 */

export interface ReportSettings {
  readonly id: string;
  readonly kind: ReportKind;
  readonly owner: string;
  readonly profile: string;
  readonly schedule: ReportSchedule;
  readonly filter: Readonly<Record<string, readonly string[]>>;
  readonly paused: boolean;
  /** Quiet hours, bursts and flapping. */
  readonly noise: ReportNoise;
}

export interface ChannelSettings {
  /** The channel's own policy; null when the workspace's applies. */
  readonly policy: ChannelPolicy | null;
  readonly aliases: Readonly<Record<string, string>>;
  readonly runbooks: Readonly<Record<string, readonly string[]>>;
  /** By id. */
  readonly reports: readonly ReportSettings[];
}

export interface WorkspaceSettings {
  readonly approvals: ApprovalPolicy;
  readonly aliases: Readonly<Record<string, string>>;
  readonly runbooks: Readonly<Record<string, readonly string[]>>;
  /** By channel id; a channel is here when it has anything of its own. */
  readonly channels: Readonly<Record<string, ChannelSettings>>;
}

export type SettingsStore = Pick<
  Store,
  'approvalPolicy' | 'channelPolicy' | 'aliases' | 'runbooks' | 'reports' | 'now'
>;

/** Everything the workspace's settings are today, read with strongly consistent reads. */
export async function readSettings(store: SettingsStore, team: string): Promise<WorkspaceSettings> {
  const [approvals, policies, aliases, runbooks, reports] = await Promise.all([
    store.approvalPolicy.get(team),
    store.channelPolicy.list(team),
    store.aliases.listEvery(team),
    store.runbooks.listEvery(team),
    store.reports.list(team),
  ]);
  const channels = new Map<string, MutableChannel>();
  const channel = (id: string): MutableChannel => {
    let found = channels.get(id);
    if (!found) {
      found = { policy: null, aliases: new Map(), runbooks: new Map(), reports: [] };
      channels.set(id, found);
    }
    return found;
  };
  for (const policy of policies) {
    channel(policy.channel).policy = {
      allowedClasses: [...policy.allowedClasses],
      rules: policy.rules,
      breakGlass: policy.breakGlass,
      auditChannel: policy.auditChannel,
    };
  }
  const workspaceAliases = new Map<string, string>();
  for (const alias of aliases) {
    if (alias.scope.kind === 'workspace') workspaceAliases.set(alias.name, alias.expansion);
    else channel(alias.scope.channel).aliases.set(alias.name, alias.expansion);
  }
  const workspaceRunbooks = new Map<string, readonly string[]>();
  for (const runbook of runbooks) {
    if (runbook.channel === null) workspaceRunbooks.set(runbook.name, runbook.steps);
    else channel(runbook.channel).runbooks.set(runbook.name, runbook.steps);
  }
  for (const report of reports) channel(report.channel).reports.push(reportSettings(report));
  return {
    approvals,
    aliases: sortedRecord(workspaceAliases),
    runbooks: sortedRecord(workspaceRunbooks),
    channels: sortedRecord(
      new Map(
        [...channels].map(([id, found]) => [
          id,
          {
            policy: found.policy,
            aliases: sortedRecord(found.aliases),
            runbooks: sortedRecord(found.runbooks),
            reports: [...found.reports].sort((a, b) => a.id.localeCompare(b.id)),
          },
        ]),
      ),
    ),
  };
}

interface MutableChannel {
  policy: ChannelPolicy | null;
  readonly aliases: Map<string, string>;
  readonly runbooks: Map<string, readonly string[]>;
  readonly reports: ReportSettings[];
}

function reportSettings(report: ReportSubscription): ReportSettings {
  return {
    id: report.id,
    kind: report.kind,
    owner: report.owner,
    profile: report.profile,
    schedule: ReportScheduleSchema.parse(report.schedule),
    filter: report.filter,
    paused: report.paused,
    noise: report.noise,
  };
}

function sortedRecord<V>(map: ReadonlyMap<string, V>): Record<string, V> {
  return Object.fromEntries([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The settings as one JSON text with keys in order at every level, so the same settings always
 * give the same text (and digest), whatever order the store listed them in.
 */
export function canonicalSettings(settings: WorkspaceSettings): string {
  return canonicalJson(settings);
}

/** Any part of the settings as JSON with its keys in order, to tell whether two parts are the same. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(ordered(value ?? null));
}

export function settingsDigest(canonical: string): string {
  return createHash('sha256').update(canonical).digest('hex');
}

function ordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ordered);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => [key, ordered((value as Record<string, unknown>)[key])]),
  );
}
