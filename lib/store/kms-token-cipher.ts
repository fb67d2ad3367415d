import type {
  DecryptCommand,
  DecryptCommandOutput,
  GenerateDataKeyCommand,
  GenerateDataKeyCommandOutput,
} from '@aws-sdk/client-kms';
import { SecretDecryptionError } from './errors.js';
import {
  type CipherContext,
  DATA_KEY_BYTES,
  type Envelope,
  openWithDataKey,
  sealWithDataKey,
  type TokenCipher,
} from './token-cipher.js';

/** The two KMS calls the cipher makes; a `KMSClient` fits, and so does an in-memory fake in tests. */
export interface KmsDataKeyClient {
  send(
    command: GenerateDataKeyCommand,
  ): Promise<Pick<GenerateDataKeyCommandOutput, 'Plaintext' | 'CiphertextBlob' | 'KeyId'>>;
  send(command: DecryptCommand): Promise<Pick<DecryptCommandOutput, 'Plaintext'>>;
}

/**
 * The KMS SDK loads on the first encryption or decryption, not at start: most cold starts
 * (`/cloud help`, a click that decrypts nothing) never need it, and it costs milliseconds to load.
 */
const loadKms = () => import('@aws-sdk/client-kms');

/** A `KMSClient` created on the first call, by the entry points that run with a KMS key. */
export function kmsClientOnFirstUse(): KmsDataKeyClient {
  let client: Promise<KmsDataKeyClient> | undefined;
  const kms = async () => {
    client ??= loadKms().then(({ KMSClient }) => new KMSClient({}));
    return client;
  };
  return {
    send: (async (command: GenerateDataKeyCommand | DecryptCommand) =>
      (await kms()).send(command as DecryptCommand)) as KmsDataKeyClient['send'],
  };
}

/** KMS errors that mean "this data key is not for this context or key", as opposed to outages. */
const REJECTION_ERRORS = new Set([
  'InvalidCiphertextException',
  'IncorrectKeyException',
  'AccessDeniedException',
]);

/**
 * Envelope encryption with a fresh KMS data key per secret. The data key is requested with the
 * encryption context `{team, user}`, so KMS itself refuses to decrypt it for anyone else (and
 * CloudTrail records whose secret was opened); the secret is sealed locally with AES-256-GCM
 * under the same `team/user` binding. The plaintext data key is wiped as soon as it was used.
 */
export class KmsTokenCipher implements TokenCipher {
  readonly #kms: KmsDataKeyClient;
  readonly #keyId: string;

  constructor(kms: KmsDataKeyClient, keyId: string) {
    this.#kms = kms;
    this.#keyId = keyId;
  }

  async encrypt(plain: string, context: CipherContext): Promise<Envelope> {
    const { GenerateDataKeyCommand } = await loadKms();
    const dataKey = await this.#kms.send(
      new GenerateDataKeyCommand({
        KeyId: this.#keyId,
        KeySpec: 'AES_256',
        EncryptionContext: encryptionContext(context),
      }),
    );
    const { Plaintext: key, CiphertextBlob: encryptedKey } = dataKey;
    if (key?.length !== DATA_KEY_BYTES || encryptedKey === undefined) {
      key?.fill(0);
      throw new Error('KMS GenerateDataKey returned no usable data key.');
    }
    try {
      return {
        v: 1,
        alg: 'AES-256-GCM',
        kid: dataKey.KeyId ?? this.#keyId,
        edk: Buffer.from(encryptedKey).toString('base64'),
        ...sealWithDataKey(key, plain, context),
      };
    } finally {
      key.fill(0);
    }
  }

  async decrypt(envelope: Envelope, context: CipherContext): Promise<string> {
    if (envelope.edk === undefined) throw new SecretDecryptionError('key_mismatch');
    let key: Uint8Array | undefined;
    try {
      const { DecryptCommand } = await loadKms();
      const result = await this.#kms.send(
        new DecryptCommand({
          CiphertextBlob: Buffer.from(envelope.edk, 'base64'),
          KeyId: envelope.kid,
          EncryptionContext: encryptionContext(context),
        }),
      );
      key = result.Plaintext;
    } catch (error) {
      if (error instanceof Error && REJECTION_ERRORS.has(error.name)) {
        throw new SecretDecryptionError('kms_rejected', { cause: error });
      }
      throw error;
    }
    if (key?.length !== DATA_KEY_BYTES) {
      key?.fill(0);
      throw new SecretDecryptionError('malformed_envelope');
    }
    try {
      return openWithDataKey(key, envelope, context);
    } finally {
      key.fill(0);
    }
  }
}

function encryptionContext(context: CipherContext): Record<string, string> {
  return { team: context.team, user: context.user };
}
