import { createHmac } from 'node:crypto';

/**
 * Slack's request signature: `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{raw body}`. Bolt
 * verifies incoming requests; this is for the parts that send signed requests: the local sandbox
 * page and the tests.
 */
export function slackSignature(signingSecret: string, timestamp: number, rawBody: string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
}

export function signedHeaders(
  signingSecret: string,
  rawBody: string,
  timestamp = Math.floor(Date.now() / 1000),
) {
  return {
    'content-type': 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': slackSignature(signingSecret, timestamp, rawBody),
  };
}
