import * as z from 'zod';
import { OPERATION_CLASSES } from '../../api/operation.js';
import { CLASS_WORDS } from '../../changes/guardrails.js';
import { codeSpan } from '../../slack-kit/text.js';
import { type ApprovalRule, ApprovalRuleSchema } from '../../store/channel-policy.js';
import { STEP_UP_REQUIREMENTS, type StepUpRequirement } from '../../store/step-up-requirements.js';
import '../../zod-settings.js';

/**
 * Policies in words, the same in `/cloud policy`, `/cloud approvals` and `/cloud audit`: a rule as
 * `2 approvals, from <@U1>, step-up: a passkey`, and a stored policy change (what the audit log
 * keeps of it) as `allowed: read and change operations; destructive: 2 approvals …; break-glass: off`.
 */

/** A step-up requirement in words, for policies and rules. */
export function stepUpWords(requirement: StepUpRequirement): string {
  switch (requirement) {
    case 'none':
      return 'none (the click counts)';
    case 'code':
      return 'an authenticator code';
    case 'passkey':
      return 'a passkey';
    case 'any':
      return 'a passkey or an authenticator code';
  }
}

/** One approval rule of a channel, what it sets in words (mrkdwn). */
export function ruleWords(rule: ApprovalRule): string {
  const parts: string[] = [];
  if (rule.requiredApprovals !== undefined)
    parts.push(`${rule.requiredApprovals} approval${rule.requiredApprovals === 1 ? '' : 's'}`);
  if (rule.approverUsers?.length) parts.push(`from ${rule.approverUsers.map((u) => `<@${u}>`).join(', ')}`);
  if (rule.approverGroup) parts.push(`from <!subteam^${rule.approverGroup}>`);
  if (rule.allowSelfApproval !== undefined)
    parts.push(rule.allowSelfApproval ? 'self-approval allowed' : 'no self-approval');
  if (rule.expiryMinutes !== undefined) parts.push(`expires after ${rule.expiryMinutes} min`);
  if (rule.stepUp !== undefined) parts.push(`step-up: ${stepUpWords(rule.stepUp)}`);
  if (rule.requireReason !== undefined)
    parts.push(rule.requireReason ? 'reason required' : 'no reason required');
  return parts.join(', ') || 'as the workspace policy';
}

/** `a, b and c`. */
function listWords(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

const SlackIdsSchema = z.string().regex(/^[UW][A-Z0-9]{2,}(,[UW][A-Z0-9]{2,})*$/);

/**
 * What the audit log keeps of a channel policy change (`allow=read,change destructive={…}
 * break-glass=on`, written by `lib/core/policies.ts`) in words; undefined when it is not one.
 */
export function channelPolicyChangeWords(detail: string): string | undefined {
  const parts: string[] = [];
  for (const token of detail.trim().split(/\s+/)) {
    const equals = token.indexOf('=');
    if (equals <= 0) return undefined;
    const key = token.slice(0, equals);
    const value = token.slice(equals + 1);
    if (key === 'allow') {
      const classes = value === '' ? [] : value.split(',');
      if (!classes.every((c) => (OPERATION_CLASSES as readonly string[]).includes(c))) return undefined;
      const words = classes.map((c) => CLASS_WORDS[c as (typeof OPERATION_CLASSES)[number]]);
      parts.push(`allowed: ${words.length > 0 ? `${listWords(words)} operations` : 'nothing'}`);
    } else if (key === 'break-glass') {
      if (value !== 'on' && value !== 'off') return undefined;
      parts.push(`break-glass: ${value}`);
    } else {
      const rule = parseRule(value);
      if (rule === undefined) return undefined;
      const name = (OPERATION_CLASSES as readonly string[]).includes(key)
        ? CLASS_WORDS[key as (typeof OPERATION_CLASSES)[number]]
        : codeSpan(key);
      parts.push(`${name}: ${ruleWords(rule)}`);
    }
  }
  return parts.length > 0 ? parts.join('; ') : undefined;
}

function parseRule(json: string): ApprovalRule | undefined {
  try {
    const parsed = ApprovalRuleSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What the audit log keeps of a workspace approval policy change (`approvers=U1,U2
 * approver-group=none required=2 self-approval=off expiry=15 step-up=code require-reason=on`) in
 * words; undefined when it is not one.
 */
export function approvalPolicyChangeWords(detail: string): string | undefined {
  const settings = new Map<string, string>();
  for (const token of detail.trim().split(/\s+/)) {
    const equals = token.indexOf('=');
    if (equals <= 0) return undefined;
    settings.set(token.slice(0, equals), token.slice(equals + 1));
  }
  const approvers = settings.get('approvers');
  const group = settings.get('approver-group');
  const required = Number(settings.get('required'));
  const expiry = Number(settings.get('expiry'));
  const stepUp = STEP_UP_REQUIREMENTS.find((s) => s === settings.get('step-up'));
  if (
    approvers === undefined ||
    group === undefined ||
    !Number.isInteger(required) ||
    !Number.isInteger(expiry)
  )
    return undefined;
  if (stepUp === undefined) return undefined;
  if (approvers !== 'anyone' && !SlackIdsSchema.safeParse(approvers).success) return undefined;
  if (group !== 'none' && !/^S[A-Z0-9]{2,}$/.test(group)) return undefined;
  const who = [
    ...(approvers === 'anyone' ? [] : approvers.split(',').map((u) => `<@${u}>`)),
    ...(group === 'none' ? [] : [`<!subteam^${group}>`]),
  ];
  return [
    `approvals: ${required} of ${who.length > 0 ? listWords(who) : 'anyone in the workspace'}`,
    settings.get('self-approval') === 'on' ? 'self-approval allowed' : 'no self-approval',
    `requests expire after ${expiry} min`,
    `step-up: ${stepUpWords(stepUp)}`,
    settings.get('require-reason') === 'on' ? 'reason required' : 'no reason required',
  ].join('; ');
}
