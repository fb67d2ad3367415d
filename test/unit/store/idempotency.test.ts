import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DeliveryClaims } from '../../../lib/store/delivery-claims.js';
import { StoreError } from '../../../lib/store/errors.js';
import { workerIdempotencyPersistence } from '../../../lib/store/worker-idempotency.js';
import { createTestTable, type TestTable } from '../../support/store.js';

let table: TestTable;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(() => table.dispose());

describe('DeliveryClaims.claimOnce', () => {
  it('grants the first claim of a delivery and refuses the repeat', async () => {
    const claims = new DeliveryClaims(table.ctx);
    expect(await claims.claimOnce('T0001:1718000000.000100:approve:U0BOB')).toBe(true);
    expect(await claims.claimOnce('T0001:1718000000.000100:approve:U0BOB')).toBe(false);
  });

  it('keeps different deliveries apart', async () => {
    const claims = new DeliveryClaims(table.ctx);
    expect(await claims.claimOnce('T0001:trigger-a')).toBe(true);
    expect(await claims.claimOnce('T0001:trigger-b')).toBe(true);
    expect(await claims.claimOnce('T0002:trigger-a')).toBe(true);
  });

  it('grants exactly one of 30 concurrent claims (a retry storm)', async () => {
    const claims = new DeliveryClaims(table.ctx);
    const results = await Promise.all(Array.from({ length: 30 }, () => claims.claimOnce('T0001:storm')));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('ignores an expired claim even before TTL removes it', async () => {
    const claims = new DeliveryClaims(table.ctx, { ttlSeconds: 60 });
    expect(await claims.claimOnce('T0001:late-retry')).toBe(true);
    table.clock.advance(59_000);
    expect(await claims.claimOnce('T0001:late-retry')).toBe(false);
    table.clock.advance(1_000);
    expect(await claims.claimOnce('T0001:late-retry')).toBe(true);
  });

  it('rejects keys that are empty, too long or hold control characters', async () => {
    const claims = new DeliveryClaims(table.ctx);
    await expect(claims.claimOnce('')).rejects.toThrow(StoreError);
    await expect(claims.claimOnce('x'.repeat(513))).rejects.toThrow(StoreError);
    await expect(claims.claimOnce('T0001:\nforged')).rejects.toThrow(StoreError);
  });
});

describe('workerIdempotencyPersistence', () => {
  it('lets Powertools run a worker job once per job id, with its record in our table', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const job = vi.fn(async (event: { jobId: string; text: string }) => `ran ${event.text}`);
    const runOnce = makeIdempotent(job, {
      persistenceStore: workerIdempotencyPersistence(table.client, table.ctx.tableName),
      config: new IdempotencyConfig({ eventKeyJmesPath: 'jobId' }),
    });

    expect(await runOnce({ jobId: 'job-1', text: 'first' })).toBe('ran first');
    expect(await runOnce({ jobId: 'job-1', text: 'first' })).toBe('ran first');
    expect(job).toHaveBeenCalledTimes(1);
    warn.mockRestore();

    const records = await table.ctx.table.query({
      TableName: table.ctx.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'IDEMPOTENCY#worker' },
    });
    expect(records.Items).toHaveLength(1);
    expect(records.Items?.[0]).toMatchObject({ status: 'COMPLETED', expires_at: expect.any(Number) });
  });
});
