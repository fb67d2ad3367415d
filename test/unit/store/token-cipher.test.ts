import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { type DecryptCommand, GenerateDataKeyCommand } from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import { SecretDecryptionError, StoreError } from '../../../lib/store/errors.js';
import { KmsTokenCipher } from '../../../lib/store/kms-token-cipher.js';
import { LocalKeyTokenCipher } from '../../../lib/store/token-cipher.js';

const TOKEN = 'a3f1c9e2b7d84f6a9c0e1b2d3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a';
const ALICE = { team: 'T0001', user: 'U0ALICE' };
const BOB = { team: 'T0001', user: 'U0BOB' };
const ALICE_ELSEWHERE = { team: 'T0002', user: 'U0ALICE' };

/**
 * KMS in memory: data keys are sealed under a master key with the encryption context as
 * authenticated data, as KMS does, and a mismatching context is refused with KMS's error name.
 * With `checkContext: false` it ignores the context, to show the local AES layer binds on its own.
 */
class FakeKms {
  readonly keyId = 'arn:aws:kms:eu-west-1:111122223333:key/test';
  readonly issuedKeys: Uint8Array[] = [];
  decryptCalls = 0;
  readonly #master = randomBytes(32);
  readonly #checkContext: boolean;

  constructor(options: { checkContext?: boolean } = {}) {
    this.#checkContext = options.checkContext ?? true;
  }

  async send(command: GenerateDataKeyCommand | DecryptCommand) {
    if (command instanceof GenerateDataKeyCommand) {
      const dataKey = randomBytes(32);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', this.#master, iv);
      cipher.setAAD(this.#aad(command.input.EncryptionContext));
      const sealed = Buffer.concat([cipher.update(dataKey), cipher.final()]);
      const plaintext = new Uint8Array(dataKey);
      this.issuedKeys.push(plaintext);
      return {
        KeyId: this.keyId,
        Plaintext: plaintext,
        CiphertextBlob: Buffer.concat([iv, cipher.getAuthTag(), sealed]),
      };
    }
    this.decryptCalls++;
    const blob = Buffer.from(command.input.CiphertextBlob ?? new Uint8Array());
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#master, blob.subarray(0, 12));
      decipher.setAAD(this.#aad(command.input.EncryptionContext));
      decipher.setAuthTag(blob.subarray(12, 28));
      return {
        Plaintext: new Uint8Array(Buffer.concat([decipher.update(blob.subarray(28)), decipher.final()])),
      };
    } catch {
      throw Object.assign(new Error('KMS could not decrypt the ciphertext.'), {
        name: 'InvalidCiphertextException',
      });
    }
  }

  #aad(context: Record<string, string> | undefined): Buffer {
    if (!this.#checkContext) return Buffer.alloc(0);
    return Buffer.from(JSON.stringify(Object.entries(context ?? {}).sort()));
  }
}

async function decryptionFailure(attempt: Promise<unknown>): Promise<SecretDecryptionError> {
  const error = await attempt.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SecretDecryptionError);
  return error as SecretDecryptionError;
}

