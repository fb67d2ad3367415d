import { setTimeout as wait } from 'node:timers/promises';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { ApiClient } from '../../../lib/api/client.js';
import { ApiError } from '../../../lib/api/errors.js';
import { defineOperation } from '../../../lib/api/operation.js';
import { volumeOperations } from '../../../lib/api/operations/volumes.js';

const ORIGIN = 'https://api.cloud.example.com';
function volumeOperation(action: string) {
  const op = volumeOperations.find((candidate) => candidate.action === action);
  if (!op) throw new Error(`volumes.${action} is not in the operations table`);
  return op;
}

const volumesList = volumeOperation('list');
const volumesView = volumeOperation('view');

/** A paginated list that, like the profile logins, declares no page parameters. */
const loginsList = defineOperation({
  group: 'profile',
  action: 'logins',
  summary: 'List logins',
  method: 'GET',
  path: '/profile/logins',
  scopes: ['account:read_only'],
  paginated: true,
  pageParams: false,
  request: z.strictObject({}),
  response: z.object({ id: z.number() }),
  example: 'profile logins',
});

let mockAgent: MockAgent;

beforeEach(() => {
  mockAgent = new MockAgent({ enableCallHistory: true });
  mockAgent.disableNetConnect();
});

afterEach(async () => {
  await mockAgent.close();
});

function client() {
  return new ApiClient({ token: 'tok_pages', dispatcher: mockAgent, maxRetries: 0 });
}

function volume(id: number) {
  return { id, label: `vol-${id}`, status: 'active', size: 10, region: 'us-east' };
}

function pageOf(page: number, pages: number) {
  return { data: [volume(page * 10 + 1), volume(page * 10 + 2)], page, pages, results: pages * 2 };
}

function pageParam(path: string): number {
  return Number(new URL(path, ORIGIN).searchParams.get('page'));
}

function sentPaths() {
  return (mockAgent.getCallHistory()?.calls() ?? []).map((call) => call.fullUrl);
}

/**
 * Serves `pages` pages of volumes, each answered after `delayMs`, and records the order in which
 * pages were asked for and answered, and how many were being answered at the same time.
 */
function serveVolumePages(pages: number, delayMs: number) {
  const stats = { inFlight: 0, maxInFlight: 0, log: [] as string[] };
  api()
    .intercept({ path: (path) => path.startsWith('/v4/volumes?'), method: 'GET' })
    .reply(200, ({ path }) => {
      const page = pageParam(path);
      stats.inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      stats.log.push(`ask ${page}`);
      // The mock awaits a promised body, which keeps the request in flight meanwhile.
      const body = wait(delayMs).then(() => {
        stats.inFlight--;
        stats.log.push(`answer ${page}`);
        return pageOf(page, pages);
      });
      return body as unknown as object;
    })
    .times(pages);
  return stats;
}

function api() {
  return mockAgent.get(ORIGIN);
}

