import { OPERATION_CLASSES, type OperationClass } from '../api/operation.js';
import { findOperation } from '../api/operations/index.js';
import { CLASS_WORDS } from '../changes/guardrails.js';
import type { ParsedCommand } from '../commands/parse.js';
import { isPolicyAdmin } from '../core/admins.js';
import { channelRefusalHint, ensureBotCanPost } from '../slack-kit/channel-access.js';
import { notice, type Reply } from '../slack-kit/reply.js';
import { codeSpan, escapeMrkdwn, slackDate } from '../slack-kit/text.js';
import type { ApprovalRule, ChannelPolicy, StoredChannelPolicy } from '../store/index.js';
import {
  describePolicy,
  policyChanges,
  stepUpFlagProblem,
  stepUpWords,
  unusableApproverGroup,
} from './approvals.js';
import { callerOf } from './caller.js';
import type { BotCommandContext } from './context.js';

/**
 * `/cloud policy`: the guardrails of this channel. Anyone sees them; workspace admins (or the
 * admins named in the approval policy) change them. Every change is audited with what it set.
 */

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;

export async function handlePolicyCommand(context: BotCommandContext, parsed: BotParsed): Promise<Reply> {
  const { deps, ctx } = context;
  const current = await deps.store.channelPolicy.get(ctx.team, ctx.channel);
  const flags = parsed.flags;
  const changing = Object.keys(flags).length > 0;
  if (!changing) return notice(await describeChannelPolicy(context, current));

  const workspace = await deps.store.approvalPolicy.get(ctx.team);
  if (!(await isPolicyAdmin(context.deps, callerOf(context), workspace))) {
    return notice(
      'Only workspace admins (or the admins named in the approval policy) can change channel policies.',
    );
  }
  if (flags.reset === true) {
    await deps.store.channelPolicy.clear(ctx.team, ctx.channel);
    await auditPolicy(context, 'reset: the workspace policy applies');
    return notice(
      'This channel has no policy of its own now: everything may run here under the workspace policy.',
    );
  }
  const flagProblem = stepUpFlagProblem(flags);
  if (flagProblem) return notice(flagProblem);
  const next = applyFlags(current, flags);
  if (!next.ok) return notice(next.message);
  const groupProblem = await unusableApproverGroup(context.client, policyChanges(flags).approverGroup);
  if (groupProblem) return notice(groupProblem);
  const audit = next.value.auditChannel;
  if (audit && audit !== current?.auditChannel) {
    // Break-glass is announced there: a channel the bot cannot post in would swallow it.
    const access = await ensureBotCanPost(context.client, audit);
    if (access.kind === 'refused')
      return notice(
        `Nothing was changed: break-glass is announced in <#${audit}>. ${channelRefusalHint(access.refusal, audit)}`,
      );
  }
  const saved = await deps.store.channelPolicy.put(ctx.team, ctx.channel, next.value, ctx.user);
  await auditPolicy(context, summarize(saved));
  return notice(`Channel policy updated.\n${await describeChannelPolicy(context, saved)}`);
}

type Applied = { ok: true; value: ChannelPolicy } | { ok: false; message: string };
type Flags = BotParsed['flags'];

/**
 * The channel policy the flags make of the current one. The parser has read each flag as its
 * declared kind (ids of Slack's shape and length, on/off, counts, minutes); what is checked here
 * is what needs the policy or the operations table.
 */
function applyFlags(current: StoredChannelPolicy | undefined, flags: Flags): Applied {
  let value: ChannelPolicy = {
    allowedClasses: [...(current?.allowedClasses ?? OPERATION_CLASSES)],
    rules: { ...current?.rules },
    breakGlass: { ...(current?.breakGlass ?? { enabled: false, users: [] }) },
    auditChannel: current?.auditChannel ?? null,
  };
  for (const step of [applyAllow, applyRule, applyClearRule, applyBreakGlass]) {
    const applied = step(value, flags);
    if (!applied.ok) return applied;
    value = applied.value;
  }
  return { ok: true, value };
}

function applyAllow(value: ChannelPolicy, flags: Flags): Applied {
  const allow = flags.allow;
  if (typeof allow !== 'string') return { ok: true, value };
  const words = allow
    .split(',')
    .map((w) => w.trim().toLowerCase())
    .filter(Boolean);
  const classes = words.includes('all') ? [...OPERATION_CLASSES] : words;
  const unknown = classes.filter((w) => !(OPERATION_CLASSES as readonly string[]).includes(w));
  if (unknown.length > 0 || classes.length === 0) {
    return {
      ok: false,
      message: `\`--allow\` takes classes from ${OPERATION_CLASSES.map((c) => `\`${c}\``).join(', ')} (or \`all\`), comma-separated, e.g. \`--allow read,change\`.`,
    };
  }
  return { ok: true, value: { ...value, allowedClasses: [...new Set(classes)] as OperationClass[] } };
}

