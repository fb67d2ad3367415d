import type { AnyOperation } from '../api/operation.js';
import type { Approval, AuditResult, VoteMethod } from '../store/index.js';
import type { ChangeDeps, ChangeRequest } from './ports.js';

/**
 * The audit trail of approval requests: every step of a request (asked, approved, denied,
 * cancelled, expired, broken glass, how it ended) is one entry. A lost entry is logged, never
 * thrown: the step itself has happened, and failing it now would hide that.
 */
export async function auditApproval(
  deps: Pick<ChangeDeps, 'store' | 'logger'>,
  approval: Pick<Approval, 'team' | 'id' | 'operationId' | 'summary'> & Partial<Pick<Approval, 'viaAgent'>>,
  actor: string,
  result: AuditResult,
  detail?: string,
): Promise<void> {
  await deps.store.audit
    .append({
      team: approval.team,
      actor,
      action: approval.operationId,
      target: approval.summary,
      approvalId: approval.id,
      result,
      ...(detail !== undefined && { detail }),
      // The agent asked; everyone after it (approvers, the sweep) acts as themselves.
      ...(result === 'requested' && approval.viaAgent ? { viaAgent: approval.viaAgent.name } : {}),
    })
    .catch((error: unknown) =>
      deps.logger.error('audit entry not written', { approvalId: approval.id, error }),
    );
}

/** A change run outside an approval (or the run of an approved one): who, what, on what, how it went. */
export async function recordChange(
  deps: Pick<ChangeDeps, 'store' | 'logger'>,
  request: Pick<ChangeRequest, 'team' | 'user' | 'op' | 'input' | 'approvalId' | 'viaAgent'>,
  result: AuditResult,
  detail: string | undefined,
  /** The API's answer to a change that succeeded: a create's new id goes into the target. */
  output?: unknown,
) {
  try {
    await deps.store.audit.append({
      team: request.team,
      actor: request.user,
      action: request.op.id,
      target: targetOf(request.op, request.input, output),
      ...(request.approvalId ? { approvalId: request.approvalId } : {}),
      result,
      ...(detail ? { detail } : {}),
      ...(request.viaAgent ? { viaAgent: request.viaAgent } : {}),
    });
  } catch (error) {
    // The change itself happened (or failed) already; a lost audit line must not hide that.
    deps.logger.error('audit entry not written', { operationId: request.op.id, error });
  }
}

/**
 * "volumeId=12" style description of what an operation acted on. A create whose row says its
 * event names the created entity (`events` without `entityId`) adds the answer's id, `id=57`, so
 * the events report can tell that event as the bot's.
 */
export function targetOf(
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  output?: unknown,
): string {
  const ids = op.pathParams.map((name) => `${name}=${String(input[name])}`);
  const created = createdIdOf(op, output);
  const base = ids.length > 0 ? ids.join(' ') : op.path;
  return created === undefined ? base : `${base} id=${created}`;
}

function createdIdOf(op: AnyOperation, output: unknown): string | undefined {
  if (!op.events || 'none' in op.events || op.events.entityId !== undefined) return undefined;
  if (typeof output !== 'object' || output === null) return undefined;
  const id = (output as { id?: unknown }).id;
  // Ids are numbers, or text without spaces (`private/15`): the target is split on spaces.
  return typeof id === 'number' || (typeof id === 'string' && /^\S+$/.test(id)) ? String(id) : undefined;
}

/** How a vote was proved, in words: "with a code", "with a passkey", "without step-up". */
export function voteWords(method: VoteMethod): string {
  switch (method) {
    case 'code':
      return 'with a code';
    case 'passkey':
      return 'with a passkey';
    case 'none':
      return 'without step-up';
  }
}
