import type { WebClient } from '@slack/web-api';
import type { Caller } from '../core/caller.js';
import type { BotCommandContext } from './context.js';

/**
 * The person behind a Slack request, as the core takes them. Whether they are a workspace admin or
 * owner is Slack's to say (`users.info`), asked only when a rule needs it.
 */
export function callerOf({ ctx, client }: Pick<BotCommandContext, 'ctx' | 'client'>): Caller {
  return {
    team: ctx.team,
    user: ctx.user,
    channel: ctx.channel,
    surface: 'slack',
    isWorkspaceAdmin: () => isWorkspaceAdmin(client, ctx.user),
  };
}

/** Whether Slack says `user` is an admin or owner of the workspace; a failed lookup throws. */
export async function isWorkspaceAdmin(client: WebClient, user: string): Promise<boolean> {
  const info = await client.users.info({ user });
  return info.user?.is_admin === true || info.user?.is_owner === true;
}

/**
 * Whether `user` is an admin who decides settings changes besides those the policy names: one of
 * the deployment's (`APPROVAL_ADMINS`, no lookup) or the workspace's by Slack; a failed lookup throws.
 */
export async function isDeployOrWorkspaceAdmin(
  client: WebClient,
  approvalAdmins: readonly string[] | undefined,
  user: string,
): Promise<boolean> {
  return approvalAdmins?.includes(user) === true || isWorkspaceAdmin(client, user);
}
