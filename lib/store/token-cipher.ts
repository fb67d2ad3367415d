import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import * as z from 'zod';
import { SecretDecryptionError, StoreError } from './errors.js';
import '../zod-settings.js';

/**
 * Envelope encryption of per-user secrets (API tokens, approval inputs).
 *
 * Every secret is sealed with AES-256-GCM under a data key, with `team/user` as additional
 * authenticated data: an envelope copied to another user's item, or another workspace's, fails
 * authentication instead of decrypting. In AWS the data key comes from KMS (`KmsTokenCipher`) and
 * is bound to the same pair through the KMS encryption context; in the local stack and the tests
 * one 32-byte key from the environment is the data key (`LocalKeyTokenCipher`).
 */

/** Whose secret it is. Decryption succeeds only with the context used to encrypt. */
export interface CipherContext {
  readonly team: string;
  readonly user: string;
}

const base64 = z.base64();

/** What is stored in place of the secret. Field names are short: it sits in every link item. */
export const EnvelopeSchema = z.object({
  /** Envelope format version. */
  v: z.literal(1),
  alg: z.literal('AES-256-GCM'),
  /** Key id: the KMS key ARN, or `local:<fingerprint>` for the local key. */
  kid: z.string().min(1),
  /** The data key encrypted by KMS (absent for the local key). */
  edk: base64.optional(),
  iv: base64,
  ct: base64,
  tag: base64,
});
export type Envelope = z.infer<typeof EnvelopeSchema>;

export interface TokenCipher {
  encrypt(plain: string, context: CipherContext): Promise<Envelope>;
  /** Throws `SecretDecryptionError` when the envelope is not this context's, or was altered. */
  decrypt(envelope: Envelope, context: CipherContext): Promise<string>;
}

export const DATA_KEY_BYTES = 32;
const IV_BYTES = 12;

/** The bytes GCM authenticates besides the ciphertext: who the secret belongs to. */
export function additionalData(context: CipherContext): Buffer {
  return Buffer.from(`${context.team}/${context.user}`, 'utf8');
}

/** Seals `plain` under `key`; the caller owns `key` and wipes it. */
export function sealWithDataKey(
  key: Uint8Array,
  plain: string,
  context: CipherContext,
): Pick<Envelope, 'iv' | 'ct' | 'tag'> {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(additionalData(context));
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return {
    iv: iv.toString('base64'),
    ct: ct.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
  };
}

export function openWithDataKey(key: Uint8Array, envelope: Envelope, context: CipherContext): string {
  const iv = Buffer.from(envelope.iv, 'base64');
  const tag = Buffer.from(envelope.tag, 'base64');
  if (iv.length !== IV_BYTES || tag.length !== 16) throw new SecretDecryptionError('malformed_envelope');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(additionalData(context));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(envelope.ct, 'base64')), decipher.final()]).toString(
      'utf8',
    );
  } catch (error) {
    throw new SecretDecryptionError('authentication_failed', { cause: error });
  }
}

/**
 * One AES-256 key from the environment (`TOKEN_ENCRYPTION_KEY`, base64 of 32 random bytes), for
 * the local stack and the tests, where there is no KMS.
 */
export class LocalKeyTokenCipher implements TokenCipher {
  readonly #key: Buffer;
  readonly #keyId: string;

  constructor(key: Uint8Array) {
    if (key.length !== DATA_KEY_BYTES) {
      throw new StoreError('invalid_key_material', `The local token key must be ${DATA_KEY_BYTES} bytes.`);
    }
    this.#key = Buffer.from(key);
    // A fingerprint, so an envelope sealed under another key is recognised as such.
    this.#keyId = `local:${createHash('sha256').update(this.#key).digest('hex').slice(0, 12)}`;
  }

  /** `TOKEN_ENCRYPTION_KEY` as configured: base64 of 32 bytes (e.g. `openssl rand -base64 32`). */
  static fromBase64(encoded: string): LocalKeyTokenCipher {
    if (!base64.safeParse(encoded).success) {
      throw new StoreError('invalid_key_material', 'TOKEN_ENCRYPTION_KEY must be base64 of 32 random bytes.');
    }
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== DATA_KEY_BYTES) {
      throw new StoreError('invalid_key_material', 'TOKEN_ENCRYPTION_KEY must be base64 of 32 random bytes.');
    }
    return new LocalKeyTokenCipher(key);
  }

  async encrypt(plain: string, context: CipherContext): Promise<Envelope> {
    return { v: 1, alg: 'AES-256-GCM', kid: this.#keyId, ...sealWithDataKey(this.#key, plain, context) };
  }

  async decrypt(envelope: Envelope, context: CipherContext): Promise<string> {
    if (envelope.kid !== this.#keyId || envelope.edk !== undefined)
      throw new SecretDecryptionError('key_mismatch');
    return openWithDataKey(this.#key, envelope, context);
  }
}
