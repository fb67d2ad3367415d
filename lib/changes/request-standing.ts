import type { ApprovalStatus } from '../store/index.js';

/**
 * How a request stands, or how it ended, as one value computed from the stored request: every
 * surface (the card, its thread, the copies of the card, Home, the audit command, the agent's
 * `get_request`) words this value and nothing else, so none of them can tell it otherwise. A run
 * let through by break-glass is never "approved": nobody approved it.
 */

/** Who let a request run: the approvers' votes, or its requester's break-glass. */
export type LetRunBy = 'approvals' | 'break_glass';

/** Where the run of a request that was let run is: only `done` and `failed` are known endings. */
export type RunStanding =
  /** Let run, not yet picked up by a worker. */
  | 'starting'
  | 'running'
  | 'done'
  | 'failed'
  /** Sent without a clear answer: the target is being read back. */
  | 'in_doubt'
  /** The read-backs gave up: whether it happened is not known. */
  | 'unknown'
  /** Let run, but it never started: nothing was sent. */
  | 'not_run';

export type RequestStanding =
  | { readonly kind: 'waiting'; readonly approvals: number; readonly required: number }
  /** A break-glass waiting for its requester's step-up proof; nobody else votes on it. */
  | { readonly kind: 'awaiting_requester' }
  | { readonly kind: 'denied'; readonly by: string | undefined }
  | { readonly kind: 'cancelled'; readonly by: string | undefined }
  | { readonly kind: 'expired' }
  | { readonly kind: 'let_run'; readonly by: LetRunBy; readonly run: RunStanding };

/** What the standing is computed from: the stored request (`Approval`) fits as it is. */
export interface StandingSource {
  readonly status: ApprovalStatus;
  readonly breakGlass?: { readonly user: string } | null | undefined;
  readonly awaitingRequester?: boolean | undefined;
  readonly approvals: readonly unknown[];
  readonly requiredApprovals: number;
  readonly deniedBy?: { readonly user: string } | null | undefined;
  readonly cancelledBy?: { readonly user: string } | null | undefined;
}

export function standingOf(approval: StandingSource): RequestStanding {
  const by: LetRunBy = approval.breakGlass ? 'break_glass' : 'approvals';
  switch (approval.status) {
    case 'pending':
      return approval.awaitingRequester
        ? { kind: 'awaiting_requester' }
        : { kind: 'waiting', approvals: approval.approvals.length, required: approval.requiredApprovals };
    case 'denied':
      return { kind: 'denied', by: approval.deniedBy?.user };
    case 'cancelled':
      return { kind: 'cancelled', by: approval.cancelledBy?.user };
    case 'expired':
      return { kind: 'expired' };
    case 'approved':
      return { kind: 'let_run', by, run: 'starting' };
    case 'executing':
      return { kind: 'let_run', by, run: 'running' };
    case 'executed':
      return { kind: 'let_run', by, run: 'done' };
    case 'failed':
    case 'in_doubt':
    case 'unknown':
    case 'not_run':
      return { kind: 'let_run', by, run: approval.status };
  }
}
