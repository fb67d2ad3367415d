import { inspect } from 'node:util';
import * as z from 'zod';
import { ApiErrorBodySchema } from './operation.js';
import '../zod-settings.js';

/**
 * The one error family of the API client. Everything the client throws is an `ApiError` with a
 * stable `code`; callers switch on the code, never on messages or HTTP libraries' error classes.
 */

export const API_ERROR_CODES = [
  'invalid_request',
  'invalid_response',
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'rate_limited',
  'server_error',
  'timeout',
  'network',
  'aborted',
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** One entry of the API's `errors[]` (or of our own validation), `field` left out when not tied to one. */
export interface ApiFieldError {
  field?: string;
  reason: string;
}

/** The `X-RateLimit-*` headers of a response. */
export interface RateLimit {
  /** Requests allowed in the window. */
  limit?: number;
  /** Requests left in the window. */
  remaining?: number;
  /** When the window resets, epoch milliseconds. */
  resetAt?: number;
}

export interface ApiErrorDetails {
  status?: number | undefined;
  errors?: readonly ApiFieldError[] | undefined;
  operationId?: string | undefined;
  retryAfterMs?: number | undefined;
  rateLimit?: RateLimit | undefined;
  cause?: unknown;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: ApiErrorCode;
  readonly status: number | undefined;
  readonly errors: readonly ApiFieldError[];
  readonly operationId: string | undefined;
  /** How long the API asked us to wait before trying again (429). */
  readonly retryAfterMs: number | undefined;
  readonly rateLimit: RateLimit | undefined;

  constructor(code: ApiErrorCode, message: string, details: ApiErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.status = details.status;
    this.errors = details.errors ?? [];
    this.operationId = details.operationId;
    this.retryAfterMs = details.retryAfterMs;
    this.rateLimit = details.rateLimit;
  }

  /** What logs and JSON see: the stable fields, never the cause (it may hold request internals). */
  toJSON() {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      status: this.status,
      operationId: this.operationId,
      errors: this.errors,
      retryAfterMs: this.retryAfterMs,
      rateLimit: this.rateLimit,
    };
  }
}

export function isApiError(value: unknown, code?: ApiErrorCode): value is ApiError {
  return value instanceof ApiError && (code === undefined || value.code === code);
}

// ---------------------------------------------------------------------------------------------
// HTTP responses

export function codeForStatus(status: number): ApiErrorCode {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  return 'bad_request';
}

const MAX_REASON_SNIPPET = 200;

/**
 * Reads the API's `{errors:[{field, reason}]}` body. Proxies and load balancers answer with HTML or
 * plain text instead; then a short single-line snippet (or just the status) becomes the reason.
 */
export function parseErrorBody(status: number, bodyText: string): ApiFieldError[] {
  const trimmed = bodyText.trim();
  if (trimmed !== '') {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch {
      json = undefined;
    }
    const parsed = ApiErrorBodySchema.safeParse(json);
    if (parsed.success && parsed.data.errors.length > 0) {
      // The API writes `"null"` (or leaves the field out) for errors not tied to a field.
      return parsed.data.errors.map(({ field, reason }) =>
        field && field !== 'null' ? { field, reason } : { reason },
      );
    }
    const looksLikeText = json === undefined && !trimmed.startsWith('<') && !trimmed.includes('\n');
    if (looksLikeText && trimmed.length <= MAX_REASON_SNIPPET) return [{ reason: trimmed }];
  }
  return [{ reason: `the API answered HTTP ${status}` }];
}

export function describeFieldErrors(errors: readonly ApiFieldError[]): string {
  return errors.map((e) => (e.field ? `${e.field}: ${e.reason}` : e.reason)).join('; ');
}

export interface ResponseErrorInput {
  status: number;
  bodyText: string;
  operationId: string;
  retryAfterMs?: number | undefined;
  rateLimit?: RateLimit | undefined;
}

/** The error for a non-2xx response. */
export function errorFromResponse(input: ResponseErrorInput): ApiError {
  const errors = parseErrorBody(input.status, input.bodyText);
  return new ApiError(
    codeForStatus(input.status),
    `${input.operationId}: ${describeFieldErrors(errors)} (HTTP ${input.status})`,
    {
      status: input.status,
      errors,
      operationId: input.operationId,
      retryAfterMs: input.retryAfterMs,
      rateLimit: input.rateLimit,
    },
  );
}

// ---------------------------------------------------------------------------------------------
// zod issues

function pathOf(issue: z.core.$ZodIssue): string {
  return issue.path.map(String).join('.');
}

/** Request-side issues, in the words of the operation's own field builders. */
export function fieldErrorsFromIssues(issues: readonly z.core.$ZodIssue[]): ApiFieldError[] {
  return issues.flatMap((issue): ApiFieldError[] => {
    const path = pathOf(issue);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: path ? `${path}.${key}` : key,
        reason: 'is not a known field',
      }));
    }
    return [path ? { field: path, reason: issue.message } : { reason: issue.message }];
  });
}

export function invalidRequestError(
  operationId: string | undefined,
  errors: readonly ApiFieldError[],
  cause?: unknown,
): ApiError {
  const subject = operationId ? `Invalid request for ${operationId}` : 'Invalid request';
  return new ApiError('invalid_request', `${subject}: ${describeFieldErrors(errors)}`, {
    errors,
    operationId,
    cause,
  });
}

const MAX_LISTED_ISSUES = 3;

