import { PNG } from 'pngjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FILE_PROCESSING_MS } from '../../../infra/local/slack/store.js';
import type { ManagedStats } from '../../../lib/api/operations/managed.js';
import { CHART_SCALE, CHART_SIZE, renderStatsChart } from '../../../lib/reports/chart.js';
import { ChannelPacer } from '../../../lib/reports/pacer.js';
import { formatValue, STATS_SERIES, summarizeSeries } from '../../../lib/reports/stats-series.js';
import { runReporterTick } from '../../../lib/reports/tick.js';
import { slackFixtures } from '../../support/slack-fixtures.js';
import { currentStats, type ReporterHarness, startReporterHarness, TEAM } from './harness.js';

/**
 * The reporter against the emulator, DynamoDB Local and the Slack stand-in (posting limited to
 * one message per second per channel, as Slack does), on the emulator's controlled clock.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let harness: ReporterHarness;

/**
 * The stand-in's clock (its posting limit and post times): real time, except in the tests that
 * hand it and the reporter's pacer one clock that moves only when the pacer waits.
 */
let slackNow: () => number = Date.now;

beforeAll(async () => {
  harness = await startReporterHarness({
    stack: {
      slack: {
        rateLimit: { perSecond: 1, burst: 1 },
        now: () => slackNow(),
        ...slackFixtures({
          channels: [
            ...[
              'C0ALERTS',
              'C0BERLIN',
              'C0NEWYORK',
              'C0KOLKATA',
              'C0BUSY',
              'C0DIGEST',
              'C0EXPIRY',
              'C0FIRSTFAIL',
            ],
            ...[
              'C0ISO1',
              'C0ISO2',
              'C0ISO3',
              'C0LAP1',
              'C0LAP2',
              'C0LAP3',
              'C0REV1',
              'C0REV2',
              'C0RUSHED',
              'C0STATS',
            ],
            ...Array.from({ length: 100 }, (_, i) => `C0FAN${i}`),
          ],
          people: ['U0DIGEST', ...Array.from({ length: 50 }, (_, i) => `U0ACC${String(i).padStart(2, '0')}`)],
        }),
      },
    },
  });
});

/**
 * Runs `work` with the stand-in on a clock that stands still until the pacer given to `work`
 * sleeps, so "a second apart" is read off that clock and the test waits for nothing.
 */
async function onPacerClock<T>(
  pacerOptions: { minIntervalMs?: number },
  work: (pacer: ChannelPacer) => Promise<T>,
): Promise<T> {
  let now = Date.now();
  const pacer = new ChannelPacer({
    ...pacerOptions,
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  });
  slackNow = () => now;
  try {
    return await work(pacer);
  } finally {
    // Real time resumes from where the test clock got to, so the stand-in's times never go back.
    const offset = now - Date.now();
    slackNow = () => Date.now() + offset;
  }
}

afterAll(async () => {
  await harness?.close();
});

afterEach(async () => {
  await harness.clearSubscriptions();
  harness.e2e.emulator.control.clearFaults();
});

const textOf = (message: { text: string; blocks: readonly unknown[] } | undefined) =>
  message ? `${message.text}\n${JSON.stringify(message.blocks)}` : '';

describe('schedules', () => {
  // First in the file: the emulator's clock still stands at its start, Monday 2025-06-02 09:00 UTC.
  it('fire at 09:00 local time in Berlin, New York and Kolkata', async () => {
    expect(harness.now().toISOString()).toBe('2025-06-02T09:00:00.000Z');
    await harness.link('U0ALICE', 'alice');
    const zones = { C0BERLIN: 'Europe/Berlin', C0NEWYORK: 'America/New_York', C0KOLKATA: 'Asia/Kolkata' };
    for (const [channel, zone] of Object.entries(zones)) {
      const reply = await harness.reports(
        'U0ALICE',
        channel,
        `reports add issues --daily 09:00 --tz ${zone}`,
      );
      expect(reply.visibility).toBe('in_channel');
      expect(reply.text).toContain('daily at 09:00');
    }

    // Every 15 minutes for 28 hours, noting when each channel got its digest.
    const postedAt: Record<string, string[]> = { C0BERLIN: [], C0NEWYORK: [], C0KOLKATA: [] };
    for (let step = 0; step <= 28 * 4; step++) {
      const summary = await harness.tick();
      for (const failure of summary.failures) throw new Error(`report failed: ${failure.reason}`);
      for (const channel of Object.keys(postedAt)) {
        const count = harness.posted(channel).length;
        if (count > (postedAt[channel]?.length ?? 0)) postedAt[channel]?.push(harness.now().toISOString());
      }
      harness.advance(15 * MINUTE);
    }

    expect(postedAt).toEqual({
      // 09:00 CEST is 07:00 UTC: Monday's had passed when the report was added.
      C0BERLIN: ['2025-06-03T07:00:00.000Z'],
      // 09:00 EDT is 13:00 UTC, on Monday and on Tuesday.
      C0NEWYORK: ['2025-06-02T13:00:00.000Z', '2025-06-03T13:00:00.000Z'],
      // 09:00 IST is 03:30 UTC.
      C0KOLKATA: ['2025-06-03T03:30:00.000Z'],
    });
    expect(textOf(harness.posted('C0BERLIN')[0])).toContain('Managed issues');
  });
});

