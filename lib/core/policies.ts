import type { Logger } from '@aws-lambda-powertools/logger';
import { OPERATION_CLASSES, type OperationClass } from '../api/operation.js';
import { findOperation } from '../api/operations/index.js';
import type { CardAccess, ChannelRefusal, GroupMembers } from '../changes/ports.js';
import type {
  ApprovalPolicy,
  ApprovalRule,
  ChannelPolicy,
  StepUpRequirement,
  Store,
  StoredChannelPolicy,
} from '../store/index.js';
import { STEP_UP_REQUIREMENTS } from '../store/step-up-requirements.js';
import { type AdminDeps, isPolicyAdmin } from './admins.js';
import type { Caller } from './caller.js';

/**
 * The workspace's approval policy and each channel's policy (its guardrails): anyone sees them,
 * the policy admins (`isPolicyAdmin`) change them, and every change is audited with what it set.
 * What a change sets is checked here against the rules (a class or operation a rule is for, enough
 * approvers for the count, people for break-glass); what only the surface can tell (whether an
 * approver group can be read, whether the bot can announce in a channel) it is asked through
 * `PolicyChecks`, after the caller was found to be an admin.
 */

export interface PolicyDeps extends AdminDeps {
  readonly store: Pick<Store, 'approvalPolicy' | 'channelPolicy' | 'audit'>;
  readonly logger: Logger;
}

/** What the core asks of the surface before it stores a policy. */
export interface PolicyChecks {
  /** Who is in a user group named as approvers, as far as the surface can tell. */
  approverGroupMembers(group: string): Promise<GroupMembers>;
  /** Whether the bot can post in a channel where break-glass is to be announced. */
  announcementAccess(channel: string): Promise<CardAccess>;
}

/** What a change sets of the approval settings; each one left out stays as it is. */
export interface ApprovalSettings {
  readonly approverUsers?: readonly string[];
  /** A user group's id, or null for none. */
  readonly approverGroup?: string | null;
  readonly requiredApprovals?: number;
  readonly expiryMinutes?: number;
  readonly allowSelfApproval?: boolean;
  /** `passkey`, `code`, `any` or `none` as given (any case): checked here. */
  readonly stepUp?: string;
  readonly requireReason?: boolean;
}

/** A group that cannot serve as approvers: nobody could approve through it. */
export type UnusableGroup = Extract<
  GroupMembers,
  { readonly kind: 'plan' | 'no_such_group' | 'rate_limited' }
>;

/** Why approval settings cannot be stored, for the workspace's policy and a channel's rule alike. */
export type SettingsProblem =
  | { readonly kind: 'unknown_step_up' }
  | { readonly kind: 'unusable_approver_group'; readonly group: string; readonly members: UnusableGroup }
  /**
   * Requesters never approve their own requests (unless allowed), so a list of approvers shorter
   * than the count could never approve anything.
   */
  | { readonly kind: 'too_few_approvers'; readonly required: number; readonly named: number };

/** Why a channel policy change cannot be stored. */
export type ChannelPolicyProblem =
  | SettingsProblem
  /** `allow` names no class, or one that is not a class. */
  | { readonly kind: 'unknown_classes' }
  /** Rule settings without the rule they are for. */
  | { readonly kind: 'settings_without_rule' }
  /** A rule named without anything it sets. */
  | { readonly kind: 'rule_without_settings' }
  /** Neither a class nor an operation id; `text` as given. */
  | { readonly kind: 'unknown_rule_key'; readonly text: string }
  | { readonly kind: 'break_glass_without_users' }
  /** Break-glass would be announced where the bot cannot post, so the announcement would be lost. */
  | { readonly kind: 'audit_channel_refused'; readonly channel: string; readonly refusal: ChannelRefusal };

export type PolicyRefusal = { readonly kind: 'refused'; readonly reason: 'not_policy_admin' };

export type ApprovalPolicyChange =
  | { readonly kind: 'updated'; readonly policy: ApprovalPolicy }
  | PolicyRefusal
  | { readonly kind: 'invalid'; readonly problem: SettingsProblem }
  /** Storing it, or its audit entry, failed; the policy may or may not have changed. */
  | { readonly kind: 'not_saved'; readonly error: unknown };

