import { createApiClient } from '../api/client-factory.js';
import { findOperation } from '../api/operations/index.js';
import type { Approval, ApprovalPolicy, StoredChannelPolicy, VoteMethod } from '../store/index.js';
import { auditApproval, voteWords } from './audit.js';
import { effectiveApprovalPolicy } from './guardrails.js';
import type { ApprovalHandoff, ApprovalSurface, ChangeDeps, ChannelRefusal } from './ports.js';
import { type ChangeAsk, createRequest, linkCard, type TargetPreviewer } from './requests.js';
import { askForStepUp, type StepUpNeed, stepUpRequirement } from './step-up.js';

/**
 * `--break-glass "reason"`: a destructive (or otherwise approval-bound) operation runs at once,
 * where the channel allows it and for the people it lists. It is loud on purpose: a card in the
 * channel and in the audit channel naming the reason, the approvers told, an audit entry.
 * Execution then takes the same path as an approved request (claim, lease, outcome, sweep).
 */

/** Break-glass uses per person per hour. */
export const BREAK_GLASS_PER_HOUR = 2;

export type BreakGlassPermission =
  | { readonly kind: 'allowed'; readonly channelPolicy: StoredChannelPolicy }
  | { readonly kind: 'refused'; readonly reason: 'not_enabled' | 'not_listed' };

/** Whether `user` may break glass in `channel`: it must be enabled there, and they on its list. */
export async function breakGlassPermission(
  deps: Pick<ChangeDeps, 'store'>,
  ask: Pick<ChangeAsk, 'team' | 'user' | 'channel'>,
): Promise<BreakGlassPermission> {
  const channelPolicy = await deps.store.channelPolicy.get(ask.team, ask.channel);
  if (!channelPolicy?.breakGlass.enabled) return { kind: 'refused', reason: 'not_enabled' };
  if (!channelPolicy.breakGlass.users.includes(ask.user)) return { kind: 'refused', reason: 'not_listed' };
  return { kind: 'allowed', channelPolicy };
}

export type BreakGlassOutcome =
  /** Recorded as approved, announced, and handed to the worker. */
  | {
      readonly kind: 'running';
      readonly approval: Approval;
      readonly policy: ApprovalPolicy;
      readonly auditChannel: string | undefined;
    }
  /** Break-glass is loud or it does not happen: the channel must be able to see its card. */
  | { readonly kind: 'refused'; readonly reason: 'channel_closed'; readonly refusal: ChannelRefusal }
  | { readonly kind: 'refused'; readonly reason: 'hourly_limit'; readonly perHour: number }
  | { readonly kind: 'refused'; readonly reason: 'target_not_found' | 'not_recorded' }
  /** The channel's rule no longer lets this person break glass (checked again after a step-up). */
  | { readonly kind: 'refused'; readonly reason: 'not_enabled' | 'not_listed' }
  /**
   * The rule asks for step-up: nothing ran. With a challenge, the request waits (without a card)
   * for its proof, and `finishBreakGlass` runs it; otherwise nothing was kept.
   */
  | { readonly kind: 'step_up'; readonly need: StepUpNeed };

export interface BreakGlassDeps extends ChangeDeps {
  readonly previewTarget: TargetPreviewer;
  readonly handoff: ApprovalHandoff;
}

/** Runs `ask` at once for a person `breakGlassPermission` allowed, with their token. */
export async function breakGlass(
  deps: BreakGlassDeps,
  surface: ApprovalSurface,
  request: ChangeAsk & { readonly correlationId: string; readonly reason: string },
  permission: Extract<BreakGlassPermission, { kind: 'allowed' }>,
  token: string | undefined,
): Promise<BreakGlassOutcome> {
  const access = await surface.canPostCard(request.channel);
  if (access.kind === 'refused')
    return { kind: 'refused', reason: 'channel_closed', refusal: access.refusal };
  const { policy } = await effectiveApprovalPolicy(deps.store, request.team, request.channel, request.op);
  const requirement = stepUpRequirement(policy);
  if (requirement === 'none' && !(await useOneBreakGlass(deps, request))) {
    return { kind: 'refused', reason: 'hourly_limit', perHour: BREAK_GLASS_PER_HOUR };
  }
  const target = await deps.previewTarget(createApiClient(deps.api, token), request.op, request.input);
  if (target === 'not_found') return { kind: 'refused', reason: 'target_not_found' };
  // The reason is the request's too: a step-up's later run, the card and the audit read it there.
  const created = await createRequest(
    deps,
    request,
    target,
    { ...policy, requiredApprovals: 1 },
    // Under a step-up rule it waits for the requester's own proof; nobody else votes on it.
    { awaitingRequester: requirement !== 'none' },
  );
  if (requirement !== 'none') {
    const need = await askForStepUp(deps.store, {
      team: request.team,
      user: request.user,
      approval: created,
      decision: 'break_glass',
      requirement,
    });
    if (need.kind !== 'code' && need.kind !== 'passkey') {
      await deps.store.approvals.discardUnposted(request.team, created.id).catch(() => false);
    }
    return { kind: 'step_up', need };
  }
  return runBrokenGlass(deps, surface, created, policy, permission.channelPolicy, {
    user: request.user,
    correlationId: request.correlationId,
    method: 'none',
  });
}

