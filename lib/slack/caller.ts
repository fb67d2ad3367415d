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
    isWorkspaceAdmin: async () => {
      const info = await client.users.info({ user: ctx.user });
      return info.user?.is_admin === true || info.user?.is_owner === true;
    },
  };
}
