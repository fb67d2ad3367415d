import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * KMS's data-key operations for envelope encryption, as the bot uses them (AWS JSON 1.1,
 * `X-Amz-Target: TrentService.<Operation>`; docs.aws.amazon.com/kms/latest/APIReference):
 * `GenerateDataKey` (KeySpec AES_256 or NumberOfBytes) and `Decrypt`. A ciphertext blob names its
 * key and is bound to its encryption context: decrypting with another context, or naming another
 * key, fails as KMS does (`InvalidCiphertextException`, `IncorrectKeyException`).
 */

export class KmsError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export interface LocalKms {
  /** The key's ARN for a `KeyId` as callers give it (key id or key ARN), for the IAM check. */
  keyArnOf(keyId: string): string;
  /** The ARN of the key that made a ciphertext blob (Decrypt is authorised on that key). */
  keyArnOfBlob(blob: string): string;
  handle(operation: string, input: Record<string, unknown>): Record<string, unknown>;
}

const BLOB_VERSION = 1;

export function createLocalKms(region: string, accountId: string, keyIds: readonly string[]): LocalKms {
  const material = new Map(keyIds.map((id) => [id, randomBytes(32)]));
  const arnOf = (id: string) => `arn:aws:kms:${region}:${accountId}:key/${id}`;
  const idOf = (keyId: string): string => {
    const id = keyId.startsWith('arn:') ? keyId.slice(keyId.lastIndexOf('/') + 1) : keyId;
    if (!material.has(id) || (keyId.startsWith('arn:') && keyId !== arnOf(id))) {
      throw new KmsError('NotFoundException', `Key '${arnOf(id)}' does not exist`);
    }
    return id;
  };
  const aad = (context: unknown) => {
    const entries = Object.entries((context ?? {}) as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : 1,
    );
    return Buffer.from(JSON.stringify(entries));
  };
  const parseBlob = (blob: string) => {
    const bytes = Buffer.from(blob, 'base64');
    const idLength = bytes[1] ?? 0;
    if (bytes[0] !== BLOB_VERSION || bytes.length < 2 + idLength + 12 + 16 + 1) {
      throw new KmsError('InvalidCiphertextException', '');
    }
    const id = bytes.subarray(2, 2 + idLength).toString('ascii');
    if (!material.has(id)) throw new KmsError('InvalidCiphertextException', '');
    return {
      id,
      iv: bytes.subarray(2 + idLength, 14 + idLength),
      tag: bytes.subarray(14 + idLength, 30 + idLength),
      sealed: bytes.subarray(30 + idLength),
    };
  };
  return {
    keyArnOf: (keyId) => arnOf(idOf(keyId)),
    keyArnOfBlob: (blob) => arnOf(parseBlob(blob).id),
    handle(operation, input) {
      if (operation === 'GenerateDataKey') {
        const id = idOf(String(input.KeyId ?? ''));
        const size =
          input.KeySpec === 'AES_256' ? 32 : input.KeySpec === 'AES_128' ? 16 : Number(input.NumberOfBytes);
        if (!Number.isInteger(size) || size < 1 || size > 1024) {
          throw new KmsError(
            'ValidationException',
            'Either KeySpec or NumberOfBytes is required (1 to 1024).',
          );
        }
        const plaintext = randomBytes(size);
        const iv = randomBytes(12);
        const cipher = createCipheriv('aes-256-gcm', material.get(id) as Buffer, iv);
        cipher.setAAD(aad(input.EncryptionContext));
        const sealed = Buffer.concat([cipher.update(plaintext), cipher.final()]);
        const blob = Buffer.concat([
          Buffer.from([BLOB_VERSION, id.length]),
          Buffer.from(id, 'ascii'),
          iv,
          cipher.getAuthTag(),
          sealed,
        ]);
        return {
          KeyId: arnOf(id),
          Plaintext: plaintext.toString('base64'),
          CiphertextBlob: blob.toString('base64'),
        };
      }
      if (operation === 'Decrypt') {
        const blob = parseBlob(String(input.CiphertextBlob ?? ''));
        if (typeof input.KeyId === 'string' && idOf(input.KeyId) !== blob.id) {
          throw new KmsError(
            'IncorrectKeyException',
            'The key ID in the request does not identify a CMK that can perform this operation.',
          );
        }
        const decipher = createDecipheriv('aes-256-gcm', material.get(blob.id) as Buffer, blob.iv);
        decipher.setAAD(aad(input.EncryptionContext));
        decipher.setAuthTag(blob.tag);
        try {
          const plaintext = Buffer.concat([decipher.update(blob.sealed), decipher.final()]);
          return {
            KeyId: arnOf(blob.id),
            Plaintext: plaintext.toString('base64'),
            EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
          };
        } catch {
          throw new KmsError('InvalidCiphertextException', '');
        }
      }
      throw new KmsError('UnknownOperationException', '');
    },
  };
}
