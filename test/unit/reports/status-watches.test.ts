import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportSubscriptionRepository } from '../../../lib/store/report-subscriptions.js';
import { type NewStatusWatch, StatusWatchRepository } from '../../../lib/store/status-watches.js';
import { createTestTable, type TestTable } from '../../support/store.js';

let table: TestTable;
let watches: StatusWatchRepository;
beforeAll(async () => {
  table = await createTestTable();
  watches = new StatusWatchRepository(table.ctx);
});
afterAll(() => table.dispose());

function watch(overrides: Partial<NewStatusWatch> = {}): NewStatusWatch {
  return {
    team: 'T0001',
    user: 'U0ALICE',
    profile: 'default',
    channel: 'C0OPS',
    messageTs: '1700000000.000100',
    operationId: 'databases.mysql-create',
    viewOperationId: 'databases.mysql-view',
    viewInput: { instanceId: 42 },
    statusField: 'status',
    finalStatuses: ['active', 'failed', 'degraded'],
    failedStatuses: ['failed', 'degraded'],
    lastStatus: 'provisioning',
    giveUpAt: new Date('2030-01-15T11:00:00Z'),
    ...overrides,
  };
}

describe('status watches', () => {
  it('lists running watches of every team and drops finished ones from the list', async () => {
    const first = await watches.create(watch());
    const other = await watches.create(watch({ team: 'T0002', lastStatus: null }));
    expect((await watches.running(50)).map((w) => w.id).sort()).toEqual([first.id, other.id].sort());

    expect(await watches.finish(first, 'final', 'active')).toBe(true);
    expect(await watches.finish(first, 'final', 'active')).toBe(false);
    expect((await watches.running(50)).map((w) => w.id)).toEqual([other.id]);
    expect(await watches.get('T0001', first.id)).toMatchObject({
      finished: true,
      outcome: 'final',
      lastStatus: 'active',
    });
  });

  it('records a status change once when two ticks saw the same old status, including from none', async () => {
    const created = await watches.create(watch({ team: 'T0003' }));
    const results = await Promise.all([
      watches.recordStatus(created, 'active'),
      watches.recordStatus(created, 'active'),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await watches.get('T0003', created.id)).toMatchObject({ lastStatus: 'active', checks: 1 });

    const unknown = await watches.create(watch({ team: 'T0003', lastStatus: null }));
    expect(await watches.recordStatus(unknown, 'restoring')).toBe(true);
    expect(await watches.recordStatus(unknown, 'restoring')).toBe(false);
  });

  it('keeps the view input and final statuses as given', async () => {
    const created = await watches.create(watch({ team: 'T0004', viewInput: { imageId: 'private/17' } }));
    expect(await watches.get('T0004', created.id)).toMatchObject({
      viewInput: { imageId: 'private/17' },
      finalStatuses: ['active', 'failed', 'degraded'],
      finished: false,
      outcome: null,
    });
  });
});

describe('expiry reminders', () => {
  it('are claimed once per token expiry', async () => {
    const reports = new ReportSubscriptionRepository(table.ctx);
    const expiry = new Date('2030-01-20T00:00:00Z');
    expect(await reports.claimExpiryReminder('T0001', 'U0ALICE', 'default', expiry)).toBe(true);
    expect(await reports.claimExpiryReminder('T0001', 'U0ALICE', 'default', expiry)).toBe(false);
    // A relinked token expires at another time and gets its own reminder; so does another profile.
    expect(
      await reports.claimExpiryReminder('T0001', 'U0ALICE', 'default', new Date('2030-02-20T00:00:00Z')),
    ).toBe(true);
    expect(await reports.claimExpiryReminder('T0001', 'U0ALICE', 'staging', expiry)).toBe(true);
  });
});