/** A change of the caller's channel's policy. */
export type ChannelPolicyChange =
  /** Remove the channel's own policy: the workspace's applies. */
  | { readonly kind: 'reset' }
  | {
      readonly kind: 'set';
      /** The classes of operations the channel allows (any case), or `all`. */
      readonly allow?: readonly string[];
      /** The rule `ruleSettings` are for: a class, or an operation id (`volumes.delete`), in any case. */
      readonly rule?: string;
      readonly ruleSettings: ApprovalSettings;
      /** A rule to remove, named like `rule`. */
      readonly clearRule?: string;
      readonly allowBreakGlass?: boolean;
      readonly breakGlassUsers?: readonly string[];
      /** Where break-glass runs are announced besides the channel, or null for nowhere else. */
      readonly auditChannel?: string | null;
    };

export type ChannelPolicyOutcome =
  | { readonly kind: 'updated'; readonly policy: StoredChannelPolicy; readonly workspace: ApprovalPolicy }
  | { readonly kind: 'cleared' }
  | PolicyRefusal
  | { readonly kind: 'invalid'; readonly problem: ChannelPolicyProblem };

export interface ChannelPolicies {
  /** The channel's own policy, if it has one. */
  readonly channel: StoredChannelPolicy | undefined;
  /** The workspace's approval policy, which applies wherever the channel's says nothing. */
  readonly workspace: ApprovalPolicy;
}

export type AppliedChange =
  | { readonly ok: true; readonly value: ChannelPolicy }
  | {
      readonly ok: false;
      readonly problem: Exclude<
        ChannelPolicyProblem,
        { readonly kind: 'unknown_step_up' | 'unusable_approver_group' | 'audit_channel_refused' }
      >;
    };

/** The workspace's approval policy (its defaults when it never set one). Anyone may see it. */
export async function showApprovalPolicy(
  deps: Pick<PolicyDeps, 'store'>,
  caller: Pick<Caller, 'team'>,
): Promise<ApprovalPolicy> {
  return deps.store.approvalPolicy.get(caller.team);
}

/** The caller's channel's policy and the workspace's beneath it. Anyone may see them. */
export async function showChannelPolicy(
  deps: Pick<PolicyDeps, 'store'>,
  caller: Pick<Caller, 'team' | 'channel'>,
): Promise<ChannelPolicies> {
  const channel = await deps.store.channelPolicy.get(caller.team, caller.channel);
  const workspace = await deps.store.approvalPolicy.get(caller.team);
  return { channel, workspace };
}

/**
 * Changes the workspace's approval policy by `settings`. A step-up word that is none of the
 * requirements is refused before anything else, even to someone who may not change the policy.
 */
export async function changeApprovalPolicy(
  deps: PolicyDeps,
  checks: PolicyChecks,
  caller: Caller,
  settings: ApprovalSettings,
): Promise<ApprovalPolicyChange> {
  const policy = await deps.store.approvalPolicy.get(caller.team);
  const stepUp = stepUpOf(settings);
  if (stepUp === 'unknown') return { kind: 'invalid', problem: { kind: 'unknown_step_up' } };
  if (!(await isPolicyAdmin(deps, caller, policy))) return { kind: 'refused', reason: 'not_policy_admin' };
  const groupProblem = await unusableGroup(checks, settings.approverGroup);
  if (groupProblem) return { kind: 'invalid', problem: groupProblem };
  const next: ApprovalPolicy = { ...policy, ...settingsOf(settings, stepUp) };
  if (
    next.approverGroup === null &&
    next.approverUsers.length > 0 &&
    next.approverUsers.length < next.requiredApprovals
  ) {
    return {
      kind: 'invalid',
      problem: {
        kind: 'too_few_approvers',
        required: next.requiredApprovals,
        named: next.approverUsers.length,
      },
    };
  }
  try {
    const saved = await deps.store.approvalPolicy.put(caller.team, next, caller.user);
    await deps.store.audit.append({
      team: caller.team,
      actor: caller.user,
      action: 'approvals.policy',
      target: 'approval policy',
      result: 'succeeded',
      detail: approvalPolicySummary(saved),
    });
    return { kind: 'updated', policy: saved };
  } catch (error) {
    return { kind: 'not_saved', error };
  }
}

