import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLightClaims, type LightClaimOptions } from '../../../bench/baseline/light-claim.js';
import { DeliveryClaims } from '../../../lib/store/delivery-claims.js';
import { createTestTable, type TestTable } from '../../support/store.js';

/**
 * The cold-start benchmark's "light claim" replaces the bot's SDK claim to measure what the SDK
 * costs; its numbers mean something only if it is the same claim: the same item, the same
 * condition, the same answers, against DynamoDB Local as the benchmark runs it.
 */

let table: TestTable;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(() => table.dispose());

function lightClaims(overrides: Partial<LightClaimOptions> = {}) {
  return createLightClaims({
    tableName: table.ctx.tableName,
    endpoint: inject('dynamoEndpoint'),
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    requestTimeoutMs: 2_000,
    maxAttempts: 2,
    now: table.clock.now,
    ...overrides,
  });
}

async function claimItem(key: string) {
  const { Item } = await table.ctx.table.get({
    TableName: table.ctx.tableName,
    Key: { pk: `CLAIM#${key}`, sk: 'CLAIM' },
  });
  return Item;
}

describe('createLightClaims().claimOnce', () => {
  it('grants the first claim of a delivery and refuses the repeat', async () => {
    const claims = lightClaims();
    expect(await claims.claimOnce('command:T0001:trigger-a')).toBe(true);
    expect(await claims.claimOnce('command:T0001:trigger-a')).toBe(false);
    expect(await claims.claimOnce('command:T0001:trigger-b')).toBe(true);
  });

  it('writes the item the bot writes, so the two claims refuse each other', async () => {
    const sdk = new DeliveryClaims(table.ctx);
    const light = lightClaims();
    expect(await light.claimOnce('command:T0001:light-first')).toBe(true);
    expect(await sdk.claimOnce('command:T0001:light-first')).toBe(false);
    expect(await sdk.claimOnce('command:T0001:sdk-first')).toBe(true);
    expect(await light.claimOnce('command:T0001:sdk-first')).toBe(false);

    const fromLight = await claimItem('command:T0001:light-first');
    const fromSdk = await claimItem('command:T0001:sdk-first');
    expect(fromLight).toEqual({ ...fromSdk, pk: 'CLAIM#command:T0001:light-first' });
  });

  it('grants exactly one of 20 concurrent claims', async () => {
    const claims = lightClaims();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => claims.claimOnce('command:T0001:storm')),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('ignores an expired claim, as the bot does', async () => {
    const claims = lightClaims();
    expect(await claims.claimOnce('command:T0001:late-retry')).toBe(true);
    table.clock.advance(59 * 60_000);
    expect(await claims.claimOnce('command:T0001:late-retry')).toBe(false);
    table.clock.advance(60_000);
    expect(await claims.claimOnce('command:T0001:late-retry')).toBe(true);
  });

  it('rejects keys the bot rejects', async () => {
    const claims = lightClaims();
    await expect(claims.claimOnce('')).rejects.toThrow('Invalid delivery key');
    await expect(claims.claimOnce('command:T0001:\nforged')).rejects.toThrow('Invalid delivery key');
  });

  it('fails on an error that is not a condition failure instead of granting or refusing', async () => {
    const claims = lightClaims({ tableName: 'no-such-table' });
    await expect(claims.claimOnce('command:T0001:nowhere')).rejects.toThrow('ResourceNotFoundException');
  });

  it('gives up on a DynamoDB that does not answer after its attempts, as the bounded SDK client does', async () => {
    let requests = 0;
    const hung = createServer(() => {
      requests++;
    });
    hung.listen(0, '127.0.0.1');
    await once(hung, 'listening');
    try {
      const { port } = hung.address() as AddressInfo;
      const claims = lightClaims({ endpoint: `http://127.0.0.1:${port}`, requestTimeoutMs: 50 });
      await expect(claims.claimOnce('command:T0001:hung')).rejects.toThrow('no answer within 50 ms');
      expect(requests).toBe(2);
    } finally {
      hung.closeAllConnections();
      hung.close();
    }
  });
});
