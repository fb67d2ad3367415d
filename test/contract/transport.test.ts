import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HOUR } from '../../infra/local/emulator/clock.js';
import type { RunningEmulator } from '../../infra/local/emulator/server.js';
import { apiErrorOf, clientFor, op, raw, reasonsOf, startTestEmulator } from './support.js';

/**
 * What the client sees of the emulator's transport behaviour: injected faults and latency, rate
 * limits with their headers, pagination bounds and X-Filter, and the control interface over HTTP.
 */

let emulator: RunningEmulator;
const FAST_BACKOFF = { baseMs: 5, capMs: 20 };
const NODES = op('GET /node/instances');

beforeAll(async () => {
  emulator = await startTestEmulator();
});

afterEach(() => {
  emulator.control.clearFaults();
  emulator.control.setRateLimit(false);
});

afterAll(async () => {
  await emulator?.close();
});

const demoClient = (options: Parameters<typeof clientFor>[2] = {}) =>
  clientFor(emulator, emulator.control.tokens.demo, options);

/**
 * Starts the calls together, in the order given, and names them in the order they finished: how
 * these tests show that one call was held back and another was not, without timing either.
 */
async function finishingOrder(calls: Record<string, () => Promise<unknown>>): Promise<string[]> {
  const order: string[] = [];
  await Promise.all(
    Object.entries(calls).map(([name, call]) =>
      call().then(() => {
        order.push(name);
      }),
    ),
  );
  return order;
}

