import { randomUUID } from 'node:crypto';
import type { ApprovalRepository } from '../store/approvals.js';
import type { Approval, ReadAhead, VoteMethod, VoteView } from '../store/index.js';

/**
 * The N-of-M rule of an approval request, vote by vote: which votes may count, when an approval
 * completes the request, and what a vote that raced another comes to. The store only reads the
 * request and writes a vote on the state it was read in (`readForVote`, `writeVote`); the rules
 * are here, so every surface's votes obey the same ones.
 */

export type VoteOutcome =
  /** The vote counted; more approvals are needed. */
  | 'recorded'
  /** This vote completed the approvals: the caller goes on to `claimExecution`. */
  | 'approved'
  /** This vote denied the request. */
  | 'denied'
  /** Another decision won the race between reading and writing. */
  | 'lost'
  | 'expired'
  /** The request was no longer pending when this vote arrived. */
  | 'already_decided'
  /** This user has already voted. */
  | 'duplicate_vote'
  /** The requester's own break-glass, waiting for their proof: it takes no votes. */
  | 'awaiting_requester'
  | 'not_found';

export type VoteResult =
  | { readonly outcome: 'not_found' }
  | { readonly outcome: Exclude<VoteOutcome, 'not_found'>; readonly approval: Approval };

export interface Ballot {
  readonly team: string;
  readonly approvalId: string;
  readonly user: string;
  readonly decision: 'approve' | 'deny';
  readonly method?: VoteMethod | undefined;
  /** The request as the click read it ahead: the first attempt is conditioned on it. */
  readonly read?: ReadAhead | undefined;
}

export interface VoteDeps {
  readonly approvals: Pick<ApprovalRepository, 'readForVote' | 'writeVote' | 'get'>;
  readonly now: () => Date;
}

/**
 * A vote that lost a race to another vote reads the request again and tries again. Each such loss
 * means one more vote landed, so a vote needs at most `required + 1` attempts; policies ask for
 * at most 10 approvals.
 */
const MAX_VOTE_ATTEMPTS = 12;

/**
 * One approver's Approve or Deny. It counts only on a request still pending, before its deadline,
 * that this person has not voted on and that waits for votes (a break-glass waiting for its
 * requester's proof does not); an approval that brings the count to the required number approves
 * the request. When another vote lands between the read and the write, the vote is counted again
 * on the request as it is then.
 */
export async function castVote(deps: VoteDeps, ballot: Ballot): Promise<VoteResult> {
  const { team, approvalId, user, decision } = ballot;
  for (let attempt = 0; attempt < MAX_VOTE_ATTEMPTS; attempt++) {
    const seen = await deps.approvals.readForVote(team, approvalId, attempt === 0 ? ballot.read : undefined);
    if (seen === undefined) return { outcome: 'not_found' };
    const refusal = refusalOf(seen, user, 'already_decided');
    if (refusal) return { outcome: refusal, approval: seen.approval };
    if (seen.approval.awaitingRequester) return { outcome: 'awaiting_requester', approval: seen.approval };

    const completes = seen.voteCount + 1 >= seen.approval.requiredApprovals;
    const vote = { decision, user, method: ballot.method ?? 'none', at: deps.now(), attempt: randomUUID() };
    const write = await deps.approvals.writeVote(team, approvalId, vote, seen, completes);
    if (write.kind === 'written') {
      const outcome = decision === 'deny' ? 'denied' : completes ? 'approved' : 'recorded';
      return { outcome, approval: write.approval };
    }
    if (write.current === undefined) return { outcome: 'not_found' };
    // Decided by someone else between the read and the write: this vote lost that race.
    const lost = refusalOf(write.current, user, 'lost');
    if (lost) return { outcome: lost, approval: write.current.approval };
    // Another approver's vote landed in between: count again from the new state.
  }
  const latest = await deps.approvals.get(team, approvalId);
  return latest ? { outcome: 'lost', approval: latest } : { outcome: 'not_found' };
}

/** Why a vote cannot count on the request as `view` shows it; `decided` names a request no longer pending. */
function refusalOf(
  view: VoteView,
  user: string,
  decided: 'already_decided' | 'lost',
): 'already_decided' | 'lost' | 'expired' | 'duplicate_vote' | undefined {
  if (!view.pending) return decided;
  if (view.approval.status === 'expired') return 'expired';
  if (view.voters.has(user)) return 'duplicate_vote';
  return undefined;
}
