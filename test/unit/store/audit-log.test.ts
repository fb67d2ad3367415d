import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLogRepository } from '../../../lib/store/audit-log.js';
import { StoreError } from '../../../lib/store/errors.js';
import { createTestTable, type TestTable } from '../../support/store.js';

let table: TestTable;
let audit: AuditLogRepository;
beforeAll(async () => {
  table = await createTestTable();
  audit = new AuditLogRepository(table.ctx, { retentionDays: 30 });
});
afterAll(() => table.dispose());

async function appendAt(team: string, at: string, action: string) {
  table.clock.set(at);
  return audit.append({ team, actor: 'U0A', action, target: 'volume 12', result: 'succeeded' });
}

describe('AuditLogRepository', () => {
  it('lists entries newest first, in pages', async () => {
    await appendAt('T0001', '2030-01-15T09:00:00.000Z', 'volumes.create');
    await appendAt('T0001', '2030-01-15T09:05:00.000Z', 'volumes.attach');
    await appendAt('T0001', '2030-01-15T09:10:00.000Z', 'volumes.delete');
    await appendAt('T0002', '2030-01-15T09:20:00.000Z', 'nodes.reboot');

    const first = await audit.list('T0001', { limit: 2 });
    expect(first.entries.map((e) => e.action)).toEqual(['volumes.delete', 'volumes.attach']);
    expect(first.nextCursor).toBeDefined();
    const second = await audit.list('T0001', {
      limit: 2,
      ...(first.nextCursor ? { cursor: first.nextCursor } : {}),
    });
    expect(second.entries.map((e) => e.action)).toEqual(['volumes.create']);
  });

  it('keeps who, what, target, approval and result', async () => {
    table.clock.set('2030-01-16T10:00:00.000Z');
    const entry = await audit.append({
      team: 'T0003',
      actor: 'U0REQ',
      action: 'volumes.delete',
      target: 'volume 12',
      approvalId: 'b7c1d2e3-0000-4000-8000-000000000001',
      result: 'failed',
      detail: 'Volume is attached',
    });
    expect((await audit.list('T0003')).entries).toEqual([entry]);
    expect(entry).toMatchObject({ actor: 'U0REQ', approvalId: 'b7c1d2e3-0000-4000-8000-000000000001' });
  });

  it("refuses a cursor that names another team's entries", async () => {
    await appendAt('T0004', '2030-01-15T09:00:00.000Z', 'a');
    await appendAt('T0004', '2030-01-15T09:01:00.000Z', 'b');
    const { nextCursor } = await audit.list('T0004', { limit: 1 });
    expect(nextCursor).toBeDefined();
    await expect(audit.list('T0005', { cursor: nextCursor ?? '' })).rejects.toThrow(StoreError);
    await expect(audit.list('T0004', { cursor: 'garbage' })).rejects.toThrow(StoreError);
  });

  it('leaves out entries past retention before TTL removes them', async () => {
    await appendAt('T0006', '2030-01-01T00:00:00.000Z', 'old');
    await appendAt('T0006', '2030-01-20T00:00:00.000Z', 'recent');
    table.clock.set('2030-02-05T00:00:00.000Z');
    expect((await audit.list('T0006')).entries.map((e) => e.action)).toEqual(['recent']);
  });
});
