import type { App } from '@slack/bolt';
import { type RemovalReason, removeTeam } from '../../core/installations.js';
import { withoutStorageBudget } from '../../store/store-context.js';
import type { BotDeps } from '../context.js';

/**
 * Events Slack sends about the app itself: a workspace removing it or revoking its token, and a
 * person opening its Home tab.
 */
export function registerEvents(app: App, deps: BotDeps): void {
  // The Home tab is published afresh each time it is opened (the Messages tab needs nothing).
  // A redelivery publishes again, which shows the same; a 429 is left for the next open.
  app.event('app_home_opened', async ({ body, event, client }) => {
    const team = body.team_id;
    if (event.tab !== 'home' || !team) return;
    await (await import('../home.js')).publishHome(deps, client, team, event.user);
  });

  // Signed by Slack, not by a user: these only remove, and a redelivery finds nothing left to remove.
  for (const reason of ['app_uninstalled', 'tokens_revoked'] as const satisfies RemovalReason[]) {
    app.event(reason, async ({ body, event, context }) => {
      if (reason === 'tokens_revoked' && !('tokens' in event && event.tokens.bot?.length)) return;
      const team = body.team_id;
      if (!team) return;
      // A removal that does not finish throws `TeamRemovalError`: answered 200, Slack would never
      // send it again, and the rest would stay, links included.
      await withoutStorageBudget(() =>
        removeTeam(deps, {
          team,
          enterprise: body.enterprise_id ?? undefined,
          reason,
          redelivered: context.retryNum !== undefined,
          // The worker's and reporter's cache of bot tokens: a warm container must not keep the revoked one.
          onInstallationRemoved: () => deps.botTokens?.forget(team),
        }),
      );
    });
  }
}