describe('injected faults, seen from the client', () => {
  it('a 503 injected once is retried by the GET and then succeeds', async () => {
    emulator.control.injectFault({ kind: 'status', status: 503, operations: [NODES.id], times: 1 });
    const before = emulator.control.requestCount(NODES.id);
    const page = await demoClient({ maxRetries: 2, backoff: FAST_BACKOFF }).call(NODES, {});
    expect(page).toMatchObject({ results: 30 });
    expect(emulator.control.requestCount(NODES.id) - before).toBe(2);
  });

  it('a 500 on a POST surfaces at once: a create is not repeated', async () => {
    const create = op('POST /volumes');
    emulator.control.injectFault({ kind: 'status', status: 500, operations: [create.id], times: 1 });
    const before = emulator.control.requestCount(create.id);
    const error = await apiErrorOf(
      demoClient({ maxRetries: 2, backoff: FAST_BACKOFF }).call(create, { label: 'once', region: 'us-east' }),
    );
    expect([error.code, error.status]).toEqual(['server_error', 500]);
    expect(emulator.control.requestCount(create.id) - before).toBe(1);
  });

  it('a 429 with Retry-After makes the client wait that long, then it succeeds', async () => {
    emulator.control.injectFault({
      kind: 'rate-limit',
      retryAfterSeconds: 2,
      operations: [NODES.id],
      times: 1,
    });
    const before = emulator.control.requestCount(NODES.id);
    // The client's waits are recorded instead of slept: what it waited is what it asked to wait.
    const waits: number[] = [];
    const client = demoClient({
      maxRetries: 1,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const result = await client.call(NODES, {});
    expect(result).toMatchObject({ results: 30 });
    // One 429, one wait of exactly the server's Retry-After (not the client's own backoff), one retry.
    expect(emulator.control.requestCount(NODES.id) - before).toBe(2);
    expect(waits).toEqual([2_000]);
  });

  it('without retries the 429 reaches the caller with its Retry-After', async () => {
    emulator.control.injectFault({ kind: 'rate-limit', retryAfterSeconds: 7, times: 1 });
    const error = await apiErrorOf(demoClient().call(NODES, {}));
    expect([error.code, error.status, error.retryAfterMs]).toEqual(['rate_limited', 429, 7000]);
  });

  it('a dropped connection is retried for a GET and is a network error for a POST', async () => {
    emulator.control.injectFault({ kind: 'drop', operations: [NODES.id], times: 1 });
    await expect(demoClient({ maxRetries: 1, backoff: FAST_BACKOFF }).call(NODES, {})).resolves.toMatchObject(
      { results: 30 },
    );
    const create = op('POST /volumes');
    emulator.control.injectFault({ kind: 'drop', operations: [create.id], times: 1 });
    const error = await apiErrorOf(
      demoClient({ maxRetries: 1, backoff: FAST_BACKOFF }).call(create, {
        label: 'dropped',
        region: 'us-east',
      }),
    );
    expect(error.code).toBe('network');
  });

  it('a slow body takes its time, and a short deadline turns it into a timeout', async () => {
    emulator.control.injectFault({ kind: 'slow-body', bodyDurationMs: 400, operations: [NODES.id] });
    let nodes: unknown;
    const order = await finishingOrder({
      nodes: async () => {
        nodes = await demoClient().call(NODES, {});
      },
      volumes: () => demoClient().call(op('GET /volumes'), {}),
    });
    // Started first, finished last, and still whole once it came.
    expect(order).toEqual(['volumes', 'nodes']);
    expect(nodes).toMatchObject({ results: 30 });
    const error = await apiErrorOf(demoClient({ timeoutMs: 150 }).call(NODES, {}));
    expect(error.code).toBe('timeout');
  });

  it('latency on one operation delays that operation only', async () => {
    emulator.control.setLatency(400, [NODES.id]);
    const order = await finishingOrder({
      nodes: () => demoClient().call(NODES, {}),
      volumes: () => demoClient().call(op('GET /volumes'), {}),
      profile: () => demoClient().call(op('GET /profile'), {}),
    });
    expect(order.at(-1)).toBe('nodes');
    expect(order).toHaveLength(3);
  });

  it('a fault on a share of calls hits about that share, identically on every run', async () => {
    const failures = async (target: RunningEmulator) => {
      target.control.injectFault({ kind: 'status', status: 502, share: 0.25 });
      const client = clientFor(target, target.control.tokens.demo);
      const pattern: boolean[] = [];
      for (let i = 0; i < 40; i++) {
        pattern.push(
          await client.call(op('GET /profile'), {}).then(
            () => false,
            () => true,
          ),
        );
      }
      return pattern;
    };
    const first = await failures(emulator);
    const second = await startTestEmulator();
    try {
      expect(await failures(second)).toEqual(first);
    } finally {
      await second.close();
    }
    const hits = first.filter(Boolean).length;
    expect(hits).toBeGreaterThanOrEqual(4);
    expect(hits).toBeLessThanOrEqual(18);
  });
});

describe('rate limits', () => {
  it('every response carries the rate-limit and scope headers', async () => {
    emulator.control.setRateLimit({});
    const response = await raw(emulator, 'GET /volumes', { token: emulator.control.tokens.demo });
    expect(Number(response.headers.get('x-ratelimit-limit'))).toBe(200);
    expect(Number(response.headers.get('x-ratelimit-remaining'))).toBe(199);
    expect(Number(response.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    expect(response.headers.get('x-oauth-scopes')).toBe('*');
  });

  it('a configured limit answers 429 with Retry-After once exceeded; the client waits for the window', async () => {
    emulator.control.setRateLimit({
      general: { limit: 3, windowMs: 1000 },
      perOperation: false,
      paginated: false,
    });
    const token = emulator.control.tokens.demo;
    for (let i = 0; i < 3; i++) expect((await raw(emulator, 'GET /profile', { token })).status).toBe(200);
    const limited = await raw(emulator, 'GET /profile', { token });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(reasonsOf(limited.body)).toEqual(['Too many requests']);
    const client = demoClient({ maxRetries: 2 });
    const seen = await client.call(op('GET /profile'), {});
    expect(seen).toMatchObject({ username: 'demo' });
    expect(client.lastRateLimit?.limit).toBe(3);
  });

  it('the published dedicated limits can be turned on (GET /images: 20 a minute)', async () => {
    emulator.control.setRateLimit({ dedicated: true });
    const token = emulator.control.tokens.demo;
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await raw(emulator, 'GET /images', { token })).status);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
  });
});

describe('pagination and X-Filter', () => {
  it('page_size is bounded to 25..500 and the envelope counts pages and results', async () => {
    const token = emulator.control.tokens.demo;
    for (const size of [24, 501]) {
      const response = await raw(emulator, 'GET /node/instances', { token, query: { page_size: size } });
      expect(reasonsOf(response.body)).toEqual(['page_size: must be between 25 and 500']);
    }
    const page = await raw(emulator, 'GET /node/instances', { token, query: { page: 2, page_size: 25 } });
    expect(page.body).toMatchObject({ page: 2, pages: 2, results: 30 });
    expect((page.body as { data: unknown[] }).data).toHaveLength(5);
    const past = await raw(emulator, 'GET /node/instances', { token, query: { page: 9, page_size: 25 } });
    expect((past.body as { data: unknown[] }).data).toEqual([]);
    const all = await demoClient().listAll(NODES, {}, { pageSize: 25 });
    expect([all.data.length, all.pages, all.complete]).toEqual([30, 2, true]);
  });

  it('X-Filter works on the filterable fields only, with its operators', async () => {
    const token = emulator.control.tokens.demo;
    const filtered = (filter: unknown) =>
      raw(emulator, 'GET /node/instances', { token, headers: { 'x-filter': JSON.stringify(filter) } });
    const unfilterable = await filtered({ status: 'running' });
    expect(unfilterable.status).toBe(400);
    expect(reasonsOf(unfilterable.body)).toEqual(['status: Cannot filter on status']);
    const labels = (body: unknown) => (body as { data: { label: string }[] }).data.map((n) => n.label);
    const either = await filtered({ '+or': [{ region: 'ap-south' }, { tags: 'staging' }], group: 'db' });
    expect(labels(either.body).every((l) => l.startsWith('db-'))).toBe(true);
    const contains = await filtered({
      label: { '+contains': 'WORKER' },
      '+order_by': 'label',
      '+order': 'desc',
    });
    const workerLabels = labels(contains.body);
    expect(workerLabels.length).toBe(5);
    expect(workerLabels).toEqual([...workerLabels].sort().reverse());
    const ids = await filtered({ id: { '+gte': 1010, '+lt': 1013 } });
    expect((ids.body as { data: { id: number }[] }).data.map((n) => n.id)).toEqual([1010, 1011, 1012]);
    const client = await demoClient().listAll(NODES, {}, { filter: { region: 'eu-west' }, pageSize: 25 });
    expect(client.results).toBe(10);
  });

  it('the seed scales: thousands of nodes list completely', async () => {
    const big = await startTestEmulator({ seed: { nodes: 2000 } });
    try {
      const all = await clientFor(big, big.control.tokens.demo).listAll(NODES, {});
      expect([all.results, all.data.length, all.pages]).toEqual([2000, 2000, 4]);
      expect(new Set(all.data.map((n) => (n as { id: number }).id)).size).toBe(2000);
    } finally {
      await big.close();
    }
  });
});

describe('the HTTP surface', () => {
  it('answers unknown paths with 404, a wrong method with 405 and broken JSON with 400', async () => {
    const token = emulator.control.tokens.demo;
    expect((await fetch(`${emulator.url}/no-such-thing`)).status).toBe(404);
    expect((await fetch(`${emulator.origin}/v3/volumes`)).status).toBe(404);
    const wrong = await fetch(`${emulator.url}/volumes`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(wrong.status).toBe(405);
    const broken = await fetch(`${emulator.url}/volumes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"label":',
    });
    expect(broken.status).toBe(400);
    expect(reasonsOf(await broken.json())).toEqual(['The request body is not valid JSON']);
  });

  it('serves the control interface over HTTP', async () => {
    const control = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${emulator.origin}/__control${path}`, {
        method,
        ...(body !== undefined && {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const before = emulator.control.now();
    const advanced = await control('POST', '/clock/advance', { ms: HOUR });
    expect(advanced.body.now).toBe(before + HOUR);
    const user = await control('POST', '/users', { username: 'http-user', restricted: true });
    expect(user.body).toMatchObject({ username: 'http-user', restricted: true });
    const token = (await control('POST', '/tokens', { username: 'http-user', scopes: '*' })).body
      .token as string;
    await clientFor(emulator, token).call(op('POST /profile/phone-number'), {
      iso_code: 'US',
      phone_number: '+1 555 0188',
    });
    const sms = await control('GET', '/sms?username=http-user');
    expect((sms.body.messages as { code: string }[])[0]?.code).toMatch(/^\d{6}$/);
    await control('POST', '/faults', { kind: 'status', status: 502, operations: ['profile.view'], times: 1 });
    expect((await raw(emulator, 'GET /profile', { token })).status).toBe(502);
    const counts = (await control('GET', '/requests')).body;
    expect(counts['profile.view']).toBeGreaterThanOrEqual(1);
    const issue = await control('POST', '/managed/issues', { label: 'from http' });
    expect(issue.body).toMatchObject({ entity: { label: 'from http', type: 'ticket' } });
    const [serviceId] = issue.body.services as number[];
    expect(emulator.control.world.services.get(serviceId ?? 0)?.status).toBe('problem');
    const resolved = await control('POST', `/managed/issues/${issue.body.id}/resolve`);
    expect(resolved).toMatchObject({ status: 200, body: { id: issue.body.id } });
    expect(emulator.control.world.services.get(serviceId ?? 0)?.status).toBe('ok');
    expect((await control('POST', '/managed/issues/999999/resolve')).status).toBe(400);
    expect((await control('POST', '/managed/issues', { services: [999999] })).status).toBe(400);
    expect((await control('POST', '/clock/advance', { ms: -1 })).status).toBe(400);
    expect((await control('POST', '/nothing-here')).status).toBe(404);
  });

  it('reset restores the seed data with the same tokens and ids', async () => {
    const demoToken = emulator.control.tokens.demo;
    await demoClient().call(op('DELETE /volumes/{volumeId}'), { volumeId: 2002 });
    emulator.control.reset();
    expect(emulator.control.tokens.demo).toBe(demoToken);
    await expect(demoClient().call(op('GET /volumes/{volumeId}'), { volumeId: 2002 })).resolves.toMatchObject(
      {
        label: 'data-002',
      },
    );
    expect(emulator.control.requestCount()).toBe(1);
  });
});
