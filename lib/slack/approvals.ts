import type { WebClient } from '@slack/web-api';
import { createApiClient } from '../api/client-factory.js';
import { ApiError, describeFieldErrors } from '../api/errors.js';
import type { AnyOperation } from '../api/operation.js';
import { findOperation } from '../api/operations/index.js';
import { listOperationFor, viewOperationFor } from '../api/outcome.js';
import type { ParsedCommand } from '../commands/parse.js';
import { startStatusWatch, watchPlanFor } from '../reports/status-watch.js';
import { isStorageUnavailable } from '../store/errors.js';
import {
  type Approval,
  type ApprovalOutcome,
  type ApprovalPolicy,
  type AuditResult,
  type Store,
  StoreError,
} from '../store/index.js';
import { channelRefusalHint, channelRefusalOf, ensureBotCanPost } from './channel-access.js';
import type { BotCommandContext, BotDeps, RequestContext } from './context.js';
import { effectiveApprovalPolicy } from './guardrails.js';
import type { ApprovalJob, Handoff } from './handoff.js';
import {
  attemptChange,
  type ChangeAttempt,
  checkingText,
  DEFAULT_OUTCOME_CHECKS,
  durationText,
  type OutcomeCheckSettings,
  settle,
  verdictFor,
  whatWentWrong,
} from './outcomes.js';
import { changedFields, currentFingerprint, previewTarget, type TargetPreview } from './preview.js';
import { approvedRunLine, renderApprovalCard } from './render/approval.js';
import { contextBlock, sectionBlock } from './render/blocks.js';
import { renderError } from './render/errors.js';
import { bold, codeSpan, defuseMarkup, escapeMrkdwn, slackDate } from './render/text.js';
import { notice, type Reply, type RunnerDeps, resolveToken } from './runner.js';
import { rateLimitedFor, slackErrorOf } from './slack-refusals.js';

/**
 * The two-person rule in front of destructive operations. A request becomes an approval record
 * and a card in the channel; clicks move the record with conditional writes (see
 * `lib/store/approvals.ts`), and only the one caller that wins `claimExecution` runs the
 * operation, with the requester's token. The card is updated in place and its thread keeps the
 * trail; every step is written to the audit log.
 */

/** Pending requests shown by `/cloud approvals list`; more would not fit one message. */
const LISTED_APPROVALS = 12;

// ---------------------------------------------------------------------------------------------
// requesting

