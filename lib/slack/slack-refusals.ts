/**
 * What the Web API client's errors say about Slack's answer, read in one place: the error code of
 * a refusal (`{ok: false, error}`), and how long a 429 asked to wait.
 */

/** Slack's `error` code when `error` is the client's refusal (`slack_webapi_platform_error`). */
export function slackErrorOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, data } = error as { code?: unknown; data?: { error?: unknown } };
  if (code !== 'slack_webapi_platform_error') return undefined;
  return typeof data?.error === 'string' ? data.error : undefined;
}

/** Seconds Slack asked to wait when `error` is the client's rate-limit error (HTTP 429). */
export function rateLimitedFor(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, retryAfter } = error as { code?: unknown; retryAfter?: unknown };
  if (code !== 'slack_webapi_rate_limited_error') return undefined;
  return typeof retryAfter === 'number' && Number.isFinite(retryAfter) ? Math.max(1, retryAfter) : 1;
}
