/**
 * How much channel history a run may read, by the kind of install the bot is.
 *
 * Since 2025-05-29 Slack limits apps distributed outside its Marketplace to one
 * `conversations.history` call a minute per workspace, 15 messages a call; internal
 * (customer-built, one workspace) apps keep Tier 3 (50+ a minute, up to 999 messages a call). The
 * bot cannot tell a Marketplace install from another, so many-workspace mode ("Add to Slack") is
 * taken as the stricter `distributed`; one-workspace mode (a bot token in the config) is `internal`.
 *
 * Reporter runs are at least a minute apart (every five minutes on AWS, every minute locally), so a
 * distributed install reads one page per workspace per run; a run that needs more leaves the alert
 * in doubt and the next run carries on from where it stopped. A call refused with a 429 anyway (a
 * `/cloud reports run` racing the schedule) is treated the same way.
 */

export type SlackInstallKind = 'internal' | 'distributed';

export const HISTORY_LIMITS = {
  distributed: { pageSize: 15, callsPerRun: 1 },
  internal: { pageSize: 200, callsPerRun: 10 },
} as const satisfies Record<SlackInstallKind, { pageSize: number; callsPerRun: number }>;

/** One run's history calls, counted per workspace. */
export class HistoryBudget {
  readonly pageSize: number;
  readonly #callsPerRun: number;
  readonly #spent = new Map<string, number>();

  constructor(readonly install: SlackInstallKind) {
    this.pageSize = HISTORY_LIMITS[install].pageSize;
    this.#callsPerRun = HISTORY_LIMITS[install].callsPerRun;
  }

  /** Spends one call of `team`'s allowance for this run; false when none is left. */
  take(team: string): boolean {
    const spent = this.#spent.get(team) ?? 0;
    if (spent >= this.#callsPerRun) return false;
    this.#spent.set(team, spent + 1);
    return true;
  }
}
