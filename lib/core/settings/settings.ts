import type { Logger } from '@aws-lambda-powertools/logger';
import type { ApprovalSurface } from '../../changes/ports.js';
import { type RequestOutcome, requestBotChange } from '../../changes/requests.js';
import { firstRunAt } from '../../reports/schedule.js';
import type { Approval, SettingsVersion, Store } from '../../store/index.js';
import { type AdminDeps, isPolicyAdmin } from '../admins.js';
import type { Caller } from '../caller.js';
import type { PolicyChecks } from '../policies.js';
import { diffSettings, type SettingsChange } from './diff.js';
import {
  canonicalJson,
  canonicalSettings,
  readSettings,
  type SettingsStore,
  settingsDigest,
  type WorkspaceSettings,
} from './model.js';
import {
  aliasProblems,
  type FromDocument,
  fromDocument,
  type NamedId,
  type SettingsDirectory,
  toDocument,
} from './names.js';
import {
  type DocumentProblem,
  type DocumentText,
  documentText,
  type PathPart,
  readSettingsDocument,
  writeSettingsDocument,
} from './yaml-text.js';

/**
 * A workspace's settings as one document: exported for a policy admin, imported as a reviewed
 * change (a request under the workspace's approval rule, applied only once approved, refused if
 * the settings changed since the request was made), kept as numbered versions, and rolled back to
 * one of them the same way. CI plans and applies a file from Git under the same checks, without
 * a request: the review happened in Git, and apply writes only if the settings are still those
 * the plan saw.
 */

export interface SettingsDeps extends AdminDeps {
  readonly store: SettingsStore & Pick<Store, 'settingsVersions' | 'audit'>;
  readonly logger: Logger;
}

/** What the surface tells the core about names and about what only it can check. */
export interface SettingsSurface {
  readonly directory: SettingsDirectory;
  readonly checks: PolicyChecks;
}

/**
 * Where editors find the published schema (the first line of an exported document): beside the
 * document, as `docs/settings.schema.json` of this repository is copied next to it in Git.
 */
export const SETTINGS_SCHEMA_URL = './settings.schema.json';

export type Refused = { readonly kind: 'refused'; readonly reason: 'not_policy_admin' };

// ---------------------------------------------------------------------------------------------
// export

export type ExportOutcome =
  | Refused
  | { readonly kind: 'exported'; readonly text: string; readonly version: number; readonly digest: string };

/** The workspace's settings as a document, for a policy admin only (it names private channels). */
export async function exportSettings(
  deps: SettingsDeps,
  surface: SettingsSurface,
  caller: Caller,
): Promise<ExportOutcome> {
  if (!(await isSettingsAdmin(deps, caller))) return { kind: 'refused', reason: 'not_policy_admin' };
  return { kind: 'exported', ...(await currentDocument(deps, surface, caller.team)) };
}

async function currentDocument(deps: SettingsDeps, surface: SettingsSurface, team: string) {
  const [settings, version] = await Promise.all([
    readSettings(deps.store, team),
    deps.store.settingsVersions.headVersion(team),
  ]);
  const digest = settingsDigest(canonicalSettings(settings));
  const document = await toDocument(settings, surface.directory);
  const text = writeSettingsDocument(document, [
    `yaml-language-server: $schema=${SETTINGS_SCHEMA_URL}`,
    `Settings of workspace ${team}${version > 0 ? `, version ${version}` : ''} (digest ${digest.slice(0, 12)}).`,
    'Import with /cloud settings import, or plan and apply from CI with npm run settings.',
  ]);
  return { text, version, digest, settings, document };
}

// ---------------------------------------------------------------------------------------------
// plan

export type PlanOutcome =
  | { readonly kind: 'invalid'; readonly problems: readonly DocumentProblem[] }
  | {
      readonly kind: 'planned';
      readonly changes: readonly SettingsChange[];
      /** The settings the plan was made against. */
      readonly baseDigest: string;
      readonly settings: WorkspaceSettings;
      readonly canonical: string;
    };

/**
 * What applying `text` would change: every problem with its line, or the changes. Names are
 * resolved through the surface; an approver group nobody could approve through, and an audit
 * channel the bot cannot post in, are problems as they are for the commands.
 */
