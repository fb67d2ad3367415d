import { type ApiError, errorCodesOf, type RateLimit } from './errors.js';
import type { HttpMethod } from './operation.js';

/**
 * When to try a request again and how long to wait first. The client owns the loop and the
 * deadline; this file holds the policy so it can be read (and tested) on its own.
 */

export interface BackoffPolicy {
  /** Upper bound of the first wait. */
  baseMs: number;
  /** No single wait grows beyond this. */
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 250, capMs: 4_000 };

/** PUT and DELETE are idempotent in this API: repeating them leaves the same state. */
const SAFE_TO_REPEAT: ReadonlySet<HttpMethod> = new Set(['GET', 'PUT', 'DELETE']);

/** Statuses that say "not now", after which the same request may succeed. */
const TRANSIENT_STATUSES = new Set([408, 500, 502, 503, 504]);

/**
 * Failures before a connection existed: the request cannot have reached the API, so even a POST
 * may be sent again without risk of doing its work twice.
 */
const NEVER_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  // No connection within the limit: `ConnectTimeoutError` of `http-exchange.ts`, or undici's.
  'CONNECT_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Matches the API's "resource busy" reasons (e.g. `Node busy`), which clear on their own. */
const BUSY_REASON = /\bbusy\b/i;

export function isSafeToRepeat(method: HttpMethod): boolean {
  return SAFE_TO_REPEAT.has(method);
}

export function requestNeverSent(error: ApiError): boolean {
  return error.code === 'network' && errorCodesOf(error.cause).some((code) => NEVER_SENT_CODES.has(code));
}

/**
 * Whether a failed attempt may still have been carried out: a server error, or no answer after the
 * request was sent. A 4xx is the API saying no; a connection that never opened carried nothing.
 */
export function mayHaveActed(error: ApiError): boolean {
  if (error.status !== undefined) return error.status >= 500;
  if (error.code === 'network') return !requestNeverSent(error);
  return error.code === 'timeout';
}

function saysBusy(error: ApiError): boolean {
  return error.status !== undefined && error.errors.some((e) => BUSY_REASON.test(e.reason));
}

/** Whether the failed attempt may be repeated, before looking at the deadline or the attempt count. */
export function isRetryable(method: HttpMethod, error: ApiError): boolean {
  // The API turned the request away without acting on it, whatever the method.
  if (error.status === 429) return true;
  if (requestNeverSent(error)) return true;
  if (!isSafeToRepeat(method)) return false;
  if (error.status !== undefined) return TRANSIENT_STATUSES.has(error.status) || saysBusy(error);
  // A connection reset or a broken socket after sending: harmless to repeat a GET, PUT or DELETE.
  return error.code === 'network';
}

/** Full-jitter exponential backoff: a uniform wait between 0 and min(cap, base * 2^(attempt-1)). */
export function backoffDelay(attempt: number, random: () => number, policy: BackoffPolicy = DEFAULT_BACKOFF) {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/** How long to wait before repeating a failed attempt. */
export function retryDelay(
  error: ApiError,
  attempt: number,
  random: () => number,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
): number {
  if (error.retryAfterMs !== undefined) return error.retryAfterMs;
  return backoffDelay(attempt, random, policy);
}

// ---------------------------------------------------------------------------------------------
// Headers

export type ResponseHeaders = Record<string, string | string[] | undefined>;

export function headerValue(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function numberHeader(headers: ResponseHeaders, name: string): number | undefined {
  const raw = headerValue(headers, name)?.trim();
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
}

/** `X-RateLimit-Limit/Remaining/Reset`; undefined when the response carries none of them. */
export function parseRateLimit(headers: ResponseHeaders): RateLimit | undefined {
  const limit = numberHeader(headers, 'x-ratelimit-limit');
  const remaining = numberHeader(headers, 'x-ratelimit-remaining');
  const reset = numberHeader(headers, 'x-ratelimit-reset');
  if (limit === undefined && remaining === undefined && reset === undefined) return undefined;
  return {
    ...(limit !== undefined && { limit }),
    ...(remaining !== undefined && { remaining }),
    // The reset header is UTC epoch seconds.
    ...(reset !== undefined && { resetAt: reset * 1000 }),
  };
}

/**
 * The wait a 429 asks for: `Retry-After` in seconds or as an HTTP date, else the time until
 * `X-RateLimit-Reset`. Undefined when neither says anything usable.
 */
export function retryAfterMs(headers: ResponseHeaders, now: number): number | undefined {
  const retryAfter = headerValue(headers, 'retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.ceil(Number(retryAfter) * 1000);
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const resetAt = parseRateLimit(headers)?.resetAt;
  return resetAt === undefined ? undefined : Math.max(0, resetAt - now);
}
