import { WebAPIHTTPError, WebAPIPlatformError } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { ChannelPacer } from '../../../lib/reports/pacer.js';

/** A clock that only moves when the pacer sleeps, so timings are exact and tests do not wait. */
function fakeTime() {
  let now = 0;
  return {
    now: () => now,
    sleep: async (ms: number) => {
      now += ms;
    },
  };
}

function rateLimited(retryAfterSeconds: number) {
  return Object.assign(new Error('rate limited'), {
    code: 'slack_webapi_rate_limited_error',
    retryAfter: retryAfterSeconds,
  });
}

describe('ChannelPacer', () => {
  it('spaces calls to one channel by the interval', async () => {
    const time = fakeTime();
    const pacer = new ChannelPacer({ minIntervalMs: 1000, ...time });
    const at: number[] = [];
    await Promise.all([1, 2, 3].map(() => pacer.send('C1', async () => at.push(time.now()))));
    expect(at).toEqual([0, 1000, 2000]);
  });

  it('keeps the order calls were queued in for a channel', async () => {
    const pacer = new ChannelPacer({ minIntervalMs: 1, ...fakeTime() });
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4].map((n) => pacer.send('C1', async () => order.push(n))));
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it('does not make one channel wait for another', async () => {
    const time = fakeTime();
    const pacer = new ChannelPacer({ minIntervalMs: 1000, ...time });
    const at: Record<string, number> = {};
    await Promise.all(['C1', 'C2', 'C3'].map((c) => pacer.send(c, async () => (at[c] = time.now()))));
    expect(at).toEqual({ C1: 0, C2: 0, C3: 0 });
  });

  it("waits out Slack's Retry-After and tries again", async () => {
    const time = fakeTime();
    const pacer = new ChannelPacer({ minIntervalMs: 1000, ...time });
    let attempts = 0;
    const result = await pacer.send('C1', async () => {
      attempts += 1;
      if (attempts === 1) throw rateLimited(7);
      return time.now();
    });
    expect(result).toBe(7000);
    expect(attempts).toBe(2);
    expect(pacer.rateLimitedCount).toBe(1);
  });

  it("waits out a rate limit that reached it as a refusal `ratelimited` or a bare HTTP 429, like the client's own", async () => {
    const time = fakeTime();
    const pacer = new ChannelPacer({ minIntervalMs: 1000, ...time });
    const refusals = [
      new WebAPIPlatformError({ ok: false, error: 'ratelimited', response_metadata: { retryAfter: 4 } }),
      new WebAPIHTTPError(429, 'Too Many Requests', { 'retry-after': '6' }, ''),
    ];
    const result = await pacer.send('C1', async () => {
      const refusal = refusals.shift();
      if (refusal) throw refusal;
      return time.now();
    });
    expect(result).toBe(10_000);
    expect(pacer.rateLimitedCount).toBe(2);
  });

  it('holds the whole channel during a Retry-After, not just the call that got it', async () => {
    const time = fakeTime();
    const pacer = new ChannelPacer({ minIntervalMs: 1000, ...time });
    let first = true;
    const at: number[] = [];
    await Promise.all(
      [1, 2].map(() =>
        pacer.send('C1', async () => {
          if (first) {
            first = false;
            throw rateLimited(5);
          }
          at.push(time.now());
        }),
      ),
    );
    expect(at).toEqual([5000, 6000]);
  });

  it('gives up after a few rate-limited attempts, and on waits too long to make', async () => {
    const pacer = new ChannelPacer({ maxRetries: 2, ...fakeTime() });
    let attempts = 0;
    await expect(
      pacer.send('C1', async () => {
        attempts += 1;
        throw rateLimited(1);
      }),
    ).rejects.toMatchObject({ code: 'slack_webapi_rate_limited_error' });
    expect(attempts).toBe(3);

    const patient = new ChannelPacer({ maxWaitMs: 10_000, ...fakeTime() });
    await expect(patient.send('C2', async () => Promise.reject(rateLimited(60)))).rejects.toBeDefined();
  });

  it('passes other errors through at once and goes on with the next call', async () => {
    const pacer = new ChannelPacer({ ...fakeTime() });
    let calls = 0;
    const failing = pacer.send('C1', async () => {
      calls += 1;
      throw new Error('channel_not_found');
    });
    await expect(failing).rejects.toThrow('channel_not_found');
    await expect(pacer.send('C1', async () => 'ok')).resolves.toBe('ok');
    expect(calls).toBe(1);
  });

  it('keeps at most `concurrency` calls in flight over all channels', async () => {
    const pacer = new ChannelPacer({ concurrency: 2, minIntervalMs: 0 });
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        pacer.send(`C${i}`, async () => {
          running += 1;
          most = Math.max(most, running);
          await new Promise((resolve) => setTimeout(resolve, 5));
          running -= 1;
        }),
      ),
    );
    expect(most).toBe(2);
  });
});