/** Changes the caller's channel's policy, or removes it (`reset`). */
export async function changeChannelPolicy(
  deps: PolicyDeps,
  checks: PolicyChecks,
  caller: Caller,
  change: ChannelPolicyChange,
): Promise<ChannelPolicyOutcome> {
  const { channel: current, workspace } = await showChannelPolicy(deps, caller);
  if (!(await isPolicyAdmin(deps, caller, workspace))) return { kind: 'refused', reason: 'not_policy_admin' };
  if (change.kind === 'reset') {
    await deps.store.channelPolicy.clear(caller.team, caller.channel);
    await auditChannelPolicy(deps, caller, 'reset: the workspace policy applies');
    return { kind: 'cleared' };
  }
  if (stepUpOf(change.ruleSettings) === 'unknown') {
    return { kind: 'invalid', problem: { kind: 'unknown_step_up' } };
  }
  const next = applyChannelPolicyChange(current, change);
  if (!next.ok) return { kind: 'invalid', problem: next.problem };
  const groupProblem = await unusableGroup(checks, change.ruleSettings.approverGroup);
  if (groupProblem) return { kind: 'invalid', problem: groupProblem };
  const audit = next.value.auditChannel;
  if (audit && audit !== current?.auditChannel) {
    const access = await checks.announcementAccess(audit);
    if (access.kind === 'refused') {
      return {
        kind: 'invalid',
        problem: { kind: 'audit_channel_refused', channel: audit, refusal: access.refusal },
      };
    }
  }
  const saved = await deps.store.channelPolicy.put(caller.team, caller.channel, next.value, caller.user);
  await auditChannelPolicy(deps, caller, channelPolicySummary(saved));
  return { kind: 'updated', policy: saved, workspace };
}

/**
 * The channel policy a change makes of the current one (a channel without one allows every class
 * and has no rules). Its step-up word was checked before; what is checked here needs the policy or
 * the operations table.
 */
export function applyChannelPolicyChange(
  current: ChannelPolicy | undefined,
  change: Extract<ChannelPolicyChange, { readonly kind: 'set' }>,
): AppliedChange {
  let value: ChannelPolicy = {
    allowedClasses: [...(current?.allowedClasses ?? OPERATION_CLASSES)],
    rules: { ...current?.rules },
    breakGlass: { ...(current?.breakGlass ?? { enabled: false, users: [] }) },
    auditChannel: current?.auditChannel ?? null,
  };
  for (const step of [applyAllow, applyRule, applyClearRule, applyBreakGlass]) {
    const applied = step(value, change);
    if (!applied.ok) return applied;
    value = applied.value;
  }
  return { ok: true, value };
}

type SetChange = Extract<ChannelPolicyChange, { readonly kind: 'set' }>;

function applyAllow(value: ChannelPolicy, change: SetChange): AppliedChange {
  if (change.allow === undefined) return { ok: true, value };
  const words = change.allow.map((word) => word.trim().toLowerCase()).filter(Boolean);
  const classes = words.includes('all') ? [...OPERATION_CLASSES] : words;
  if (classes.length === 0 || !classes.every(isOperationClass)) {
    return { ok: false, problem: { kind: 'unknown_classes' } };
  }
  return { ok: true, value: { ...value, allowedClasses: [...new Set(classes)] } };
}

function applyRule(value: ChannelPolicy, change: SetChange): AppliedChange {
  const settings = change.ruleSettings;
  const ruleFields = Object.keys(settings).length > 0;
  if (change.rule === undefined) {
    return ruleFields ? { ok: false, problem: { kind: 'settings_without_rule' } } : { ok: true, value };
  }
  const key = ruleKey(change.rule);
  if (!key) return { ok: false, problem: { kind: 'unknown_rule_key', text: change.rule } };
  if (!ruleFields) return { ok: false, problem: { kind: 'rule_without_settings' } };
  const stepUp = stepUpOf(settings);
  const previous = Object.hasOwn(value.rules, key) ? value.rules[key] : undefined;
  const rule: ApprovalRule = {
    ...previous,
    ...settingsOf(settings, stepUp === 'unknown' ? undefined : stepUp),
  };
  if (
    rule.approverUsers &&
    rule.approverGroup == null &&
    rule.approverUsers.length > 0 &&
    rule.approverUsers.length < (rule.requiredApprovals ?? 1)
  ) {
    return {
      ok: false,
      problem: {
        kind: 'too_few_approvers',
        required: rule.requiredApprovals ?? 1,
        named: rule.approverUsers.length,
      },
    };
  }
  return { ok: true, value: { ...value, rules: { ...value.rules, [key]: rule } } };
}

function applyClearRule(value: ChannelPolicy, change: SetChange): AppliedChange {
  if (change.clearRule === undefined) return { ok: true, value };
  const key = ruleKey(change.clearRule);
  if (!key) return { ok: false, problem: { kind: 'unknown_rule_key', text: change.clearRule } };
  return {
    ok: true,
    value: { ...value, rules: Object.fromEntries(Object.entries(value.rules).filter(([k]) => k !== key)) },
  };
}

