import { errors as undiciErrors } from 'undici';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  ApiError,
  codeForStatus,
  errorFromResponse,
  isApiError,
  parseErrorBody,
  toApiError,
  withoutSecrets,
} from '../../../lib/api/errors.js';

const SECRET = 'tok_errors_abcdef0123456789';

describe('parseErrorBody', () => {
  it('keeps the field and reason of every error the API sent', () => {
    const body = JSON.stringify({
      errors: [
        { field: 'label', reason: 'Label must be 3 to 32 characters' },
        { field: 'updates.hour_of_day', reason: 'Must be 0 to 23' },
      ],
    });
    expect(parseErrorBody(400, body)).toEqual([
      { field: 'label', reason: 'Label must be 3 to 32 characters' },
      { field: 'updates.hour_of_day', reason: 'Must be 0 to 23' },
    ]);
  });

  it('drops a field the API left out or wrote as "null"', () => {
    const body = JSON.stringify({
      errors: [{ reason: 'Not found' }, { field: 'null', reason: 'Try later' }],
    });
    expect(parseErrorBody(404, body)).toEqual([{ reason: 'Not found' }, { reason: 'Try later' }]);
  });

  it('uses a short plain-text body as the reason', () => {
    expect(parseErrorBody(503, 'upstream connect error')).toEqual([{ reason: 'upstream connect error' }]);
  });

  it.each(['<html><body>502 Bad Gateway</body></html>', '', '{"message":"nope"}', 'x'.repeat(300)])(
    'falls back to the status for a body it cannot use: %s',
    (body) => {
      expect(parseErrorBody(502, body)).toEqual([{ reason: 'the API answered HTTP 502' }]);
    },
  );
});

describe('codeForStatus', () => {
  it.each([
    [400, 'bad_request'],
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, 'not_found'],
    [408, 'timeout'],
    [409, 'bad_request'],
    [429, 'rate_limited'],
    [500, 'server_error'],
    [503, 'server_error'],
  ] as const)('maps %i to %s', (status, code) => {
    expect(codeForStatus(status)).toBe(code);
  });
});

describe('errorFromResponse', () => {
  it('builds a message from the operation and the reasons', () => {
    const error = errorFromResponse({
      status: 403,
      bodyText: JSON.stringify({ errors: [{ reason: 'You do not have permission' }] }),
      operationId: 'volumes.delete',
    });
    expect(error.message).toBe('volumes.delete: You do not have permission (HTTP 403)');
    expect(isApiError(error, 'forbidden')).toBe(true);
  });
});

describe('toApiError', () => {
  it('returns an ApiError unchanged when it already names its operation', () => {
    const original = new ApiError('not_found', 'volumes.view: Not found', { operationId: 'volumes.view' });
    expect(toApiError(original, { operationId: 'other.op' })).toBe(original);
  });

  it('turns a zod error into invalid_request with field errors', () => {
    const result = z.object({ size: z.number() }).safeParse({ size: 'big' });
    expect(result.success).toBe(false);

    const error = toApiError(result.error, { operationId: 'volumes.resize' });

    expect(error.code).toBe('invalid_request');
    expect(error.errors).toEqual([{ field: 'size', reason: expect.stringContaining('expected number') }]);
  });

  it.each([
    ['a connect timeout', new undiciErrors.ConnectTimeoutError(), 'network'],
    ['a headers timeout', new undiciErrors.HeadersTimeoutError(), 'timeout'],
    ['a body timeout', new undiciErrors.BodyTimeoutError(), 'timeout'],
    ['a closed socket', new undiciErrors.SocketError('other side closed'), 'network'],
    ['an undici abort', new undiciErrors.RequestAbortedError(), 'aborted'],
    ['a DOM AbortError', new DOMException('This operation was aborted', 'AbortError'), 'aborted'],
    ['a DOM TimeoutError', new DOMException('The operation timed out', 'TimeoutError'), 'timeout'],
    [
      "fetch's wrapped ECONNREFUSED",
      new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) }),
      'network',
    ],
    ['a DNS failure', Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), 'network'],
    ['a plain error', new Error('something odd'), 'network'],
    ['a thrown string', 'boom', 'network'],
  ] as const)('turns %s into %s', (_, thrown, code) => {
    const error = toApiError(thrown, { operationId: 'nodes.list' });
    expect(error.code).toBe(code);
    expect(error.operationId).toBe('nodes.list');
    expect(error.cause).toBe(thrown);
  });
});

describe('withoutSecrets', () => {
  it('removes the secret from message, field errors and cause, and keeps the rest', () => {
    const error = new ApiError('unauthorized', `profile.view: bad token ${SECRET}`, {
      status: 401,
      errors: [{ field: 'token', reason: `Token ${SECRET} is revoked` }],
      operationId: 'profile.view',
      cause: new Error(`header Bearer ${SECRET}`),
    });

    const clean = withoutSecrets(error, [SECRET]);

    expect(clean.message).toBe('profile.view: bad token [redacted]');
    expect(clean.errors).toEqual([{ field: 'token', reason: 'Token [redacted] is revoked' }]);
    expect(String((clean.cause as Error).message)).toBe('header Bearer [redacted]');
    expect(clean.status).toBe(401);
    expect(clean.code).toBe('unauthorized');
  });

  it('leaves an error without the secret as it is', () => {
    const error = new ApiError('not_found', 'volumes.view: Not found');
    expect(withoutSecrets(error, [SECRET])).toBe(error);
  });

  it('serialises to its stable fields without the cause', () => {
    const error = new ApiError('server_error', 'volumes.list: oops (HTTP 500)', {
      status: 500,
      operationId: 'volumes.list',
      cause: new Error('internal detail'),
    });
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: 'ApiError',
      code: 'server_error',
      message: 'volumes.list: oops (HTTP 500)',
      status: 500,
      operationId: 'volumes.list',
      errors: [],
    });
  });
});