/**
 * Runs a break-glass request that waited for its requester's step-up, once the proof checked
 * out: whether they may still break glass here, and the hourly limit, are asked now.
 */
export async function finishBreakGlass(
  deps: Omit<BreakGlassDeps, 'previewTarget'>,
  surface: ApprovalSurface,
  click: { readonly team: string; readonly user: string; readonly correlationId: string },
  approvalId: string,
  method: VoteMethod,
): Promise<Exclude<BreakGlassOutcome, { kind: 'step_up' }>> {
  const approval = await deps.store.approvals.get(click.team, approvalId);
  const op = approval && findOperation(approval.operationId);
  if (!approval || !op || approval.status !== 'pending' || approval.requester !== click.user) {
    return { kind: 'refused', reason: 'not_recorded' };
  }
  const ask = { team: click.team, user: click.user, channel: approval.channel };
  const permission = await breakGlassPermission(deps, ask);
  if (permission.kind === 'refused') return permission;
  if (!(await useOneBreakGlass(deps, ask))) {
    return { kind: 'refused', reason: 'hourly_limit', perHour: BREAK_GLASS_PER_HOUR };
  }
  const { policy } = await effectiveApprovalPolicy(deps.store, click.team, approval.channel, op);
  return runBrokenGlass(deps, surface, approval, policy, permission.channelPolicy, {
    user: click.user,
    correlationId: click.correlationId,
    method,
  });
}

function useOneBreakGlass(deps: Pick<ChangeDeps, 'store'>, ask: Pick<ChangeAsk, 'team' | 'user'>) {
  return deps.store.channelPolicy.useBreakGlass(ask.team, ask.user, BREAK_GLASS_PER_HOUR);
}

/** Approves the stored request by broken glass, says so loudly, and hands it to the worker. */
async function runBrokenGlass(
  deps: Omit<BreakGlassDeps, 'previewTarget'>,
  surface: ApprovalSurface,
  created: Approval,
  policy: ApprovalPolicy,
  channelPolicy: StoredChannelPolicy,
  by: { readonly user: string; readonly correlationId: string; readonly method: VoteMethod },
): Promise<Exclude<BreakGlassOutcome, { kind: 'step_up' }>> {
  const reason = created.reason ?? '';
  const approval = await deps.store.approvals.approveBreakGlass(
    created.team,
    created.id,
    by.user,
    reason,
    by.method,
  );
  if (!approval) return { kind: 'refused', reason: 'not_recorded' };
  await auditApproval(deps, approval, by.user, 'break_glass', `${reason} (${voteWords(by.method)})`);
  const auditChannel = auditChannelOf(channelPolicy, approval.channel);
  await postBreakGlassCard(deps, surface, approval, { by: by.user, reason, policy, auditChannel });
  await deps.handoff.dispatch({
    kind: 'approval',
    correlationId: by.correlationId,
    team: approval.team,
    approvalId: approval.id,
  });
  return { kind: 'running', approval, policy, auditChannel };
}

/** The channel's audit channel, when it is another channel than the one the glass broke in. */
function auditChannelOf(channelPolicy: StoredChannelPolicy, channel: string): string | undefined {
  return channelPolicy.auditChannel && channelPolicy.auditChannel !== channel
    ? channelPolicy.auditChannel
    : undefined;
}

/**
 * The card in the channel, the alarm, and the copy in the audit channel, which the request keeps
 * so that every later `showCard` (the worker's, or the sweep's after a worker died) updates it
 * with the card. A copy the request could not keep is told to stop saying how it stands.
 */
async function postBreakGlassCard(
  deps: ChangeDeps,
  surface: ApprovalSurface,
  approval: Approval,
  announcement: Parameters<ApprovalSurface['announceBreakGlass']>[1],
): Promise<void> {
  const posted = await surface.postCard(approval);
  const ts = posted.kind === 'posted' ? posted.ts : undefined;
  if (ts) await linkCard(deps, approval, ts);
  const shown = { ...approval, messageTs: ts ?? null };
  const copy = await surface.announceBreakGlass(shown, announcement);
  if (!copy) return;
  const kept = await deps.store.approvals
    .addCopy(approval.team, approval.id, copy)
    .catch((error: unknown) => {
      deps.logger.error('copy of the card not kept with its request', { approvalId: approval.id, error });
      return false;
    });
  if (!kept) await surface.copyNotFollowed(shown, copy);
}
