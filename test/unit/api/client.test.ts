import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  type ApiCallEvent,
  ApiClient,
  type ApiClientOptions,
  DEFAULT_USER_AGENT,
} from '../../../lib/api/client.js';
import { ApiError } from '../../../lib/api/errors.js';
import { defineOperation, StringIdSchema } from '../../../lib/api/operation.js';
import { volumeOperations } from '../../../lib/api/operations/volumes.js';

const ORIGIN = 'https://api.cloud.example.com';
const TOKEN = 'tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0';

function volumeOperation(action: string) {
  const op = volumeOperations.find((candidate) => candidate.action === action);
  if (!op) throw new Error(`volumes.${action} is not in the operations table`);
  return op;
}

const volumesList = volumeOperation('list');
const volumesCreate = volumeOperation('create');
const volumesView = volumeOperation('view');
const volumesUpdate = volumeOperation('update');
const volumesDelete = volumeOperation('delete');

const VOLUME = {
  id: 12,
  label: 'db-data',
  status: 'active',
  size: 50,
  region: 'us-east',
  node_id: null,
};

/** A public operation with a string id, like the image ids `node/debian12`. */
const imageView = defineOperation({
  group: 'images',
  action: 'view',
  summary: 'Show one image',
  method: 'GET',
  path: '/images/{imageId}',
  access: 'public',
  scopes: [],
  paginated: false,
  request: z.strictObject({ imageId: StringIdSchema }),
  response: z.object({ id: z.string(), label: z.string() }),
  example: 'images view node/debian12',
});

let mockAgent: MockAgent;

beforeEach(() => {
  mockAgent = new MockAgent({ enableCallHistory: true });
  mockAgent.disableNetConnect();
});

afterEach(async () => {
  await mockAgent.close();
});

function api() {
  return mockAgent.get(ORIGIN);
}

function client(options: ApiClientOptions = {}) {
  return new ApiClient({ token: TOKEN, dispatcher: mockAgent, maxRetries: 0, ...options });
}

function calls() {
  return mockAgent.getCallHistory()?.calls() ?? [];
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('request building', () => {
  it('sends a GET to the base URL with auth, user agent and accept headers and no body', async () => {
    api().intercept({ path: '/v4/volumes/12', method: 'GET' }).reply(200, VOLUME);

    const volume = await client().call(volumesView, { volumeId: 12 });

    expect(volume).toEqual(VOLUME);
    const [sent] = calls();
    expect(sent?.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      'user-agent': DEFAULT_USER_AGENT,
      accept: 'application/json',
    });
    expect(sent?.headers).not.toHaveProperty('content-type');
    expect(sent?.body ?? null).toBeNull();
  });

  it('puts the path parameter in the path and the other fields in a JSON body', async () => {
    api()
      .intercept({ path: '/v4/volumes/12', method: 'PUT' })
      .reply(200, { ...VOLUME, label: 'old' });

    await client().call(volumesUpdate, { volumeId: 12, label: 'old', tags: ['prod'] });

    const [sent] = calls();
    expect(JSON.parse(sent?.body ?? '')).toEqual({ label: 'old', tags: ['prod'] });
    expect(sent?.headers).toMatchObject({ 'content-type': 'application/json' });
  });

  it('encodes string path parameters, so node/debian12 stays one path segment', async () => {
    api().intercept({ path: '/v4/images/node%2Fdebian12', method: 'GET' }).reply(200, {
      id: 'node/debian12',
      label: 'Debian 12',
    });

    const image = await client().call(imageView, { imageId: 'node/debian12' });

    expect(image.id).toBe('node/debian12');
    expect(calls()[0]?.path).toBe('/v4/images/node%2Fdebian12');
  });

  it.each([
    ['https://api.test.example/v4', '/v4/volumes/12'],
    ['https://api.test.example/v4/', '/v4/volumes/12'],
    ['https://api.test.example', '/volumes/12'],
  ])('joins base URL %s and the operation path into %s', async (baseUrl, path) => {
    mockAgent.get('https://api.test.example').intercept({ path, method: 'GET' }).reply(200, VOLUME);

    await client({ baseUrl }).call(volumesView, { volumeId: 12 });

    expect(calls()[0]?.path).toBe(path);
  });

  it('sends page and page_size as query parameters', async () => {
    api()
      .intercept({ path: '/v4/volumes', method: 'GET', query: { page: '2', page_size: '50' } })
      .reply(200, { data: [VOLUME], page: 2, pages: 2, results: 51 });

    const page = await client().paginate(volumesList, {}, { page: 2, pageSize: 50 });

    expect(page).toEqual({ data: [VOLUME], page: 2, pages: 2, results: 51 });
  });

  it('sends the filter as the X-Filter header', async () => {
    api()
      .intercept({ path: '/v4/volumes', method: 'GET' })
      .reply(200, { data: [], page: 1, pages: 1, results: 0 });

    await client().call(volumesList, {}, { filter: { label: 'db-data', '+order_by': 'label' } });

    expect(JSON.parse(String(calls()[0]?.headers?.['x-filter']))).toEqual({
      label: 'db-data',
      '+order_by': 'label',
    });
  });

  it('calls a public operation without a token and without an Authorization header', async () => {
    api().intercept({ path: '/v4/images/node%2Fdebian12', method: 'GET' }).reply(200, {
      id: 'node/debian12',
      label: 'Debian 12',
    });

    await new ApiClient({ dispatcher: mockAgent }).call(imageView, { imageId: 'node/debian12' });

    expect(calls()[0]?.headers).not.toHaveProperty('authorization');
  });
});

