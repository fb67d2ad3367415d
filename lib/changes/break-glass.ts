import { createApiClient } from '../api/client-factory.js';
import type { Approval, ApprovalPolicy, StoredChannelPolicy } from '../store/index.js';
import { auditApproval } from './audit.js';
import { effectiveApprovalPolicy } from './guardrails.js';
import type { ApprovalHandoff, ApprovalSurface, ChangeDeps, ChannelRefusal } from './ports.js';
import { type ChangeAsk, createRequest, linkCard, type TargetPreviewer } from './requests.js';

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
  | { readonly kind: 'refused'; readonly reason: 'target_not_found' | 'not_recorded' };

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
  if (!(await deps.store.channelPolicy.useBreakGlass(request.team, request.user, BREAK_GLASS_PER_HOUR))) {
    return { kind: 'refused', reason: 'hourly_limit', perHour: BREAK_GLASS_PER_HOUR };
  }
  const recorded = await recordBreakGlass(deps, request, token);
  if (recorded.kind === 'refused') return recorded;
  const { approval, policy } = recorded;
  const auditChannel = auditChannelOf(permission.channelPolicy, request.channel);
  await postBreakGlassCard(deps, surface, approval, {
    by: request.user,
    reason: request.reason,
    policy,
    auditChannel,
  });
  await deps.handoff.dispatch({
    kind: 'approval',
    correlationId: request.correlationId,
    team: request.team,
    approvalId: approval.id,
  });
  return { kind: 'running', approval, policy, auditChannel };
}

/** The request, approved by its requester's broken glass, and the audit entry naming the reason. */
async function recordBreakGlass(
  deps: BreakGlassDeps,
  request: ChangeAsk & { readonly reason: string },
  token: string | undefined,
): Promise<
  | { readonly kind: 'recorded'; readonly approval: Approval; readonly policy: ApprovalPolicy }
  | { readonly kind: 'refused'; readonly reason: 'target_not_found' | 'not_recorded' }
> {
  const target = await deps.previewTarget(createApiClient(deps.api, token), request.op, request.input);
  if (target === 'not_found') return { kind: 'refused', reason: 'target_not_found' };
  const { policy } = await effectiveApprovalPolicy(deps.store, request.team, request.channel, request.op);
  const created = await createRequest(deps, request, target, { ...policy, requiredApprovals: 1 });
  const approval = await deps.store.approvals.approveBreakGlass(
    request.team,
    created.id,
    request.user,
    request.reason,
  );
  if (!approval) return { kind: 'refused', reason: 'not_recorded' };
  await auditApproval(deps, approval, request.user, 'break_glass', request.reason);
  return { kind: 'recorded', approval, policy };
}

/** The channel's audit channel, when it is another channel than the one the glass broke in. */
function auditChannelOf(channelPolicy: StoredChannelPolicy, channel: string): string | undefined {
  return channelPolicy.auditChannel && channelPolicy.auditChannel !== channel
    ? channelPolicy.auditChannel
    : undefined;
}

async function postBreakGlassCard(
  deps: ChangeDeps,
  surface: ApprovalSurface,
  approval: Approval,
  announcement: Parameters<ApprovalSurface['announceBreakGlass']>[1],
): Promise<void> {
  const posted = await surface.postCard(approval);
  const ts = posted.kind === 'posted' ? posted.ts : undefined;
  if (ts) await linkCard(deps, approval, ts);
  await surface.announceBreakGlass({ ...approval, messageTs: ts ?? null }, announcement);
}
