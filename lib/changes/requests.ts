import type { ApiClient } from '../api/client.js';
import { createApiClient } from '../api/client-factory.js';
import type { AnyOperation } from '../api/operation.js';
import type { Approval, ApprovalAgent, ApprovalPolicy, ApprovalRunbookStep } from '../store/index.js';
import { auditApproval } from './audit.js';
import type { BotOperationId } from './bot-operations.js';
import { effectiveApprovalPolicy } from './guardrails.js';
import type { ApprovalSurface, ChangeDeps, ChannelRefusal } from './ports.js';
import type { TargetPreview } from './preview.js';

/**
 * Asking for a change: a request becomes an approval record and a card in the channel. The card
 * is the request: where it cannot be posted, nothing is stored, and a card whose request cannot
 * find it does not keep live buttons.
 */

export interface ChangeAsk {
  readonly team: string;
  readonly user: string;
  readonly channel: string;
  readonly op: AnyOperation;
  readonly input: Readonly<Record<string, unknown>>;
  /** Why, as the requester said it (`--reason`); a rule may require one. */
  readonly reason?: string | undefined;
  /** The alias the requester typed, when the command came from one (the card names it). */
  readonly viaAlias?: string | undefined;
  /** The agent that asked for the person, when one did (the card and the audit name it). */
  readonly viaAgent?: ApprovalAgent | undefined;
  /** The runbook run whose step asks, when one does (the card names the runbook and the step). */
  readonly viaRunbook?: ApprovalRunbookStep | undefined;
}

/** Reads the target as the approvers will see it, with the requester's token. */
export type TargetPreviewer = (
  client: ApiClient,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
) => Promise<TargetPreview | 'not_found'>;

export type RequestOutcome =
  | { readonly kind: 'requested'; readonly approval: Approval; readonly policy: ApprovalPolicy }
  /** The API says there is no such target: nothing to approve. */
  | { readonly kind: 'refused'; readonly reason: 'target_not_found' }
  /** The rule in force requires a reason and none was given: nothing was asked. */
  | { readonly kind: 'refused'; readonly reason: 'reason_required' }
  /** The card cannot go in this channel: nothing was stored. */
  | { readonly kind: 'refused'; readonly reason: 'channel_closed'; readonly refusal: ChannelRefusal }
  /**
   * The card was not posted. `discarded`: its request was taken away again; otherwise it stays
   * until it expires, unusable without its card.
   */
  | {
      readonly kind: 'card_not_posted';
      readonly approvalId: string;
      readonly discarded: boolean;
      readonly refusal: ChannelRefusal | undefined;
    }
  /** The card is up but its request could not be linked to it; it says so and nothing will run. */
  | { readonly kind: 'not_saved' };

export async function requestApproval(
  deps: ChangeDeps & { readonly previewTarget: TargetPreviewer },
  surface: ApprovalSurface,
  ask: ChangeAsk,
  token: string | undefined,
): Promise<RequestOutcome> {
  const { policy } = await effectiveApprovalPolicy(deps.store, ask.team, ask.channel, ask.op);
  if (policy.requireReason && !ask.reason) return { kind: 'refused', reason: 'reason_required' };
  const target = await deps.previewTarget(createApiClient(deps.api, token), ask.op, ask.input);
  if (target === 'not_found') return { kind: 'refused', reason: 'target_not_found' };
  const access = await surface.canPostCard(ask.channel);
  if (access.kind === 'refused')
    return { kind: 'refused', reason: 'channel_closed', refusal: access.refusal };
  // Stored before the card is posted, so a click on the card always finds its request; a card
  // that cannot be posted takes its request away again. A redelivered command never gets here
  // (its delivery was claimed), so one command makes at most one request.
  const approval = await createRequest(deps, ask, target, policy);
  return postRequest(deps, surface, approval, policy);
}

/** A change the bot makes itself (`bot-operations.ts`), asked for under the workspace's policy. */
export interface BotChangeAsk {
  readonly team: string;
  readonly user: string;
  readonly channel: string;
  readonly operationId: BotOperationId;
  readonly input: Readonly<Record<string, unknown>>;
  /** What the card names and the audit targets, without secrets. */
  readonly summary: string;
  /** What the card shows of the change, written by the surface without secrets. */
  readonly preview?: readonly string[] | undefined;
  readonly reason?: string | undefined;
}