describe('listAll', () => {
  it('fetches the pages after the first in parallel, never more than the bound at once', async () => {
    const stats = serveVolumePages(10, 60);

    const result = await client().listAll(volumesList, {}, { concurrency: 3 });

    // Page 1 alone (it says how many pages there are), then pages 2 to 4 asked for together,
    // before any of them is answered: in parallel, not one after the other.
    expect(stats.log.slice(0, 5)).toEqual(['ask 1', 'answer 1', 'ask 2', 'ask 3', 'ask 4']);
    expect(stats.maxInFlight).toBe(3);
    expect(stats.log.filter((entry) => entry.startsWith('ask'))).toHaveLength(10);
    expect(result.pages).toBe(10);
    expect(result.results).toBe(20);
    expect(result.complete).toBe(true);
    expect(result.data.map((v) => v.id)).toEqual(
      Array.from({ length: 10 }, (_, i) => [(i + 1) * 10 + 1, (i + 1) * 10 + 2]).flat(),
    );
  });

  it('asks for the largest page size, 500, on every page', async () => {
    serveVolumePages(2, 0);

    await client().listAll(volumesList, {});

    expect(sentPaths().map((url) => new URL(url).searchParams.get('page_size'))).toEqual(['500', '500']);
  });

  it('keeps a page size the caller chose', async () => {
    serveVolumePages(2, 0);

    await client().listAll(volumesList, {}, { pageSize: 100 });

    expect(sentPaths().map((url) => new URL(url).searchParams.get('page_size'))).toEqual(['100', '100']);
  });

  it('sends the filter with every page', async () => {
    serveVolumePages(3, 0);

    await client().listAll(volumesList, {}, { filter: { tags: 'prod' } });

    const filters = (mockAgent.getCallHistory()?.calls() ?? []).map((call) => call.headers?.['x-filter']);
    expect(filters).toEqual(['{"tags":"prod"}', '{"tags":"prod"}', '{"tags":"prod"}']);
  });

  it('stops at maxPages and says the list is incomplete', async () => {
    serveVolumePages(10, 0);

    const result = await client().listAll(volumesList, {}, { maxPages: 3 });

    expect(result.data).toHaveLength(6);
    expect(result.complete).toBe(false);
    expect(sentPaths()).toHaveLength(3);
  });

  it('makes one request for a list without page parameters', async () => {
    api()
      .intercept({ path: '/v4/profile/logins', method: 'GET' })
      .reply(200, { data: [{ id: 1 }, { id: 2 }], page: 1, pages: 3, results: 7 });

    const result = await client().listAll(loginsList, {});

    expect(result).toEqual({ data: [{ id: 1 }, { id: 2 }], results: 7, pages: 3, complete: false });
    expect(sentPaths()).toEqual([`${ORIGIN}/v4/profile/logins`]);
  });

  it('throws the first failing page and cancels the pages still in flight', async () => {
    // The slow pages' answers are due at 5 s on this clock; the test moves it, so "did not wait
    // for them" is a fact about the clock, not a stopwatch reading.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      api()
        .intercept({ path: (path) => path.startsWith('/v4/volumes?page=1&'), method: 'GET' })
        .reply(200, pageOf(1, 6));
      api()
        .intercept({ path: (path) => path.startsWith('/v4/volumes?page=2&'), method: 'GET' })
        .reply(404, { errors: [{ reason: 'Not found' }] });
      api()
        .intercept({ path: (path) => /^\/v4\/volumes\?page=[3-6]&/.test(path), method: 'GET' })
        .reply(200, pageOf(3, 6))
        .delay(5_000)
        .persist();
      let settled = false;
      const outcome = client()
        .listAll(volumesList, {}, { concurrency: 2 })
        .catch((e: unknown) => e)
        .finally(() => {
          settled = true;
        });

      await vi.advanceTimersByTimeAsync(4_999);
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled, 'listAll waited for the page still in flight').toBe(true);

      const error = await outcome;
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe('not_found');
      // Pages 1, 2 and 3 were asked for; after the failure no further page was started.
      expect(sentPaths()).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses an operation that is not a list', async () => {
    const error = await client()
      .listAll(volumesView, { volumeId: 12 })
      .catch((e: unknown) => e);

    expect((error as ApiError).code).toBe('invalid_request');
    expect(sentPaths()).toHaveLength(0);
  });
});

/**
 * The client parses an operation's first answer with the schema as built and later ones with the
 * schema compiled; both must accept, refuse and report alike. A row of its own, so this file's other
 * tests have not read its answers before.
 */
function thingsOperation() {
  return defineOperation({
    group: 'volumes',
    action: 'things',
    summary: 'List things',
    method: 'GET',
    path: '/things',
    scopes: ['volumes:read_only'],
    paginated: true,
    request: z.strictObject({ page: z.number().optional(), page_size: z.number().optional() }),
    response: z.object({ id: z.number().int(), label: z.string(), size: z.number().int().optional() }),
    example: 'volumes things',
  });
}

function thing(id: number) {
  return { id, label: `thing-${id}`, size: 10 };
}

function serveThings(pages: (page: number) => unknown[], count: number) {
  api()
    .intercept({ path: (path) => path.startsWith('/v4/things'), method: 'GET' })
    .reply(200, ({ path }) => {
      const page = pageParam(path);
      const data = pages(page);
      return { data, page, pages: count, results: count * data.length };
    })
    .persist();
}

describe('every answer is held to its schema, the first and the later ones alike', () => {
  it('refuses a malformed item the same way on the first answer and on later ones', async () => {
    const things = thingsOperation();
    const malformed = { ...thing(2), size: '10' };
    serveThings((page) => (page === 2 ? [thing(1)] : [thing(1), malformed]), 3);
    const reads = client();

    const first = await reads.paginate(things, {}, { page: 1 }).catch((e: unknown) => e);
    await reads.paginate(things, {}, { page: 2 });
    await reads.paginate(things, {}, { page: 2 });
    const later = await reads.paginate(things, {}, { page: 3 }).catch((e: unknown) => e);

    for (const error of [first, later]) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe('invalid_response');
      expect((error as ApiError).message).toBe('volumes.things: response field data.1.size: expected number');
      expect((error as ApiError).errors).toEqual([{ field: 'data.1.size', reason: 'expected number' }]);
    }
  });

  it('refuses a listing whose later page holds a malformed item', async () => {
    const things = thingsOperation();
    serveThings((page) => (page === 4 ? [thing(41), { id: 42.5, label: 'half' }] : [thing(page * 10)]), 5);

    const error = await client()
      .listAll(things, {})
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('invalid_response');
    expect((error as ApiError).errors).toEqual([{ field: 'data.1.id', reason: 'expected int' }]);
  });

  it('keeps only the fields the schema names, on every page', async () => {
    const things = thingsOperation();
    serveThings((page) => [{ ...thing(page), secret: 'not ours' }], 4);

    const result = await client().listAll(things, {});

    expect(result.data).toEqual([thing(1), thing(2), thing(3), thing(4)]);
  });
});
