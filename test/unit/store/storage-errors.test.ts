import { describe, expect, it } from 'vitest';
import { isStorageUnavailable, StoreError, toStoreError } from '../../../lib/store/errors.js';

/**
 * The one mapping from what the SDK throws to `storage_unavailable`. The shapes below are the ones
 * the SDK produces: @smithy/node-http-handler names its timeouts `TimeoutError`, Node's socket
 * errors carry a `code`, and service errors carry their modelled name and `$metadata`.
 */

function sdkError(name: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(`${name} from the SDK`), { name, ...extra });
}

function socketError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:8000`), {
    code,
    errno: -111,
    syscall: 'connect',
  });
}

describe('errors that mean storage is unavailable', () => {
  it.each([
    ['a connection or request timeout', sdkError('TimeoutError')],
    ['a timeout the handler re-threw with ETIMEDOUT', sdkError('TimeoutError', { code: 'ETIMEDOUT' })],
    ['a refused connection', socketError('ECONNREFUSED')],
    ['a reset connection', socketError('ECONNRESET')],
    ['a broken pipe', socketError('EPIPE')],
    ['an unresolvable endpoint', socketError('ENOTFOUND')],
    ['DynamoDB timing the request out', sdkError('RequestTimeout')],
    [
      'throttling after every attempt',
      sdkError('ThrottlingException', { $metadata: { httpStatusCode: 400 } }),
    ],
    [
      'provisioned throughput exceeded after every attempt',
      sdkError('ProvisionedThroughputExceededException', { $metadata: { httpStatusCode: 400 } }),
    ],
    ['an internal server error', sdkError('InternalServerError', { $metadata: { httpStatusCode: 500 } })],
    [
      'a missing table (a wrong TABLE_NAME; nothing can be stored until an operator fixes it)',
      sdkError('ResourceNotFoundException', { $metadata: { httpStatusCode: 400 } }),
    ],
    [
      'an unmodelled 503 from the front door',
      sdkError('UnknownError', { $metadata: { httpStatusCode: 503 } }),
    ],
    [
      'every address of the endpoint refusing',
      new AggregateError([socketError('ECONNREFUSED'), socketError('ECONNREFUSED')], 'connect failed'),
    ],
  ])('%s becomes storage_unavailable, keeping the original as cause', (_what, error) => {
    expect(isStorageUnavailable(error)).toBe(true);
    const mapped = toStoreError(error);
    expect(mapped).toBeInstanceOf(StoreError);
    expect(mapped).toMatchObject({ code: 'storage_unavailable', cause: error });
  });
});

describe('errors that are not an outage pass through unchanged', () => {
  it.each([
    // The repositories read these by name: mapping them would turn a lost race into an outage.
    [
      'a failed condition',
      sdkError('ConditionalCheckFailedException', { $metadata: { httpStatusCode: 400 } }),
    ],
    [
      'a failed transaction',
      sdkError('TransactionCanceledException', { $metadata: { httpStatusCode: 400 } }),
    ],
    ['a malformed request (a bug)', sdkError('ValidationException', { $metadata: { httpStatusCode: 400 } })],
    ['a plain bug', new TypeError('cannot read properties of undefined')],
    ['a malformed item', new StoreError('malformed_item', 'A stored link item is malformed (status).')],
    ['an aggregate of bugs', new AggregateError([new TypeError('x')], 'several')],
    ['a non-error value', 'socket hang up'],
  ])('%s', (_what, error) => {
    expect(isStorageUnavailable(error)).toBe(false);
    expect(toStoreError(error)).toBe(error);
  });

  it('a storage_unavailable StoreError is kept as it is, not wrapped twice', () => {
    const error = new StoreError('storage_unavailable', 'The storage budget of this request is spent.');
    expect(isStorageUnavailable(error)).toBe(true);
    expect(toStoreError(error)).toBe(error);
  });
});
