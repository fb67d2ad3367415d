import type { DecidedField } from '../api/decided-fields.js';
import type { ApiError } from '../api/errors.js';
import type { AnyOperation } from '../api/operation.js';
import type { Approval, ApprovalOutcome, AuditResult } from '../store/index.js';
import { auditApproval } from './audit.js';
import type { OutcomeCheckSettings, Verdict } from './outcomes.js';
import type {
  ApprovalEvent,
  ApprovalSurface,
  ChangeDeps,
  ChangeRequest,
  OperationRunner,
  RenderedAnswer,
} from './ports.js';

/** What running and settling an approved request needs besides its surface. */
export interface ExecutionDeps extends ChangeDeps {
  readonly outcomeChecks?: OutcomeCheckSettings | undefined;
}

/** Why a request closed, for the words stored with its outcome (the card shows them). */
export type ClosingReason =
  | { readonly kind: 'operation_gone'; readonly operationId: string }
  /** Empty fields: the fingerprint kept with the request could not be read. */
  | { readonly kind: 'target_changed'; readonly fields: readonly DecidedField[] }
  /** Every attempt of a delete got a server error and the target is there as the approvers saw it. */
  | {
      readonly kind: 'not_deleted';
      readonly error: ApiError;
      readonly op: AnyOperation;
      readonly input: Readonly<Record<string, unknown>>;
    }
  /** The API refused the change. */
  | {
      readonly kind: 'refused';
      readonly error: ApiError;
      readonly op: AnyOperation;
      readonly input: Readonly<Record<string, unknown>>;
      readonly correlationId: string;
    }
  /** Thrown before the API call (the token could not be read, storage failed). */
  | {
      readonly kind: 'not_started';
      readonly error: unknown;
      readonly op: AnyOperation;
      readonly correlationId: string;
      readonly storageUnavailable: boolean;
    }
  | { readonly kind: 'answered'; readonly answer: RenderedAnswer }
  | {
      readonly kind: 'verdict';
      readonly verdict: Verdict;
      readonly op: AnyOperation;
      readonly input: Readonly<Record<string, unknown>>;
    }
  /** A change the bot makes itself threw part way: some of it may have been done. */
  | { readonly kind: 'bot_operation_unfinished' }
  /** The sweep could not read the request back (its operation or input is gone). */
  | { readonly kind: 'unreadable' };

/** What running an approved request needs from the surface besides the card. */
export interface ExecutionSurface extends ApprovalSurface {
  readonly runner: OperationRunner<ChangeRequest, RenderedAnswer>;
  /** The words stored with a closed request, which its card shows. */
  closingDetail(reason: ClosingReason): string;
  /** The run's answer as the channel message that follows the target's status. */
  approvedRunMessage(approval: Approval, answer: RenderedAnswer): RenderedAnswer;
  /**
   * A change the bot makes itself whose worker stopped, read back: what it did when it is known
   * to have finished (a settings version recorded by this request), else undefined.
   */
  botOperationDone?(approval: Approval): Promise<RenderedAnswer | undefined>;
}

const AUDIT_RESULT: Record<ApprovalOutcome, AuditResult> = {
  executed: 'succeeded',
  failed: 'failed',
  unknown: 'unknown',
  not_run: 'not_run',
};

/**
 * Closes a change the bot makes itself that gave no answer (its worker stopped, or its last
 * write's answer was lost): what it recorded of itself says whether it finished; otherwise it may
 * have stopped part way, and asking again finishes it. A read-back that fails is taken as not known.
 */
export async function closeUnansweredBotChange(
  deps: ExecutionDeps,
  surface: Pick<
    ExecutionSurface,
    'closingDetail' | 'showCard' | 'tell' | 'requestChanged' | 'botOperationDone'
  >,
  approval: Approval,
): Promise<boolean> {
  const done = await surface.botOperationDone?.(approval).catch(() => undefined);
  return closeAs(
    deps,
    surface,
    approval,
    done ? 'executed' : 'unknown',
    done ? { kind: 'answered', answer: done } : { kind: 'bot_operation_unfinished' },
  );
}

/**
 * Writes the outcome once and tells the card, the thread and the audit. The conditional
 * `finish` makes a late second writer (a sweep racing a slow worker) a no-op.
 */
export async function closeAs(
  deps: ExecutionDeps,
  surface: Pick<ExecutionSurface, 'closingDetail' | 'showCard' | 'tell' | 'requestChanged'>,
  approval: Approval,
  outcome: ApprovalOutcome,
  reason: ClosingReason,
): Promise<boolean> {
  const detail = surface.closingDetail(reason);
  if (!(await deps.store.approvals.finish(approval.team, approval.id, outcome, detail))) return false;
  const finished = (await deps.store.approvals.get(approval.team, approval.id)) ?? approval;
  await announce(surface, finished, { kind: 'closed', outcome, detail });
  // The approved run already wrote `succeeded`/`failed`/`in_doubt`; the outcome of a doubt and
  // the closing of a run that never started are new facts.
  if (outcome === 'unknown' || outcome === 'not_run' || finished.doubtSince !== null) {
    await auditApproval(deps, approval, approval.requester, AUDIT_RESULT[outcome], detail.slice(0, 500));
  }
  return true;
}

/** The card as the request now stands, then the line that says why. */
export async function announce(
  surface: Pick<ExecutionSurface, 'showCard' | 'tell' | 'requestChanged'>,
  approval: Approval,
  event: ApprovalEvent,
): Promise<void> {
  await surface.showCard(approval);
  await surface.tell(approval, event);
  await surface.requestChanged(approval.team, approval.id);
}