describe('alerts', () => {
  it('post an issue created in the emulator exactly once over several ticks, and none that were open before', async () => {
    await harness.link('U0BOB', 'bob');
    const open = (
      await harness
        .api()
        .listAll(
          (await import('../../../lib/api/operations/index.js')).getOperation('managed.issues-list'),
          {},
        )
    ).data;
    const reply = await harness.reports('U0BOB', 'C0ALERTS', 'reports add alerts');
    expect(reply.text).toContain(`${open.length} issues open now are not posted`);

    for (let i = 0; i < 2; i++) {
      harness.advance(5 * MINUTE);
      expect((await harness.tick()).alertsPosted).toBe(0);
    }
    expect(harness.posted('C0ALERTS')).toEqual([]);

    const created = harness.e2e.emulator.control.createManagedIssue({ label: 'checkout answers 502' });
    const alertsPerTick: number[] = [];
    for (let i = 0; i < 4; i++) {
      harness.advance(5 * MINUTE);
      alertsPerTick.push((await harness.tick()).alertsPosted);
    }
    expect(alertsPerTick).toEqual([1, 0, 0, 0]);
    const posted = harness.posted('C0ALERTS');
    expect(posted).toHaveLength(1);
    expect(textOf(posted[0])).toContain(`New managed issue ${created.id}`);
    expect(textOf(posted[0])).toContain('checkout answers 502');
    expect(textOf(posted[0])).toContain(created.entity.url);

    const second = harness.e2e.emulator.control.createManagedIssue({ label: 'api-gateway is slow' });
    harness.advance(5 * MINUTE);
    await harness.tick();
    harness.advance(5 * MINUTE);
    await harness.tick();
    expect(harness.posted('C0ALERTS').map((m) => m.text)).toEqual([
      expect.stringContaining(`${created.id}`),
      expect.stringContaining(`${second.id}`),
    ]);
  });
});

describe('issues digest', () => {
  it('marks the issues opened since the previous digest, and only those, with their service and age', async () => {
    await harness.link('U0DIGEST', 'digest');
    await harness.reports('U0DIGEST', 'C0DIGEST', 'reports add issues --every 1h');
    await harness.tick();
    const [first] = harness.posted('C0DIGEST');
    expect(textOf(first)).toContain('Managed issues');
    expect(textOf(first)).not.toContain(':new:');

    const control = harness.e2e.emulator.control;
    const service = [...control.world.services.values()][0];
    if (!service) throw new Error('the emulator has no service');
    const fresh = control.createManagedIssue({ services: [service.id], label: 'queue backs up' });
    harness.advance(HOUR);
    await harness.tick();
    const second = harness.posted('C0DIGEST')[1];
    expect(second?.text).toContain('1 new since the last digest');
    const newLines = textOf(second).match(/:new: \*Issue \d+\*/g) ?? [];
    expect(newLines).toEqual([`:new: *Issue ${fresh.id}*`]);
    expect(textOf(second)).toContain(`*${service.label}* · \`${service.address}\``);
    // Opened an hour before this digest.
    expect(textOf(second)).toMatch(new RegExp(`Issue ${fresh.id}\\*[^\\n]*· open 1 h `));
  });
});

