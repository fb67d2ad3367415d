import { WebClient } from '@slack/web-api';

/**
 * Slack's Web API client as the functions use it: a Lambda cannot wait out the library's default
 * 30-minute retry schedule, so it retries once, briefly, and rate-limited calls fail at once for
 * the caller to decide (the reporter paces itself; see `lib/reports`).
 */
export function createSlackWebClient(botToken: string, slackApiUrl?: string): WebClient {
  return new WebClient(botToken, {
    ...(slackApiUrl ? { slackApiUrl } : {}),
    retryConfig: { retries: 1, factor: 1, minTimeout: 200, maxTimeout: 500 },
    rejectRateLimitedCalls: true,
  });
}
