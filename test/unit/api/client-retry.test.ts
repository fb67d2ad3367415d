import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ApiCallEvent, ApiClient, type ApiClientOptions } from '../../../lib/api/client.js';
import { ApiError } from '../../../lib/api/errors.js';
import { volumeOperations } from '../../../lib/api/operations/volumes.js';
import { backoffDelay, retryAfterMs } from '../../../lib/api/retry.js';

const ORIGIN = 'https://api.cloud.example.com';
const TOKEN = 'tok_retry_0123456789abcdef';
function volumeOperation(action: string) {
  const op = volumeOperations.find((candidate) => candidate.action === action);
  if (!op) throw new Error(`volumes.${action} is not in the operations table`);
  return op;
}

const volumesCreate = volumeOperation('create');
const volumesView = volumeOperation('view');
const volumesUpdate = volumeOperation('update');
const volumesDelete = volumeOperation('delete');
const volumesAttach = volumeOperation('attach');

const VOLUME = { id: 12, label: 'db-data', status: 'active', size: 50, region: 'us-east' };
const BUSY = { errors: [{ reason: 'Volume busy, try again later' }] };
const SERVER_ERROR = { errors: [{ reason: 'Internal server error' }] };

let mockAgent: MockAgent;
let sleeps: number[];
let events: ApiCallEvent[];

beforeEach(() => {
  mockAgent = new MockAgent({ enableCallHistory: true });
  mockAgent.disableNetConnect();
  sleeps = [];
  events = [];
});

afterEach(async () => {
  await mockAgent.close();
});

function api() {
  return mockAgent.get(ORIGIN);
}

/** A client whose waits are recorded instead of slept, with jitter fixed at half the range. */
function client(options: ApiClientOptions = {}) {
  return new ApiClient({
    token: TOKEN,
    dispatcher: mockAgent,
    maxRetries: 3,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    onResponse: (event) => events.push(event),
    ...options,
  });
}

