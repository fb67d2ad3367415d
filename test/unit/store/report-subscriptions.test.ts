import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_REPORT_NOISE,
  type NewReportSubscription,
  ReportSubscriptionRepository,
} from '../../../lib/store/report-subscriptions.js';
import { createTestTable, type TestTable } from '../../support/store.js';

let table: TestTable;
let reports: ReportSubscriptionRepository;
beforeAll(async () => {
  table = await createTestTable();
  reports = new ReportSubscriptionRepository(table.ctx);
});
afterAll(() => table.dispose());

const NOW = new Date('2030-01-15T09:00:00.000Z');
const minutes = (n: number) => new Date(NOW.getTime() + n * 60_000);

function subscription(overrides: Partial<NewReportSubscription> = {}): NewReportSubscription {
  return {
    team: 'T0001',
    kind: 'issues',
    channel: 'C0OPS',
    owner: 'U0OWNER',
    profile: 'default',
    schedule: { type: 'every', minutes: 60 },
    nextRunAt: NOW,
    ...overrides,
  };
}

describe('dueSubscriptions', () => {
  // The due index spans all teams of a table: this test counts on seeing only its own items.
  let own: TestTable;
  let reports: ReportSubscriptionRepository;
  beforeAll(async () => {
    own = await createTestTable();
    reports = new ReportSubscriptionRepository(own.ctx);
  });
  afterAll(() => own.dispose());

  it('returns only subscriptions due by now, earliest first, across teams, never paused ones', async () => {
    const overdue = await reports.create(subscription({ team: 'T0002', nextRunAt: minutes(-30) }));
    const dueNow = await reports.create(subscription({ nextRunAt: NOW }));
    await reports.create(subscription({ nextRunAt: minutes(1) }));
    await reports.create(subscription({ nextRunAt: minutes(24 * 60) }));
    const paused = await reports.create(subscription({ nextRunAt: minutes(-10) }));
    await reports.pause('T0001', paused.id, 'token revoked');

    const due = await reports.dueSubscriptions(NOW, 10);
    expect(due.map((s) => s.id)).toEqual([overdue.id, dueNow.id]);

    expect((await reports.dueSubscriptions(NOW, 1)).map((s) => s.id)).toEqual([overdue.id]);
    expect(await reports.dueSubscriptions(minutes(-60), 10)).toEqual([]);
  });
});

