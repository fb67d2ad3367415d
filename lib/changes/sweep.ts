import { findOperation } from '../api/operations/index.js';
import type { Approval } from '../store/index.js';
import { auditApproval } from './audit.js';
import { botOperationOf } from './bot-operations.js';
import {
  announce,
  closeAs,
  closeUnansweredBotChange,
  type ExecutionDeps,
  type ExecutionSurface,
} from './closing.js';
import { checkOnce, DEFAULT_OUTCOME_CHECKS, durationText, verdictFor } from './outcomes.js';

/**
 * The way out of every waiting state of an approval request, run by the reporter on each tick:
 *
 * - pending past its deadline: written down as expired, and its card loses its buttons at once
 *   instead of at the next click;
 * - approved but never claimed by a worker (the hand-off was lost): closed as not run;
 * - executing past its lease (the worker died between the API call and writing the outcome) and
 *   in doubt: the target is read back with the requester's token; done when it shows the
 *   change, unknown when it cannot be read or still does not show it after the give-up time.
 *
 * Every transition is conditional, so a sweep racing a late worker or another sweep does each
 * step once.
 */

export interface SweepSummary {
  readonly expired: number;
  readonly notRun: number;
  /** Requests whose outcome the checks settled (done or unknown). */
  readonly settled: number;
  /** Requests still in doubt after this sweep's check. */
  readonly stillInDoubt: number;
  readonly failures: readonly { readonly approval: string; readonly reason: string }[];
}

const SWEEP_LIMIT = 100;

export async function sweepApprovals(deps: ExecutionDeps, surface: ExecutionSurface): Promise<SweepSummary> {
  const summary = {
    expired: 0,
    notRun: 0,
    settled: 0,
    stillInDoubt: 0,
    failures: [] as SweepSummary['failures'][number][],
  };
  const due = await deps.store.approvals.listDue(SWEEP_LIMIT);
  for (const { team, id } of due) {
    try {
      const approval = await deps.store.approvals.get(team, id);
      if (!approval) continue;
      // The card and thread updates go out with the approval's team's credentials.
      const result = await surface.withinTeam(team, () => sweepOne(deps, surface, approval));
      if (result) summary[result]++;
    } catch (error) {
      deps.logger.error('approval sweep failed for one request', { approvalId: id, error });
      summary.failures.push({ approval: id, reason: error instanceof Error ? error.name : 'unknown' });
    }
  }
  return summary;
}

async function sweepOne(
  deps: ExecutionDeps,
  surface: ExecutionSurface,
  approval: Approval,
): Promise<'expired' | 'notRun' | 'settled' | 'stillInDoubt' | undefined> {
  switch (approval.status) {
    case 'expired': {
      if (!(await deps.store.approvals.expire(approval.team, approval.id))) return undefined;
      const expired = (await deps.store.approvals.get(approval.team, approval.id)) ?? approval;
      await announce(surface, expired, { kind: 'expired' });
      await auditApproval(deps, expired, expired.requester, 'expired');
      return 'expired';
    }
    case 'approved': {
      const closed = await deps.store.approvals.abandonUnclaimed(
        approval.team,
        approval.id,
        'No worker picked it up after it was approved; ask again if it is still needed.',
      );
      if (!closed) return undefined;
      await closeAnnounced(deps, surface, closed);
      return 'notRun';
    }
    case 'executing':
    case 'in_doubt':
      return checkInDoubt(deps, surface, approval);
    default:
      return undefined;
  }
}

async function closeAnnounced(deps: ExecutionDeps, surface: ExecutionSurface, closed: Approval) {
  await announce(surface, closed, {
    kind: 'closed',
    outcome: 'not_run',
    detail: closed.result?.detail ?? 'Nothing was run.',
  });
  await auditApproval(deps, closed, closed.requester, 'not_run');
}

async function checkInDoubt(
  deps: ExecutionDeps,
  surface: ExecutionSurface,
  approval: Approval,
): Promise<'settled' | 'stillInDoubt' | undefined> {
  const settings = deps.outcomeChecks ?? DEFAULT_OUTCOME_CHECKS;
  const now = deps.store.now();
  const workerDied = approval.status === 'executing';
  // Taking it over doubles as this check's lease: the next one is due only after the interval.
  const held = await deps.store.approvals.markInDoubt(
    approval.team,
    approval.id,
    new Date(now.getTime() + settings.recheckEveryMs),
    workerDied
      ? 'The worker stopped before it recorded how the request ended.'
      : (approval.doubtNote ?? 'The API did not answer clearly.'),
    { takeOverExpired: true },
  );
  if (!held) return undefined;
  if (workerDied) await announce(surface, held, { kind: 'worker_stopped' });
  // A change the bot makes itself has no API target to read back.
  if (botOperationOf(held.operationId)) {
    return (await closeUnansweredBotChange(deps, surface, held)) ? 'settled' : undefined;
  }
  const op = findOperation(held.operationId);
  const input = await deps.store.approvals.readInput(held.team, held.id);
  if (!op || !input) {
    await closeAs(deps, surface, held, 'unknown', { kind: 'unreadable' });
    return 'settled';
  }
  const check = await checkOnce(
    deps,
    settings,
    { team: held.team, user: held.requester, op, input },
    held.claimedAt ?? undefined,
  );
  const waitedMs = now.getTime() - (held.doubtSince ?? now).getTime();
  if (check === 'not_seen' && waitedMs < settings.giveUpAfterMs) {
    const note =
      `${held.doubtNote ?? ''} Read back at ${now.toISOString().slice(11, 16)} UTC: not seen yet. ` +
      `Checking again every ${durationText(settings.recheckEveryMs)} for up to ${durationText(settings.giveUpAfterMs)}.`;
    const waiting = await deps.store.approvals.markInDoubt(
      held.team,
      held.id,
      new Date(now.getTime() + settings.recheckEveryMs),
      note.trim(),
    );
    if (waiting) await surface.showCard(waiting);
    return 'stillInDoubt';
  }
  const verdict = verdictFor(op, input, check, durationText(waitedMs));
  return (await closeAs(deps, surface, held, verdict.outcome, { kind: 'verdict', verdict, op, input }))
    ? 'settled'
    : undefined;
}