export async function planSettings(
  deps: Pick<SettingsDeps, 'store'>,
  surface: SettingsSurface,
  team: string,
  text: string,
): Promise<PlanOutcome> {
  const read = readSettingsDocument(text);
  if (!read.ok) return { kind: 'invalid', problems: read.problems };
  const current = await readSettings(deps.store, team);
  const resolved = await fromDocument(read.document, current, surface.directory, read.lineOf);
  if (!resolved.ok) return { kind: 'invalid', problems: resolved.problems };
  const problems = [
    ...(await aliasProblems(read.document, read.lineOf)),
    ...(await surfaceProblems(surface, resolved, current, read.lineOf)),
  ];
  if (problems.length > 0) {
    return { kind: 'invalid', problems: [...problems].sort((a, b) => a.line - b.line) };
  }
  const currentDocument = await toDocument(current, surface.directory);
  const proposed = await toDocument(resolved.settings, surface.directory);
  const canonical = canonicalSettings(resolved.settings);
  return {
    kind: 'planned',
    changes: diffSettings(currentDocument, proposed),
    baseDigest: settingsDigest(canonicalSettings(current)),
    settings: resolved.settings,
    canonical,
  };
}

/**
 * What only the surface can tell, asked of what the document changes: an approver group through
 * which somebody can approve, an audit channel the bot can post in.
 */
async function surfaceProblems(
  surface: SettingsSurface,
  resolved: Extract<FromDocument, { ok: true }>,
  current: WorkspaceSettings,
  lineOf: (path: readonly PathPart[]) => number,
): Promise<DocumentProblem[]> {
  const found: DocumentProblem[] = [];
  const known = new Set<string>([
    ...(current.approvals.approverGroup ? [current.approvals.approverGroup] : []),
    ...Object.values(current.channels).flatMap((own) =>
      Object.values(own.policy?.rules ?? {}).flatMap((rule) =>
        rule.approverGroup ? [rule.approverGroup] : [],
      ),
    ),
  ]);
  const audits = new Set(
    Object.values(current.channels).flatMap((own) =>
      own.policy?.auditChannel ? [own.policy.auditChannel] : [],
    ),
  );
  const problem = (path: readonly PathPart[], message: string) =>
    found.push({ line: lineOf(path), path: path.join('.'), message });
  for (const { id, path } of uniqueIds(resolved.groups.filter((group) => !known.has(group.id)))) {
    const members = await surface.checks.approverGroupMembers(id);
    if (members.kind === 'plan')
      problem(path, 'User groups need a paid Slack plan: name approvers as people instead.');
    else if (members.kind === 'no_such_group') problem(path, 'No such user group.');
    else if (members.kind === 'rate_limited') {
      problem(path, 'Slack is limiting how often the bot may read user groups: try again in a minute.');
    }
  }
  for (const { id, path } of uniqueIds(resolved.auditChannels.filter((channel) => !audits.has(channel.id)))) {
    const access = await surface.checks.announcementAccess(id);
    if (access.kind === 'refused') {
      problem(
        path,
        access.refusal === 'archived'
          ? 'The audit channel is archived.'
          : 'The bot cannot post in the audit channel: invite it there first (`/invite @cloud`).',
      );
    }
  }
  return found;
}

function uniqueIds(named: readonly NamedId[]): NamedId[] {
  const seen = new Set<string>();
  return named.filter((entry) => !seen.has(entry.id) && Boolean(seen.add(entry.id)));
}

// ---------------------------------------------------------------------------------------------
// import as a reviewed change

export type ImportOutcome =
  | Refused
  | { readonly kind: 'invalid'; readonly problems: readonly DocumentProblem[] }
  | { readonly kind: 'no_changes' }
  | {
      readonly kind: 'requested';
      readonly changes: readonly SettingsChange[];
      readonly request: RequestOutcome;
    };

/** The words a settings request's card shows of its changes (the surface's). */
export interface SettingsRequestWords {
  preview(changes: readonly SettingsChange[]): readonly string[];
}

/** What asking for a settings change needs of the surface: names, checks, its card and its words. */
export type SettingsRequestSurface = SettingsSurface & {
  readonly approvals: ApprovalSurface;
  readonly words: SettingsRequestWords;
};

export interface SettingsRequestDeps extends SettingsDeps {
  readonly store: SettingsDeps['store'] & Store;
  readonly api: Parameters<typeof requestBotChange>[0]['api'];
}

/**
 * Asks for a document to become the workspace's settings: checked and planned now, applied once the
 * request is approved under the workspace's rule (`applyApprovedSettings`). Policy admins only.
 */
