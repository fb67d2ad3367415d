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
  approval: Pick<Approval, 'team' | 'id' | 'operationId' | 'summary'>,
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
    })
    .catch((error: unknown) =>
      deps.logger.error('audit entry not written', { approvalId: approval.id, error }),
    );
}

/** A change run outside an approval (or the run of an approved one): who, what, on what, how it went. */
export async function recordChange(
  deps: Pick<ChangeDeps, 'store' | 'logger'>,
  request: Pick<ChangeRequest, 'team' | 'user' | 'op' | 'input' | 'approvalId'>,
  result: AuditResult,
  detail: string | undefined,
) {
  try {
    await deps.store.audit.append({
      team: request.team,
      actor: request.user,
      action: request.op.id,
      target: targetOf(request.op, request.input),
      ...(request.approvalId ? { approvalId: request.approvalId } : {}),
      result,
      ...(detail ? { detail } : {}),
    });
  } catch (error) {
    // The change itself happened (or failed) already; a lost audit line must not hide that.
    deps.logger.error('audit entry not written', { operationId: request.op.id, error });
  }
}

/** "volumeId=12" style description of what an operation acted on. */
export function targetOf(op: AnyOperation, input: Readonly<Record<string, unknown>>): string {
  const ids = op.pathParams.map((name) => `${name}=${String(input[name])}`);
  return ids.length > 0 ? ids.join(' ') : op.path;
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
