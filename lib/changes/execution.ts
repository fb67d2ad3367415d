import { createApiClient } from '../api/client-factory.js';
import { compareDecided, judgeUnansweredDelete } from '../api/decided-fields.js';
import { ApiError } from '../api/errors.js';
import type { AnyOperation } from '../api/operation.js';
import { findOperation } from '../api/operations/index.js';
import { isStorageUnavailable } from '../store/errors.js';
import { type Approval, StoreError } from '../store/index.js';
import { type BotOperationId, botOperationOf } from './bot-operations.js';
import {
  announce,
  type ClosingReason,
  closeAs,
  closeUnansweredBotChange,
  type ExecutionDeps,
  type ExecutionSurface,
} from './closing.js';
import {
  attemptChange,
  type ChangeAttempt,
  DEFAULT_OUTCOME_CHECKS,
  durationText,
  settle,
  verdictFor,
  whatWentWrong,
} from './outcomes.js';
import type { ApprovalRun, RenderedAnswer } from './ports.js';
import { currentFingerprint, targetKindOf } from './preview.js';
import { type StatusWatchSurface, startStatusWatch, watchPlanFor } from './status-watch.js';
import { requesterToken } from './tokens.js';

/**
 * Running an approved request, in the worker: whoever loses `claimExecution` does nothing. The
 * card, thread and audit always end with what is known: done, refused by the API, or in doubt
 * until the target has been read back (and then done or unknown).
 */

/**
 * Runs an approved change the bot makes itself, from the store and not the API, and answers what
 * it did. A throw means it may have been partly done: each is safe to run again.
 */
export type BotOperationHandlers = {
  readonly [id in BotOperationId]: (
    approval: Approval,
    input: Readonly<Record<string, unknown>>,
  ) => Promise<RenderedAnswer>;
};

export interface ApprovedRunSurface extends ExecutionSurface {
  readonly botOperations: BotOperationHandlers;
  /** The channel message that follows a long change's status. */
  readonly watches: StatusWatchSurface;
  /**
   * An approved request ran and answered: true when it was a runbook's step, whose run follows
   * it in its own thread instead of a message of its own.
   */
  approvedStepRan?(
    approval: Approval,
    input: Record<string, unknown>,
    answer: Extract<ChangeAttempt, { kind: 'answered' }>,
  ): Promise<boolean>;
  /**
   * An approved change ran against `op`'s target: what shows that target elsewhere follows it
   * (never throws; after the card and thread have the outcome).
   */
  resourceChanged?(approval: Approval, op: AnyOperation, input: Record<string, unknown>): Promise<void>;
}

type Claimed = Extract<
  Awaited<ReturnType<ExecutionDeps['store']['approvals']['claimExecution']>>,
  { claimed: true }
>;

export async function executeApproval(
  deps: ExecutionDeps,
  surface: ApprovedRunSurface,
  job: ApprovalRun,
): Promise<void> {
  const claim = await claimRun(deps, surface, job);
  if (!claim) return;
  const { approval, input } = claim;
  const botOperation = botOperationOf(approval.operationId);
  if (botOperation) {
    await runBotOperation(deps, surface, approval, botOperation, input);
    return;
  }
  const op = findOperation(approval.operationId);
  if (!op) {
    await closeAs(deps, surface, approval, 'not_run', {
      kind: 'operation_gone',
      operationId: approval.operationId,
    });
    return;
  }
  const changed = await targetChangedSincePreview(deps, approval, op, input);
  if (changed) {
    await closeAs(deps, surface, approval, 'not_run', changed);
    return;
  }
  const attempt = await runApproved(deps, surface, job, approval, op, input);
  if (!attempt) return;
  if (attempt.kind === 'answered') {
    await concludeAnswered(deps, surface, approval, op, input, attempt);
    return;
  }
  await settleApprovalInDoubt(deps, surface, approval, op, input, attempt);
}

/** Runs an approved bot change once (the claim was this worker's) and closes the request as it went. */
async function runBotOperation(
  deps: ExecutionDeps,
  surface: ApprovedRunSurface,
  approval: Approval,
  id: BotOperationId,
  input: Record<string, unknown>,
): Promise<void> {
  try {
    const answer = await surface.botOperations[id](approval, input);
    await closeAs(deps, surface, approval, 'executed', { kind: 'answered', answer });
  } catch (error) {
    deps.logger.error('approved bot change not finished', { approvalId: approval.id, error });
    await closeUnansweredBotChange(deps, surface, approval);
  }
}

/** The claim on running the request, or undefined when this worker is not to run it. */
async function claimRun(
  deps: ExecutionDeps,
  surface: ApprovedRunSurface,
  job: ApprovalRun,
): Promise<Claimed | undefined> {
  try {
    const claim = await deps.store.approvals.claimExecution(job.team, job.approvalId);
    return claim.claimed ? claim : undefined;
  } catch (error) {
    if (error instanceof StoreError && error.code !== 'malformed_item') {
      deps.logger.error('approval job dropped', { approvalId: job.approvalId, error });
      return undefined;
    }
    // The claim was spent on a request whose input cannot be read: it was closed as not run.
    deps.logger.error('approved request could not be read', { approvalId: job.approvalId, error });
    const closed = await deps.store.approvals.get(job.team, job.approvalId);
    if (closed) await announce(surface, closed, { kind: 'could_not_start' });
    return undefined;
  }
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
): Promise<ClosingReason | undefined> {
  if (approval.fingerprint === null) return undefined;
  const token = await requesterToken(deps.store, approval.team, approval.requester, op);
  if (!token.ok) return undefined;
  const now = await currentFingerprint(createApiClient(deps.api, token.token), op, input).catch(() => null);
  if (now === null || now === 'not_found' || now === approval.fingerprint) return undefined;
  const comparison = compareDecided(targetKindOf(op), approval.fingerprint, now);
  return comparison.changed ? { kind: 'target_changed', fields: comparison.fields } : undefined;
}