describe('LocalKeyTokenCipher', () => {
  it('decrypts what it encrypted for the same team and user', async () => {
    const cipher = new LocalKeyTokenCipher(randomBytes(32));
    const envelope = await cipher.encrypt(TOKEN, ALICE);
    expect(await cipher.decrypt(envelope, ALICE)).toBe(TOKEN);
  });

  it('leaves no trace of the token in the envelope', async () => {
    const cipher = new LocalKeyTokenCipher(randomBytes(32));
    const envelope = await cipher.encrypt(TOKEN, ALICE);
    const stored = JSON.stringify(envelope);
    expect(stored).not.toContain(TOKEN.slice(0, 8));
    expect(stored).not.toContain(Buffer.from(TOKEN).toString('base64').slice(0, 12));
  });

  it('uses a fresh IV each time, so equal tokens give different ciphertexts', async () => {
    const cipher = new LocalKeyTokenCipher(randomBytes(32));
    const [first, second] = await Promise.all([cipher.encrypt(TOKEN, ALICE), cipher.encrypt(TOKEN, ALICE)]);
    expect(first.iv).not.toBe(second.iv);
    expect(first.ct).not.toBe(second.ct);
  });

  it("refuses another user's or another workspace's context, without revealing anything", async () => {
    const cipher = new LocalKeyTokenCipher(randomBytes(32));
    const envelope = await cipher.encrypt(TOKEN, ALICE);
    for (const context of [BOB, ALICE_ELSEWHERE]) {
      const error = await decryptionFailure(cipher.decrypt(envelope, context));
      expect(error.code).toBe('secret_undecryptable');
      expect(error.reason).toBe('authentication_failed');
      expect(error.message).not.toContain(TOKEN.slice(0, 8));
      expect(error.message).not.toContain(envelope.ct.slice(0, 8));
    }
  });

  it('refuses an altered ciphertext', async () => {
    const cipher = new LocalKeyTokenCipher(randomBytes(32));
    const envelope = await cipher.encrypt(TOKEN, ALICE);
    const bytes = Buffer.from(envelope.ct, 'base64');
    bytes[0] = (bytes[0] ?? 0) ^ 1;
    const error = await decryptionFailure(
      cipher.decrypt({ ...envelope, ct: bytes.toString('base64') }, ALICE),
    );
    expect(error.reason).toBe('authentication_failed');
  });

  it('tells an envelope of another key apart', async () => {
    const envelope = await new LocalKeyTokenCipher(randomBytes(32)).encrypt(TOKEN, ALICE);
    const error = await decryptionFailure(new LocalKeyTokenCipher(randomBytes(32)).decrypt(envelope, ALICE));
    expect(error.reason).toBe('key_mismatch');
  });

  it('reads its key from base64 and names the variable, not the value, when it is wrong', () => {
    const key = randomBytes(32).toString('base64');
    expect(LocalKeyTokenCipher.fromBase64(key)).toBeInstanceOf(LocalKeyTokenCipher);
    const short = randomBytes(16).toString('base64');
    expect(() => LocalKeyTokenCipher.fromBase64(short)).toThrow(StoreError);
    expect(() => LocalKeyTokenCipher.fromBase64(short)).toThrow(/TOKEN_ENCRYPTION_KEY/);
    expect(() => LocalKeyTokenCipher.fromBase64(short)).not.toThrow(short);
    expect(() => LocalKeyTokenCipher.fromBase64('not base64!')).toThrow(StoreError);
  });
});

describe('KmsTokenCipher', () => {
  it('decrypts what it encrypted, with a KMS data key bound to team and user', async () => {
    const kms = new FakeKms();
    const cipher = new KmsTokenCipher(kms, kms.keyId);
    const envelope = await cipher.encrypt(TOKEN, ALICE);
    expect(envelope.kid).toBe(kms.keyId);
    expect(envelope.edk).toBeDefined();
    expect(await cipher.decrypt(envelope, ALICE)).toBe(TOKEN);
    expect(kms.decryptCalls).toBe(1);
  });

  it('wipes the plaintext data key once the token is sealed', async () => {
    const kms = new FakeKms();
    await new KmsTokenCipher(kms, kms.keyId).encrypt(TOKEN, ALICE);
    expect(kms.issuedKeys).toHaveLength(1);
    expect(kms.issuedKeys[0]?.every((byte) => byte === 0)).toBe(true);
  });

  it('is refused by KMS for another user', async () => {
    const kms = new FakeKms();
    const cipher = new KmsTokenCipher(kms, kms.keyId);
    const envelope = await cipher.encrypt(TOKEN, ALICE);
    const error = await decryptionFailure(cipher.decrypt(envelope, BOB));
    expect(error.reason).toBe('kms_rejected');
    expect(error.message).not.toContain(TOKEN.slice(0, 8));
  });

  it('still fails for another workspace when the data key itself is handed out', async () => {
    const kms = new FakeKms({ checkContext: false });
    const cipher = new KmsTokenCipher(kms, kms.keyId);
    const envelope = await cipher.encrypt(TOKEN, ALICE);
    const error = await decryptionFailure(cipher.decrypt(envelope, ALICE_ELSEWHERE));
    expect(error.reason).toBe('authentication_failed');
  });

  it('does not take a local-key envelope for its own', async () => {
    const kms = new FakeKms();
    const envelope = await new LocalKeyTokenCipher(randomBytes(32)).encrypt(TOKEN, ALICE);
    const error = await decryptionFailure(new KmsTokenCipher(kms, kms.keyId).decrypt(envelope, ALICE));
    expect(error.reason).toBe('key_mismatch');
    expect(kms.decryptCalls).toBe(0);
  });

  it('lets outages through as they are, not as a decryption verdict', async () => {
    const kms = new FakeKms();
    const envelope = await new KmsTokenCipher(kms, kms.keyId).encrypt(TOKEN, ALICE);
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    const failing = new KmsTokenCipher({ send: () => Promise.reject(throttled) }, kms.keyId);
    await expect(failing.decrypt(envelope, ALICE)).rejects.toBe(throttled);
  });
});
