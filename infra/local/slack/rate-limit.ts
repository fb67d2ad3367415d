/**
 * Slack's posting limit for `chat.postMessage`: about one message per second per channel, with
 * short bursts allowed. Modelled as a token bucket per channel on the stand-in's clock.
 */

export interface ChannelRateLimit {
  /** Sustained messages per second per channel. */
  readonly perSecond: number;
  /** Messages a quiet channel may take at once. */
  readonly burst: number;
}

export const DEFAULT_CHANNEL_RATE_LIMIT: ChannelRateLimit = { perSecond: 1, burst: 3 };

export type RateDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

export class ChannelRateLimiter {
  private buckets = new Map<string, Bucket>();

  constructor(
    private readonly limit: ChannelRateLimit,
    private readonly now: () => number,
  ) {}

  /** Spends one post from the channel's allowance, or says how long to wait for the next one. */
  take(channel: string): RateDecision {
    const now = this.now();
    const bucket = this.buckets.get(channel) ?? { tokens: this.limit.burst, at: now };
    const refilled = Math.min(
      this.limit.burst,
      bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * this.limit.perSecond,
    );
    if (refilled >= 1) {
      this.buckets.set(channel, { tokens: refilled - 1, at: now });
      return { allowed: true };
    }
    this.buckets.set(channel, { tokens: refilled, at: now });
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((1 - refilled) / this.limit.perSecond)),
    };
  }

  reset(): void {
    this.buckets = new Map();
  }
}

/**
 * Slack's per-method limits (rule `rate-limit-tiers`): each Web API method has a tier, counted per
 * method per workspace per app, and a call over it answers HTTP 429 `ratelimited` with
 * `Retry-After`. Tier 1 allows 1+ a minute, Tier 2 20+, Tier 3 50+, Tier 4 100+; the stand-in
 * allows exactly that many a minute (a bucket of that size refilled evenly), so the bot cannot
 * lean on the "+". `chat.postMessage` is in the special tier: about one a second per channel
 * (`ChannelRateLimiter`). Source: https://api.slack.com/apis/rate-limits and the "Rate limits"
 * line of each method page.
 */

export type RateTier = 1 | 2 | 3 | 4;

export const TIER_PER_MINUTE: Readonly<Record<RateTier, number>> = { 1: 1, 2: 20, 3: 50, 4: 100 };

/**
 * The tier of each method the stand-in answers, from its method page. `conversations.history` has
 * limits of its own for distributed apps (rule `history-caps`) and is not listed here.
 */
export const METHOD_TIERS: Readonly<Record<string, RateTier>> = {
  'auth.test': 4,
  'chat.postEphemeral': 4,
  'chat.update': 3,
  'chat.delete': 3,
  'views.open': 4,
  'views.push': 4,
  'views.update': 4,
  'views.publish': 4,
  'users.info': 4,
  'usergroups.users.list': 2,
  'usergroups.list': 2,
  'users.list': 2,
  'conversations.list': 2,
  'conversations.info': 3,
  'users.conversations': 3,
  'conversations.join': 3,
  'files.getUploadURLExternal': 4,
  'files.completeUploadExternal': 4,
};

export class MethodRateLimiter {
  private buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number) {}

  /** Spends one call of `method` for `team`, or says how long to wait; methods without a tier pass. */
  take(team: string, method: string): RateDecision {
    const tier = Object.hasOwn(METHOD_TIERS, method) ? METHOD_TIERS[method] : undefined;
    if (tier === undefined) return { allowed: true };
    const perMinute = TIER_PER_MINUTE[tier];
    const key = `${team} ${method}`;
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: perMinute, at: now };
    const refilled = Math.min(perMinute, bucket.tokens + (Math.max(0, now - bucket.at) / 60_000) * perMinute);
    if (refilled >= 1) {
      this.buckets.set(key, { tokens: refilled - 1, at: now });
      return { allowed: true };
    }
    this.buckets.set(key, { tokens: refilled, at: now });
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(((1 - refilled) * 60) / perMinute)) };
  }

  reset(): void {
    this.buckets = new Map();
  }
}

/**
 * A test's switch, like the cloud emulator's faults: calls of the chosen methods answer 429 with
 * this `Retry-After` (every call, or the next `times`), whatever the tiers say.
 */
export interface InjectedRateLimit {
  readonly methods: readonly string[];
  readonly retryAfterSeconds: number;
  readonly times?: number;
}