describe('checks before sending', () => {
  it('turns an input validation failure into invalid_request with field errors and sends nothing', async () => {
    const error = await failure(
      client().call(volumesCreate, { label: 'x'.repeat(33), colour: 'red' } as never),
    );

    expect(error.code).toBe('invalid_request');
    expect(error.operationId).toBe('volumes.create');
    expect(error.errors).toEqual(
      expect.arrayContaining([
        { field: 'label', reason: 'is 33 characters; the most it can be is 32' },
        { field: 'colour', reason: 'is not a known field' },
      ]),
    );
    expect(calls()).toHaveLength(0);
  });

  it('rejects a filter on a field that is not filterable and sends nothing', async () => {
    const error = await failure(client().call(volumesList, {}, { filter: { status: 'active' } }));

    expect(error.code).toBe('invalid_request');
    expect(error.errors[0]).toMatchObject({ field: 'status' });
    expect(calls()).toHaveLength(0);
  });

  it('rejects paging options on an operation without page parameters', async () => {
    const error = await failure(client().call(volumesView, { volumeId: 12 }, { page: 2 }));

    expect(error.code).toBe('invalid_request');
    expect(calls()).toHaveLength(0);
  });

  it('fails as unauthorized without a request when a token-only operation has no token', async () => {
    const error = await failure(new ApiClient({ dispatcher: mockAgent }).call(volumesView, { volumeId: 12 }));

    expect(error.code).toBe('unauthorized');
    expect(calls()).toHaveLength(0);
  });
});

describe('response parsing', () => {
  it('reads a 204 with no body as the empty result', async () => {
    api().intercept({ path: '/v4/volumes/12', method: 'DELETE' }).reply(204, '');

    await expect(client().call(volumesDelete, { volumeId: 12 })).resolves.toEqual({});
  });

  it('names the operation and the field path when the response does not match its schema', async () => {
    api()
      .intercept({ path: '/v4/volumes', method: 'GET' })
      .reply(200, { data: [VOLUME, { ...VOLUME, size: '50' }], page: 1, pages: 1, results: 2 });

    const error = await failure(client().call(volumesList, {}));

    expect(error.code).toBe('invalid_response');
    expect(error.message).toBe('volumes.list: response field data.1.size: expected number');
    expect(error.errors).toEqual([{ field: 'data.1.size', reason: 'expected number' }]);
  });

  it('reports a success body that is not JSON as invalid_response', async () => {
    api().intercept({ path: '/v4/volumes/12', method: 'GET' }).reply(200, '<html>maintenance</html>');

    const error = await failure(client().call(volumesView, { volumeId: 12 }));

    expect(error.code).toBe('invalid_response');
    expect(error.message).toContain('volumes.view');
  });

  it('keeps the latest rate-limit headers on the client', async () => {
    api()
      .intercept({ path: '/v4/volumes/12', method: 'GET' })
      .reply(200, VOLUME, {
        headers: {
          'x-ratelimit-limit': '800',
          'x-ratelimit-remaining': '799',
          'x-ratelimit-reset': '1700000120',
        },
      });
    const apiClient = client();

    await apiClient.call(volumesView, { volumeId: 12 });

    expect(apiClient.lastRateLimit).toEqual({ limit: 800, remaining: 799, resetAt: 1_700_000_120_000 });
  });
});

