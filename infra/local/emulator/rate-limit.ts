import type { AnyOperation } from '../../../lib/api/operation.js';

/**
 * Request limits per caller (token, or address for calls without one), in fixed windows, with
 * the `X-RateLimit-*` headers. The general limits of the published facts apply by default; the
 * dedicated per-operation limits exist but are off unless enabled, so tests are not throttled.
 */

export interface RateRule {
  limit: number;
  windowMs: number;
}

export interface RateLimitOptions {
  /** Every request of a caller. Default 800 per 2 minutes. */
  general?: RateRule | false | undefined;
  /** Each operation separately. Default 400 per minute. */
  perOperation?: RateRule | false | undefined;
  /** GETs of paginated collections. Default 200 per minute. */
  paginated?: RateRule | false | undefined;
  /**
   * Dedicated limits, keyed by operation id or by `METHOD /path`. `true` turns on the published
   * ones (node create, volume create, image list, managed stats). Default off.
   */
  dedicated?: boolean | Record<string, RateRule> | undefined;
}

export const PUBLISHED_DEDICATED_LIMITS: Readonly<Record<string, RateRule>> = {
  'POST /node/instances': { limit: 10, windowMs: 30_000 },
  'POST /volumes': { limit: 25, windowMs: 60_000 },
  'GET /images': { limit: 20, windowMs: 60_000 },
  'GET /managed/stats': { limit: 50, windowMs: 60_000 },
};

const DEFAULTS = {
  general: { limit: 800, windowMs: 120_000 },
  perOperation: { limit: 400, windowMs: 60_000 },
  paginated: { limit: 200, windowMs: 60_000 },
} as const;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch ms when the tightest window resets. */
  resetAt: number;
}

interface Window {
  start: number;
  count: number;
}

export class RateLimiter {
  #options: RateLimitOptions | false;
  readonly #windows = new Map<string, Window>();
  readonly #now: () => number;

  constructor(options: RateLimitOptions | false | undefined, now: () => number = Date.now) {
    this.#options = options ?? {};
    this.#now = now;
  }

  configure(options: RateLimitOptions | false): void {
    this.#options = options;
    this.#windows.clear();
  }

  reset(): void {
    this.#windows.clear();
  }

  #rulesFor(op: AnyOperation): { key: string; rule: RateRule }[] {
    const options = this.#options;
    if (options === false) return [];
    const rules: { key: string; rule: RateRule }[] = [];
    const general = options.general === undefined ? DEFAULTS.general : options.general;
    if (general) rules.push({ key: 'general', rule: general });
    const signature = `${op.method} ${op.path}`;
    const dedicated =
      options.dedicated === true
        ? PUBLISHED_DEDICATED_LIMITS
        : options.dedicated === false || options.dedicated === undefined
          ? {}
          : options.dedicated;
    const own = dedicated[op.id] ?? dedicated[signature];
    if (own) {
      rules.push({ key: `op:${op.id}`, rule: own });
      return rules;
    }
    const perOperation = options.perOperation === undefined ? DEFAULTS.perOperation : options.perOperation;
    if (perOperation) rules.push({ key: `op:${op.id}`, rule: perOperation });
    if (op.paginated && op.method === 'GET') {
      const paginated = options.paginated === undefined ? DEFAULTS.paginated : options.paginated;
      if (paginated) rules.push({ key: 'paginated', rule: paginated });
    }
    return rules;
  }

  /** Counts the request against every rule that applies, unless one of them is exhausted. */
  check(caller: string, op: AnyOperation): RateDecision | undefined {
    const rules = this.#rulesFor(op);
    if (rules.length === 0) return undefined;
    const now = this.#now();
    const windows = rules.map(({ key, rule }) => {
      const id = `${caller}|${key}`;
      let window = this.#windows.get(id);
      if (!window || now >= window.start + rule.windowMs) {
        window = { start: now, count: 0 };
        this.#windows.set(id, window);
      }
      return { rule, window };
    });
    const exhausted = windows.filter(({ rule, window }) => window.count >= rule.limit);
    if (exhausted.length > 0) {
      const resetAt = Math.max(...exhausted.map(({ rule, window }) => window.start + rule.windowMs));
      const tightest = exhausted[0] as (typeof exhausted)[number];
      return { allowed: false, limit: tightest.rule.limit, remaining: 0, resetAt };
    }
    for (const { window } of windows) window.count++;
    let tightest = windows[0] as (typeof windows)[number];
    for (const candidate of windows) {
      if (candidate.rule.limit - candidate.window.count < tightest.rule.limit - tightest.window.count) {
        tightest = candidate;
      }
    }
    return {
      allowed: true,
      limit: tightest.rule.limit,
      remaining: tightest.rule.limit - tightest.window.count,
      resetAt: tightest.window.start + tightest.rule.windowMs,
    };
  }
}