export async function requestSettingsImport(
  deps: SettingsRequestDeps,
  surface: SettingsRequestSurface,
  caller: Caller,
  request: {
    /** As pasted (text), or as a file's bytes, which must be UTF-8. */
    readonly document: string | Uint8Array;
    readonly reason?: string | undefined;
  },
): Promise<ImportOutcome> {
  if (!(await isSettingsAdmin(deps, caller))) return { kind: 'refused', reason: 'not_policy_admin' };
  const read: DocumentText =
    typeof request.document === 'string'
      ? { ok: true, text: request.document }
      : documentText(request.document);
  if (!read.ok) return { kind: 'invalid', problems: read.problems };
  const plan = await planSettings(deps, surface, caller.team, read.text);
  if (plan.kind === 'invalid') return plan;
  if (plan.changes.length === 0) return { kind: 'no_changes' };
  return askToApply(deps, surface, caller, plan, request.reason, null);
}

async function askToApply(
  deps: SettingsRequestDeps,
  surface: SettingsRequestSurface,
  caller: Caller,
  plan: Extract<PlanOutcome, { kind: 'planned' }>,
  reason: string | undefined,
  rollbackOf: number | null,
): Promise<Extract<ImportOutcome, { kind: 'requested' }>> {
  const proposal = await deps.store.settingsVersions.propose(caller.team, {
    settings: plan.canonical,
    baseDigest: plan.baseDigest,
    proposedBy: caller.user,
    rollbackOf,
  });
  const count = plan.changes.length;
  const asked = await requestBotChange(deps, surface.approvals, {
    team: caller.team,
    user: caller.user,
    channel: caller.channel,
    operationId: 'settings.apply',
    input: { proposal },
    summary: `${rollbackOf === null ? 'settings' : `settings version ${rollbackOf}`} (${count} change${count === 1 ? '' : 's'})`,
    preview: surface.words.preview(plan.changes),
    reason,
  });
  return { kind: 'requested', changes: plan.changes, request: asked };
}

// ---------------------------------------------------------------------------------------------
// applying

export type ApplyOutcome =
  /** The settings changed since the plan: nothing was written; plan again. */
  | { readonly kind: 'stale'; readonly expected: string; readonly found: string }
  | { readonly kind: 'proposal_gone' }
  | { readonly kind: 'applied'; readonly version: SettingsVersion; readonly changes: number };

/**
 * The approved request's document written to the store, if the settings are still those it was
 * planned against, and recorded as the next version. Safe to run again: a second run finds the
 * settings already as proposed and records nothing new.
 */
export async function applyApprovedSettings(
  deps: Pick<SettingsDeps, 'store' | 'logger'>,
  approval: Pick<Approval, 'id' | 'team' | 'requester'>,
  proposalId: string,
): Promise<ApplyOutcome> {
  const proposal = await deps.store.settingsVersions.proposal(approval.team, proposalId);
  if (!proposal) return { kind: 'proposal_gone' };
  return applySettings(deps, approval.team, {
    canonical: proposal.settings,
    baseDigest: proposal.baseDigest,
    by: approval.requester,
    source: proposal.rollbackOf === null ? 'slack' : 'rollback',
    approvalId: approval.id,
    rollbackOf: proposal.rollbackOf,
  });
}

interface ApplyRequest {
  readonly canonical: string;
  readonly baseDigest: string;
  readonly by: string;
  readonly source: 'slack' | 'ci' | 'rollback';
  readonly approvalId: string | null;
  readonly rollbackOf: number | null;
}

async function applySettings(
  deps: Pick<SettingsDeps, 'store' | 'logger'>,
  team: string,
  request: ApplyRequest,
): Promise<Exclude<ApplyOutcome, { kind: 'proposal_gone' }>> {
  const target = JSON.parse(request.canonical) as WorkspaceSettings;
  const targetDigest = settingsDigest(request.canonical);
  const current = await readSettings(deps.store, team);
  const currentDigest = settingsDigest(canonicalSettings(current));
  const head = await deps.store.settingsVersions.headVersion(team);
  const last = head > 0 ? await deps.store.settingsVersions.get(team, head) : undefined;
  if (currentDigest === targetDigest) {
    // Already as proposed: a run again after a lost answer, or nothing to do.
    if (last && last.digest === targetDigest) return { kind: 'applied', version: last, changes: 0 };
  } else if (currentDigest !== request.baseDigest) {
    return { kind: 'stale', expected: request.baseDigest, found: currentDigest };
  }
  // What the commands made since the last version is kept as a version of its own, so a rollback
  // can return to the settings as they were just before this apply.
  let after = head;
  if (last?.digest !== currentDigest && currentDigest !== targetDigest) {
    const kept = await deps.store.settingsVersions.record(team, head, {
      settings: canonicalSettings(current),
      digest: currentDigest,
      appliedBy: request.by,
      source: 'commands',
      approvalId: null,
      rollbackOf: null,
      changes: 0,
    });
    if (kept === false)
      return { kind: 'stale', expected: request.baseDigest, found: 'a version recorded meanwhile' };
    after = kept.version;
  }
  const changes = await writeSettings(deps.store, team, current, target, request.by);
  const recorded = await deps.store.settingsVersions.record(team, after, {
    settings: request.canonical,
    digest: targetDigest,
    appliedBy: request.by,
    source: request.source,
    approvalId: request.approvalId,
    rollbackOf: request.rollbackOf,
    changes,
  });
  if (recorded === false) {
    // Written, but another apply recorded its version first: the settings are this write's.
    throw new Error('settings written but their version was taken by another apply');
  }
  await deps.store.audit
    .append({
      team,
      actor: request.by,
      action: 'settings.apply',
      target: `settings version ${recorded.version}`,
      result: 'succeeded',
      detail: `${changes} setting${changes === 1 ? '' : 's'} changed${request.rollbackOf === null ? '' : `, back to version ${request.rollbackOf}`} (${request.source})`,
    })
    .catch((error: unknown) => deps.logger.error('audit entry not written', { error }));
  return { kind: 'applied', version: recorded, changes };
}

