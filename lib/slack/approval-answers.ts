import type { WebClient } from '@slack/web-api';
import type { AnyOperation } from '../api/operation.js';
import { listOperationFor, viewOperationFor } from '../api/outcome.js';
import { type BreakGlassOutcome, breakGlass, breakGlassPermission } from '../changes/break-glass.js';
import type { ExecutionDeps as ChangeExecutionDeps } from '../changes/closing.js';
import {
  type Decision,
  type DecisionDeps,
  type DecisionOutcome,
  decide,
  type Ineligibility,
} from '../changes/decisions.js';
import type { OutcomeCheckSettings } from '../changes/outcomes.js';
import type { GroupMembers } from '../changes/ports.js';
import { type RequestOutcome, requestApproval } from '../changes/requests.js';
import type { RequestFollower } from '../changes/runbooks.js';
import { channelRefusalHint } from '../slack-kit/channel-access.js';
import { notice, type Reply } from '../slack-kit/reply.js';
import { codeSpan } from '../slack-kit/text.js';
import type { Approval, ApprovalPolicy, ReadAhead } from '../store/index.js';
import type { ApprovalJob } from '../worker/handoff.js';
import { slackApprovalSurface } from './approval-surface.js';
import type { BotDeps, RequestContext } from './context.js';
import type { RunnerDeps } from './operation-runner.js';
import { previewTarget } from './preview.js';
import { breakGlassAudience } from './render/approval-events.js';
import { unmadeRequestText } from './render/unmade-request.js';
import { answerStepUpNeed, passkeyLinksOf } from './step-up-prompts.js';
import { resolveToken } from './token-resolution.js';

/**
 * The two-person rule in front of destructive operations, as Slack asks for it and answers. The
 * workflow itself (`lib/changes/`: requests, votes, break-glass, running, outcomes, the sweep)
 * decides and returns what happened; this turns it into what the person who asked or clicked is
 * told. The card and its thread are `approval-surface.ts`.
 */

// ---------------------------------------------------------------------------------------------
// requesting

export async function answerApprovalRequest(
  deps: BotDeps,
  ctx: RequestContext,
  client: WebClient,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  reason?: string,
): Promise<Reply> {
  const token = await resolveToken(deps.store, ctx.team, ctx.user, op);
  if (!token.ok) return token.reply;
  const outcome = await requestApproval(
    { ...deps, previewTarget },
    slackApprovalSurface(client, deps, runbookFollower({ ...deps, slack: client })),
    {
      team: ctx.team,
      user: ctx.user,
      channel: ctx.channel,
      op,
      input,
      reason,
      ...(ctx.viaAlias === undefined ? {} : { viaAlias: ctx.viaAlias.name }),
    },
    token.token,
  );
  return requestReply(outcome, ctx.user, op, input);
}

function requestReply(
  outcome: RequestOutcome,
  requester: string,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
): Reply {
  switch (outcome.kind) {
    case 'refused':
      if (outcome.reason === 'target_not_found') {
        const ids = op.pathParams.map((name) => String(input[name])).join('/');
        const list = listOperationFor(op);
        const hint = list ? ` Check the id with \`/cloud ${list.group} ${list.action}\`.` : '';
        return notice(
          `There is no ${nounOf(op)} ${ids} that you can see, so there is nothing to approve.${hint}`,
        );
      }
      if (outcome.reason === 'reason_required') {
        return notice(
          `Nothing was requested: this channel's rule asks every request to say why. Run it again with a reason, e.g. ` +
            `${codeSpan(`/cloud ${op.group} ${op.action} … --reason "restoring last night's backup"`)}.`,
        );
      }
      return notice(unmadeRequestText(outcome));
    case 'card_not_posted':
    case 'not_saved':
      return notice(unmadeRequestText(outcome));
    case 'requested': {
      const { policy } = outcome;
      const who = approversText(policy, requester);
      return notice(
        `:lock: \`${op.group} ${op.action}\` needs ${policy.requiredApprovals} approval` +
          `${policy.requiredApprovals === 1 ? '' : 's'} from ${who}. I posted a card in this channel; ` +
          `it expires in ${policy.expiryMinutes} minutes.`,
      );
    }
  }
}

/** "volume", "backup", "ssh key": the kind of thing the last id of the path names. */
function nounOf(op: AnyOperation): string {
  const segments = (viewOperationFor(op)?.path ?? op.path).split('/');
  const last = segments.findLastIndex((segment) => segment.startsWith('{'));
  const collection = segments[last - 1] ?? op.group;
  if (collection === 'instances') return op.group.replace(/s$/, '');
  if (collection === 'sshkeys') return 'SSH key';
  return collection.replace(/-/g, ' ').replace(/s$/, '');
}