function requestCount() {
  return mockAgent.getCallHistory()?.calls().length ?? 0;
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

function socketError(code: string) {
  return Object.assign(new Error(`socket failure ${code}`), { code });
}

describe('429 rate limiting', () => {
  it('waits as long as Retry-After says, then retries', async () => {
    api()
      .intercept({ path: '/v4/volumes/12', method: 'GET' })
      .reply(429, { errors: [{ reason: 'Too many requests' }] }, { headers: { 'retry-after': '2' } });
    api().intercept({ path: '/v4/volumes/12', method: 'GET' }).reply(200, VOLUME);

    await expect(client().call(volumesView, { volumeId: 12 })).resolves.toEqual(VOLUME);

    expect(sleeps).toEqual([2_000]);
    expect(requestCount()).toBe(2);
  });

  it('reads Retry-After given as an HTTP date', async () => {
    const now = Date.parse('2025-03-01T10:00:00Z');
    api()
      .intercept({ path: '/v4/volumes/12', method: 'GET' })
      .reply(429, '', { headers: { 'retry-after': 'Sat, 01 Mar 2025 10:00:05 GMT' } });
    api().intercept({ path: '/v4/volumes/12', method: 'GET' }).reply(200, VOLUME);

    await client({ now: () => now }).call(volumesView, { volumeId: 12 });

    expect(sleeps).toEqual([5_000]);
  });

  it('falls back to X-RateLimit-Reset when there is no Retry-After', async () => {
    const now = 1_700_000_000_000;
    api()
      .intercept({ path: '/v4/volumes/12', method: 'GET' })
      .reply(429, '', { headers: { 'x-ratelimit-reset': String(now / 1000 + 3) } });
    api().intercept({ path: '/v4/volumes/12', method: 'GET' }).reply(200, VOLUME);

    await client({ now: () => now }).call(volumesView, { volumeId: 12 });

    expect(sleeps).toEqual([3_000]);
  });

  it('retries a POST, because the API refused it without acting', async () => {
    api()
      .intercept({ path: '/v4/volumes', method: 'POST' })
      .reply(429, '', { headers: { 'retry-after': '1' } });
    api().intercept({ path: '/v4/volumes', method: 'POST' }).reply(200, VOLUME);

    await client().call(volumesCreate, { label: 'db-data', region: 'us-east' });

    expect(requestCount()).toBe(2);
  });

  it('does not wait past the deadline: fails at once with the Retry-After on the error', async () => {
    const now = 1_000_000;
    api()
      .intercept({ path: '/v4/volumes/12', method: 'GET' })
      .reply(429, '', { headers: { 'retry-after': '60' } });

    const error = await failure(
      client({ now: () => now }).call(volumesView, { volumeId: 12 }, { deadline: now + 5_000 }),
    );

    expect(error.code).toBe('rate_limited');
    expect(error.retryAfterMs).toBe(60_000);
    expect(sleeps).toEqual([]);
    expect(requestCount()).toBe(1);
  });
});

describe('transient failures', () => {
  it('retries a GET after a 503 and returns the later success', async () => {
    api().intercept({ path: '/v4/volumes/12', method: 'GET' }).reply(503, SERVER_ERROR);
    api().intercept({ path: '/v4/volumes/12', method: 'GET' }).reply(200, VOLUME);

    await expect(client().call(volumesView, { volumeId: 12 })).resolves.toEqual(VOLUME);

    expect(requestCount()).toBe(2);
    // Full jitter with random() = 0.5 over the first window of 250 ms.
    expect(sleeps).toEqual([125]);
    expect(events.map((e) => [e.attempt, e.status, e.outcome])).toEqual([
      [1, 503, 'retry'],
      [2, 200, 'success'],
    ]);
  });

  it.each([408, 500, 502, 504])('retries an idempotent PUT after HTTP %i', async (status) => {
    api().intercept({ path: '/v4/volumes/12', method: 'PUT' }).reply(status, SERVER_ERROR);
    api().intercept({ path: '/v4/volumes/12', method: 'PUT' }).reply(200, VOLUME);

    await client().call(volumesUpdate, { volumeId: 12, label: 'db-data' });

    expect(requestCount()).toBe(2);
  });

  it('retries a DELETE when the API says the resource is busy', async () => {
    api().intercept({ path: '/v4/volumes/12', method: 'DELETE' }).reply(400, BUSY);
    api().intercept({ path: '/v4/volumes/12', method: 'DELETE' }).reply(200, {});

    await client().call(volumesDelete, { volumeId: 12 });

    expect(requestCount()).toBe(2);
  });

  it('does not retry a plain 400', async () => {
    api()
      .intercept({ path: '/v4/volumes/12', method: 'PUT' })
      .reply(400, { errors: [{ field: 'label', reason: 'Label is taken' }] });

    const error = await failure(client().call(volumesUpdate, { volumeId: 12, label: 'db-data' }));

    expect(error.code).toBe('bad_request');
    expect(requestCount()).toBe(1);
  });

  it('gives up after maxRetries further attempts with the last error', async () => {
    api().intercept({ path: '/v4/volumes/12', method: 'GET' }).reply(503, SERVER_ERROR).times(3);

    const error = await failure(client({ maxRetries: 2 }).call(volumesView, { volumeId: 12 }));

    expect(error.code).toBe('server_error');
    expect(requestCount()).toBe(3);
    expect(sleeps).toEqual([125, 250]);
  });

  it('retries a GET after a connection reset', async () => {
    api().intercept({ path: '/v4/volumes/12', method: 'GET' }).replyWithError(socketError('ECONNRESET'));
    api().intercept({ path: '/v4/volumes/12', method: 'GET' }).reply(200, VOLUME);

    await expect(client().call(volumesView, { volumeId: 12 })).resolves.toEqual(VOLUME);
  });
});

describe('POST is never sent twice once it may have reached the API', () => {
  it('does not re-send a POST after a 500', async () => {
    api().intercept({ path: '/v4/volumes', method: 'POST' }).reply(500, SERVER_ERROR).persist();

    const error = await failure(client().call(volumesCreate, { label: 'db-data', region: 'us-east' }));

    expect(error.code).toBe('server_error');
    expect(requestCount()).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('does not re-send a POST after a 503 that says busy', async () => {
    api().intercept({ path: '/v4/volumes/12/attach', method: 'POST' }).reply(503, BUSY).persist();

    await failure(client().call(volumesAttach, { volumeId: 12, node_id: 34 }));

    expect(requestCount()).toBe(1);
  });

  it('does not re-send a POST after a connection reset', async () => {
    api().intercept({ path: '/v4/volumes', method: 'POST' }).replyWithError(socketError('ECONNRESET'));
    api().intercept({ path: '/v4/volumes', method: 'POST' }).reply(200, VOLUME);

    const error = await failure(client().call(volumesCreate, { label: 'db-data', region: 'us-east' }));

    expect(error.code).toBe('network');
    expect(requestCount()).toBe(1);
  });

  it.each(['ECONNREFUSED', 'ENOTFOUND', 'UND_ERR_CONNECT_TIMEOUT'])(
    're-sends a POST that never left: %s',
    async (code) => {
      api().intercept({ path: '/v4/volumes', method: 'POST' }).replyWithError(socketError(code));
      api().intercept({ path: '/v4/volumes', method: 'POST' }).reply(200, VOLUME);

      await expect(client().call(volumesCreate, { label: 'db-data', region: 'us-east' })).resolves.toEqual(
        VOLUME,
      );
      expect(requestCount()).toBe(2);
    },
  );
});

describe('deadlines and cancellation', () => {
  it('fails with timeout when the deadline passes, without waiting for the slow reply, and schedules no retry', async () => {
    // The client's deadline timer and the mock's reply delay both run on this clock, so the test
    // decides when each comes instead of racing them on a shared machine.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      api().intercept({ path: '/v4/volumes/12', method: 'GET' }).reply(200, VOLUME).delay(2_000);
      let settled = false;
      const outcome = failure(
        client().call(volumesView, { volumeId: 12 }, { deadline: Date.now() + 100 }),
      ).finally(() => {
        settled = true;
      });

      await vi.advanceTimersByTimeAsync(99);
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await new Promise((resolve) => setImmediate(resolve));
      // Settled at the deadline, 1.9 s of the clock before the reply was due.
      expect(settled).toBe(true);

      const error = await outcome;
      expect(error.code).toBe('timeout');
      expect(requestCount()).toBe(1);
      expect(sleeps).toEqual([]);
      expect(events.map((e) => [e.attempt, e.outcome, e.errorCode])).toEqual([[1, 'error', 'timeout']]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('applies the client timeout when the caller gives no deadline', async () => {
    api().intercept({ path: '/v4/volumes/12', method: 'GET' }).reply(200, VOLUME).delay(2_000);

    const error = await failure(client({ timeoutMs: 80 }).call(volumesView, { volumeId: 12 }));

    expect(error.code).toBe('timeout');
  });

  it('does not start a backoff wait that would end past the deadline', async () => {
    const now = 5_000;
    api().intercept({ path: '/v4/volumes/12', method: 'GET' }).reply(503, SERVER_ERROR);

    const error = await failure(
      // random() close to 1: the first wait is about 250 ms, the deadline is 100 ms away.
      client({ now: () => now, random: () => 0.99 }).call(
        volumesView,
        { volumeId: 12 },
        { deadline: now + 100 },
      ),
    );

    expect(error.code).toBe('server_error');
    expect(sleeps).toEqual([]);
  });

  it('fails with timeout without a request when the deadline has already passed', async () => {
    const error = await failure(client().call(volumesView, { volumeId: 12 }, { deadline: Date.now() - 1 }));

    expect(error.code).toBe('timeout');
    expect(requestCount()).toBe(0);
  });

  it('fails with aborted when the caller cancels', async () => {
    api().intercept({ path: '/v4/volumes/12', method: 'GET' }).reply(200, VOLUME).delay(2_000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);

    const error = await failure(client().call(volumesView, { volumeId: 12 }, { signal: controller.signal }));

    expect(error.code).toBe('aborted');
  });
});

describe('retry policy', () => {
  it('backs off with full jitter, doubling from 250 ms up to a 4 s cap', () => {
    const top = () => 0.999_999;
    expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => backoffDelay(attempt, top))).toEqual([
      249, 499, 999, 1_999, 3_999, 3_999, 3_999,
    ]);
    expect(backoffDelay(3, () => 0)).toBe(0);
  });

  it('prefers Retry-After over X-RateLimit-Reset and ignores unusable values', () => {
    expect(retryAfterMs({ 'retry-after': '1.5', 'x-ratelimit-reset': '2000' }, 1_000_000)).toBe(1_500);
    expect(retryAfterMs({ 'retry-after': 'soon' }, 0)).toBeUndefined();
    expect(retryAfterMs({ 'x-ratelimit-reset': '900' }, 1_000_000)).toBe(0);
  });
});

describe('a DELETE repeated after an attempt that may have acted', () => {
  it('regression: a 404 on the repeat after a 500 was reported as "not found" though the first attempt may have deleted it — now the caller hears the 500', async () => {
    api().intercept({ path: '/v4/volumes/12', method: 'DELETE' }).reply(500, SERVER_ERROR);
    api()
      .intercept({ path: '/v4/volumes/12', method: 'DELETE' })
      .reply(404, { errors: [{ reason: 'Not found' }] });

    const error = await failure(client().call(volumesDelete, { volumeId: 12 }));

    expect(error.code).toBe('server_error');
    expect(error.status).toBe(500);
    expect(requestCount()).toBe(2);
  });

  it('a 404 on the first attempt is "not found": nothing before it could have deleted anything', async () => {
    api()
      .intercept({ path: '/v4/volumes/12', method: 'DELETE' })
      .reply(404, { errors: [{ reason: 'Not found' }] });

    const error = await failure(client().call(volumesDelete, { volumeId: 12 }));

    expect(error.code).toBe('not_found');
  });
});
