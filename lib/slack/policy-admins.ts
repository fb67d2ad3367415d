import type { ApprovalPolicy } from '../store/index.js';
import type { BotCommandContext } from './context.js';

/**
 * Who may change what the workspace shares (its approval policy, workspace aliases and runbooks)
 * or act on another person's run: the deployment's configured admins, the admins the policy
 * names, and Slack's workspace admins and owners. A module of its own so the features that ask
 * need not load the approvals module (which loads them).
 */
export async function isPolicyAdmin(
  { deps, ctx, client }: BotCommandContext,
  policy: ApprovalPolicy,
): Promise<boolean> {
  if (deps.approvalAdmins.includes(ctx.user) || policy.admins.includes(ctx.user)) return true;
  // A lookup that failed (rate limited, Slack down) says nothing about the person: it is thrown and
  // answered as such, not taken for "not an admin".
  const info = await client.users.info({ user: ctx.user });
  return info.user?.is_admin === true || info.user?.is_owner === true;
}
