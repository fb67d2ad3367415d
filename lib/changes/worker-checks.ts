import type { AnyOperation } from '../api/operation.js';
import { recordChange } from './audit.js';
import {
  type ChangeAttempt,
  DEFAULT_OUTCOME_CHECKS,
  durationText,
  type OutcomeCheckSettings,
  settle,
  type Verdict,
  verdictFor,
} from './outcomes.js';
import type { ChangeDeps, ChangeRequest } from './ports.js';

/**
 * What the worker checks before it sends a handed-off operation, and how it concludes one whose
 * answer was unclear. The worker's job arrives by an asynchronous invoke, delivered at least once,
 * carrying whatever IAM let through: it is checked here, not trusted.
 */

export interface WorkerJobFacts {
  readonly team: string;
  readonly correlationId: string;
}

/**
 * Why the worker must not run `op` as a plain job, or undefined when it may: only an approval
 * record the worker reads itself may run a destructive operation.
 */
export function plainJobRefusal(
  deps: Pick<ChangeDeps, 'logger'>,
  job: WorkerJobFacts,
  op: AnyOperation,
): 'needs_approval' | undefined {
  if (!op.destructive) return undefined;
  deps.logger.error('worker job dropped: destructive operation without approval', {
    correlationId: job.correlationId,
    operationId: op.id,
  });
  return 'needs_approval';
}

/**
 * False when the same job came again: its change was sent already, perhaps with no answer, and
 * sending it twice could create two of a thing. Reads are repeated freely.
 */
export async function firstDelivery(
  deps: Pick<ChangeDeps, 'store' | 'logger'>,
  job: WorkerJobFacts,
  op: AnyOperation,
): Promise<boolean> {
  if (op.method === 'GET') return true;
  if (await deps.store.deliveries.claimOnce(`job:${job.team}:${job.correlationId}`)) return true;
  deps.logger.warn('worker job repeated: not sent again', {
    correlationId: job.correlationId,
    operationId: op.id,
  });
  return false;
}

/** Reads the target back until the change shows or the window closes, and audits what was concluded. */
export async function concludeJobInDoubt(
  deps: Pick<ChangeDeps, 'store' | 'logger'> & { readonly outcomeChecks?: OutcomeCheckSettings | undefined },
  request: Pick<ChangeRequest, 'team' | 'user' | 'op' | 'input'>,
  attempt: Extract<ChangeAttempt, { kind: 'in_doubt' }>,
  words: (verdict: Verdict) => string,
): Promise<Verdict> {
  const settings = deps.outcomeChecks ?? DEFAULT_OUTCOME_CHECKS;
  const check = await settle(settings, attempt);
  const verdict = verdictFor(request.op, request.input, check, durationText(settings.windowMs));
  await recordChange(
    deps,
    request,
    verdict.outcome === 'executed' ? 'succeeded' : 'unknown',
    words(verdict).slice(0, 500),
  );
  return verdict;
}
