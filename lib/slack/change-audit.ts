import type { Logger } from '@aws-lambda-powertools/logger';
import type { AnyOperation } from '../api/operation.js';
import type { AuditResult, Store } from '../store/index.js';

/** The audit line a change leaves: who ran which operation on what, and how it ended. */

export interface ChangeAuditDeps {
  readonly store: Store;
  readonly logger: Logger;
}

export interface AuditedChange {
  readonly team: string;
  readonly user: string;
  readonly op: AnyOperation;
  readonly input: Readonly<Record<string, unknown>>;
  /** Set when the operation ran because an approval request was approved. */
  readonly approvalId?: string | undefined;
}

export async function recordChange(
  deps: ChangeAuditDeps,
  request: AuditedChange,
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
