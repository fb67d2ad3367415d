import type { ApprovalPolicy } from '../store/index.js';
import type { Caller } from './caller.js';

/** The deployment's own admins (`APPROVAL_ADMINS`), besides those the workspace and its policy name. */
export interface AdminDeps {
  readonly approvalAdmins: readonly string[];
}

/**
 * Who may change what the workspace shares (its approval policy, workspace aliases and runbooks)
 * or act on another person's run or report: the deployment's configured admins, the admins the
 * policy names, and the workspace's admins and owners (asked of the surface last, and only when
 * neither list names the caller).
 */
export async function isPolicyAdmin(
  deps: AdminDeps,
  caller: Caller,
  policy: ApprovalPolicy,
): Promise<boolean> {
  if (deps.approvalAdmins.includes(caller.user) || policy.admins.includes(caller.user)) return true;
  return caller.isWorkspaceAdmin();
}
