import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretDecryptionError } from '../../../lib/store/errors.js';
import { keys } from '../../../lib/store/keys.js';
import { PasskeyAlreadyRegisteredError, PasskeyRepository } from '../../../lib/store/passkeys.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

let table: TestTable;
let passkeys: PasskeyRepository;
beforeAll(async () => {
  table = await createTestTable();
  passkeys = new PasskeyRepository(table.ctx, randomLocalCipher());
});
afterAll(() => table.dispose());

const PUBLIC_KEY = new Uint8Array(Array.from({ length: 77 }, (_, i) => (i * 37 + 11) % 256));
const passkey = (id: string) => ({
  id,
  publicKey: PUBLIC_KEY,
  counter: 3,
  transports: ['internal', 'hybrid'],
});

async function rawItems(): Promise<Record<string, unknown>[]> {
  const scanned = await table.client.send(new ScanCommand({ TableName: table.ctx.tableName }));
  return (scanned.Items ?? []).map((item) => unmarshall(item));
}

describe('passkeys', () => {
  it('keeps a passkey sealed: its id and public key are not readable in the item', async () => {
    await passkeys.save('T1', 'U1', passkey('Y3JlZC1vbmU'));
    expect(await passkeys.find('T1', 'U1', 'Y3JlZC1vbmU')).toMatchObject({
      id: 'Y3JlZC1vbmU',
      publicKey: PUBLIC_KEY,
      counter: 3,
      transports: ['internal', 'hybrid'],
    });
    const stored = JSON.stringify(await rawItems());
    const key = Buffer.from(PUBLIC_KEY);
    for (const form of [
      'Y3JlZC1vbmU',
      key.toString('base64'),
      key.toString('base64url'),
      key.toString('hex'),
    ])
      expect(stored).not.toContain(form);
    // Its owner's partition has a member item, so a workspace's removal finds it.
    expect(stored).toContain(keys.member('U1'));
  });

  it("finds a passkey only for its owner: another person's lookup of the same id finds nothing", async () => {
    await passkeys.save('T1', 'U2', passkey('Y3JlZC10d28'));
    expect(await passkeys.find('T1', 'U3', 'Y3JlZC10d28')).toBeUndefined();
    expect(await passkeys.find('T2', 'U2', 'Y3JlZC10d28')).toBeUndefined();
    expect((await passkeys.list('T1', 'U2')).map((p) => p.id)).toEqual(['Y3JlZC10d28']);
    expect(await passkeys.list('T1', 'U3')).toEqual([]);
  });

  it('refuses the same credential twice for one person', async () => {
    await passkeys.save('T1', 'U4', passkey('c2FtZQ'));
    await expect(passkeys.save('T1', 'U4', passkey('c2FtZQ'))).rejects.toBeInstanceOf(
      PasskeyAlreadyRegisteredError,
    );
  });

  it('moves the counter only from the value read: a second use from the same reading is refused', async () => {
    await passkeys.save('T1', 'U5', passkey('Y291bnRlcg'));
    expect(await passkeys.recordUse('T1', 'U5', 'Y291bnRlcg', 3, 4)).toBe(true);
    expect(await passkeys.recordUse('T1', 'U5', 'Y291bnRlcg', 3, 5)).toBe(false);
    expect((await passkeys.find('T1', 'U5', 'Y291bnRlcg'))?.counter).toBe(4);
    expect(await passkeys.recordUse('T1', 'U5', 'bm90LXRoZXJl', 0, 1)).toBe(false);
  });

  it("does not open a sealed passkey copied into another person's partition", async () => {
    await passkeys.save('T1', 'U6', passkey('Y29waWVk'));
    const item = (await rawItems()).find((i) => i.pk === keys.user('T1', 'U6') && i.kind === 'passkey');
    await table.table.put({
      TableName: table.ctx.tableName,
      Item: { ...item, pk: keys.user('T1', 'U7'), user_id: 'U7' },
    });
    await expect(passkeys.find('T1', 'U7', 'Y29waWVk')).rejects.toBeInstanceOf(SecretDecryptionError);
  });
});