export async function requestApproval(
  deps: BotDeps,
  ctx: RequestContext,
  client: WebClient,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
): Promise<Reply> {
  const token = await resolveToken(deps.store, ctx.team, ctx.user, op);
  if (!token.ok) return token.reply;

  const { policy } = await effectiveApprovalPolicy(deps.store, ctx.team, ctx.channel, op);
  const target = await previewTarget(createApiClient(deps.api, token.token), op, input);
  if (target === 'not_found') {
    const ids = op.pathParams.map((name) => String(input[name])).join('/');
    const list = listOperationFor(op);
    const hint = list ? ` Check the id with \`/cloud ${list.group} ${list.action}\`.` : '';
    return notice(
      `There is no ${nounOf(op)} ${ids} that you can see, so there is nothing to approve.${hint}`,
    );
  }
  // The card is the request: in a channel the bot cannot post in, nothing is stored at all.
  const access = await ensureBotCanPost(client, ctx.channel);
  if (access.kind === 'refused') {
    return notice(
      `Nothing was requested: the approval card goes in this channel. ${channelRefusalHint(access.refusal)}`,
    );
  }
  // Stored before the card is posted, so a click on the card always finds its request; a card
  // that cannot be posted takes its request away again. A redelivered command never gets here
  // (its delivery was claimed), so one command makes at most one request.
  const approval = await createRequest(deps, ctx, op, input, target, policy);

  const card = renderApprovalCard({ approval });
  let postedTs: string | undefined;
  try {
    const posted = await client.chat.postMessage({
      channel: ctx.channel,
      text: card.text,
      blocks: card.blocks,
    });
    postedTs = posted.ts;
  } catch (error) {
    deps.logger.warn('approval card not posted', { approvalId: approval.id, error });
    // Only a card Slack refused is certainly not on screen; one whose answer was lost may be.
    const discarded =
      slackRefused(error) &&
      (await deps.store.approvals.discardUnposted(ctx.team, approval.id).catch((discardError: unknown) => {
        deps.logger.error('unposted approval request not removed', {
          approvalId: approval.id,
          error: discardError,
        });
        return false;
      }));
    const refusal = channelRefusalOf(error);
    const why = refusal
      ? channelRefusalHint(refusal)
      : 'Slack did not take the approval card; try again in a minute.';
    return notice(
      discarded
        ? `Nothing was requested: I could not post the approval card. ${why}`
        : `I could not post the approval card. ${why} Request ${approval.id} will expire unused; nobody can approve it without its card.`,
    );
  }
  await audit(deps, approval, ctx.user, 'requested');
  if (postedTs) {
    const stored = await deps.store.approvals
      .setMessage(ctx.team, approval.id, ctx.channel, postedTs)
      .catch((error: unknown) => {
        deps.logger.error('approval card not linked to its request', { approvalId: approval.id, error });
        return false;
      });
    if (!stored) {
      // The card is up but its request cannot find it: the clicks would work, the card would
      // never change. Say so on the card rather than leave live buttons that lie.
      await client.chat
        .update({
          channel: ctx.channel,
          ts: postedTs,
          text: 'This approval request could not be saved; ask again.',
          blocks: [
            sectionBlock(
              ':heavy_multiplication_x: This approval request could not be saved; nothing will run. Ask again.',
            ),
          ],
        })
        .catch(() => undefined);
      return notice(
        "The bot's storage did not answer while the request was being saved, so it will not run. Ask again in a minute.",
      );
    }
  }
  const who = approversText(policy, ctx.user);
  return notice(
    `:lock: \`${op.group} ${op.action}\` needs ${policy.requiredApprovals} approval` +
      `${policy.requiredApprovals === 1 ? '' : 's'} from ${who}. I posted a card in this channel; ` +
      `it expires in ${policy.expiryMinutes} minutes.`,
  );
}

/** Slack answered with a refusal (or a rate limit): the message was certainly not posted. */
function slackRefused(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'slack_webapi_platform_error' || code === 'slack_webapi_rate_limited_error';
}