/**
 * Sends the change once, with the requester's token. A refusal or a failure before the call
 * closes the request here (undefined); an answer or a doubt is returned.
 */
async function runApproved(
  deps: ExecutionDeps,
  surface: ApprovedRunSurface,
  job: ApprovalRun,
  approval: Approval,
  op: AnyOperation,
  input: Record<string, unknown>,
): Promise<ChangeAttempt | undefined> {
  const request = {
    team: approval.team,
    user: approval.requester,
    channel: approval.channel,
    op,
    input,
    approvalId: approval.id,
    ...(approval.viaAgent ? { viaAgent: approval.viaAgent.name } : {}),
  };
  try {
    return await attemptChange(deps, surface.runner, request);
  } catch (error) {
    const { correlationId } = job;
    if (error instanceof ApiError) {
      await closeAs(deps, surface, approval, 'failed', { kind: 'refused', error, op, input, correlationId });
    } else {
      // Thrown before the API call (the token could not be read, storage failed): nothing was sent.
      deps.logger.error('approved operation not started', { approvalId: approval.id, error });
      const storageUnavailable = isStorageUnavailable(error);
      await closeAs(deps, surface, approval, 'not_run', {
        kind: 'not_started',
        error,
        op,
        correlationId,
        storageUnavailable,
      });
    }
    return undefined;
  }
}

/** Done: the card says so, and a long change gets a message that follows its status. */
async function concludeAnswered(
  deps: ExecutionDeps,
  surface: ApprovedRunSurface,
  approval: Approval,
  op: AnyOperation,
  input: Record<string, unknown>,
  attempt: Extract<ChangeAttempt, { kind: 'answered' }>,
): Promise<void> {
  await closeAs(deps, surface, approval, 'executed', { kind: 'answered', answer: attempt.reply });
  await surface.resourceChanged?.(approval, op, input);
  if (await surface.approvedStepRan?.(approval, input, attempt)) return;
  // A restore takes a while: a channel message follows the resource until it settles.
  if (!watchPlanFor(op, input, attempt.output)) return;
  await startStatusWatch(deps, surface.watches, {
    team: approval.team,
    user: approval.requester,
    channel: approval.channel,
    op,
    input,
    result: attempt.output,
    // The reply names the ids and who ran it; the line names the target and who approved.
    message: surface.approvedRunMessage(approval, attempt.reply),
  }).catch((error: unknown) =>
    deps.logger.warn('status watch not started', { approvalId: approval.id, error }),
  );
}

/** Says "may have happened; checking", reads the target back, then closes or leaves it to the sweep. */
async function settleApprovalInDoubt(
  deps: ExecutionDeps,
  surface: ApprovedRunSurface,
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
  await announce(surface, marked ?? { ...approval, status: 'in_doubt' as const }, {
    kind: 'checking',
    op,
    error: attempt.error,
  });

  if (await concludedByReadBack(deps, surface, approval, op, input, attempt)) return;
  const check = await settle(settings, attempt);
  if (check === 'not_seen') {
    // Not there yet: the request may still be in flight on the API's side. The sweep goes on.
    const note =
      `${whatWentWrong(attempt.error)}. Read back for ${durationText(settings.windowMs)}: not seen yet. ` +
      `Checking again every ${durationText(settings.recheckEveryMs)} for up to ${durationText(settings.giveUpAfterMs)}.`;
    const next = new Date(deps.store.now().getTime() + settings.recheckEveryMs);
    const waiting = await deps.store.approvals.markInDoubt(approval.team, approval.id, next, note);
    if (waiting) await surface.showCard(waiting);
    return;
  }
  const verdict = verdictFor(op, input, check, durationText(settings.windowMs));
  await closeAs(deps, surface, approval, verdict.outcome, { kind: 'verdict', verdict, op, input });
  if (verdict.outcome === 'executed') await surface.resourceChanged?.(approval, op, input);
}

/**
 * A delete that every attempt of got a server error is settled by one read: nothing is left
 * running that could still delete it (`judgeUnansweredDelete`). True when it was closed.
 */
async function concludedByReadBack(
  deps: ExecutionDeps,
  surface: ApprovedRunSurface,
  approval: Approval,
  op: AnyOperation,
  input: Record<string, unknown>,
  attempt: Extract<ChangeAttempt, { kind: 'in_doubt' }>,
): Promise<boolean> {
  if (op.method !== 'DELETE' || !attempt.everyAttemptAnswered) return false;
  const now = await currentFingerprint(attempt.client, op, input).catch(() => null);
  switch (judgeUnansweredDelete(targetKindOf(op), approval.fingerprint, now)) {
    case 'deleted': {
      const verdict = verdictFor(op, input, 'done', '');
      await closeAs(deps, surface, approval, verdict.outcome, { kind: 'verdict', verdict, op, input });
      await surface.resourceChanged?.(approval, op, input);
      return true;
    }
    case 'not_deleted':
      await closeAs(deps, surface, approval, 'failed', {
        kind: 'not_deleted',
        error: attempt.error,
        op,
        input,
      });
      return true;
    case 'in_doubt':
      return false;
  }
}