describe('API errors', () => {
  it.each([
    [400, 'bad_request'],
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, 'not_found'],
    [429, 'rate_limited'],
    [500, 'server_error'],
  ] as const)('maps HTTP %i to %s and keeps field and reason', async (status, code) => {
    api()
      .intercept({ path: '/v4/volumes/12', method: 'PUT' })
      .reply(status, { errors: [{ field: 'label', reason: 'Label is taken' }] });

    const error = await failure(client().call(volumesUpdate, { volumeId: 12, label: 'db' }));

    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.operationId).toBe('volumes.update');
    expect(error.errors).toEqual([{ field: 'label', reason: 'Label is taken' }]);
    expect(error.message).toBe(`volumes.update: label: Label is taken (HTTP ${status})`);
  });

  it('carries the rate-limit headers and Retry-After on a 429', async () => {
    api()
      .intercept({ path: '/v4/volumes/12', method: 'GET' })
      .reply(
        429,
        { errors: [{ reason: 'Too many requests' }] },
        {
          headers: { 'retry-after': '30', 'x-ratelimit-limit': '400', 'x-ratelimit-remaining': '0' },
        },
      );

    const error = await failure(client().call(volumesView, { volumeId: 12 }));

    expect(error.retryAfterMs).toBe(30_000);
    expect(error.rateLimit).toEqual({ limit: 400, remaining: 0 });
  });

  it('tolerates an error body that is not JSON', async () => {
    api()
      .intercept({ path: '/v4/volumes/12', method: 'GET' })
      .reply(502, '<html><h1>Bad gateway</h1></html>');

    const error = await failure(client().call(volumesView, { volumeId: 12 }));

    expect(error.code).toBe('server_error');
    expect(error.errors).toEqual([{ reason: 'the API answered HTTP 502' }]);
  });
});

describe('the token stays secret', () => {
  function expectNoToken(error: ApiError) {
    expect(error.message).not.toContain(TOKEN);
    expect(JSON.stringify(error)).not.toContain(TOKEN);
    expect(inspect(error, { depth: 10 })).not.toContain(TOKEN);
  }

  it('is not in an error whose body echoes it', async () => {
    api()
      .intercept({ path: '/v4/volumes/12', method: 'GET' })
      .reply(401, { errors: [{ reason: `Invalid token ${TOKEN}` }] });

    const error = await failure(client().call(volumesView, { volumeId: 12 }));

    expect(error.code).toBe('unauthorized');
    expect(error.errors[0]?.reason).toBe('Invalid token [redacted]');
    expectNoToken(error);
  });

  it('is not in a transport error that quotes the request headers', async () => {
    // undici's mock dispatcher quotes the request headers when only they fail to match.
    api()
      .intercept({ path: '/v4/volumes/12', method: 'GET', headers: { authorization: 'Bearer someone-else' } })
      .reply(200, VOLUME);

    const error = await failure(client().call(volumesView, { volumeId: 12 }));

    expect(error.code).toBe('network');
    expectNoToken(error);
  });

  it('is not in validation, response or connection errors', async () => {
    api().intercept({ path: '/v4/volumes/12', method: 'GET' }).reply(200, { id: 'twelve' });
    api()
      .intercept({ path: '/v4/volumes/13', method: 'GET' })
      .replyWithError(Object.assign(new Error(`connect ECONNREFUSED (${TOKEN})`), { code: 'ECONNREFUSED' }));

    const errors = [
      await failure(client().call(volumesView, { volumeId: -1 })),
      await failure(client().call(volumesView, { volumeId: 12 })),
      await failure(client().call(volumesView, { volumeId: 13 })),
    ];

    expect(errors.map((e) => e.code)).toEqual(['invalid_request', 'invalid_response', 'network']);
    for (const error of errors) expectNoToken(error);
  });
});

describe('observability', () => {
  it('reports every attempt with operation, status, duration and attempt number', async () => {
    const events: ApiCallEvent[] = [];
    let clock = 1_000;
    api()
      .intercept({ path: '/v4/volumes/12', method: 'GET' })
      .reply(() => {
        clock += 40;
        return { statusCode: 200, data: VOLUME };
      });

    await client({ onResponse: (event) => events.push(event), now: () => clock }).call(volumesView, {
      volumeId: 12,
    });

    expect(events).toEqual([
      {
        operationId: 'volumes.view',
        method: 'GET',
        attempt: 1,
        status: 200,
        durationMs: 40,
        outcome: 'success',
        errorCode: undefined,
      },
    ]);
  });

  it('ignores a failing hook', async () => {
    api().intercept({ path: '/v4/volumes/12', method: 'GET' }).reply(200, VOLUME);
    const hook = () => {
      throw new Error('metrics backend down');
    };

    await expect(client({ onResponse: hook }).call(volumesView, { volumeId: 12 })).resolves.toEqual(VOLUME);
  });
});
