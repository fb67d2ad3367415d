import { OPERATION_CLASSES } from '../../api/operation.js';
import { CLASS_WORDS } from '../../changes/guardrails.js';
import type { ParsedCommand } from '../../commands/parse.js';
import {
  type ChannelPolicies,
  type ChannelPolicyChange,
  type ChannelPolicyProblem,
  changeChannelPolicy,
  showChannelPolicy,
} from '../../core/policies.js';
import { channelRefusalHint } from '../../slack-kit/channel-access.js';
import { notice, type Reply } from '../../slack-kit/reply.js';
import { codeSpan, escapeMrkdwn, slackDate } from '../../slack-kit/text.js';
import { callerOf } from '../caller.js';
import type { BotCommandContext } from '../context.js';
import { ruleWords } from '../render/policy-words.js';
import { describePolicy, policyChanges, settingsProblemText, slackPolicyChecks } from './approvals.js';

/**
 * `/cloud policy`: the guardrails of this channel, as Slack shows them. Anyone sees them; the core
 * (`lib/core/policies.ts`) decides who changes them (workspace admins, or the admins named in the
 * approval policy), checks and stores a change and audits it; this words what it answers.
 */

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;
type Flags = BotParsed['flags'];

export async function handlePolicyCommand(context: BotCommandContext, parsed: BotParsed): Promise<Reply> {
  const caller = callerOf(context);
  const flags = parsed.flags;
  if (Object.keys(flags).length === 0) {
    return notice(describeChannelPolicy(await showChannelPolicy(context.deps, caller)));
  }
  const outcome = await changeChannelPolicy(
    context.deps,
    slackPolicyChecks(context.client),
    caller,
    changeOf(flags),
  );
  switch (outcome.kind) {
    case 'refused':
      return notice(
        'Only workspace admins (or the admins named in the approval policy) can change channel policies.',
      );
    case 'cleared':
      return notice(
        'This channel has no policy of its own now: everything may run here under the workspace policy.',
      );
    case 'invalid':
      return notice(problemText(outcome.problem));
    case 'updated':
      return notice(
        `Channel policy updated.\n${describeChannelPolicy({ channel: outcome.policy, workspace: outcome.workspace })}`,
      );
  }
}

/**
 * The change the flags ask for. The parser has read each flag as its declared kind (ids of Slack's
 * shape and length, on/off, counts, minutes); what needs the policy or the operations table is the
 * core's to check.
 */
function changeOf(flags: Flags): ChannelPolicyChange {
  if (flags.reset === true) return { kind: 'reset' };
  const { allow, rule } = flags;
  const clearRule = flags['clear-rule'];
  const allowBreakGlass = flags['allow-break-glass'];
  const breakGlassUsers = flags['break-glass-users'];
  const auditChannel = flags['audit-channel'];
  return {
    kind: 'set',
    ...(typeof allow === 'string' && { allow: allow.split(',') }),
    ...(typeof rule === 'string' && { rule }),
    ruleSettings: policyChanges(flags),
    ...(typeof clearRule === 'string' && { clearRule }),
    ...(typeof allowBreakGlass === 'boolean' && { allowBreakGlass }),
    ...(Array.isArray(breakGlassUsers) && { breakGlassUsers }),
    ...((typeof auditChannel === 'string' || auditChannel === null) && { auditChannel }),
  };
}

function problemText(problem: ChannelPolicyProblem): string {
  switch (problem.kind) {
    case 'unknown_step_up':
    case 'unusable_approver_group':
      return settingsProblemText(problem);
    case 'too_few_approvers':
      return `The rule would need ${problem.required} approvals but names only ${problem.named} approver(s).`;
    case 'unknown_classes':
      return `\`--allow\` takes classes from ${OPERATION_CLASSES.map((c) => `\`${c}\``).join(', ')} (or \`all\`), comma-separated, e.g. \`--allow read,change\`.`;
    case 'settings_without_rule':
      return 'Name the rule the settings are for, e.g. `--rule destructive --required 2`.';
    case 'rule_without_settings':
      return 'Say what the rule sets, e.g. `--required 2` or `--approvers @alice`.';
    case 'unknown_rule_key':
      return (
        `\`${escapeMrkdwn(problem.text.slice(0, 40))}\` is neither a class (${OPERATION_CLASSES.join(', ')}) nor an operation id ` +
        'such as `volumes.delete`.'
      );
    case 'break_glass_without_users':
      return 'Break-glass needs the people who may use it: add `--break-glass-users @alice,@bob`.';
    case 'audit_channel_refused':
      // Break-glass is announced there: a channel the bot cannot post in would swallow it.
      return `Nothing was changed: break-glass is announced in <#${problem.channel}>. ${channelRefusalHint(problem.refusal, problem.channel)}`;
  }
}

function describeChannelPolicy({ channel: policy, workspace }: ChannelPolicies): string {
  if (!policy) {
    return (
      '*This channel has no policy of its own*: every class of operation may run here, and approvals follow ' +
      `the workspace policy:\n${describePolicy(workspace)}`
    );
  }
  const allowed = policy.allowedClasses.map((c) => CLASS_WORDS[c]).join(', ') || 'nothing';
  const rules = Object.entries(policy.rules).map(([key, rule]) => `• ${codeSpan(key)}: ${ruleWords(rule)}`);
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
