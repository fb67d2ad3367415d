/**
 * The emulator's time: the one time a person sees. Every date-time the API writes (`created`,
 * `updated`, expiries), token expiry, phone codes and TOTP read it, so in the sandbox it agrees
 * with Slack's message times and with an authenticator app. Tests advance it instead of waiting.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Moves time forward; never backward. */
  advance(ms: number): void;
  /**
   * How many times faster than this clock emulated work finishes (a 20-minute database
   * provisioning in 20 s at 60): long operations can be watched to the end without a second,
   * faster clock that would put the API's times hours ahead of everything else a person sees.
   */
  readonly progressSpeed: number;
}

/** Where a frozen clock starts unless told otherwise: a Monday morning, outside every seeded maintenance window. */
export const DEFAULT_CLOCK_START = Date.parse('2025-06-02T09:00:00Z');

export interface ClockOptions {
  /** Start time (epoch ms, or a date-time string); frozen clocks only. */
  start?: number | string | Date;
  /**
   * `frozen` (the default): time moves only when advanced, so tests are deterministic.
   * `real-time`: follows the machine clock, plus whatever was advanced (the local stack).
   */
  mode?: 'frozen' | 'real-time';
  /**
   * How many times faster than the clock timed work (provisioning, capture, restores) finishes,
   * so a sandbox shows long operations finishing while someone watches. The clock itself, and so
   * every time the API writes, keeps its pace. 1 (the default): work takes its documented time.
   */
  progressSpeed?: number;
}

export function createClock(options: ClockOptions = {}): Clock {
  let offset = 0;
  const mode = options.mode ?? 'frozen';
  const start = options.start === undefined ? DEFAULT_CLOCK_START : new Date(options.start).getTime();
  if (!Number.isFinite(start)) throw new Error(`Invalid clock start: ${String(options.start)}`);
  const progressSpeed = options.progressSpeed ?? 1;
  if (!Number.isFinite(progressSpeed) || progressSpeed < 1) {
    throw new Error(`Invalid progress speed: ${String(options.progressSpeed)}`);
  }
  const base = mode === 'frozen' ? () => start : () => Date.now();
  return {
    progressSpeed,
    now: () => base() + offset,
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new Error('The clock only moves forward');
      offset += ms;
    },
  };
}

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/**
 * Formatted date-times by epoch ms. `toISOString` costs about 0.4 µs a call, and a page of 500
 * nodes formats over a thousand of them, mostly the same few seeded instants; the cache is
 * emptied when full so a long real-time session cannot grow it without bound.
 */
const API_TIMES = new Map<number, string>();
const API_TIMES_MAX = 10_000;

/** A date-time the way the API writes it: UTC, seconds precision, no zone suffix. */
export function apiTime(ms: number): string {
  const cached = API_TIMES.get(ms);
  if (cached !== undefined) return cached;
  const formatted = new Date(ms).toISOString().slice(0, 19);
  if (API_TIMES.size >= API_TIMES_MAX) API_TIMES.clear();
  API_TIMES.set(ms, formatted);
  return formatted;
}

/** Reads an API date-time (with or without a zone suffix; without one it is UTC). */
export function parseApiTime(value: string): number {
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(value);
  return Date.parse(hasZone ? value : `${value}Z`);
}