function applyBreakGlass(value: ChannelPolicy, change: SetChange): AppliedChange {
  const breakGlass = {
    enabled: change.allowBreakGlass ?? value.breakGlass.enabled,
    users: change.breakGlassUsers === undefined ? value.breakGlass.users : [...change.breakGlassUsers],
  };
  if (breakGlass.enabled && breakGlass.users.length === 0) {
    return { ok: false, problem: { kind: 'break_glass_without_users' } };
  }
  const auditChannel = change.auditChannel === undefined ? value.auditChannel : change.auditChannel;
  return { ok: true, value: { ...value, breakGlass, auditChannel } };
}

/** A class name, or an operation id (`volumes.delete`), in any case. */
function ruleKey(text: string): string | undefined {
  const word = text.trim().toLowerCase();
  if (isOperationClass(word)) return word;
  return findOperation(word)?.id;
}

function isOperationClass(word: string): word is OperationClass {
  return (OPERATION_CLASSES as readonly string[]).includes(word);
}

/** The step-up requirement the settings name, `unknown` for a word that is none, or undefined. */
function stepUpOf(settings: ApprovalSettings): StepUpRequirement | 'unknown' | undefined {
  if (settings.stepUp === undefined) return undefined;
  const word = settings.stepUp.trim().toLowerCase();
  return STEP_UP_REQUIREMENTS.find((requirement) => requirement === word) ?? 'unknown';
}

/** The settings as the fields of a policy or rule, the step-up requirement already read. */
function settingsOf(
  settings: ApprovalSettings,
  stepUp: StepUpRequirement | undefined,
): Partial<Omit<ApprovalPolicy, 'admins'>> {
  const { approverUsers, approverGroup, requiredApprovals, expiryMinutes, allowSelfApproval, requireReason } =
    settings;
  return {
    ...(approverUsers !== undefined && { approverUsers: [...approverUsers] }),
    ...(approverGroup !== undefined && { approverGroup }),
    ...(requiredApprovals !== undefined && { requiredApprovals }),
    ...(expiryMinutes !== undefined && { expiryMinutes }),
    ...(allowSelfApproval !== undefined && { allowSelfApproval }),
    ...(stepUp !== undefined && { stepUp }),
    ...(requireReason !== undefined && { requireReason }),
  };
}

/** A newly named approver group through which nobody could approve, or undefined. */
async function unusableGroup(
  checks: PolicyChecks,
  group: string | null | undefined,
): Promise<SettingsProblem | undefined> {
  if (!group) return undefined;
  const members = await checks.approverGroupMembers(group);
  switch (members.kind) {
    case 'plan':
    case 'no_such_group':
    case 'rate_limited':
      return { kind: 'unusable_approver_group', group, members };
    default:
      return undefined;
  }
}

/** What the audit keeps of a stored approval policy: every setting, plainly. */
function approvalPolicySummary(policy: ApprovalPolicy): string {
  const onOff = (on: boolean) => (on ? 'on' : 'off');
  return [
    `approvers=${policy.approverUsers.join(',') || 'anyone'}`,
    `approver-group=${policy.approverGroup ?? 'none'}`,
    `required=${policy.requiredApprovals}`,
    `self-approval=${onOff(policy.allowSelfApproval)}`,
    `expiry=${policy.expiryMinutes}`,
    `step-up=${policy.stepUp}`,
    `require-reason=${onOff(policy.requireReason)}`,
  ]
    .join(' ')
    .slice(0, 500);
}

function channelPolicySummary(policy: ChannelPolicy): string {
  const rules = Object.entries(policy.rules)
    .map(([key, rule]) => `${key}=${JSON.stringify(rule)}`)
    .join(' ');
  return `allow=${policy.allowedClasses.join(',')} ${rules} break-glass=${policy.breakGlass.enabled ? 'on' : 'off'}`.slice(
    0,
    500,
  );
}

/** A lost audit line is logged, never thrown: the change itself has happened. */
async function auditChannelPolicy(deps: PolicyDeps, caller: Caller, detail: string): Promise<void> {
  await deps.store.audit
    .append({
      team: caller.team,
      actor: caller.user,
      action: 'policy.channel',
      target: `channel ${caller.channel}`,
      result: 'succeeded',
      detail,
    })
    .catch((error: unknown) => deps.logger.error('audit entry not written', { error }));
}