function approversText(policy: ApprovalPolicy, requester: string): string {
  const parts = [
    ...policy.approverUsers.filter((u) => u !== requester || policy.allowSelfApproval).map((u) => `<@${u}>`),
    ...(policy.approverGroup ? [`<!subteam^${policy.approverGroup}>`] : []),
  ];
  if (parts.length === 0)
    return policy.allowSelfApproval ? 'anyone in the workspace' : 'someone other than you';
  return parts.join(', ');
}

// ---------------------------------------------------------------------------------------------
// break-glass

/**
 * `--break-glass "reason"`: runs at once where the channel allows it, for the people it lists,
 * loudly (see `lib/changes/break-glass.ts`).
 */
export async function answerBreakGlass(
  deps: BotDeps,
  ctx: RequestContext,
  client: WebClient,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  reason: string,
): Promise<Reply> {
  const ask = { team: ctx.team, user: ctx.user, channel: ctx.channel, op, input };
  const permission = await breakGlassPermission(deps, ask);
  if (permission.kind === 'refused') {
    return permission.reason === 'not_enabled'
      ? notice(
          'Break-glass is not enabled in this channel, so nothing was run. Ask for approval instead (run the command ' +
            'without `--break-glass`); admins enable it with `/cloud policy --allow-break-glass on --break-glass-users @…`.',
        )
      : notice(
          'You are not on this channel’s break-glass list, so nothing was run. `/cloud policy` shows who is.',
        );
  }
  const token = await resolveToken(deps.store, ctx.team, ctx.user, op);
  if (!token.ok) return token.reply;
  const outcome = await breakGlass(
    { ...deps, previewTarget },
    slackApprovalSurface(client, deps, runbookFollower({ ...deps, slack: client })),
    { ...ask, correlationId: ctx.correlationId, reason },
    permission,
    token.token,
  );
  if (outcome.kind === 'step_up') {
    const again = 'Run the command again.';
    const told = await answerStepUpNeed(client, outcome.need, ctx, again, passkeyLinksOf(deps));
    return (
      told ??
      notice(':lock: Break-glass here needs a code: enter it in the window that opened. Nothing has run yet.')
    );
  }
  return breakGlassReply(outcome, ctx);
}

/** What the person who broke glass is told (also after a step-up completed it). */
export function breakGlassReply(
  outcome: Exclude<BreakGlassOutcome, { kind: 'step_up' }>,
  ctx: { readonly user: string; readonly channel: string },
): Reply {
  if (outcome.kind === 'running') {
    const told = breakGlassAudience(outcome.policy, ctx.user, ctx.channel, outcome.auditChannel);
    return notice(
      `:rotating_light: Break-glass: running ${codeSpan(outcome.approval.operationId)} now. ${told.summary} ` +
        'The card shows how it ends.',
    );
  }
  switch (outcome.reason) {
    case 'not_enabled':
      return notice('Break-glass is no longer enabled in this channel, so nothing was run.');
    case 'not_listed':
      return notice('You are no longer on this channel’s break-glass list, so nothing was run.');
    case 'channel_closed':
      return notice(
        `Nothing was run: break-glass posts its card in this channel. ${channelRefusalHint(outcome.refusal)}`,
      );
    case 'hourly_limit':
      return notice(
        `You have used break-glass ${outcome.perHour} times this hour, the most allowed, so nothing was run. ` +
          'Ask for approval instead.',
      );
    case 'target_not_found':
      return notice('There is no such target that you can see, so nothing was run.');
    case 'not_recorded':
      return notice('The break-glass request could not be recorded, so nothing was run. Try again.');
  }
}

// ---------------------------------------------------------------------------------------------
// deciding

export type { Decision, DecisionDeps };

/** A click on Approve, Deny or Cancel. Returns what the clicker alone is told, if anything. */
export async function answerDecision(
  deps: DecisionDeps & Pick<RunnerDeps, 'api'> & Pick<BotDeps, 'passkeys'>,
  client: WebClient,
  ctx: {
    team: string;
    user: string;
    channel: string;
    correlationId: string;
    triggerId?: string | undefined;
  },
  approvalId: string,
  decision: Decision,
  read?: ReadAhead,
): Promise<Reply | undefined> {
  const outcome = await decide(
    deps,
    slackApprovalSurface(client, deps, runbookFollower({ ...deps, slack: client })),
    ctx,
    approvalId,
    decision,
    read,
  );
  if (outcome.kind === 'step_up')
    return answerStepUpNeed(client, outcome.need, ctx, 'Click the button again.', passkeyLinksOf(deps));
  return decisionReply(outcome);
}

/** What the clicker alone is told of a decision (also after a step-up completed it). */
export function decisionReply(outcome: Exclude<DecisionOutcome, { kind: 'step_up' }>): Reply | undefined {
  switch (outcome.kind) {
    case 'approved':
      return undefined;
    case 'cancelled':
      return outcome.cardShown ? undefined : cardNotUpdated('You cancelled the request; nothing will run.');
    case 'denied':
      return outcome.cardShown ? undefined : cardNotUpdated('You denied the request; nothing will run.');
    case 'vote_counted':
      return outcome.cardShown
        ? undefined
        : cardNotUpdated(`Your approval counts (${outcome.count} of ${outcome.required}).`);
    case 'refused':
      return notice(refusalText(outcome));
  }
}

