import type { Logger } from '@aws-lambda-powertools/logger';
import type { Store } from '../store/index.js';

/**
 * A workspace's installation of the app: which org-wide installation serves a team, and what goes
 * when a workspace removes the app.
 */

/**
 * Notes that `team` is served by the org-wide installation of `enterprise`, so the worker and the
 * reporter, which know only a job's team, find its bot token. Writing it again changes nothing.
 */
export async function rememberServingOrg(
  deps: { readonly store: Store },
  request: { readonly team: string; readonly enterprise: string },
): Promise<void> {
  await deps.store.installations.rememberServedBy(request.team, request.enterprise);
}

// ---------------------------------------------------------------------------------------------
// removal

/**
 * A workspace removed the app (`app_uninstalled`) or revoked its bot token (`tokens_revoked`):
 * nothing of the team may run any more. The installation goes, report subscriptions are paused
 * (kept, so a reinstall can resume them), pending approvals end as expired, approved ones no
 * worker has started end as not run, and every linked API token of the team's users is deleted,
 * with their step-up enrollments. A request already executing is left to its worker or the sweep,
 * as after any other failure. Cards cannot be updated any more (the bot has no token there), so
 * the audit says what became of each request instead. Safe to run again: a redelivery finds
 * nothing left.
 *
 * A removal that fails part-way throws `TeamRemovalError`, which the surface answers as a failure,
 * so the removal is delivered again; every step finds by key what is left, so the retry finishes
 * the work, and it writes the audit line even when the first attempt had already done everything
 * but that.
 */

export type RemovalReason = 'app_uninstalled' | 'tokens_revoked';

export interface TeamRemovalRequest {
  readonly team: string;
  /** The org of an org-wide installation; its installation is not the team's to remove. */
  readonly enterprise: string | undefined;
  readonly reason: RemovalReason;
  /** A delivery after one that failed or was not answered in time. */
  readonly redelivered?: boolean | undefined;
  /**
   * Told once the installation's item is gone, before the rest: a surface that caches the
   * installation's credentials drops them, so nothing it runs meanwhile uses them.
   */
  readonly onInstallationRemoved?: (() => void) | undefined;
}

export interface TeamRemoval {
  /** False when there was no installation of the team left to remove. */
  readonly installationRemoved: boolean;
  readonly reportsPaused: number;
  readonly approvalsClosed: number;
  readonly linksDeleted: number;
  readonly stepUpEnrollmentsDeleted: number;
}

export interface TeamRemovalDeps {
  readonly store: Store;
  readonly logger: Logger;
}

/** The removal of a team did not finish; it has to be delivered again. */
export class TeamRemovalError extends Error {
  override readonly name = 'TeamRemovalError';
  readonly code = 'team_removal_incomplete';

  constructor(team: string, reason: RemovalReason, options: { cause: unknown }) {
    super(`The removal of team ${team} (${reason}) did not finish; it has to be delivered again.`, options);
  }
}

export function isTeamRemovalError(error: unknown): error is TeamRemovalError {
  return error instanceof TeamRemovalError;
}

/** Approvals a team may have open at once is small; this bounds one removal's reads. */
const OPEN_APPROVALS_LIMIT = 1000;

/** Removes everything of a team that may run or holds a secret; throws `TeamRemovalError` when it did not finish. */
export async function removeTeam(deps: TeamRemovalDeps, request: TeamRemovalRequest): Promise<TeamRemoval> {
  try {
    return await removeTeamItems(deps, request);
  } catch (error) {
    throw new TeamRemovalError(request.team, request.reason, { cause: error });
  }
}

async function removeTeamItems(
  { store, logger }: TeamRemovalDeps,
  { team, enterprise, reason, redelivered, onInstallationRemoved }: TeamRemovalRequest,
): Promise<TeamRemoval> {
  const installationRemoved = await store.installations.remove({
    teamId: team,
    enterpriseId: enterprise,
    isEnterpriseInstall: false,
  });
  onInstallationRemoved?.();

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
  // Step-up secrets are sealed like tokens and go with them.
  const stepUpEnrollmentsDeleted = await store.stepUp.deleteTeam(team);
  const removal: TeamRemoval = {
    installationRemoved,
    reportsPaused,
    approvalsClosed,
    linksDeleted,
    stepUpEnrollmentsDeleted,
  };
  // A redelivery comes after an attempt that failed or was not answered in time: that attempt may
  // have removed everything and still not written this line.
  if (
    installationRemoved ||
    reportsPaused ||
    approvalsClosed ||
    linksDeleted ||
    stepUpEnrollmentsDeleted ||
    redelivered
  ) {
    await store.audit.append({
      team,
      actor: 'slack',
      action: reason === 'app_uninstalled' ? 'app.uninstalled' : 'app.tokens_revoked',
      result: 'succeeded',
      detail:
        `Installation ${installationRemoved ? 'removed' : 'already gone'}; ${reportsPaused} report ` +
        `subscription(s) paused; ${approvalsClosed} unstarted approval(s) closed; ${linksDeleted} linked ` +
        `API token(s) deleted; ${stepUpEnrollmentsDeleted} step-up enrollment(s) deleted.`,
    });
  }
  logger.info('workspace removed', { team, reason, ...removal });
  return removal;
}
