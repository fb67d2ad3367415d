import { findOperation } from '../api/operations/index.js';
import type { Approval, ApprovalPolicy, ReadAhead, VoteMethod } from '../store/index.js';
import { auditApproval, voteWords } from './audit.js';
import { decidedByAdmins, subjectOf } from './bot-operations.js';
import { type BreakGlassOutcome, finishBreakGlass } from './break-glass.js';
import { effectiveApprovalPolicy } from './guardrails.js';
import type { ApprovalHandoff, ApprovalSurface, ChangeDeps, GroupMembers } from './ports.js';
import {
  askForStepUp,
  type ProofCheck,
  proveStepUp,
  type StepUpNeed,
  type StepUpProof,
  stepUpRequirement,
} from './step-up.js';
import { castVote } from './votes.js';

/**
 * A click on Approve, Deny or Cancel. Clicks move the record with conditional writes (see
 * `lib/store/approvals.ts`), so two people clicking at once each get a true answer; the card, its
 * thread and the audit follow the record.
 */

export type Decision = 'approve' | 'deny' | 'cancel';

export interface DecisionDeps extends Pick<ChangeDeps, 'store' | 'logger'> {
  readonly handoff: ApprovalHandoff;
}

export interface Click {
  readonly team: string;
  readonly user: string;
  readonly correlationId: string;
}

/** Why someone may not approve or deny a request. */
export type Ineligibility =
  | { readonly kind: 'own_request' }
  /** The request changes the clicker's own step-up methods: they never decide it. */
  | { readonly kind: 'about_them' }
  /** Only admins decide a change to the workspace's settings. */
  | { readonly kind: 'not_an_admin' }
  /** The requester's own break-glass, waiting for their proof: nobody votes on it. */
  | { readonly kind: 'awaiting_requester' }
  | { readonly kind: 'not_an_approver' }
  /** The approver group could not be read, so it cannot be told whether they are in it. */
  | {
      readonly kind: 'group_unreadable';
      readonly group: string;
      readonly members: Exclude<GroupMembers, { kind: 'members' }>;
    };

/** What came of a click; only the clicker is told a refusal (the card shows the rest). */
export type DecisionOutcome =
  | { readonly kind: 'refused'; readonly reason: 'no_such_request' }
  /** Past its deadline when clicked: it is closed as expired now (if nobody did already). */
  | { readonly kind: 'refused'; readonly reason: 'expired' }
  /** It expired between reading it and recording the vote. */
  | { readonly kind: 'refused'; readonly reason: 'expired_meanwhile' }
  | { readonly kind: 'refused'; readonly reason: 'not_requester' }
  /** Cancel of a request that is decided (`approval`) or gone (undefined). */
  | { readonly kind: 'refused'; readonly reason: 'already_closed'; readonly approval: Approval | undefined }
  | { readonly kind: 'refused'; readonly reason: 'too_late'; readonly approval: Approval }
  | { readonly kind: 'refused'; readonly reason: 'duplicate_vote' }
  | { readonly kind: 'refused'; readonly reason: 'not_eligible'; readonly why: Ineligibility }
  /** `cardShown` false: the decision counts, but the card could not show it yet. */
  | { readonly kind: 'cancelled'; readonly cardShown: boolean }
  | { readonly kind: 'denied'; readonly cardShown: boolean }
  | {
      readonly kind: 'vote_counted';
      readonly count: number;
      readonly required: number;
      readonly cardShown: boolean;
    }
  /** Approved and handed to the worker. */
  | { readonly kind: 'approved' }
  /** The rule asks for step-up: nothing counted yet; the vote waits for a proof (or why it cannot). */
  | { readonly kind: 'step_up'; readonly need: StepUpNeed };

export async function decide(
  deps: DecisionDeps,
  surface: ApprovalSurface,
  click: Click,
  approvalId: string,
  decision: Decision,
  /** The request and its policies, if they were already being read (with the click's delivery claim). */
  read?: ReadAhead,
): Promise<DecisionOutcome> {
  // A click that moved the request (or found it lapsed) changes what its people see elsewhere.
  // Told once: an approval tells it alongside handing off the run, the other outcomes after.
  let homesTold: Promise<void> | undefined;
  const tellHomes = () => {
    homesTold ??= surface.requestChanged(click.team, approvalId);
    return homesTold;
  };
  const outcome = await decideClick(deps, surface, click, approvalId, decision, tellHomes, read);
  if (outcome.kind !== 'refused' || outcome.reason === 'expired') await tellHomes();
  return outcome;
}