function applyRule(value: ChannelPolicy, flags: Flags): Applied {
  const changes = policyChanges(flags);
  const ruleFields = Object.keys(changes).length > 0;
  const ruleFlag = flags.rule;
  if (typeof ruleFlag !== 'string') {
    return ruleFields
      ? { ok: false, message: 'Name the rule the settings are for, e.g. `--rule destructive --required 2`.' }
      : { ok: true, value };
  }
  const key = ruleKey(ruleFlag);
  if (!key) return { ok: false, message: ruleKeyHelp(ruleFlag) };
  if (!ruleFields)
    return { ok: false, message: 'Say what the rule sets, e.g. `--required 2` or `--approvers @alice`.' };
  const {
    approverUsers,
    approverGroup,
    requiredApprovals,
    expiryMinutes,
    allowSelfApproval,
    stepUp,
    requireReason,
  } = changes;
  const previous = Object.hasOwn(value.rules, key) ? value.rules[key] : undefined;
  const rule: ApprovalRule = {
    ...previous,
    ...(approverUsers !== undefined && { approverUsers }),
    ...(approverGroup !== undefined && { approverGroup }),
    ...(requiredApprovals !== undefined && { requiredApprovals }),
    ...(expiryMinutes !== undefined && { expiryMinutes }),
    ...(allowSelfApproval !== undefined && { allowSelfApproval }),
    ...(stepUp !== undefined && { stepUp }),
    ...(requireReason !== undefined && { requireReason }),
  };
  if (
    rule.approverUsers &&
    rule.approverGroup == null &&
    rule.approverUsers.length > 0 &&
    rule.approverUsers.length < (rule.requiredApprovals ?? 1)
  ) {
    return {
      ok: false,
      message: `The rule would need ${rule.requiredApprovals} approvals but names only ${rule.approverUsers.length} approver(s).`,
    };
  }
  return { ok: true, value: { ...value, rules: { ...value.rules, [key]: rule } } };
}

function applyClearRule(value: ChannelPolicy, flags: Flags): Applied {
  const clear = flags['clear-rule'];
  if (typeof clear !== 'string') return { ok: true, value };
  const key = ruleKey(clear);
  if (!key) return { ok: false, message: ruleKeyHelp(clear) };
  return {
    ok: true,
    value: { ...value, rules: Object.fromEntries(Object.entries(value.rules).filter(([k]) => k !== key)) },
  };
}

function applyBreakGlass(value: ChannelPolicy, flags: Flags): Applied {
  const enabled = flags['allow-break-glass'];
  const users = flags['break-glass-users'];
  const audit = flags['audit-channel'];
  const breakGlass = {
    enabled: typeof enabled === 'boolean' ? enabled : value.breakGlass.enabled,
    users: Array.isArray(users) ? [...users] : value.breakGlass.users,
  };
  if (breakGlass.enabled && breakGlass.users.length === 0) {
    return {
      ok: false,
      message: 'Break-glass needs the people who may use it: add `--break-glass-users @alice,@bob`.',
    };
  }
  const auditChannel = typeof audit === 'string' || audit === null ? audit : value.auditChannel;
  return { ok: true, value: { ...value, breakGlass, auditChannel } };
}

/** A class name, or an operation id written `volumes.delete` or `volumes-delete`. */
function ruleKey(text: string): string | undefined {
  const word = text.trim().toLowerCase();
  if ((OPERATION_CLASSES as readonly string[]).includes(word)) return word;
  return findOperation(word)?.id;
}

function ruleKeyHelp(text: string): string {
  return (
    `\`${escapeMrkdwn(text.slice(0, 40))}\` is neither a class (${OPERATION_CLASSES.join(', ')}) nor an operation id ` +
    'such as `volumes.delete`.'
  );
}

async function describeChannelPolicy(context: BotCommandContext, policy: StoredChannelPolicy | undefined) {
  const workspace = await context.deps.store.approvalPolicy.get(context.ctx.team);
  if (!policy) {
    return (
      '*This channel has no policy of its own*: every class of operation may run here, and approvals follow ' +
      `the workspace policy:\n${describePolicy(workspace)}`
    );
  }
  const allowed = policy.allowedClasses.map((c) => CLASS_WORDS[c]).join(', ') || 'nothing';
  const rules = Object.entries(policy.rules).map(
    ([key, rule]) => `• ${codeSpan(key)}: ${describeRule(rule)}`,
  );
  const lines = [
    `*Channel policy*, set by <@${policy.updatedBy}> ${slackDate(policy.updatedAt)}`,
    `*Allowed here:* ${allowed} operations`,
    rules.length > 0
      ? `*Approval rules:*\n${rules.join('\n')}`
      : '*Approval rules:* none; the workspace policy applies',
    `*Break-glass:* ${policy.breakGlass.enabled ? `on, for ${policy.breakGlass.users.map((u) => `<@${u}>`).join(', ')}` : 'off'}` +
      (policy.auditChannel ? ` · announced in <#${policy.auditChannel}>` : ''),
    `*Otherwise (workspace policy):*\n${describePolicy(workspace)}`,
  ];
  return lines.join('\n');
}

function describeRule(rule: ApprovalRule): string {
  const parts: string[] = [];
  if (rule.requiredApprovals !== undefined) parts.push(`${rule.requiredApprovals} approval(s)`);
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

function summarize(policy: ChannelPolicy): string {
  const rules = Object.entries(policy.rules)
    .map(([key, rule]) => `${key}=${JSON.stringify(rule)}`)
    .join(' ');
  return `allow=${policy.allowedClasses.join(',')} ${rules} break-glass=${policy.breakGlass.enabled ? 'on' : 'off'}`.slice(
    0,
    500,
  );
}

async function auditPolicy(context: BotCommandContext, detail: string) {
  await context.deps.store.audit
    .append({
      team: context.ctx.team,
      actor: context.ctx.user,
      action: 'policy.channel',
      target: `channel ${context.ctx.channel}`,
      result: 'succeeded',
      detail,
    })
    .catch((error: unknown) => context.deps.logger.error('audit entry not written', { error }));
}