describe('stats', () => {
  it("uploads a PNG chart of the emulator's series with a summary whose numbers match them", async () => {
    await harness.link('U0ALICE', 'alice');
    await harness.reports('U0ALICE', 'C0STATS', 'reports add stats --every 1h');
    const expected = (await currentStats(harness)) as ManagedStats;
    const summary = await harness.tick();
    expect(summary.filesUploaded).toBe(1);
    // Slack shares an upload once it has processed it, not when it answers.
    expect(harness.posted('C0STATS')).toEqual([]);
    const realNow = slackNow;
    slackNow = () => realNow() + DEFAULT_FILE_PROCESSING_MS;
    const [message] = harness.posted('C0STATS');
    slackNow = realNow;
    const file = message?.files?.[0];
    if (!message || !file?.bytes) throw new Error('no chart was uploaded');
    expect(file.name).toMatch(/^managed-stats-\d{4}-\d{2}-\d{2}-[0-9a-f]{8}\.png$/);
    const png = PNG.sync.read(file.bytes);
    expect([png.width, png.height]).toEqual([
      CHART_SIZE.width * CHART_SCALE,
      CHART_SIZE.height * CHART_SCALE,
    ]);
    if (Array.isArray(expected.data)) throw new Error('the emulator has no series');
    // The picture is exactly the chart of the series the API serves at this time.
    expect(file.bytes.equals(await renderStatsChart(expected.data, { zone: 'UTC' }))).toBe(true);

    for (const series of summarizeSeries(expected.data)) {
      const { style } = series;
      if (series.latest === undefined) throw new Error(`${style.label} has no points`);
      expect(series.points).toBe(expected.data[style.key].length);
      expect(message.text).toContain(
        `*${style.label}* (${style.colorName}): latest ${formatValue(series.latest)} · min ${formatValue(series.min ?? 0)} · ` +
          `avg ${formatValue(series.average ?? 0)} · max ${formatValue(series.max ?? 0)}`,
      );
    }
    // Spot-check against the raw points, not only the shared summarizer.
    const cpu = expected.data.cpu;
    expect(message.text).toContain(`max ${formatValue(Math.max(...cpu.map((p) => p.y)))}`);
    expect(STATS_SERIES.every((s) => message.text.includes(`(${s.colorName})`))).toBe(true);
  });
});

describe('fan-out', () => {
  it('makes one issues fetch per account per tick for 200 subscriptions over 50 accounts', async () => {
    const control = harness.e2e.emulator.control;
    const kinds = ['issues', 'issues', 'alerts', 'alerts'] as const;
    for (let account = 0; account < 50; account++) {
      const user = `U0ACC${String(account).padStart(2, '0')}`;
      await harness.link(user, `account${account}`);
      for (const [k, kind] of kinds.entries()) {
        await harness.deps.store.reports.create({
          team: TEAM,
          kind,
          channel: `C0FAN${(account * 4 + k) % 100}`,
          owner: user,
          profile: 'default',
          schedule: { type: 'every', minutes: 60 },
          nextRunAt: harness.now(),
        });
      }
    }

    for (const round of [1, 2]) {
      control.resetRequestCounts();
      const summary = await harness.tick();
      expect(summary.failures).toEqual([]);
      expect(summary.run).toBe(200);
      const accounts = Object.entries(summary.apiCalls);
      expect(accounts).toHaveLength(50);
      for (const [account, calls] of accounts) {
        expect(calls['managed.issues-list'], `${account} in round ${round}`).toBe(1);
      }
      // Counted by the emulator too: the API saw 50 issue lists, not 200.
      expect(control.requestCount('managed.issues-list')).toBe(50);
      expect(control.requestCount('managed.services-list')).toBe(50);
      expect(summary.messagesPosted).toBe(100);
      harness.advance(HOUR);
    }
  }, 60_000);
});