/** The approval record of a request, with what its card previews. */
function createRequest(
  deps: BotDeps,
  ctx: RequestContext,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  target: TargetPreview,
  policy: Pick<ApprovalPolicy, 'requiredApprovals' | 'expiryMinutes'>,
): Promise<Approval> {
  return deps.store.approvals.create({
    team: ctx.team,
    requester: ctx.user,
    operationId: op.id,
    input,
    summary: target.summary,
    preview: target.lines,
    fingerprint: target.fingerprint,
    channel: ctx.channel,
    requiredApprovals: policy.requiredApprovals,
    expiryMinutes: policy.expiryMinutes,
  });
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

/** Break-glass uses per person per hour. */
const BREAK_GLASS_PER_HOUR = 2;

/**
 * `--break-glass "reason"`: a destructive (or otherwise approval-bound) operation runs at once,
 * where the channel allows it and for the people it lists. It is loud on purpose: a card in the
 * channel and in the audit channel naming the reason, the approvers mentioned, an audit entry.
 * Execution then takes the same path as an approved request (claim, lease, outcome, sweep).
 */
export async function runBreakGlass(
  deps: BotDeps,
  ctx: RequestContext,
  client: WebClient,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  reason: string,
): Promise<Reply> {
  const channelPolicy = await deps.store.channelPolicy.get(ctx.team, ctx.channel);
  if (!channelPolicy?.breakGlass.enabled) {
    return notice(
      'Break-glass is not enabled in this channel, so nothing was run. Ask for approval instead (run the command ' +
        'without `--break-glass`); admins enable it with `/cloud policy --allow-break-glass on --break-glass-users @…`.',
    );
  }
  if (!channelPolicy.breakGlass.users.includes(ctx.user)) {
    return notice(
      'You are not on this channel’s break-glass list, so nothing was run. `/cloud policy` shows who is.',
    );
  }
  const token = await resolveToken(deps.store, ctx.team, ctx.user, op);
  if (!token.ok) return token.reply;
  // Break-glass is loud or it does not happen: the channel must be able to see its card.
  const access = await ensureBotCanPost(client, ctx.channel);
  if (access.kind === 'refused')
    return notice(
      `Nothing was run: break-glass posts its card in this channel. ${channelRefusalHint(access.refusal)}`,
    );
  if (!(await deps.store.channelPolicy.useBreakGlass(ctx.team, ctx.user, BREAK_GLASS_PER_HOUR))) {
    return notice(
      `You have used break-glass ${BREAK_GLASS_PER_HOUR} times this hour, the most allowed, so nothing was run. ` +
        'Ask for approval instead.',
    );
  }
  const target = await previewTarget(createApiClient(deps.api, token.token), op, input);
  if (target === 'not_found') return notice('There is no such target that you can see, so nothing was run.');
  const { policy } = await effectiveApprovalPolicy(deps.store, ctx.team, ctx.channel, op);
  const created = await createRequest(deps, ctx, op, input, target, { ...policy, requiredApprovals: 1 });
  const approval = await deps.store.approvals.approveBreakGlass(ctx.team, created.id, ctx.user, reason);
  if (!approval)
    return notice('The break-glass request could not be recorded, so nothing was run. Try again.');
  await deps.store.audit
    .append({
      team: ctx.team,
      actor: ctx.user,
      action: op.id,
      target: approval.summary,
      approvalId: approval.id,
      result: 'break_glass',
      detail: reason,
    })
    .catch((error: unknown) =>
      deps.logger.error('audit entry not written', { approvalId: approval.id, error }),
    );

  const card = renderApprovalCard({ approval });
  const auditChannel =
    channelPolicy.auditChannel && channelPolicy.auditChannel !== ctx.channel
      ? channelPolicy.auditChannel
      : undefined;
  const told = breakGlassAudience(policy, ctx.user, ctx.channel, auditChannel);
  const loud = `:rotating_light: ${told.alarm}<@${ctx.user}> used break-glass. Reason: “${escapeMrkdwn(reason)}”${told.note}`;
  const posted = await client.chat
    .postMessage({ channel: ctx.channel, text: card.text, blocks: card.blocks })
    .catch((error: unknown) => {
      deps.logger.warn('break-glass card not posted', { approvalId: approval.id, error });
      return undefined;
    });
  if (posted?.ts) {
    await deps.store.approvals.setMessage(ctx.team, approval.id, ctx.channel, posted.ts).catch(() => false);
    await client.chat
      .postMessage({ channel: ctx.channel, thread_ts: posted.ts, text: loud })
      .catch(() => undefined);
  }
  if (auditChannel) {
    await client.chat
      .postMessage({
        channel: auditChannel,
        text: `${loud} — in <#${ctx.channel}>: ${card.text}`,
        blocks: card.blocks,
      })
      .catch((error: unknown) => deps.logger.warn('break-glass not posted to the audit channel', { error }));
  }
  await deps.handoff.dispatch({
    kind: 'approval',
    correlationId: ctx.correlationId,
    team: ctx.team,
    approvalId: approval.id,
  });
  return notice(
    `:rotating_light: Break-glass: running ${codeSpan(`${op.group} ${op.action}`)} now. ${told.summary} ` +
      'The card shows how it ends.',
  );
}

/**
 * Who a break-glass alarm is for: the approvers it bypassed, mentioned by name. Where the policy
 * names none there is nobody to mention, so the alarm says where it was posted instead.
 */
function breakGlassAudience(
  policy: ApprovalPolicy,
  user: string,
  channel: string,
  auditChannel: string | undefined,
): { alarm: string; note: string; summary: string } {
  const approvers = [
    ...policy.approverUsers.filter((u) => u !== user).map((u) => `<@${u}>`),
    ...(policy.approverGroup ? [`<!subteam^${policy.approverGroup}>`] : []),
  ];
  const places = [`<#${channel}>`, ...(auditChannel ? [`the audit channel <#${auditChannel}>`] : [])].join(
    ' and ',
  );
  if (approvers.length > 0) {
    return {
      alarm: `${approvers.join(', ')}: `,
      note: '',
      summary: `The approvers (${approvers.join(', ')}) and ${places} have been told.`,
    };
  }
  return {
    alarm: '',
    note: ` No approvers are named in the approval policy, so this is told to ${places}.`,
    summary: `No approvers are named in the approval policy, so ${places} ${auditChannel ? 'have' : 'has'} been told.`,
  };
}

// ---------------------------------------------------------------------------------------------
// deciding

export type Decision = 'approve' | 'deny' | 'cancel';

export interface DecisionDeps {
  readonly store: Store;
  readonly handoff: Handoff;
  readonly logger: RunnerDeps['logger'];
}

/** A click on Approve, Deny or Cancel. Returns what the clicker alone is told, if anything. */
export async function decide(
  deps: DecisionDeps,
  client: WebClient,
  ctx: { team: string; user: string; correlationId: string },
  approvalId: string,
  decision: Decision,
): Promise<Reply | undefined> {
  const approval = await deps.store.approvals.get(ctx.team, approvalId);
  if (!approval) return notice('That approval request no longer exists.');

  if (approval.status === 'expired') {
    if (await deps.store.approvals.expire(ctx.team, approvalId)) {
      const expired = (await deps.store.approvals.get(ctx.team, approvalId)) ?? approval;
      await updateCard(deps, client, expired);
      await thread(
        deps,
        client,
        expired,
        ':hourglass: The request expired before it was approved; nothing was run.',
      );
      await audit(deps, expired, ctx.user, 'expired');
    }
    return notice('This request has expired; nothing was run. Ask again if it is still needed.');
  }

  if (decision === 'cancel') {
    const result = await deps.store.approvals.cancel(ctx.team, approvalId, ctx.user);
    if (result.outcome === 'cancelled') {
      const shown = await updateCard(deps, client, result.approval);
      await thread(deps, client, result.approval, `<@${ctx.user}> cancelled the request; nothing was run.`);
      await audit(deps, result.approval, ctx.user, 'cancelled');
      return shown ? undefined : cardNotUpdated('You cancelled the request; nothing will run.');
    }
    if (result.outcome === 'not_requester')
      return notice('Only the person who asked can cancel this request.');
    return notice(
      `This request is already ${result.outcome === 'not_found' ? 'gone' : statusWord(approval)}.`,
    );
  }

  // The rule in force where the request was made, as it stands now.
  const op = findOperation(approval.operationId);
  const policy = op
    ? (await effectiveApprovalPolicy(deps.store, ctx.team, approval.channel, op)).policy
    : await deps.store.approvalPolicy.get(ctx.team);
  const eligibility = await mayDecide(client, policy, approval, ctx.user);
  if (eligibility) return notice(eligibility);

  const result = await deps.store.approvals.recordDecision(ctx.team, approvalId, ctx.user, decision);
  switch (result.outcome) {
    case 'not_found':
      return notice('That approval request no longer exists.');
    case 'duplicate_vote':
      return notice('You have already approved this request.');
    case 'expired':
      return notice('This request has expired; nothing was run.');
    case 'lost':
    case 'already_decided':
      return notice(`Too late: this request is already ${statusWord(result.approval)}.`);
    case 'denied': {
      // Card, thread and audit are independent and none of them throws: told together.
      const [shown] = await Promise.all([
        updateCard(deps, client, result.approval),
        thread(deps, client, result.approval, `<@${ctx.user}> denied the request; nothing was run.`),
        audit(deps, result.approval, ctx.user, 'denied'),
      ]);
      return shown ? undefined : cardNotUpdated('You denied the request; nothing will run.');
    }
    case 'recorded': {
      const { approvals, requiredApprovals } = result.approval;
      const shown = await updateCard(deps, client, result.approval);
      await thread(
        deps,
        client,
        result.approval,
        `<@${ctx.user}> approved (${approvals.length} of ${requiredApprovals}).`,
      );
      return shown
        ? undefined
        : cardNotUpdated(`Your approval counts (${approvals.length} of ${requiredApprovals}).`);
    }
    case 'approved': {
      // Together, but all before the hand-off: the worker's result must follow "running it now".
      await Promise.all([
        updateCard(deps, client, result.approval),
        thread(deps, client, result.approval, `<@${ctx.user}> approved; running it now.`),
        audit(deps, result.approval, ctx.user, 'approved'),
      ]);
      const job: ApprovalJob = {
        kind: 'approval',
        correlationId: ctx.correlationId,
        team: ctx.team,
        approvalId,
      };
      await deps.handoff.dispatch(job);
      return undefined;
    }
  }
}

/** Why `user` may not decide, or undefined when they may. */
async function mayDecide(
  client: WebClient,
  policy: ApprovalPolicy,
  approval: Approval,
  user: string,
): Promise<string | undefined> {
  if (user === approval.requester && !policy.allowSelfApproval) {
    return 'You asked for this, so someone else has to approve or deny it (you can cancel it).';
  }
  const listed = policy.approverUsers.length > 0 || policy.approverGroup !== null;
  if (!listed || policy.approverUsers.includes(user)) return undefined;
  if (policy.approverGroup) {
    const group = await approverGroupMembers(client, policy.approverGroup);
    if (group.kind !== 'members') return cannotReadGroup(group, policy.approverGroup);
    if (group.users.includes(user)) return undefined;
  }
  return 'You are not one of the approvers of this workspace. `/cloud approvals policy` shows who is.';
}

/**
 * Who is in the approver group, as far as Slack says. A group Slack would not list is not an
 * empty group: the person deciding is told why the bot cannot tell, not that they may not approve.
 */
type GroupMembers =
  | { readonly kind: 'members'; readonly users: readonly string[] }
  /** The workspace's Slack plan has no user groups (Free): `plan_upgrade_required`. */
  | { readonly kind: 'plan' }
  | { readonly kind: 'no_such_group' }
  | { readonly kind: 'rate_limited'; readonly retryAfterSeconds: number }
  | { readonly kind: 'unreadable' };

export async function approverGroupMembers(client: WebClient, group: string): Promise<GroupMembers> {
  try {
    const answer = await client.usergroups.users.list({ usergroup: group });
    return { kind: 'members', users: answer.users ?? [] };
  } catch (error) {
    const retryAfterSeconds = rateLimitedFor(error);
    if (retryAfterSeconds !== undefined) return { kind: 'rate_limited', retryAfterSeconds };
    const slackError = slackErrorOf(error);
    if (slackError === 'plan_upgrade_required') return { kind: 'plan' };
    if (slackError === 'no_such_subteam') return { kind: 'no_such_group' };
    return { kind: 'unreadable' };
  }
}

const NO_GROUPS_ON_PLAN = "This workspace's Slack plan has no user groups, so the bot cannot read who is in";

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

export interface ExecutionDeps extends RunnerDeps {
  readonly slack: WebClient;
  readonly outcomeChecks?: OutcomeCheckSettings | undefined;
}

/**
 * Runs an approved request once: whoever loses `claimExecution` does nothing. The card, thread
 * and audit always end with what is known: done, refused by the API, or in doubt until the
 * target has been read back (and then done or unknown).
 */
export async function executeApproval(deps: ExecutionDeps, job: ApprovalJob): Promise<void> {
  let claim: Awaited<ReturnType<Store['approvals']['claimExecution']>>;
  try {
    claim = await deps.store.approvals.claimExecution(job.team, job.approvalId);
  } catch (error) {
    if (error instanceof StoreError && error.code !== 'malformed_item') {
      deps.logger.error('approval job dropped', { approvalId: job.approvalId, error });
      return;
    }
    // The claim was spent on a request whose input cannot be read: it was closed as not run.
    deps.logger.error('approved request could not be read', { approvalId: job.approvalId, error });
    const closed = await deps.store.approvals.get(job.team, job.approvalId);
    if (closed)
      await announceOutcome(
        deps,
        closed,
        ':heavy_multiplication_x: It could not be started; nothing was run.',
      );
    return;
  }
  if (!claim.claimed) return;
  const { approval, input } = claim;
  const op = findOperation(approval.operationId);
  if (!op) {
    await closeAs(
      deps,
      approval,
      'not_run',
      `The operation ${approval.operationId} no longer exists; nothing was run.`,
    );
    return;
  }
  const changed = await targetChangedSincePreview(deps, approval, op, input);
  if (changed) {
    await closeAs(deps, approval, 'not_run', changed);
    return;
  }
  const request = {
    team: approval.team,
    user: approval.requester,
    channel: approval.channel,
    op,
    input,
    options: {},
    approvalId: approval.id,
  };
  let attempt: ChangeAttempt;
  try {
    attempt = await attemptChange(deps, request);
  } catch (error) {
    if (error instanceof ApiError) {
      await closeAs(deps, approval, 'failed', refusalDetail(error, op, input, job.correlationId));
    } else {
      // Thrown before the API call (the token could not be read, storage failed): nothing was sent.
      deps.logger.error('approved operation not started', { approvalId: approval.id, error });
      const detail = renderError(error, {
        operationId: op.id,
        referenceId: job.correlationId.slice(0, 8),
        beforeAnyChange: true,
      }).text;
      const suffix = isStorageUnavailable(error) ? '' : ' Nothing was sent to the API.';
      await closeAs(deps, approval, 'not_run', `${detail}${suffix}`);
    }
    return;
  }
  if (attempt.kind === 'answered') {
    await closeAs(deps, approval, 'executed', attempt.reply.text);
    // A restore takes a while: a channel message follows the resource until it settles.
    if (watchPlanFor(op, input, attempt.output)) {
      // The reply names the ids and who ran it; the line names the target and who approved.
      const message = {
        text: attempt.reply.text,
        blocks: [...attempt.reply.blocks, contextBlock(approvedRunLine(approval))],
      };
      await startStatusWatch(deps, {
        team: approval.team,
        user: approval.requester,
        channel: approval.channel,
        op,
        input,
        result: attempt.output,
        message,
      }).catch((error: unknown) =>
        deps.logger.warn('status watch not started', { approvalId: approval.id, error }),
      );
    }
    return;
  }
  await settleApprovalInDoubt(deps, approval, op, input, attempt);
}

/**
 * Why the target no longer matches what the approvers saw, or undefined when it still does (or
 * cannot be read: then the API call itself will tell).
 */
async function targetChangedSincePreview(
  deps: ExecutionDeps,
  approval: Approval,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
): Promise<string | undefined> {
  if (approval.fingerprint === null) return undefined;
  const token = await resolveToken(deps.store, approval.team, approval.requester, op);
  if (!token.ok) return undefined;
  const now = await currentFingerprint(createApiClient(deps.api, token.token), op, input).catch(() => null);
  if (now === null || now === 'not_found' || now === approval.fingerprint) return undefined;
  const fields = changedFields(approval.fingerprint, now);
  const which = fields.length > 0 ? ` (${escapeMrkdwn(fields.join(', '))} changed)` : '';
  return `The target changed after the approvers saw it${which}, so nothing was run. Ask again to see what it is now.`;
}

/** The API's own words for a refusal, so the card says why and not only that. */
function refusalDetail(
  error: ApiError,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  correlationId: string,
): string {
  const summary = renderError(error, {
    operationId: op.id,
    referenceId: correlationId.slice(0, 8),
    input,
  }).text;
  const reasons =
    error.errors.length > 0 ? ` The API said: ${escapeMrkdwn(describeFieldErrors(error.errors))}` : '';
  return `${summary}${reasons}`;
}

async function settleApprovalInDoubt(
  deps: ExecutionDeps,
  approval: Approval,
  op: AnyOperation,
  input: Record<string, unknown>,
  attempt: Extract<ChangeAttempt, { kind: 'in_doubt' }>,
): Promise<void> {
  const settings = deps.outcomeChecks ?? DEFAULT_OUTCOME_CHECKS;
  const now = () => deps.store.now().getTime();
  // The sweep leaves it alone while this worker reads the target.
  const holdUntil = new Date(now() + settings.windowMs + settings.readTimeoutMs * 2);
  const marked = await deps.store.approvals
    .markInDoubt(approval.team, approval.id, holdUntil, `${whatWentWrong(attempt.error)}.`)
    .catch((error: unknown) => {
      deps.logger.error('in-doubt state not recorded', { approvalId: approval.id, error });
      return undefined;
    });
  const shown = marked ?? { ...approval, status: 'in_doubt' as const };
  await updateCard(deps, deps.slack, shown);
  await thread(deps, deps.slack, shown, checkingText(op, attempt.error));

  const check = await settle(settings, attempt);
  if (check === 'not_seen') {
    // Not there yet: the request may still be in flight on the API's side. The sweep goes on.
    const note =
      `${whatWentWrong(attempt.error)}. Read back for ${durationText(settings.windowMs)}: not seen yet. ` +
      `Checking again every ${durationText(settings.recheckEveryMs)} for up to ${durationText(settings.giveUpAfterMs)}.`;
    const next = new Date(deps.store.now().getTime() + settings.recheckEveryMs);
    const waiting = await deps.store.approvals.markInDoubt(approval.team, approval.id, next, note);
    if (waiting) await updateCard(deps, deps.slack, waiting);
    return;
  }
  const verdict = verdictFor(op, input, check, durationText(settings.windowMs));
  await closeAs(deps, approval, verdict.outcome, verdict.text);
}

/**
 * Writes the outcome once and tells the card, the thread and the audit. The conditional
 * `finish` makes a late second writer (a sweep racing a slow worker) a no-op.
 */
export async function closeAs(
  deps: ExecutionDeps,
  approval: Approval,
  outcome: ApprovalOutcome,
  detail: string,
): Promise<boolean> {
  if (!(await deps.store.approvals.finish(approval.team, approval.id, outcome, detail))) return false;
  const finished = (await deps.store.approvals.get(approval.team, approval.id)) ?? approval;
  const safe = defuseMarkup(detail);
  const line: Record<ApprovalOutcome, string> = {
    executed: `:white_check_mark: Done. ${safe}`,
    failed: `:x: It did not happen: ${safe}`,
    unknown: `:warning: ${safe}`,
    not_run: `:heavy_multiplication_x: ${safe}`,
  };
  await announceOutcome(deps, finished, line[outcome]);
  const result: Record<ApprovalOutcome, AuditResult> = {
    executed: 'succeeded',
    failed: 'failed',
    unknown: 'unknown',
    not_run: 'not_run',
  };
  // The approved run already wrote `succeeded`/`failed`/`in_doubt`; the outcome of a doubt and
  // the closing of a run that never started are new facts.
  if (outcome === 'unknown' || outcome === 'not_run' || finished.doubtSince !== null) {
    await deps.store.audit
      .append({
        team: approval.team,
        actor: approval.requester,
        action: approval.operationId,
        target: approval.summary,
        approvalId: approval.id,
        result: result[outcome],
        detail: detail.slice(0, 500),
      })
      .catch((error: unknown) =>
        deps.logger.error('audit entry not written', { approvalId: approval.id, error }),
      );
  }
  return true;
}

async function announceOutcome(deps: ExecutionDeps, approval: Approval, text: string): Promise<void> {
  await updateCard(deps, deps.slack, approval);
  await thread(deps, deps.slack, approval, text);
}

// ---------------------------------------------------------------------------------------------
// card, thread, audit

/** True when the card shows the request as it now stands (or there is no card). */
export async function updateCard(
  deps: { logger: RunnerDeps['logger'] },
  client: WebClient,
  approval: Approval,
): Promise<boolean> {
  if (!approval.messageTs) return true;
  const card = renderApprovalCard({ approval });
  return client.chat
    .update({ channel: approval.channel, ts: approval.messageTs, text: card.text, blocks: card.blocks })
    .then(
      () => true,
      (error: unknown) => {
        deps.logger.warn('approval card not updated', { approvalId: approval.id, error });
        return false;
      },
    );
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

export async function thread(
  deps: { logger: RunnerDeps['logger'] },
  client: WebClient,
  approval: Approval,
  text: string,
) {
  if (!approval.messageTs) return;
  await client.chat
    .postMessage({ channel: approval.channel, thread_ts: approval.messageTs, text })
    .catch((error: unknown) =>
      deps.logger.warn('approval thread not updated', { approvalId: approval.id, error }),
    );
}

export async function audit(
  deps: { store: Store; logger: RunnerDeps['logger'] },
  approval: Approval,
  actor: string,
  result: 'requested' | 'approved' | 'denied' | 'cancelled' | 'expired',
) {
  await deps.store.audit
    .append({
      team: approval.team,
      actor,
      action: approval.operationId,
      target: approval.summary,
      approvalId: approval.id,
      result,
    })
    .catch((error: unknown) =>
      deps.logger.error('audit entry not written', { approvalId: approval.id, error }),
    );
}

// ---------------------------------------------------------------------------------------------
// `/cloud approvals list|policy`

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;

export async function handleApprovalsCommand(context: BotCommandContext, parsed: BotParsed): Promise<Reply> {
  const { deps, ctx } = context;
  if (parsed.subcommand === 'list') {
    const pending = (await deps.store.approvals.listPending(ctx.team)).reverse();
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
  const policy = await deps.store.approvalPolicy.get(ctx.team);
  const changes = policyChanges(parsed.flags);
  if (Object.keys(changes).length === 0) return notice(describePolicy(policy));
  if (!(await isPolicyAdmin(context, policy))) {
    return notice(
      'Only workspace admins (or the admins named in the policy) can change the approval policy.',
    );
  }
  const next = { ...policy, ...changes };
  const groupProblem = await unusableApproverGroup(context.client, changes.approverGroup);
  if (groupProblem) return notice(groupProblem);
  // Requesters never approve their own requests (unless allowed), so a list shorter than the
  // count could never approve anything.
  if (
    next.approverGroup === null &&
    next.approverUsers.length > 0 &&
    next.approverUsers.length < next.requiredApprovals
  ) {
    return notice(
      `The policy would need ${next.requiredApprovals} approvals but names only ${next.approverUsers.length} ` +
        'approver(s). Add approvers or lower `--required`.',
    );
  }
  try {
    const saved = await deps.store.approvalPolicy.put(ctx.team, next, ctx.user);
    await deps.store.audit.append({
      team: ctx.team,
      actor: ctx.user,
      action: 'approvals.policy',
      target: 'approval policy',
      result: 'succeeded',
      detail: describePolicy(saved),
    });
    return notice(`Approval policy updated.\n${describePolicy(saved)}`);
  } catch (error) {
    return { ...renderError(error, { referenceId: ctx.correlationId.slice(0, 8) }), visibility: 'ephemeral' };
  }
}

/**
 * What the approval flags set. The parser has read each as its declared kind (`bot-command-specs.ts`):
 * people and groups as ids of Slack's shape and length (`none` as an empty list or `null`),
 * counts and minutes as whole numbers in range.
 */
export function policyChanges(flags: BotParsed['flags']): Partial<ApprovalPolicy> {
  const value: Partial<ApprovalPolicy> = {};
  const { approvers, required, expiry } = flags;
  const group = flags['approver-group'];
  const self = flags['allow-self-approval'];
  if (Array.isArray(approvers)) value.approverUsers = [...approvers];
  if (typeof group === 'string' || group === null) value.approverGroup = group;
  if (typeof required === 'number') value.requiredApprovals = required;
  if (typeof expiry === 'number') value.expiryMinutes = expiry;
  if (typeof self === 'boolean') value.allowSelfApproval = self;
  return value;
}

/**
 * Why a newly named approver group cannot serve, or undefined when it can (or none is named). A
 * group the bot cannot read would make every approval wait for members it cannot see.
 */
export async function unusableApproverGroup(
  client: WebClient,
  group: string | null | undefined,
): Promise<string | undefined> {
  if (!group) return undefined;
  const members = await approverGroupMembers(client, group);
  switch (members.kind) {
    case 'plan':
      return `${NO_GROUPS_ON_PLAN} <!subteam^${group}>, and nobody could approve through it. Name the approvers instead: \`--approvers @alice,@bob\`.`;
    case 'no_such_group':
      return `Slack knows no user group <!subteam^${group}>. Check the name, or name the approvers with \`--approvers @alice,@bob\`.`;
    case 'rate_limited':
      return `Slack asked the bot to slow down before it could check <!subteam^${group}>; nothing was changed. Try again in ${Math.ceil(members.retryAfterSeconds)} s.`;
    default:
      return undefined;
  }
}

export async function isPolicyAdmin(
  { deps, ctx, client }: BotCommandContext,
  policy: ApprovalPolicy,
): Promise<boolean> {
  if (deps.approvalAdmins.includes(ctx.user) || policy.admins.includes(ctx.user)) return true;
  // A lookup that failed (rate limited, Slack down) says nothing about the person: it is thrown and
  // answered as such, not taken for "not an admin".
  const info = await client.users.info({ user: ctx.user });
  return info.user?.is_admin === true || info.user?.is_owner === true;
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
  ].join('\n');
}
