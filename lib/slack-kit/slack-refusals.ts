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

/**
 * Seconds to wait when `error` says Slack rate-limited the call; undefined for any other error.
 * The one reader of Slack's "slow down", for the commands and the reporter alike: this module
 * imports nothing, so every layer that talks to Slack can use it without a cycle.
 *
 * Slack answers a call over its limit with HTTP 429, body `{"ok": false, "error": "ratelimited"}`
 * and `Retry-After` in seconds (https://docs.slack.dev/apis/web-api/rate-limits). The Web API
 * client turns that into one of three errors, depending on what it could read:
 * - `slack_webapi_rate_limited_error` with `retryAfter` seconds (calls made with
 *   `rejectRateLimitedCalls`, as the bot's are);
 * - `slack_webapi_platform_error` whose `data.error` is `ratelimited` (the refusal reached the
 *   caller as an answer; the client copies a parsed Retry-After to `response_metadata.retryAfter`);
 * - `slack_webapi_http_error` with `statusCode` 429 and the response's `headers`.
 * A wait that is missing, negative or not a number is read as one second, and a fraction as the
 * next whole second: Slack says when to come back in whole seconds, and asking again at once
 * only earns another 429.
 */
export function rateLimitedFor(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code } = error as { code?: unknown };
  if (code === 'slack_webapi_rate_limited_error') {
    return wholeSecondsOf((error as { retryAfter?: unknown }).retryAfter);
  }
  if (code === 'slack_webapi_platform_error' && slackErrorOf(error) === 'ratelimited') {
    const { data } = error as { data?: { response_metadata?: { retryAfter?: unknown } } };
    return wholeSecondsOf(data?.response_metadata?.retryAfter);
  }
  if (code === 'slack_webapi_http_error') {
    const { statusCode, headers } = error as { statusCode?: unknown; headers?: Record<string, unknown> };
    if (statusCode !== 429) return undefined;
    const header = headers?.['retry-after'];
    return wholeSecondsOf(
      typeof header === 'string' && /^\s*\d+\s*$/.test(header) ? Number(header) : undefined,
    );
  }
  return undefined;
}

const LEAST_WAIT_SECONDS = 1;

function wholeSecondsOf(seconds: unknown): number {
  return typeof seconds === 'number' && Number.isFinite(seconds)
    ? Math.max(LEAST_WAIT_SECONDS, Math.ceil(seconds))
    : LEAST_WAIT_SECONDS;
}
