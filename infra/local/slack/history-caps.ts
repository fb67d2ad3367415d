/**
 * Rule `history-caps` (see `rules.ts`): since 2025-05-29 an app distributed outside the Slack
 * Marketplace may call `conversations.history` and `conversations.replies` once a minute per
 * workspace, and gets at most 15 messages a call (`limit` defaults to 15, larger values are cut to
 * it). Internal (customer-built, one workspace) and Marketplace apps keep Tier 3 and `limit` up to
 * 999, default 100.
 *
 * The stand-in cannot be a Marketplace app: a workspace installed through "Add to Slack" is
 * `distributed`; the stand-in's own bot token is `internal` unless the stand-in is told otherwise.
 * Tier 3 itself (50+ a minute) is not limited here: that belongs to the per-method tiers.
 */

export type InstallKind = 'internal' | 'distributed';

export const HISTORY_CAPS = {
  distributed: { defaultLimit: 15, maxLimit: 15, perMinute: 1 },
  internal: { defaultLimit: 100, maxLimit: 999, perMinute: undefined },
} as const satisfies Record<
  InstallKind,
  { defaultLimit: number; maxLimit: number; perMinute: number | undefined }
>;

const MINUTE_MS = 60_000;

export type HistoryDecision =
  | { readonly allowed: true; readonly limit: number }
  | { readonly allowed: false; readonly retryAfterSeconds: number };

export class HistoryCaps {
  /** `method team` → when the last allowed call was made. */
  private lastCall = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  /**
   * Whether a history call of `team`'s install may go ahead now, and with how many messages at
   * most; a refused call does not count.
   */
  take(
    method: string,
    team: string,
    install: InstallKind,
    requestedLimit: number | undefined,
  ): HistoryDecision {
    const caps = HISTORY_CAPS[install];
    const limit = Math.min(requestedLimit ?? caps.defaultLimit, caps.maxLimit);
    if (caps.perMinute === undefined) return { allowed: true, limit };
    const key = `${method} ${team}`;
    const now = this.now();
    const last = this.lastCall.get(key);
    const intervalMs = MINUTE_MS / caps.perMinute;
    if (last !== undefined && now - last < intervalMs) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((last + intervalMs - now) / 1000)) };
    }
    this.lastCall.set(key, now);
    return { allowed: true, limit };
  }

  reset(): void {
    this.lastCall = new Map();
  }
}
