import type { Logger } from '@aws-lambda-powertools/logger';
import type { Store } from '../store/index.js';
import type { BotTokens } from './web-client.js';

/**
 * A workspace removed the app (`app_uninstalled`) or revoked its bot token (`tokens_revoked`):
 * nothing of the team may run any more. The installation goes, report subscriptions are paused
 * (kept, so a reinstall can resume them), pending approvals end as expired, approved ones no
 * worker has started end as not run, and every linked API token of the team's users is deleted.
 * A request already executing is left to its worker or the sweep, as after any other failure.
 * Cards cannot be updated any more (the bot has no token there), so the audit says what became
 * of each request instead. Safe to run again: a redelivery finds nothing left.
 */

export type RemovalReason = 'app_uninstalled' | 'tokens_revoked';

export interface TeamRemoval {
  readonly installationRemoved: boolean;
  readonly reportsPaused: number;
  readonly approvalsClosed: number;
  readonly linksDeleted: number;
}

export interface RemovalDeps {
  readonly store: Store;
  readonly logger: Logger;
  readonly botTokens?: BotTokens | undefined;
}

/** Approvals a team may have open at once is small; this bounds one removal's reads. */
const OPEN_APPROVALS_LIMIT = 1000;

export async function removeTeam(
  deps: RemovalDeps,
  team: string,
  enterprise: string | undefined,
  reason: RemovalReason,
): Promise<TeamRemoval> {
  const { store } = deps;
  const installationRemoved = await store.installations.remove({
    teamId: team,
    enterpriseId: enterprise,
    isEnterpriseInstall: false,
  });
  deps.botTokens?.forget(team);

  const pauseReason =
    reason === 'app_uninstalled' ? 'The app was removed from this workspace.' : 'The bot token was revoked.';
  const subscriptions = await store.reports.list(team);
  const paused = await Promise.all(
    subscriptions.filter((sub) => !sub.paused).map((sub) => store.reports.pause(team, sub.id, pauseReason)),
  );
  const reportsPaused = paused.filter(Boolean).length;

  const open = await store.approvals.listUnstarted(team, OPEN_APPROVALS_LIMIT);
  let approvalsClosed = 0;
  for (const approval of open) {
    const closed = await store.approvals.closeOnUninstall(
      team,
      approval.id,
      `Approved, but the app was removed from the workspace (${reason}) before it started: nothing was run.`,
    );
    if (!closed) continue;
    approvalsClosed += 1;
    await store.audit.append({
      team,
      actor: approval.requester,
      action: approval.operationId,
      approvalId: approval.id,
      result: closed,
      detail:
        closed === 'expired'
          ? `Closed by ${reason}: nothing was run, and its card could not be updated.`
          : `Approved but not started when closed by ${reason}: nothing was run, and its card could not be updated.`,
    });
  }

  const linksDeleted = await store.teamUserData.deleteUserItems(team);
  const removal = { installationRemoved, reportsPaused, approvalsClosed, linksDeleted };
  if (installationRemoved || reportsPaused || approvalsClosed || linksDeleted) {
    await store.audit.append({
      team,
      actor: 'slack',
      action: reason === 'app_uninstalled' ? 'app.uninstalled' : 'app.tokens_revoked',
      result: 'succeeded',
      detail:
        `Installation ${installationRemoved ? 'removed' : 'already gone'}; ${reportsPaused} report ` +
        `subscription(s) paused; ${approvalsClosed} unstarted approval(s) closed; ${linksDeleted} linked ` +
        'API token(s) deleted.',
    });
  }
  deps.logger.info('workspace removed', { team, reason, ...removal });
  return removal;
}