/** Response-side issues: what the API sent that does not match the published shape. */
export function invalidResponseError(operationId: string, issues: readonly z.core.$ZodIssue[]): ApiError {
  const errors = issues.map((issue): ApiFieldError => {
    const reason = issue.code === 'invalid_type' ? `expected ${issue.expected}` : issue.message;
    const path = pathOf(issue);
    return path ? { field: path, reason } : { reason };
  });
  const listed = errors
    .slice(0, MAX_LISTED_ISSUES)
    .map((e) => (e.field ? `response field ${e.field}: ${e.reason}` : `response: ${e.reason}`));
  const more = errors.length > MAX_LISTED_ISSUES ? ` (and ${errors.length - MAX_LISTED_ISSUES} more)` : '';
  return new ApiError('invalid_response', `${operationId}: ${listed.join('; ')}${more}`, {
    errors,
    operationId,
  });
}

// ---------------------------------------------------------------------------------------------
// Anything thrown

/**
 * Error codes that mean the API could not be reached or the connection broke: Node's sockets,
 * `http-exchange.ts` (no connection in time) and undici (a dispatcher a caller passes, such as
 * its `MockAgent`).
 */
const NETWORK_ERROR_CODES = new Set([
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);
/** undici's own timeouts once connected: the API did not answer in time. */
const TIMEOUT_ERROR_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** The `code` properties along an error's cause chain (fetch wraps socket errors in a TypeError). */
export function errorCodesOf(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

function nameOf(error: unknown): string | undefined {
  return error instanceof Error || (typeof error === 'object' && error !== null && 'name' in error)
    ? String((error as { name: unknown }).name)
    : undefined;
}

export interface ErrorContext {
  operationId?: string | undefined;
  /** Values to blank out of any text the error carries (the caller's token). */
  secrets?: readonly string[] | undefined;
}

/** Turns anything thrown into an `ApiError`, with secrets removed from its texts. */
export function toApiError(error: unknown, context: ErrorContext = {}): ApiError {
  return withoutSecrets(classify(error, context.operationId), context.secrets ?? []);
}

function classify(error: unknown, operationId: string | undefined): ApiError {
  if (error instanceof ApiError) {
    if (error.operationId !== undefined || operationId === undefined) return error;
    return new ApiError(error.code, `${operationId}: ${error.message}`, { ...detailsOf(error), operationId });
  }
  if (error instanceof z.ZodError) {
    return invalidRequestError(operationId, fieldErrorsFromIssues(error.issues), error);
  }
  const subject = operationId ?? 'API call';
  const name = nameOf(error);
  const codes = errorCodesOf(error);
  if (name === 'TimeoutError' || codes.some((c) => TIMEOUT_ERROR_CODES.has(c))) {
    return new ApiError('timeout', `${subject}: the API did not answer in time`, {
      operationId,
      cause: error,
    });
  }
  if (name === 'AbortError' || codes.includes('UND_ERR_ABORTED') || codes.includes('ABORT_ERR')) {
    return new ApiError('aborted', `${subject}: the request was cancelled`, { operationId, cause: error });
  }
  const networkCode = codes.find((c) => NETWORK_ERROR_CODES.has(c));
  if (networkCode) {
    return new ApiError('network', `${subject}: could not reach the API (${networkCode})`, {
      operationId,
      cause: error,
    });
  }
  // Anything else happened while sending the request or reading its answer; its own message
  // (redacted below) is the best description there is.
  const detail = error instanceof Error ? error.message : String(error);
  return new ApiError('network', `${subject}: the request failed: ${detail}`, { operationId, cause: error });
}

function detailsOf(error: ApiError): ApiErrorDetails {
  return {
    status: error.status,
    errors: error.errors,
    operationId: error.operationId,
    retryAfterMs: error.retryAfterMs,
    rateLimit: error.rateLimit,
    cause: error.cause,
  };
}

const REDACTED = '[redacted]';

function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => out.split(secret).join(REDACTED), text);
}

function mentionsSecret(value: unknown, secrets: readonly string[]): boolean {
  if (value === undefined || value === null) return false;
  // inspect() walks the whole cause chain and every own property, as a logger would.
  const text = typeof value === 'string' ? value : inspect(value, { depth: 6 });
  return secrets.some((secret) => text.includes(secret));
}

/** A stand-in for a cause that mentions a secret: its name, code and redacted message only. */
function redactedCause(cause: unknown, secrets: readonly string[]): Error {
  const message = cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : inspect(cause);
  const replacement = new Error(redact(message, secrets));
  if (cause instanceof Error) replacement.name = cause.name;
  const code = errorCodesOf(cause)[0];
  return code === undefined ? replacement : Object.assign(replacement, { code });
}

/**
 * Removes secrets from an error's message, field errors and cause. Some libraries quote request
 * headers in their messages (undici's mock dispatcher does), so this runs on every error the
 * client lets out rather than trusting each source.
 */
export function withoutSecrets(error: ApiError, secrets: readonly string[]): ApiError {
  const active = secrets.filter((s) => s.length > 0);
  if (active.length === 0) return error;
  const dirty =
    mentionsSecret(error.message, active) ||
    error.errors.some((e) => mentionsSecret(e.reason, active) || mentionsSecret(e.field, active)) ||
    mentionsSecret(error.cause, active);
  if (!dirty) return error;
  const cause = mentionsSecret(error.cause, active) ? redactedCause(error.cause, active) : error.cause;
  return new ApiError(error.code, redact(error.message, active), {
    ...detailsOf(error),
    errors: error.errors.map((e) =>
      e.field === undefined
        ? { reason: redact(e.reason, active) }
        : { field: redact(e.field, active), reason: redact(e.reason, active) },
    ),
    cause,
  });
}
