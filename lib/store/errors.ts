/**
 * Errors of the storage layer. Messages never carry tokens, ciphertexts or key material: they
 * may reach logs and, through the error-to-reply mapping, Slack.
 */

export const STORE_ERROR_CODES = [
  /** A stored secret cannot be decrypted for the team and user asking (wrong owner, wrong key, tampered). */
  'secret_undecryptable',
  /** Encryption key material in the configuration is missing or malformed. */
  'invalid_key_material',
  /** An item read from the table does not have the shape this code writes. */
  'malformed_item',
  /** An argument cannot be part of a key (e.g. a profile name with `#`). */
  'invalid_key_part',
  /**
   * DynamoDB did not answer in time, refused or dropped the connection, or throttled after the
   * client's attempts: the call may be retried later, and a write may or may not have landed.
   */
  'storage_unavailable',
] as const;
export type StoreErrorCode = (typeof STORE_ERROR_CODES)[number];

export class StoreError extends Error {
  override readonly name: string = 'StoreError';
  readonly code: StoreErrorCode;

  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Why decryption failed, for logs; none of the reasons reveals anything about the secret. */
export type DecryptionFailure =
  | 'key_mismatch'
  | 'authentication_failed'
  | 'malformed_envelope'
  | 'kms_rejected';

export class SecretDecryptionError extends StoreError {
  override readonly name = 'SecretDecryptionError';
  readonly reason: DecryptionFailure;

  constructor(reason: DecryptionFailure, options?: { cause?: unknown }) {
    super(
      'secret_undecryptable',
      'The stored secret cannot be decrypted for this workspace and user; it has to be linked again.',
      options,
    );
    this.reason = reason;
  }
}

/**
 * What DynamoDB (or the path to it) says when it is down, hung, or overloaded, after the client's
 * own attempts. Matched by name and code rather than class: the table client (`http-table.ts`)
 * and the worker's SDK client (Powertools) fail with different classes for the same trouble.
 */
const UNAVAILABLE_NAMES = new Set([
  // Connection, request and socket-idle timeouts (`http-table.ts`, @smithy/node-http-handler).
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  // The table is not there (a wrong TABLE_NAME, DynamoDB Local restarted in memory): nothing can
  // be stored until an operator fixes it, which to the people using the bot is an outage.
  'ResourceNotFoundException',
]);
const UNAVAILABLE_CODES = new Set([
  // No connection within the limit (`ConnectTimeoutError` of `http-exchange.ts`).
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/**
 * The one place that decides whether a storage call failed because storage is unavailable: such
 * errors become `StoreError('storage_unavailable')` with the original as cause; anything else
 * (a failed condition, a validation error, a bug) is returned unchanged for its caller.
 */
export function toStoreError(error: unknown): unknown {
  if (error instanceof StoreError || !isStorageUnavailable(error)) return error;
  return new StoreError('storage_unavailable', 'DynamoDB is not answering.', { cause: error });
}

export function isStorageUnavailable(error: unknown): boolean {
  if (error instanceof StoreError) return error.code === 'storage_unavailable';
  if (typeof error !== 'object' || error === null) return false;
  const { name, code, errno, $metadata } = error as {
    name?: unknown;
    code?: unknown;
    errno?: unknown;
    $metadata?: { httpStatusCode?: unknown };
  };
  if (typeof name === 'string' && UNAVAILABLE_NAMES.has(name)) return true;
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  if (typeof errno === 'string' && UNAVAILABLE_CODES.has(errno)) return true;
  // A 5xx without a modelled name: a proxy or the service's front door answered for it.
  const status = $metadata?.httpStatusCode;
  if (typeof status === 'number' && status >= 500) return true;
  // Node wraps a failed connect to several addresses in an AggregateError of the per-address errors.
  if (error instanceof AggregateError) return error.errors.some(isStorageUnavailable);
  return false;
}
