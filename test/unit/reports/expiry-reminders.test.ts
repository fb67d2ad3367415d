import type { Logger } from '@aws-lambda-powertools/logger';
import type { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChannelPacer } from '../../../lib/reports/pacer.js';
import { remindOfExpiry } from '../../../lib/reports/token-notices.js';
import type { Store, TokenLink } from '../../../lib/store/index.js';
import { ReportSubscriptionRepository } from '../../../lib/store/report-subscriptions.js';
import type { Table } from '../../../lib/store/table.js';
import { createTestTable, type TestTable } from '../../support/store.js';

const WRITES = new Set<keyof Table>(['put', 'update', 'delete', 'batchWrite', 'transactWrite']);

/** The test table, with every write request to it counted (a refused conditional write counts too). */
function countingWrites(table: Table): { table: Table; writes: () => number; reset: () => void } {
  let writes = 0;
  const counted = new Proxy(table, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (WRITES.has(name as keyof Table)) writes += 1;
        return value.apply(target, args);
      };
    },
  });
  return { table: counted, writes: () => writes, reset: () => (writes = 0) };
}

let test: TestTable;
let counter: ReturnType<typeof countingWrites>;
let reports: ReportSubscriptionRepository;
beforeAll(async () => {
  test = await createTestTable();
  counter = countingWrites(test.table);
  reports = new ReportSubscriptionRepository({ ...test.ctx, table: counter.table });
});
afterAll(() => test.dispose());
beforeEach(() => counter.reset());

const DAY_MS = 24 * 3_600_000;

function linkExpiringIn(ms: number, profile: string): TokenLink {
  const now = test.clock.now();
  return {
    team: 'T0001',
    user: 'U0ALICE',
    profile,
    label: 'ci token',
    apiUsername: 'alice',
    scopes: '*',
    expiry: new Date(now.getTime() + ms),
    status: 'active',
    createdAt: now,
    updatedAt: now,
  };
}

/** A run's notice dependencies; Slack is not expected to be reached in these runs. */
function noticeDeps() {
  const unreachable = new Proxy({} as WebClient, {
    get: () => {
      throw new Error('Slack was called');
    },
  });
  const logger = { warn: () => undefined } as unknown as Logger;
  const refreshHomes = () => {
    throw new Error('Homes were published');
  };
  return {
    store: { reports } as unknown as Store,
    slack: unreachable,
    pacer: new ChannelPacer(),
    logger,
    refreshHomes,
  };
}

describe('expiry reminder claims', () => {
  it('writes the claim and its member item the first time, and nothing once the reminder is claimed', async () => {
    const expiry = new Date('2030-01-20T00:00:00Z');
    expect(await reports.claimExpiryReminder('T0001', 'U0ALICE', 'claims', expiry)).toBe(true);
    expect(counter.writes()).toBeGreaterThan(0);

    counter.reset();
    expect(await reports.claimExpiryReminder('T0001', 'U0ALICE', 'claims', expiry)).toBe(false);
    expect(counter.writes()).toBe(0);
  });

  it('makes no write in a reporter run whose tokens have no reminder due', async () => {
    const deps = noticeDeps();
    const now = test.clock.now();
    expect(await remindOfExpiry(deps, linkExpiringIn(30 * DAY_MS, 'far'), now)).toBe(false);
    expect(await remindOfExpiry(deps, { ...linkExpiringIn(0, 'none'), expiry: null }, now)).toBe(false);

    const expiring = linkExpiringIn(3 * DAY_MS, 'near');
    const expiry = expiring.expiry ?? now;
    expect(await reports.claimExpiryReminder('T0001', 'U0ALICE', 'near', expiry)).toBe(true);
    counter.reset();
    // Reminded already: every later run within the week finds the claim and leaves the table alone.
    expect(await remindOfExpiry(deps, expiring, now)).toBe(false);
    expect(await remindOfExpiry(deps, expiring, now)).toBe(false);
    expect(counter.writes()).toBe(0);
  });
});
