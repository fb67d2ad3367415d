import type { WebClient } from '@slack/web-api';
import type { ParsedCommand } from '../../commands/parse.js';
import {
  type ApprovalSettings,
  changeApprovalPolicy,
  type PolicyChecks,
  type SettingsProblem,
  showApprovalPolicy,
  type UnusableGroup,
} from '../../core/policies.js';
import { ensureBotCanPost } from '../../slack-kit/channel-access.js';
import { notice, type Reply } from '../../slack-kit/reply.js';
import { bold, slackDate } from '../../slack-kit/text.js';
import type { ApprovalPolicy } from '../../store/index.js';
import { NO_GROUPS_ON_PLAN } from '../approval-answers.js';
import { approverGroupMembers } from '../approval-surface.js';
import { callerOf } from '../caller.js';
import type { BotCommandContext } from '../context.js';
import { renderError } from '../render/errors.js';
import { stepUpWords } from '../render/policy-words.js';

/**
 * `/cloud approvals list|policy`: the requests waiting for approval, and the workspace's approval
 * policy, shown or changed (`lib/core/policies.ts` decides who may change it and how). The
 * policy's words and flags are shared with `/cloud policy` (`policy.ts`).
 */

/** Pending requests shown by `/cloud approvals list`; more would not fit one message. */
const LISTED_APPROVALS = 12;

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;

export async function handleApprovalsCommand(context: BotCommandContext, parsed: BotParsed): Promise<Reply> {
  const { deps, ctx } = context;
  if (parsed.subcommand === 'list') {
    // A break-glass waiting for its requester's proof waits for nobody else's approval.
    const pending = (await deps.store.approvals.listPending(ctx.team))
      .filter((approval) => !approval.awaitingRequester)
      .reverse();
    if (pending.length === 0) return notice('No approval requests are waiting.');
    const shown = pending.slice(0, LISTED_APPROVALS);
    const more = pending.length - shown.length;
    const lines = shown.map(
      (a) =>
        `• ${bold(a.summary)} — \`${a.operationId}\`, asked by <@${a.requester}>, ` +
        `${a.approvals.length} of ${a.requiredApprovals} approvals, expires ${slackDate(a.decideBy, 'at')}`,
    );
    const tail = more > 0 ? `\n…and ${more} older request${more === 1 ? '' : 's'}.` : '';
    return notice(`*Waiting for approval* (newest first):\n${lines.join('\n')}${tail}`);
  }
  const settings = policyChanges(parsed.flags);
  const caller = callerOf(context);
  if (Object.keys(settings).length === 0)
    return notice(describePolicy(await showApprovalPolicy(deps, caller)));
  const outcome = await changeApprovalPolicy(deps, slackPolicyChecks(context.client), caller, settings);
  switch (outcome.kind) {
    case 'refused':
      return notice(
        'Only workspace admins (or the admins named in the policy) can change the approval policy.',
      );
    case 'invalid':
      if (outcome.problem.kind !== 'too_few_approvers') return notice(settingsProblemText(outcome.problem));
      return notice(
        `The policy would need ${outcome.problem.required} approvals but names only ${outcome.problem.named} ` +
          'approver(s). Add approvers or lower `--required`.',
      );
    case 'not_saved':
      return {
        ...renderError(outcome.error, { referenceId: ctx.correlationId.slice(0, 8) }),
        visibility: 'ephemeral',
      };
    case 'updated':
      return notice(`Approval policy updated.\n${describePolicy(outcome.policy)}`);
  }
}

/**
 * What the approval flags set. The parser has read each as its declared kind (`bot-command-specs.ts`):
 * people and groups as ids of Slack's shape and length (`none` as an empty list or `null`),
 * counts and minutes as whole numbers in range; the step-up word is the core's to check.
 */
export function policyChanges(flags: BotParsed['flags']): ApprovalSettings {
  const { approvers, required, expiry } = flags;
  const group = flags['approver-group'];
  const self = flags['allow-self-approval'];
  const stepUp = flags['step-up'];
  const reason = flags['require-reason'];
  return {
    ...(Array.isArray(approvers) && { approverUsers: [...approvers] }),
    ...((typeof group === 'string' || group === null) && { approverGroup: group }),
    ...(typeof required === 'number' && { requiredApprovals: required }),
    ...(typeof expiry === 'number' && { expiryMinutes: expiry }),
    ...(typeof self === 'boolean' && { allowSelfApproval: self }),
    ...(typeof stepUp === 'string' && { stepUp }),
    ...(typeof reason === 'boolean' && { requireReason: reason }),
  };
}

/** What Slack tells the core before a policy is stored: approver groups and channel access. */
export function slackPolicyChecks(client: WebClient): PolicyChecks {
  return {
    approverGroupMembers: (group) => approverGroupMembers(client, group),
    announcementAccess: async (channel) => {
      const access = await ensureBotCanPost(client, channel);
      return access.kind === 'refused' ? access : { kind: 'open' };
    },
  };
}

/** Why approval settings cannot be stored, in words (all but too few approvers, worded by each command). */
export function settingsProblemText(
  problem: Exclude<SettingsProblem, { readonly kind: 'too_few_approvers' }>,
): string {
  switch (problem.kind) {
    case 'unknown_step_up':
      return '`--step-up` is `passkey`, `code`, `any` (either) or `none`, e.g. `--step-up code`.';
    case 'unusable_approver_group':
      return unusableApproverGroup(problem.group, problem.members);
  }
}

/** Why a newly named approver group cannot serve: a group the bot cannot read would make every approval wait. */
function unusableApproverGroup(group: string, members: UnusableGroup): string {
  switch (members.kind) {
    case 'plan':
      return `${NO_GROUPS_ON_PLAN} <!subteam^${group}>, and nobody could approve through it. Name the approvers instead: \`--approvers @alice,@bob\`.`;
    case 'no_such_group':
      return `Slack knows no user group <!subteam^${group}>. Check the name, or name the approvers with \`--approvers @alice,@bob\`.`;
    case 'rate_limited':
      return `Slack asked the bot to slow down before it could check <!subteam^${group}>; nothing was changed. Try again in ${Math.ceil(members.retryAfterSeconds)} s.`;
  }
}

export function describePolicy(policy: ApprovalPolicy): string {
  const who = [
    ...policy.approverUsers.map((u) => `<@${u}>`),
    ...(policy.approverGroup ? [`<!subteam^${policy.approverGroup}>`] : []),
  ];
  return [
    `*Approvers:* ${who.length > 0 ? who.join(', ') : 'anyone in the workspace'}`,
    `*Approvals needed:* ${policy.requiredApprovals}`,
    `*Requester may approve own request:* ${policy.allowSelfApproval ? 'yes' : 'no'}`,
    `*Requests expire after:* ${policy.expiryMinutes} minutes`,
    `*Step-up on Approve, Deny and break-glass:* ${stepUpWords(policy.stepUp)}`,
    `*Reason required:* ${policy.requireReason ? 'yes' : 'no'}`,
  ].join('\n');
}
