import { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { rateLimitedFor } from '../../../lib/slack-kit/slack-refusals.js';

/** The Web API client's own error classes, as it throws them. */
function platformError(error: string, responseMetadata?: Record<string, unknown>) {
  return new WebAPIPlatformError({
    ok: false,
    error,
    ...(responseMetadata && { response_metadata: responseMetadata }),
  });
}

describe('rateLimitedFor', () => {
  it("reads the seconds of the client's rate-limit error (a 429 with a Retry-After it could parse)", () => {
    expect(rateLimitedFor(new WebAPIRateLimitedError(30))).toBe(30);
  });

  it('waits at least a second when the rate-limit error says zero, a fraction, or a garbage wait', () => {
    expect(rateLimitedFor(new WebAPIRateLimitedError(0))).toBe(1);
    expect(rateLimitedFor(new WebAPIRateLimitedError(2.5))).toBe(3);
    expect(rateLimitedFor(new WebAPIRateLimitedError(-4))).toBe(1);
    expect(rateLimitedFor(new WebAPIRateLimitedError(Number.NaN))).toBe(1);
    expect(rateLimitedFor(new WebAPIRateLimitedError(Number.POSITIVE_INFINITY))).toBe(1);
    expect(rateLimitedFor(Object.assign(new Error('x'), { code: 'slack_webapi_rate_limited_error' }))).toBe(
      1,
    );
    expect(
      rateLimitedFor(
        Object.assign(new Error('x'), { code: 'slack_webapi_rate_limited_error', retryAfter: '30' }),
      ),
    ).toBe(1);
  });

  it('reads a refusal `ratelimited`, with the wait the answer carried or a second', () => {
    expect(rateLimitedFor(platformError('ratelimited'))).toBe(1);
    expect(rateLimitedFor(platformError('ratelimited', { retryAfter: 12 }))).toBe(12);
    expect(rateLimitedFor(platformError('ratelimited', { retryAfter: 'soon' }))).toBe(1);
  });

  it('reads an HTTP 429 with its Retry-After seconds', () => {
    const error = new WebAPIHTTPError(429, 'Too Many Requests', { 'retry-after': '7' }, '');
    expect(rateLimitedFor(error)).toBe(7);
  });

  it('waits a second on an HTTP 429 whose Retry-After is missing or not a number of seconds', () => {
    expect(rateLimitedFor(new WebAPIHTTPError(429, 'Too Many Requests', {}, ''))).toBe(1);
    expect(
      rateLimitedFor(new WebAPIHTTPError(429, 'Too Many Requests', { 'retry-after': 'later' }, '')),
    ).toBe(1);
    expect(rateLimitedFor(new WebAPIHTTPError(429, 'Too Many Requests', { 'retry-after': '-3' }, ''))).toBe(
      1,
    );
    expect(
      rateLimitedFor(Object.assign(new Error('x'), { code: 'slack_webapi_http_error', statusCode: 429 })),
    ).toBe(1);
  });

  it('says nothing of other errors', () => {
    expect(rateLimitedFor(platformError('channel_not_found'))).toBeUndefined();
    expect(
      rateLimitedFor(new WebAPIHTTPError(503, 'Service Unavailable', { 'retry-after': '7' }, '')),
    ).toBeUndefined();
    expect(rateLimitedFor(new Error('ratelimited'))).toBeUndefined();
    expect(rateLimitedFor({ code: 'slack_webapi_platform_error' })).toBeUndefined();
    expect(rateLimitedFor(undefined)).toBeUndefined();
    expect(rateLimitedFor(null)).toBeUndefined();
    expect(rateLimitedFor('slack_webapi_rate_limited_error')).toBeUndefined();
  });
});