/** Writes what differs between `from` and `to`; answers how many items it wrote or removed. */
async function writeSettings(
  store: SettingsStore,
  team: string,
  from: WorkspaceSettings,
  to: WorkspaceSettings,
  by: string,
): Promise<number> {
  let written = 0;
  const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);
  if (!same(from.approvals, to.approvals)) {
    await store.approvalPolicy.put(team, to.approvals, by);
    written += 1;
  }
  written += await writeNamed(from.aliases, to.aliases, same, {
    put: (name, expansion) => store.aliases.put(team, { kind: 'workspace' }, name, expansion, by),
    remove: (name) => store.aliases.remove(team, { kind: 'workspace' }, name),
  });
  written += await writeNamed(from.runbooks, to.runbooks, same, {
    put: (name, steps) => store.runbooks.replace({ team, channel: null, name, steps, createdBy: by }),
    remove: (name) => store.runbooks.remove(team, null, name),
  });
  const channels = new Set([...Object.keys(from.channels), ...Object.keys(to.channels)]);
  const empty = { policy: null, aliases: {}, runbooks: {}, reports: [] };
  for (const channel of channels) {
    const was = own(from.channels, channel) ?? empty;
    const will = own(to.channels, channel) ?? empty;
    if (!same(was.policy, will.policy)) {
      if (will.policy === null) await store.channelPolicy.clear(team, channel);
      else await store.channelPolicy.put(team, channel, will.policy, by);
      written += 1;
    }
    written += await writeNamed(was.aliases, will.aliases, same, {
      put: (name, expansion) => store.aliases.put(team, { kind: 'channel', channel }, name, expansion, by),
      remove: (name) => store.aliases.remove(team, { kind: 'channel', channel }, name),
    });
    written += await writeNamed(was.runbooks, will.runbooks, same, {
      put: (name, steps) => store.runbooks.replace({ team, channel, name, steps, createdBy: by }),
      remove: (name) => store.runbooks.remove(team, channel, name),
    });
    const kept = new Map(will.reports.map((report) => [report.id, report]));
    for (const report of was.reports) {
      const next = kept.get(report.id);
      if (!next) {
        await store.reports.delete(team, report.id);
        written += 1;
      } else {
        const { noise: wasNoise, ...was } = report;
        const { noise: willNoise, ...will } = next;
        if (!same(was, will)) {
          await store.reports.reschedule(team, report.id, {
            schedule: next.schedule,
            filter: next.filter,
            paused: next.paused,
            nextRunAt: firstRunAt(next.schedule, store.now()),
          });
          written += 1;
        }
        if (!same(wasNoise, willNoise)) {
          await store.reports.setNoise(team, report.id, willNoise);
          written += 1;
        }
      }
    }
  }
  return written;
}