/**
 * Asks for a change the bot makes itself as any change is asked for: one request, its card in the
 * channel, the workspace's rule (a channel's rules name API operations only).
 */
export async function requestBotChange(
  deps: ChangeDeps,
  surface: ApprovalSurface,
  ask: BotChangeAsk,
): Promise<RequestOutcome> {
  const policy = await deps.store.approvalPolicy.get(ask.team);
  if (policy.requireReason && !ask.reason) return { kind: 'refused', reason: 'reason_required' };
  const access = await surface.canPostCard(ask.channel);
  if (access.kind === 'refused')
    return { kind: 'refused', reason: 'channel_closed', refusal: access.refusal };
  const approval = await deps.store.approvals.create({
    team: ask.team,
    requester: ask.user,
    operationId: ask.operationId,
    input: ask.input,
    summary: ask.summary,
    ...(ask.preview === undefined ? {} : { preview: ask.preview }),
    reason: ask.reason,
    channel: ask.channel,
    requiredApprovals: policy.requiredApprovals,
    expiryMinutes: policy.expiryMinutes,
  });
  return postRequest(deps, surface, approval, policy);
}

/** Posts a stored request's card, audits the asking and links the two. */
async function postRequest(
  deps: ChangeDeps,
  surface: ApprovalSurface,
  approval: Approval,
  policy: ApprovalPolicy,
): Promise<RequestOutcome> {
  const ask = { user: approval.requester, channel: approval.channel, reason: approval.reason };
  const posted = await surface.postCard(approval);
  if (posted.kind === 'not_posted') {
    // Only a card the surface refused is certainly not on screen; one whose answer was lost may be.
    const discarded = posted.certain && (await discardUnposted(deps, approval));
    return { kind: 'card_not_posted', approvalId: approval.id, discarded, refusal: posted.refusal };
  }
  await auditApproval(
    deps,
    approval,
    ask.user,
    'requested',
    ask.reason ? `Reason: ${ask.reason}` : undefined,
  );
  if (posted.ts && !(await linkCard(deps, approval, posted.ts))) {
    // The card is up but its request cannot find it: the clicks would work, the card would
    // never change. Say so on the card rather than leave live buttons that lie.
    await surface.markCardUnsaved(ask.channel, posted.ts);
    return { kind: 'not_saved' };
  }
  await surface.requestChanged(approval.team, approval.id);
  return { kind: 'requested', approval, policy };
}

/** The approval record of a request, with what its card previews. */
export function createRequest(
  deps: Pick<ChangeDeps, 'store'>,
  ask: ChangeAsk,
  target: TargetPreview,
  policy: Pick<ApprovalPolicy, 'requiredApprovals' | 'expiryMinutes'>,
  options: { readonly awaitingRequester?: boolean } = {},
): Promise<Approval> {
  return deps.store.approvals.create({
    ...options,
    team: ask.team,
    requester: ask.user,
    operationId: ask.op.id,
    input: ask.input,
    summary: target.summary,
    preview: target.lines,
    fingerprint: target.fingerprint,
    reason: ask.reason,
    ...(ask.viaAlias === undefined ? {} : { viaAlias: ask.viaAlias }),
    ...(ask.viaAgent === undefined ? {} : { viaAgent: ask.viaAgent }),
    ...(ask.viaRunbook === undefined ? {} : { viaRunbook: ask.viaRunbook }),
    channel: ask.channel,
    requiredApprovals: policy.requiredApprovals,
    expiryMinutes: policy.expiryMinutes,
  });
}

function discardUnposted(deps: ChangeDeps, approval: Approval): Promise<boolean> {
  return deps.store.approvals.discardUnposted(approval.team, approval.id).catch((error: unknown) => {
    deps.logger.error('unposted approval request not removed', { approvalId: approval.id, error });
    return false;
  });
}

/** Links the request to its card; false when storage did not take it. */
export function linkCard(deps: ChangeDeps, approval: Approval, ts: string): Promise<boolean> {
  return deps.store.approvals
    .setMessage(approval.team, approval.id, approval.channel, ts)
    .catch((error: unknown) => {
      deps.logger.error('approval card not linked to its request', { approvalId: approval.id, error });
      return false;
    });
}
