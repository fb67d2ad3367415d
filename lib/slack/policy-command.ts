import { OPERATION_CLASSES, type OperationClass } from '../api/operation.js';
import { findOperation } from '../api/operations/index.js';
import { CLASS_WORDS } from '../changes/guardrails.js';
import type { ParsedCommand } from '../commands/parse.js';
import type { ApprovalRule, ChannelPolicy, StoredChannelPolicy } from '../store/index.js';
import { describePolicy, isPolicyAdmin, policyChanges, unusableApproverGroup } from './approvals.js';
import { channelRefusalHint, ensureBotCanPost } from './channel-access.js';
import type { BotCommandContext } from './context.js';
import { codeSpan, escapeMrkdwn, slackDate } from './render/text.js';
import { notice, type Reply } from './reply.js';

/**
 * `/cloud policy`: the guardrails of this channel. Anyone sees them; workspace admins (or the
 * admins named in the approval policy) change them. Every change is audited with what it set.
 */

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;

const CHANNEL_MENTION = /^<#([CG][A-Z0-9]{2,})(\|[^>]*)?>$|^([CG][A-Z0-9]{2,})$/;

export async function handlePolicyCommand(context: BotCommandContext, parsed: BotParsed): Promise<Reply> {
  const { deps, ctx } = context;
  const current = await deps.store.channelPolicy.get(ctx.team, ctx.channel);
  const flags = parsed.flags;
  const changing = Object.keys(flags).length > 0;
  if (!changing) return notice(await describeChannelPolicy(context, current));

  const workspace = await deps.store.approvalPolicy.get(ctx.team);
  if (!(await isPolicyAdmin(context, workspace))) {
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
  const next = applyFlags(current, flags);
  if (!next.ok) return notice(next.message);
  const named = policyChanges(flags);
  const groupProblem = named.ok
    ? await unusableApproverGroup(context.client, named.value.approverGroup)
    : undefined;
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

function applyFlags(current: StoredChannelPolicy | undefined, flags: BotParsed['flags']): Applied {
  const value: ChannelPolicy = {
    allowedClasses: [...(current?.allowedClasses ?? OPERATION_CLASSES)],
    rules: { ...current?.rules },
    breakGlass: { ...(current?.breakGlass ?? { enabled: false, users: [] }) },
    auditChannel: current?.auditChannel ?? null,
  };
  const allow = flags.allow;
  if (typeof allow === 'string') {
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
    value.allowedClasses = [...new Set(classes)] as OperationClass[];
  }

  const ruleChanges = policyChanges(flags);
  if (!ruleChanges.ok) return ruleChanges;
  const ruleFields = Object.keys(ruleChanges.value).length > 0;
  const ruleFlag = flags.rule;
  if (ruleFields && typeof ruleFlag !== 'string') {
    return {
      ok: false,
      message: 'Name the rule the settings are for, e.g. `--rule destructive --required 2`.',
    };
  }
  if (typeof ruleFlag === 'string') {
    const key = ruleKey(ruleFlag);
    if (!key) return { ok: false, message: ruleKeyHelp(ruleFlag) };
    if (!ruleFields)
      return { ok: false, message: 'Say what the rule sets, e.g. `--required 2` or `--approvers @alice`.' };
    const { approverUsers, approverGroup, requiredApprovals, expiryMinutes, allowSelfApproval } =
      ruleChanges.value;
    const previous = Object.hasOwn(value.rules, key) ? value.rules[key] : undefined;
    const rule: ApprovalRule = {
      ...previous,
      ...(approverUsers !== undefined && { approverUsers }),
      ...(approverGroup !== undefined && { approverGroup }),
      ...(requiredApprovals !== undefined && { requiredApprovals }),
      ...(expiryMinutes !== undefined && { expiryMinutes }),
      ...(allowSelfApproval !== undefined && { allowSelfApproval }),
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
    value.rules = { ...value.rules, [key]: rule };
  }
  const clear = flags['clear-rule'];
  if (typeof clear === 'string') {
    const key = ruleKey(clear);
    if (!key) return { ok: false, message: ruleKeyHelp(clear) };
    value.rules = Object.fromEntries(Object.entries(value.rules).filter(([k]) => k !== key));
  }

  const breakGlass = flags['allow-break-glass'];
  if (typeof breakGlass === 'string') {
    if (breakGlass !== 'on' && breakGlass !== 'off') {
      return { ok: false, message: '`--allow-break-glass` is `on` or `off`.' };
    }
    value.breakGlass = { ...value.breakGlass, enabled: breakGlass === 'on' };
  }
  const users = flags['break-glass-users'];
  if (users !== undefined) {
    const listed = policyChanges({ approvers: users });
    if (!listed.ok)
      return { ok: false, message: listed.message.replace('--approvers', '--break-glass-users') };
    value.breakGlass = { ...value.breakGlass, users: listed.value.approverUsers ?? [] };
  }
  if (value.breakGlass.enabled && value.breakGlass.users.length === 0) {
    return {
      ok: false,
      message: 'Break-glass needs the people who may use it: add `--break-glass-users @alice,@bob`.',
    };
  }
  const audit = flags['audit-channel'];
  if (typeof audit === 'string') {
    const match = CHANNEL_MENTION.exec(audit.trim());
    if (audit.trim() === 'none') value.auditChannel = null;
    else if (!match)
      return { ok: false, message: '`--audit-channel` takes a channel, e.g. `--audit-channel #audit`.' };
    else value.auditChannel = match[1] ?? match[3] ?? null;
  }
  return { ok: true, value };
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