describe('token problems', () => {
  it('pause only the subscriptions of a revoked token, and tell the channels and the owner why', async () => {
    const aliceToken = await harness.link('U0ALICE', 'alice');
    await harness.link('U0BOB', 'bob');
    await harness.reports('U0ALICE', 'C0REV1', 'reports add issues --every 1h');
    await harness.reports('U0ALICE', 'C0REV2', 'reports add stats --every 1h');
    await harness.reports('U0BOB', 'C0REV1', 'reports add issues --every 1h');
    expect(harness.e2e.emulator.control.revokeToken(aliceToken)).toBe(true);
    const dmsBefore = harness.posted('DU0ALICE').length;

    const summary = await harness.tick();
    expect(summary.paused).toEqual([
      { team: TEAM, owner: 'U0ALICE', profile: 'default', problem: 'rejected', subscriptions: 2 },
    ]);
    const subs = await harness.subscriptions();
    expect(subs.filter((s) => s.paused).map((s) => s.owner)).toEqual(['U0ALICE', 'U0ALICE']);
    expect(subs.find((s) => s.owner === 'U0BOB')).toMatchObject({ paused: false, lastRun: { status: 'ok' } });
    expect(await harness.deps.store.tokenLinks.getLink(TEAM, 'U0ALICE', 'default')).toMatchObject({
      status: 'invalid',
    });

    const rev1 = harness.posted('C0REV1').map((m) => m.text);
    expect(rev1.filter((t) => t.includes('Managed issues'))).toHaveLength(1);
    expect(rev1.some((t) => t.includes('Paused 1 report') && t.includes('<@U0ALICE>'))).toBe(true);
    expect(harness.posted('C0REV2').map((m) => m.text)).toEqual([
      expect.stringContaining('rejected the token'),
    ]);
    const dms = harness.posted('DU0ALICE').slice(dmsBefore);
    expect(dms).toHaveLength(1);
    expect(dms[0]?.text).toContain('/cloud login');
    // Her Home follows without being opened: the profile rejected, both reports paused and why.
    const home = JSON.stringify(harness.e2e.stack.standIn.store.homeView(TEAM, 'U0ALICE')?.view.blocks ?? []);
    expect(home).toContain('rejected by the API');
    expect(home.match(/paused \(the API rejected the token/g)).toHaveLength(2);

    harness.advance(HOUR);
    const next = await harness.tick();
    expect(next.run).toBe(1);
    expect(next.paused).toEqual([]);
  });

  it('remind the owner once, a week before the token expires', async () => {
    const now = harness.now();
    await harness.link('U0ADMIN', 'ada', { expiry: new Date(now.getTime() + 5 * 24 * HOUR) });
    await harness.link('U0BOB', 'bob', { expiry: new Date(now.getTime() + 30 * 24 * HOUR) });
    await harness.reports('U0ADMIN', 'C0EXPIRY', 'reports add issues --every 1h');
    await harness.reports('U0BOB', 'C0EXPIRY', 'reports add issues --every 1h');
    const bobDms = harness.posted('DU0BOB').length;

    const reminders: number[] = [];
    for (let i = 0; i < 3; i++) {
      reminders.push((await harness.tick()).expiryReminders);
      harness.advance(HOUR);
    }
    expect(reminders).toEqual([1, 0, 0]);
    const dms = harness.posted('DU0ADMIN');
    expect(dms).toHaveLength(1);
    expect(dms[0]?.text).toContain('expires');
    expect(dms[0]?.text).toContain('1 report subscription runs with it');
    expect(harness.posted('DU0BOB')).toHaveLength(bobDms);
  });

  it('keeps a reminder Slack refused (the Messages tab off) and sends it once on a later run', async () => {
    const now = harness.now();
    await harness.link('U0ALICE', 'alice', { expiry: new Date(now.getTime() + 3 * 24 * HOUR) });
    await harness.reports('U0ALICE', 'C0OPS', 'reports add issues --every 1h');
    const dmsBefore = harness.posted('DU0ALICE').length;
    const { settings } = harness.e2e.stack.standIn;
    settings.messagesTab = false;
    try {
      expect((await harness.tick()).expiryReminders).toBe(0);
      expect(harness.posted('DU0ALICE')).toHaveLength(dmsBefore);
      harness.advance(HOUR);
      expect((await harness.tick()).expiryReminders).toBe(0);
    } finally {
      settings.messagesTab = true;
    }

    const reminders: number[] = [];
    for (let i = 0; i < 2; i++) {
      harness.advance(HOUR);
      reminders.push((await harness.tick()).expiryReminders);
    }
    expect(reminders).toEqual([1, 0]);
    const dms = harness.posted('DU0ALICE').slice(dmsBefore);
    expect(dms).toHaveLength(1);
    expect(dms[0]?.text).toContain('expires');
  });
});

describe('isolation and overlap', () => {
  it('records a failing subscription and runs the others', async () => {
    await harness.link('U0ALICE', 'alice');
    await harness.reports('U0ALICE', 'C0ISO1', 'reports add issues --every 1h');
    await harness.reports('U0ALICE', 'C0ISO2', 'reports add stats --every 1h');
    await harness.reports('U0ALICE', 'C0ISO3', 'reports add issues --every 1h');
    // A channel Slack does not know (archived, or a typo stored long ago).
    await harness.deps.store.reports.create({
      team: TEAM,
      kind: 'issues',
      channel: 'c-archived',
      owner: 'U0ALICE',
      profile: 'default',
      schedule: { type: 'every', minutes: 60 },
      nextRunAt: harness.now(),
    });
    harness.e2e.emulator.control.injectFault({ kind: 'status', status: 500, operations: ['managed.stats'] });

    const summary = await harness.tick();
    expect(summary.failures.map((f) => [f.channel, f.reason]).sort()).toEqual([
      ['C0ISO2', 'api:server_error (500)'],
      ['c-archived', 'slack:channel_not_found'],
    ]);
    expect(harness.posted('C0ISO1')).toHaveLength(1);
    expect(harness.posted('C0ISO3')).toHaveLength(1);
    const byChannel = new Map((await harness.subscriptions()).map((s) => [s.channel, s]));
    expect(byChannel.get('C0ISO1')?.lastRun?.status).toBe('ok');
    expect(byChannel.get('C0ISO2')?.lastRun?.status).toBe('failed');
    expect(byChannel.get('c-archived')?.lastRun?.status).toBe('failed');
    // Failed runs still move on: they are tried again at their next time, not in a loop.
    expect(byChannel.get('C0ISO2')?.nextRunAt.getTime()).toBe(harness.now().getTime() + HOUR);
  }, 30_000);

  it('does not alert the issues that were open when a first run of alerts failed', async () => {
    await harness.link('U0BOB', 'bob');
    await harness.deps.store.reports.create({
      team: TEAM,
      kind: 'alerts',
      channel: 'C0FIRSTFAIL',
      owner: 'U0BOB',
      profile: 'default',
      schedule: { type: 'every', minutes: 5 },
      nextRunAt: harness.now(),
    });
    const control = harness.e2e.emulator.control;
    const fault = control.injectFault({ kind: 'status', status: 500, operations: ['managed.issues-list'] });
    expect((await harness.tick()).failures).toHaveLength(1);
    control.removeFault(fault);
    for (let i = 0; i < 2; i++) {
      harness.advance(5 * MINUTE);
      expect((await harness.tick()).alertsPosted).toBe(0);
    }
    expect(harness.posted('C0FIRSTFAIL')).toEqual([]);
  }, 30_000);

  it('runs each subscription once when two reporter runs overlap', async () => {
    await harness.link('U0BOB', 'bob');
    for (const channel of ['C0LAP1', 'C0LAP2', 'C0LAP3']) {
      await harness.reports('U0BOB', channel, 'reports add issues --every 1h');
    }
    const [first, second] = await Promise.all([
      runReporterTick(harness.deps, harness.now()),
      runReporterTick(harness.deps, harness.now()),
    ]);
    expect((first?.run ?? 0) + (second?.run ?? 0)).toBe(3);
    for (const channel of ['C0LAP1', 'C0LAP2', 'C0LAP3']) expect(harness.posted(channel)).toHaveLength(1);
  });

  it("keeps to Slack's one message per second in a channel, so Slack refuses none", async () => {
    await harness.link('U0BOB', 'bob');
    for (let i = 0; i < 3; i++) await harness.reports('U0BOB', 'C0BUSY', 'reports add issues --every 1h');
    const summary = await onPacerClock({}, (pacer) =>
      runReporterTick({ ...harness.deps, pacer }, harness.now()),
    );
    expect(summary.failures).toEqual([]);
    expect(harness.posted('C0BUSY')).toHaveLength(3);
    const posts = harness.e2e.stack.standIn.store.posts('C0BUSY');
    expect(posts.filter((p) => !p.accepted)).toEqual([]);
    const gaps = posts.slice(1).map((p, i) => p.at - (posts[i]?.at ?? 0));
    expect(gaps).toHaveLength(2);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(1_000);
  });

  it("waits out Slack's 429s when a channel's posts come faster than Slack takes them", async () => {
    await harness.link('U0BOB', 'bob');
    for (let i = 0; i < 3; i++) await harness.reports('U0BOB', 'C0RUSHED', 'reports add issues --every 1h');
    // No spacing of its own: only Slack's 429s and their Retry-After hold the pacer back.
    const { summary, rateLimited } = await onPacerClock({ minIntervalMs: 0 }, async (pacer) => ({
      summary: await runReporterTick({ ...harness.deps, pacer }, harness.now()),
      rateLimited: pacer.rateLimitedCount,
    }));
    expect(summary.failures).toEqual([]);
    expect(harness.posted('C0RUSHED')).toHaveLength(3);
    const posts = harness.e2e.stack.standIn.store.posts('C0RUSHED');
    const refused = posts.filter((p) => !p.accepted);
    expect(refused.length).toBeGreaterThan(0);
    expect(rateLimited).toBe(refused.length);
    const accepted = posts.filter((p) => p.accepted);
    expect(accepted).toHaveLength(3);
    const gaps = accepted.slice(1).map((p, i) => p.at - (accepted[i]?.at ?? 0));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(1_000);
  });
});