function own<V>(record: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

async function writeNamed<V>(
  from: Readonly<Record<string, V>>,
  to: Readonly<Record<string, V>>,
  same: (a: unknown, b: unknown) => boolean,
  write: { put(name: string, value: V): Promise<unknown>; remove(name: string): Promise<unknown> },
): Promise<number> {
  let written = 0;
  for (const [name, value] of Object.entries(to)) {
    if (Object.hasOwn(from, name) && same(from[name], value)) continue;
    await write.put(name, value);
    written += 1;
  }
  for (const name of Object.keys(from)) {
    if (Object.hasOwn(to, name)) continue;
    await write.remove(name);
    written += 1;
  }
  return written;
}

// ---------------------------------------------------------------------------------------------
// from CI

export type CiApplyOutcome =
  | { readonly kind: 'invalid'; readonly problems: readonly DocumentProblem[] }
  | { readonly kind: 'no_changes' }
  | Exclude<ApplyOutcome, { kind: 'proposal_gone' }>;

/**
 * `npm run settings -- apply FILE` from CI: the file's changes written, only if the settings are
 * still those whose digest `plan` printed (`expectedDigest`); audited as `actor`.
 */
export async function applySettingsFromCi(
  deps: SettingsDeps,
  surface: SettingsSurface,
  request: {
    readonly team: string;
    readonly text: string;
    readonly expectedDigest: string;
    readonly actor: string;
  },
): Promise<CiApplyOutcome> {
  const plan = await planSettings(deps, surface, request.team, request.text);
  if (plan.kind === 'invalid') return plan;
  if (plan.baseDigest !== request.expectedDigest) {
    return { kind: 'stale', expected: request.expectedDigest, found: plan.baseDigest };
  }
  if (plan.changes.length === 0) return { kind: 'no_changes' };
  return applySettings(deps, request.team, {
    canonical: plan.canonical,
    baseDigest: plan.baseDigest,
    by: request.actor,
    source: 'ci',
    approvalId: null,
    rollbackOf: null,
  });
}

// ---------------------------------------------------------------------------------------------
// history and rollback

export type HistoryOutcome =
  | Refused
  | { readonly kind: 'history'; readonly versions: readonly SettingsVersion[] };

export async function settingsHistory(
  deps: SettingsDeps,
  caller: Caller,
  limit = 20,
): Promise<HistoryOutcome> {
  if (!(await isSettingsAdmin(deps, caller))) return { kind: 'refused', reason: 'not_policy_admin' };
  return { kind: 'history', versions: await deps.store.settingsVersions.list(caller.team, limit) };
}

/**
 * The version an approved request recorded, read back after its worker stopped: the apply records
 * its version last, so one found means it finished. Versions are made one at a time, and a request
 * is read back within minutes of its approval, so the newest few are where it would be.
 */
export async function versionRecordedBy(
  deps: Pick<SettingsDeps, 'store'>,
  approval: { readonly team: string; readonly id: string },
): Promise<SettingsVersion | undefined> {
  const recent = await deps.store.settingsVersions.list(approval.team, 20);
  return recent.find((version) => version.approvalId === approval.id);
}

export type RollbackOutcome =
  | Refused
  | { readonly kind: 'no_such_version'; readonly version: number; readonly newest: number }
  | { readonly kind: 'no_changes' }
  | Extract<ImportOutcome, { kind: 'requested' }>;

/** Asks for version `version` to become the settings again: a reviewed change like an import. */
export async function requestSettingsRollback(
  deps: SettingsRequestDeps,
  surface: SettingsRequestSurface,
  caller: Caller,
  request: { readonly version: number; readonly reason?: string | undefined },
): Promise<RollbackOutcome> {
  if (!(await isSettingsAdmin(deps, caller))) return { kind: 'refused', reason: 'not_policy_admin' };
  const newest = await deps.store.settingsVersions.headVersion(caller.team);
  const version =
    Number.isSafeInteger(request.version) && request.version >= 1 && request.version <= newest
      ? await deps.store.settingsVersions.get(caller.team, request.version)
      : undefined;
  if (!version) return { kind: 'no_such_version', version: request.version, newest };
  const target = JSON.parse(version.settings) as WorkspaceSettings;
  const current = await readSettings(deps.store, caller.team);
  const canonical = canonicalSettings(target);
  const baseDigest = settingsDigest(canonicalSettings(current));
  if (settingsDigest(canonical) === baseDigest) return { kind: 'no_changes' };
  const changes = diffSettings(
    await toDocument(current, surface.directory),
    await toDocument(target, surface.directory),
  );
  return askToApply(
    deps,
    surface,
    caller,
    { kind: 'planned', changes, baseDigest, settings: target, canonical },
    request.reason,
    version.version,
  );
}

/**
 * Whether `caller` may export or change the settings: a surface asks before it fetches what a
 * person attached, so nobody else's file is ever read.
 */
export async function isSettingsAdmin(deps: SettingsDeps, caller: Caller): Promise<boolean> {
  return isPolicyAdmin(deps, caller, await deps.store.approvalPolicy.get(caller.team));
}