describe('advance', () => {
  it('moves a subscription to its next run once: a second reporter holding the same read loses', async () => {
    const sub = await reports.create(subscription({ team: 'T0010', nextRunAt: minutes(-1) }));
    const run = { lastRunAt: NOW, lastRunStatus: 'ok' as const };
    const results = await Promise.all([
      reports.advance(sub, minutes(59), run),
      reports.advance(sub, minutes(59), run),
      reports.advance(sub, minutes(59), run),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await reports.get('T0010', sub.id)).toMatchObject({
      nextRunAt: minutes(59),
      lastRun: { at: NOW, status: 'ok' },
    });
    expect((await reports.dueSubscriptions(NOW, 50)).map((s) => s.id)).not.toContain(sub.id);
    expect((await reports.dueSubscriptions(minutes(59), 50)).map((s) => s.id)).toContain(sub.id);
  });

  it('does not run a subscription paused after it was read', async () => {
    const sub = await reports.create(subscription({ team: 'T0011', nextRunAt: minutes(-1) }));
    await reports.pause('T0011', sub.id, 'channel archived');
    expect(await reports.advance(sub, minutes(59))).toBe(false);
  });

  it('replaces the seen issue ids when told to, and removes them when the replacement is empty', async () => {
    const sub = await reports.create(subscription({ team: 'T0012', kind: 'alerts' }));
    await reports.addSeenIssues('T0012', sub.id, [1, 2, 3]);
    expect(
      await reports.advance(sub, minutes(5), { lastRunAt: NOW, lastRunStatus: 'ok', seenIssueIds: [3, 4] }),
    ).toBe(true);
    const advanced = await reports.get('T0012', sub.id);
    expect([...(advanced?.seenIssueIds ?? [])].sort()).toEqual([3, 4]);
    if (!advanced) throw new Error('subscription vanished');
    await reports.advance(advanced, minutes(10), {
      lastRunAt: minutes(5),
      lastRunStatus: 'ok',
      seenIssueIds: [],
    });
    expect((await reports.get('T0012', sub.id))?.seenIssueIds.size).toBe(0);
  });

  it('replaces what a kind remembers by name, keeps it when not told, and removes it when empty', async () => {
    const sub = await reports.create(subscription({ team: 'T0013', kind: 'events' }));
    expect(sub.seenKeys).toBeUndefined();
    await reports.advance(sub, minutes(5), {
      lastRunAt: NOW,
      lastRunStatus: 'ok',
      seenKeys: ['us-east=ok', 'eu-west=outage'],
    });
    const first = await reports.get('T0013', sub.id);
    if (!first) throw new Error('subscription vanished');
    expect([...(first.seenKeys ?? [])].sort()).toEqual(['eu-west=outage', 'us-east=ok']);
    await reports.advance(first, minutes(10), { lastRunAt: minutes(5), lastRunStatus: 'ok' });
    const kept = await reports.get('T0013', sub.id);
    if (!kept) throw new Error('subscription vanished');
    expect(kept.seenKeys?.size).toBe(2);
    await reports.advance(kept, minutes(15), { lastRunAt: minutes(10), lastRunStatus: 'ok', seenKeys: [] });
    expect((await reports.get('T0013', sub.id))?.seenKeys).toBeUndefined();
  });

  it('refuses a remembered key too long to read back, and writes nothing', async () => {
    const sub = await reports.create(subscription({ team: 'T0014', kind: 'events' }));
    await expect(
      reports.advance(sub, minutes(5), { lastRunAt: NOW, lastRunStatus: 'ok', seenKeys: ['x'.repeat(201)] }),
    ).rejects.toThrow('1 to 200 characters');
    expect((await reports.get('T0014', sub.id))?.lastRun).toBeNull();
  });
});

describe('seen issues', () => {
  it('adds issue ids without duplicates', async () => {
    const sub = await reports.create(subscription({ team: 'T0013', kind: 'alerts' }));
    expect(await reports.addSeenIssues('T0013', sub.id, [10, 11])).toBe(true);
    await reports.addSeenIssues('T0013', sub.id, [11, 12]);
    expect([...((await reports.get('T0013', sub.id))?.seenIssueIds ?? [])].sort()).toEqual([10, 11, 12]);
    expect(await reports.addSeenIssues('T0013', 'missing', [1])).toBe(false);
  });
});

describe('pause and resume', () => {
  it('resumes a paused subscription at a new time, back in the due index', async () => {
    const sub = await reports.create(subscription({ team: 'T0014', nextRunAt: minutes(-5) }));
    await reports.pause('T0014', sub.id, 'token revoked');
    expect(await reports.get('T0014', sub.id)).toMatchObject({ paused: true, pauseReason: 'token revoked' });
    expect(await reports.resume('T0014', sub.id, minutes(-1))).toBe(true);
    expect(await reports.get('T0014', sub.id)).toMatchObject({ paused: false, pauseReason: null });
    expect((await reports.dueSubscriptions(NOW, 50)).map((s) => s.id)).toContain(sub.id);
  });
});

describe('list and pauseOwnedBy', () => {
  it("lists a team's subscriptions by channel or owner, and pauses only one user's profile's", async () => {
    const mine = await reports.create(subscription({ team: 'T0015', owner: 'U0A', profile: 'work' }));
    const myOther = await reports.create(subscription({ team: 'T0015', owner: 'U0A', profile: 'lab' }));
    const theirs = await reports.create(subscription({ team: 'T0015', owner: 'U0B', channel: 'C0DEV' }));

    expect((await reports.list('T0015')).map((s) => s.id).sort()).toEqual(
      [mine.id, myOther.id, theirs.id].sort(),
    );
    expect((await reports.list('T0015', { channel: 'C0DEV' })).map((s) => s.id)).toEqual([theirs.id]);
    expect((await reports.list('T0015', { owner: 'U0A' })).map((s) => s.id).sort()).toEqual(
      [mine.id, myOther.id].sort(),
    );

    expect(await reports.pauseOwnedBy('T0015', 'U0A', 'work', 'token revoked')).toBe(1);
    const after = await reports.list('T0015');
    expect(after.filter((s) => s.paused).map((s) => s.id)).toEqual([mine.id]);
  });

  it('deletes a subscription', async () => {
    const sub = await reports.create(subscription({ team: 'T0016' }));
    expect(await reports.delete('T0016', sub.id)).toBe(true);
    expect(await reports.get('T0016', sub.id)).toBeUndefined();
    expect(await reports.delete('T0016', sub.id)).toBe(false);
  });

  it('rejects a schedule it cannot run', async () => {
    await expect(
      reports.create(subscription({ schedule: { type: 'daily', time: '25:00', tz: 'Europe/Berlin' } })),
    ).rejects.toThrow();
  });
});

describe('noise settings', () => {
  it('reads the defaults for a subscription that never set them (older items have no noise map)', async () => {
    const sub = await reports.create(subscription({ team: 'T0NOISE1', kind: 'alerts' }));
    expect(sub.noise).toEqual({ quietHours: null, burstAt: 3, flapMinutes: 60 });
    expect((await reports.get('T0NOISE1', sub.id))?.noise).toEqual(DEFAULT_REPORT_NOISE);
  });

  it('stores quiet hours, the burst size and the flapping window, and reads them back', async () => {
    const sub = await reports.create(subscription({ team: 'T0NOISE2', kind: 'alerts' }));
    const noise = {
      quietHours: { from: '22:00', to: '07:00', tz: 'Europe/Berlin' },
      burstAt: 5,
      flapMinutes: 30,
    };
    expect((await reports.setNoise('T0NOISE2', sub.id, noise))?.noise).toEqual(noise);
    expect((await reports.get('T0NOISE2', sub.id))?.noise).toEqual(noise);
    const quietOff = { ...noise, quietHours: null };
    expect((await reports.setNoise('T0NOISE2', sub.id, quietOff))?.noise).toEqual(quietOff);
  });

  it('answers undefined and creates nothing for a subscription that is gone', async () => {
    expect(await reports.setNoise('T0NOISE3', 'no-such-report', DEFAULT_REPORT_NOISE)).toBeUndefined();
    expect(await reports.list('T0NOISE3')).toEqual([]);
  });

  it.each([
    ['an hour past 23', { quietHours: { from: '25:00', to: '07:00', tz: 'UTC' } }],
    ['an unknown zone', { quietHours: { from: '22:00', to: '07:00', tz: 'Mars/Olympus' } }],
    ['a burst of 0', { burstAt: 0 }],
    ['a burst of 10^9', { burstAt: 1e9 }],
    ['a window of 0 minutes', { flapMinutes: 0 }],
    ['a prototype key', JSON.parse('{"__proto__": {"burstAt": 2}, "constructor": 1}')],
  ])('refuses %s and keeps what was stored', async (_, change) => {
    const sub = await reports.create(subscription({ team: 'T0NOISE4', kind: 'alerts' }));
    const noise = { ...DEFAULT_REPORT_NOISE, ...change };
    await expect(reports.setNoise('T0NOISE4', sub.id, noise)).rejects.toThrow();
    expect((await reports.get('T0NOISE4', sub.id))?.noise).toEqual(DEFAULT_REPORT_NOISE);
  });
});