async function decideClick(
  deps: DecisionDeps,
  surface: ApprovalSurface,
  click: Click,
  approvalId: string,
  decision: Decision,
  tellHomes?: () => Promise<void>,
  read?: ReadAhead,
): Promise<DecisionOutcome> {
  const approval = await deps.store.approvals.get(click.team, approvalId, read);
  if (!approval) return { kind: 'refused', reason: 'no_such_request' };
  if (approval.status === 'expired') return expireOnClick(deps, surface, approval, click.user);
  if (decision === 'cancel') return cancelRequest(deps, surface, approval, click.user);
  const policy = await policyInForce(deps, approval, read);
  const why = await mayDecide(surface, policy, approval, click.user);
  if (why) return { kind: 'refused', reason: 'not_eligible', why };
  const requirement = stepUpRequirement(policy);
  if (requirement === 'none')
    return recordVote(deps, surface, click, approval, decision, 'none', tellHomes, read);
  // What a proof could not change is said now, not after the person has found their phone.
  if (approval.status !== 'pending') return { kind: 'refused', reason: 'too_late', approval };
  if (decision === 'approve' && approval.approvals.some((vote) => vote.user === click.user))
    return { kind: 'refused', reason: 'duplicate_vote' };
  const need = await askForStepUp(deps.store, {
    team: click.team,
    user: click.user,
    approval,
    decision,
    requirement,
  });
  return { kind: 'step_up', need };
}

/** What a click without step-up, or a proved one, comes to. */
export type CountedOutcome = Exclude<DecisionOutcome, { kind: 'step_up' }>;

/** What came of a proof offered for a step-up challenge. */
export type StepUpCompletion =
  /** The proof did not check out, or the challenge cannot be used: nothing counted. */
  | { readonly kind: 'not_proved'; readonly check: Exclude<ProofCheck, { kind: 'proved' }> }
  /** Proved: the vote went the way a click without step-up goes. */
  | { readonly kind: 'decided'; readonly outcome: CountedOutcome }
  | { readonly kind: 'broke_glass'; readonly outcome: Exclude<BreakGlassOutcome, { kind: 'step_up' }> };

export interface StepUpDeps extends DecisionDeps, Pick<ChangeDeps, 'api'> {}

/**
 * Completes a step-up challenge with a proof: a code from the code modal, or a passkey assertion
 * that `lib/passkeys/` has verified. The challenge is bound to `user` and used once; only then is
 * the vote recorded (or the glass broken), with the proof's method, exactly as a click without
 * step-up would record it.
 */
export async function completeStepUp(
  deps: StepUpDeps,
  surface: ApprovalSurface,
  click: Click,
  challengeId: string,
  proof: StepUpProof,
): Promise<StepUpCompletion> {
  const check = await proveStepUp(deps.store, click.team, click.user, challengeId, proof);
  if (check.kind !== 'proved') return { kind: 'not_proved', check };
  const { challenge } = check;
  if (challenge.decision === 'break_glass') {
    const outcome = await finishBreakGlass(deps, surface, click, challenge.approvalId, proof.method);
    return { kind: 'broke_glass', outcome };
  }
  const approval = await deps.store.approvals.get(click.team, challenge.approvalId);
  if (!approval) return { kind: 'decided', outcome: { kind: 'refused', reason: 'no_such_request' } };
  if (approval.status === 'expired')
    return { kind: 'decided', outcome: await expireOnClick(deps, surface, approval, click.user) };
  // The rule or the approvers may have changed while the person found their code.
  const why = await mayDecide(surface, await policyInForce(deps, approval), approval, click.user);
  if (why) return { kind: 'decided', outcome: { kind: 'refused', reason: 'not_eligible', why } };
  const outcome = await recordVote(deps, surface, click, approval, challenge.decision, proof.method);
  return { kind: 'decided', outcome };
}

/** A click on a card past its deadline closes it as expired, if nothing has closed it yet. */
async function expireOnClick(
  deps: DecisionDeps,
  surface: ApprovalSurface,
  approval: Approval,
  user: string,
): Promise<CountedOutcome> {
  if (await deps.store.approvals.expire(approval.team, approval.id)) {
    const expired = (await deps.store.approvals.get(approval.team, approval.id)) ?? approval;
    await surface.showCard(expired);
    await surface.tell(expired, { kind: 'expired' });
    await auditApproval(deps, expired, user, 'expired');
  }
  return { kind: 'refused', reason: 'expired' };
}

/** Only the requester may cancel, and only while it waits. */
async function cancelRequest(
  deps: DecisionDeps,
  surface: ApprovalSurface,
  approval: Approval,
  user: string,
): Promise<CountedOutcome> {
  const result = await deps.store.approvals.cancel(approval.team, approval.id, user);
  if (result.outcome === 'cancelled') {
    const cardShown = await surface.showCard(result.approval);
    await surface.tell(result.approval, { kind: 'cancelled', by: user });
    await auditApproval(deps, result.approval, user, 'cancelled');
    return { kind: 'cancelled', cardShown };
  }
  if (result.outcome === 'not_requester') return { kind: 'refused', reason: 'not_requester' };
  return {
    kind: 'refused',
    reason: 'already_closed',
    approval: result.outcome === 'not_found' ? undefined : approval,
  };
}

