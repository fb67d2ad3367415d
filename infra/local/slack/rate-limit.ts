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
