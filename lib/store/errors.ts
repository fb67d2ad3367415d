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