/** The rule in force where the request was made, as it stands now. */
export async function policyInForce(
  deps: Pick<DecisionDeps, 'store'>,
  approval: Approval,
  read?: ReadAhead,
): Promise<ApprovalPolicy> {
  const op = findOperation(approval.operationId);
  return op
    ? (await effectiveApprovalPolicy(deps.store, approval.team, approval.channel, op, read)).policy
    : deps.store.approvalPolicy.get(approval.team, read);
}

/** Why `user` may not decide, or undefined when they may (also what a Home asks of each request). */
export async function mayDecide(
  surface: Pick<ApprovalSurface, 'approverGroupMembers' | 'isAdmin'>,
  policy: ApprovalPolicy,
  approval: Approval,
  user: string,
): Promise<Ineligibility | undefined> {
  if (approval.awaitingRequester) return { kind: 'awaiting_requester' };
  if (user === approval.requester && !policy.allowSelfApproval) return { kind: 'own_request' };
  if (user === subjectOf(approval)) return { kind: 'about_them' };
  if (decidedByAdmins(approval) && !policy.admins.includes(user) && !(await surface.isAdmin(user))) {
    return { kind: 'not_an_admin' };
  }
  const listed = policy.approverUsers.length > 0 || policy.approverGroup !== null;
  if (!listed || policy.approverUsers.includes(user)) return undefined;
  if (policy.approverGroup) {
    const members = await surface.approverGroupMembers(policy.approverGroup);
    if (members.kind !== 'members') return { kind: 'group_unreadable', group: policy.approverGroup, members };
    if (members.users.includes(user)) return undefined;
  }
  return { kind: 'not_an_approver' };
}

/** Records an approval or a denial, and tells the card, the thread and the audit. */
async function recordVote(
  deps: DecisionDeps,
  surface: ApprovalSurface,
  click: Click,
  approval: Approval,
  decision: Exclude<Decision, 'cancel'>,
  method: VoteMethod,
  /** Tells the request's people's Homes; on an approval it goes alongside the run's hand-off. */
  tellHomes?: () => Promise<void>,
  /** The request as the click read it ahead: the vote's first attempt is conditioned on it. */
  read?: ReadAhead,
): Promise<CountedOutcome> {
  const result = await castVote(deps.store, {
    team: click.team,
    approvalId: approval.id,
    user: click.user,
    decision,
    method,
    read,
  });
  const at = deps.store.now();
  const how = voteWords(method);
  switch (result.outcome) {
    case 'not_found':
      return { kind: 'refused', reason: 'no_such_request' };
    case 'duplicate_vote':
      return { kind: 'refused', reason: 'duplicate_vote' };
    case 'awaiting_requester':
      return { kind: 'refused', reason: 'not_eligible', why: { kind: 'awaiting_requester' } };
    case 'expired':
      return { kind: 'refused', reason: 'expired_meanwhile' };
    case 'lost':
    case 'already_decided':
      return { kind: 'refused', reason: 'too_late', approval: result.approval };
    case 'denied': {
      // Card, thread and audit are independent and none of them throws: told together.
      const [cardShown] = await Promise.all([
        surface.showCard(result.approval),
        surface.tell(result.approval, { kind: 'denied', by: click.user, method, at }),
        auditApproval(deps, result.approval, click.user, 'denied', how),
      ]);
      return { kind: 'denied', cardShown };
    }
    case 'recorded': {
      const { approvals, requiredApprovals } = result.approval;
      const cardShown = await surface.showCard(result.approval);
      await surface.tell(result.approval, {
        kind: 'vote_counted',
        by: click.user,
        method,
        at,
        count: approvals.length,
        required: requiredApprovals,
      });
      await auditApproval(
        deps,
        result.approval,
        click.user,
        'approved',
        `${how}; ${approvals.length} of ${requiredApprovals}`,
      );
      return { kind: 'vote_counted', count: approvals.length, required: requiredApprovals, cardShown };
    }
    case 'approved': {
      // Together, but all before the hand-off: the worker's result must follow "running it now".
      await Promise.all([
        surface.showCard(result.approval),
        surface.tell(result.approval, { kind: 'approved', by: click.user, method, at }),
        auditApproval(deps, result.approval, click.user, 'approved', how),
      ]);
      // The Homes' refresh is a hand-off of its own, with no order to keep against the run.
      await Promise.all([
        deps.handoff.dispatch({
          kind: 'approval',
          correlationId: click.correlationId,
          team: click.team,
          approvalId: approval.id,
        }),
        tellHomes?.(),
      ]);
      return { kind: 'approved' };
    }
  }
}
