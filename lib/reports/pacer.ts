import { setTimeout as sleepFor } from 'node:timers/promises';
import { rateLimitedFor } from '../slack-kit/slack-refusals.js';

/**
 * Keeps the reporter within Slack's posting limits: about one message per second per channel, and
 * a bounded number of Slack calls in flight overall. Calls to one channel run one after another,
 * spaced by `minIntervalMs`; different channels run side by side. A rate-limited answer (HTTP 429
 * with Retry-After, in whichever error the Web API client raises it: see `rateLimitedFor`) holds
 * the channel for as long as Slack asked and then tries again, a few times at most.
 *
 * A call may carry the deadline of its run: the pacer does not start it (nor wait for a turn or
 * a Retry-After) past the deadline, and stops waiting for an answer at the deadline. Which of the
 * two happened matters to the caller: a call never started did nothing, one whose answer was not
 * awaited may have.
 */

/** The run's time is up: `started` says whether the call had been sent (its outcome is then unknown). */
export class RunDeadlineError extends Error {
  override readonly name = 'RunDeadlineError';
  readonly code = 'deadline_reached';

  constructor(readonly started: boolean) {
    super(started ? 'The run ended before Slack answered.' : 'The run ended before the call was sent.');
  }
}

/** Slack answered with a refusal, or the call was never sent: no message exists. */
export function certainlyNotPosted(error: unknown): boolean {
  if (error instanceof RunDeadlineError) return !error.started;
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'slack_webapi_platform_error' || rateLimitedFor(error) !== undefined;
}

export interface SendOptions {
  /** Epoch ms on the pacer's clock. */
  readonly deadline?: number;
}

export interface PacerOptions {
  /** Least time between two calls to one channel. */
  readonly minIntervalMs?: number;
  /** Slack calls in flight at once, over all channels. */
  readonly concurrency?: number;
  /** Further attempts after a rate-limited one. */
  readonly maxRetries?: number;
  /** A Retry-After longer than this is not waited out: the call fails and the report is retried next run. */
  readonly maxWaitMs?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_PACER_OPTIONS = {
  minIntervalMs: 1_000,
  concurrency: 8,
  maxRetries: 3,
  maxWaitMs: 30_000,
} as const;

export class ChannelPacer {
  readonly #minIntervalMs: number;
  readonly #concurrency: number;
  readonly #maxRetries: number;
  readonly #maxWaitMs: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  /** Earliest time of the next call per channel. */
  readonly #nextAt = new Map<string, number>();
  /** The last queued call per channel: the next one waits for it. */
  readonly #tails = new Map<string, Promise<unknown>>();
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  #rateLimited = 0;

  constructor(options: PacerOptions = {}) {
    this.#minIntervalMs = options.minIntervalMs ?? DEFAULT_PACER_OPTIONS.minIntervalMs;
    this.#concurrency = options.concurrency ?? DEFAULT_PACER_OPTIONS.concurrency;
    this.#maxRetries = options.maxRetries ?? DEFAULT_PACER_OPTIONS.maxRetries;
    this.#maxWaitMs = options.maxWaitMs ?? DEFAULT_PACER_OPTIONS.maxWaitMs;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? ((ms) => sleepFor(ms));
  }

  /** How many rate-limited answers the pacer has waited out (for the tick summary). */
  get rateLimitedCount(): number {
    return this.#rateLimited;
  }

  /** Runs `call` for `channel` when the channel's turn comes; its result or its final error is returned. */
  send<T>(channel: string, call: () => Promise<T>, options: SendOptions = {}): Promise<T> {
    const previous = this.#tails.get(channel) ?? Promise.resolve();
    const run = previous.then(
      () => this.#paced(channel, call, options.deadline),
      () => this.#paced(channel, call, options.deadline),
    );
    const tail = run.catch(() => undefined);
    this.#tails.set(channel, tail);
    void tail.then(() => {
      if (this.#tails.get(channel) === tail) this.#tails.delete(channel);
    });
    return run;
  }

  async #paced<T>(channel: string, call: () => Promise<T>, deadline: number | undefined): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const wait = (this.#nextAt.get(channel) ?? 0) - this.#now();
      if (deadline !== undefined && this.#now() + Math.max(wait, 0) >= deadline) {
        throw new RunDeadlineError(false);
      }
      if (wait > 0) await this.#sleep(wait);
      await this.#acquire();
      try {
        if (deadline !== undefined && this.#now() >= deadline) throw new RunDeadlineError(false);
        const result = await (deadline === undefined
          ? call()
          : answeredBefore(call(), deadline - this.#now()));
        this.#nextAt.set(channel, this.#now() + this.#minIntervalMs);
        return result;
      } catch (error) {
        if (error instanceof RunDeadlineError) throw error;
        const retryAfterSeconds = rateLimitedFor(error);
        if (retryAfterSeconds === undefined) {
          this.#nextAt.set(channel, this.#now() + this.#minIntervalMs);
          throw error;
        }
        const retryAfter = retryAfterSeconds * 1000;
        this.#rateLimited += 1;
        this.#nextAt.set(channel, this.#now() + Math.max(retryAfter, this.#minIntervalMs));
        if (attempt >= this.#maxRetries || retryAfter > this.#maxWaitMs) throw error;
      } finally {
        this.#release();
      }
    }
  }

  async #acquire(): Promise<void> {
    if (this.#running < this.#concurrency) {
      this.#running += 1;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    // The slot passes straight to the next waiter, so `#running` stays as it is.
    if (next) next();
    else this.#running -= 1;
  }
}

/** The call's answer, unless `ms` pass first; the call then goes on unobserved. */
async function answeredBefore<T>(call: Promise<T>, ms: number): Promise<T> {
  call.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RunDeadlineError(true)), Math.max(0, ms));
  });
  try {
    return await Promise.race([call, expired]);
  } finally {
    clearTimeout(timer);
  }
}