function refusalText(refusal: Extract<DecisionOutcome, { kind: 'refused' }>): string {
  switch (refusal.reason) {
    case 'no_such_request':
      return 'That approval request no longer exists.';
    case 'expired':
      return 'This request has expired; nothing was run. Ask again if it is still needed.';
    case 'expired_meanwhile':
      return 'This request has expired; nothing was run.';
    case 'not_requester':
      return 'Only the person who asked can cancel this request.';
    case 'already_closed':
      return `This request is already ${refusal.approval ? statusWord(refusal.approval) : 'gone'}.`;
    case 'too_late':
      return `Too late: this request is already ${statusWord(refusal.approval)}.`;
    case 'duplicate_vote':
      return 'You have already approved this request.';
    case 'not_eligible':
      return ineligibilityText(refusal.why);
  }
}

function ineligibilityText(why: Ineligibility): string {
  switch (why.kind) {
    case 'own_request':
      return 'You asked for this, so someone else has to approve or deny it (you can cancel it).';
    case 'about_them':
      return 'This request removes your own step-up methods, so someone else has to approve or deny it.';
    case 'not_an_admin':
      return "This request changes the workspace's settings, so an admin (of the workspace, or named in the approval policy) has to approve or deny it.";
    case 'awaiting_requester':
      return 'This is its requester’s break-glass, waiting for their own step-up proof: it takes no votes, and runs only once they give it.';
    case 'not_an_approver':
      return 'You are not one of the approvers of this workspace. `/cloud approvals policy` shows who is.';
    case 'group_unreadable':
      return cannotReadGroup(why.members, why.group);
  }
}

/**
 * What the person who clicked is told when the card could not show their decision (Slack rate
 * limited `chat.update`, say): that it counted, so they do not click again or think it was lost.
 */
function cardNotUpdated(what: string): Reply {
  return notice(
    `${what} Slack did not let the bot update the card just now, so it may look unchanged for a while.`,
  );
}

export const NO_GROUPS_ON_PLAN =
  "This workspace's Slack plan has no user groups, so the bot cannot read who is in";

export function cannotReadGroup(group: Exclude<GroupMembers, { kind: 'members' }>, id: string): string {
  switch (group.kind) {
    case 'plan':
      return `${NO_GROUPS_ON_PLAN} <!subteam^${id}>. An admin can name the approvers instead: \`/cloud approvals policy --approvers @alice,@bob --approver-group none\`.`;
    case 'no_such_group':
      return `Slack knows no user group <!subteam^${id}>. An admin can name the approvers with \`/cloud approvals policy --approvers @alice,@bob\`.`;
    case 'rate_limited':
      return `Slack asked the bot to slow down before it could check who is in <!subteam^${id}>. Try again in ${Math.ceil(group.retryAfterSeconds)} s.`;
    case 'unreadable':
      return `Slack did not say who is in <!subteam^${id}>, so the bot cannot tell whether you may decide. Try again in a minute.`;
  }
}

function statusWord(approval: Approval): string {
  switch (approval.status) {
    case 'executing':
      return 'approved and running';
    case 'in_doubt':
      return 'approved, and the bot is checking whether it happened (see the card)';
    case 'unknown':
      return 'approved, and whether it happened is unknown (see the card)';
    case 'not_run':
      return 'closed without running';
    default:
      return approval.status;
  }
}

// ---------------------------------------------------------------------------------------------
// executing (in the worker)

export interface ExecutionDeps extends RunnerDeps, ChangeExecutionDeps {
  readonly slack: WebClient;
  readonly outcomeChecks?: OutcomeCheckSettings | undefined;
}

/**
 * Runs an approved request once (see `lib/changes/execution.ts`), shown on its card in Slack. The
 * run and what shows it load here, in the worker; a click in the Slack function only votes.
 */
export async function runApprovalJob(deps: ExecutionDeps, job: ApprovalJob): Promise<void> {
  const [{ executeApproval }, { slackExecutionSurface }] = await Promise.all([
    import('../changes/execution.js'),
    import('./approved-run-surface.js'),
  ]);
  return executeApproval(deps, slackExecutionSurface(deps, runbookFollower(deps)), job);
}

/**
 * A runbook's step that waits on a request hears how it ended. Runbooks load only when a request
 * ends or runs, and only then find out whether a run waits on it.
 */
export function runbookFollower(deps: RunnerDeps & { readonly slack: WebClient }): RequestFollower {
  const follower = async () => (await import('./runbook-runs.js')).runbookRequestFollower(deps);
  return {
    requestEnded: async (approval, end) => (await follower()).requestEnded(approval, end),
    approvedRan: async (approval, input, attempt) => (await follower()).approvedRan(approval, input, attempt),
  };
}
