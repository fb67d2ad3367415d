import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../../infra/local/emulator/server.js';
import type { ApiSettings } from '../../../lib/api/client-factory.js';
import type { Caller } from '../../../lib/core/caller.js';
import {
  addReport,
  checkReportRun,
  MAX_SUBSCRIPTIONS_PER_CHANNEL,
  pauseReport,
  type ReportChannels,
  removeReport,
  resumeReport,
  runReportJob,
} from '../../../lib/core/report-subscriptions.js';
import { createSlackWebClient } from '../../../lib/slack-kit/web-client.js';
import { createStore, type ReportSubscription, type Store } from '../../../lib/store/index.js';
import type { NewReportSubscription } from '../../../lib/store/report-subscriptions.js';
import { testCaller } from '../../support/caller.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * Report subscriptions as the core decides them, without Slack: who may change one, what adding
 * one asks of the caller's token and channel before anything is stored, and when a resumed one
 * runs next. Only the probe of a rejected token needs an API, the emulator's.
 */

const CHANNEL = 'C0REPORTS';
const OWNER = 'U0OWNER';
const OTHER = 'U0OTHER';
/** The store's clock (see `testClock`): a Tuesday, 09:00 UTC. */
const NOW = new Date('2030-01-15T09:00:00.000Z');

let table: TestTable;
let store: Store;
let emulator: RunningEmulator;
beforeAll(async () => {
  [table, emulator] = await Promise.all([createTestTable(), startEmulator()]);
  store = createStore(table.ctx, randomLocalCipher());
});
afterAll(async () => {
  await emulator?.close();
  await table?.dispose();
});

/** Each test its own team, so one test's reports are never another's. */
const newTeam = () => `T${randomUUID().slice(0, 8).toUpperCase()}`;

function caller(team: string, user: string, options: { admin?: boolean } = {}): Caller {
  return testCaller({ team, channel: CHANNEL }, user, options.admin);
}

/** An API no test here should reach: every request is counted and fails. */
function unreachableApi(): ApiSettings & { readonly calls: () => number } {
  let calls = 0;
  return {
    baseUrl: 'http://api.invalid/v1',
    timeoutMs: 1_000,
    dispatcher: {
      request: async () => {
        calls++;
        throw new Error('no API in this test');
      },
    },
    calls: () => calls,
  };
}

/** A surface whose channels all take reports, and which remembers which it was asked about. */
function openChannels(): ReportChannels & { readonly asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    canPostReports: async (channel) => {
      asked.push(channel);
      return { kind: 'open' };
    },
  };
}

function deps(api: ApiSettings = unreachableApi(), channels: ReportChannels = openChannels()) {
  return {
    store,
    api,
    logger: new Logger({ serviceName: 'report-subscriptions-test', logLevel: 'SILENT' }),
    inlineBudgetMs: 1_500,
    approvalAdmins: [],
    channels,
  };
}

function link(team: string, user: string, scopes: string, token = `token-${randomUUID()}`) {
  return store.tokenLinks.saveLink({
    team,
    user,
    token,
    label: 'reports',
    apiUsername: 'owner',
    scopes,
    expiry: null,
  });
}

function subscription(
  team: string,
  overrides: Partial<NewReportSubscription> = {},
): Promise<ReportSubscription> {
  return store.reports.create({
    team,
    kind: 'issues',
    channel: CHANNEL,
    owner: OWNER,
    profile: 'default',
    schedule: { type: 'every', minutes: 60 },
    nextRunAt: NOW,
    ...overrides,
  });
}

const ISSUES_DAILY = {
  kind: 'issues',
  schedule: { type: 'daily', time: '09:00', tz: 'UTC' },
  filter: {},
} as const;

describe('pauseReport', () => {
  it("refuses to pause another person's report to someone neither its owner nor an admin, and leaves it running", async () => {
    const team = newTeam();
    const sub = await subscription(team);
    const outcome = await pauseReport(deps(), caller(team, OTHER, { admin: false }), {
      report: { typed: sub.id.slice(0, 8) },
      reason: 'paused by someone else',
    });
    expect(outcome).toMatchObject({ kind: 'not_allowed', subscription: { id: sub.id } });
    expect((await store.reports.get(team, sub.id))?.paused).toBe(false);
  });

  it("lets a workspace admin pause another person's report", async () => {
    const team = newTeam();
    const sub = await subscription(team);
    const outcome = await pauseReport(deps(), caller(team, OTHER, { admin: true }), {
      report: { typed: sub.id.slice(0, 8) },
      reason: 'paused by an admin',
    });
    expect(outcome.kind).toBe('paused');
    expect(await store.reports.get(team, sub.id)).toMatchObject({
      paused: true,
      pauseReason: 'paused by an admin',
    });
  });

  it('lets the owner pause their report without asking the workspace whether they are an admin', async () => {
    const team = newTeam();
    const sub = await subscription(team);
    // `caller` without `admin` throws when asked.
    const outcome = await pauseReport(deps(), caller(team, OWNER), {
      report: { id: sub.id },
      reason: 'paused by the owner',
    });
    expect(outcome.kind).toBe('paused');
  });
});

describe('removeReport', () => {
  it("refuses to remove another person's report to someone neither its owner nor an admin, and keeps it", async () => {
    const team = newTeam();
    const sub = await subscription(team);
    const outcome = await removeReport(deps(), caller(team, OTHER, { admin: false }), {
      report: { id: sub.id },
    });
    expect(outcome.kind).toBe('not_allowed');
    expect(await store.reports.get(team, sub.id)).toBeDefined();
  });

  it("lets an admin the approval policy names remove another person's report", async () => {
    const team = newTeam();
    const sub = await subscription(team);
    await store.approvalPolicy.put(team, { admins: [OTHER] }, OWNER);
    const outcome = await removeReport(deps(), caller(team, OTHER, { admin: false }), {
      report: { typed: sub.id.slice(0, 8) },
    });
    expect(outcome.kind).toBe('removed');
    expect(await store.reports.get(team, sub.id)).toBeUndefined();
  });
});

describe('addReport', () => {
  it(`refuses a subscription beyond ${MAX_SUBSCRIPTIONS_PER_CHANNEL} in one channel, storing nothing and asking nothing of the API`, async () => {
    const team = newTeam();
    await link(team, OWNER, 'account:read_only');
    await Promise.all(Array.from({ length: MAX_SUBSCRIPTIONS_PER_CHANNEL }, () => subscription(team)));
    const api = unreachableApi();
    const outcome = await addReport(deps(api), caller(team, OWNER), ISSUES_DAILY);
    expect(outcome).toEqual({ kind: 'channel_full', count: MAX_SUBSCRIPTIONS_PER_CHANNEL });
    expect(await store.reports.list(team)).toHaveLength(MAX_SUBSCRIPTIONS_PER_CHANNEL);
    expect(api.calls()).toBe(0);
  });

  it("refuses a token without the kind's scope before any write, API read or channel check", async () => {
    const team = newTeam();
    await link(team, OWNER, 'events:read_only');
    const api = unreachableApi();
    const channels = openChannels();
    const outcome = await addReport(deps(api, channels), caller(team, OWNER), ISSUES_DAILY);
    expect(outcome).toEqual({ kind: 'scope_missing', profile: 'default', scopes: 'events:read_only' });
    expect(await store.reports.list(team)).toEqual([]);
    expect(api.calls()).toBe(0);
    expect(channels.asked).toEqual([]);
    expect((await store.tokenLinks.getLink(team, OWNER, 'default'))?.status).toBe('active');
  });

  it('marks a token the API rejects invalid, and subscribes nothing', async () => {
    const team = newTeam();
    // A token the emulator never issued: it answers 401.
    await link(team, OWNER, 'account:read_only', `never-issued-${randomUUID()}`);
    const api = { baseUrl: emulator.url, timeoutMs: 10_000 };
    const outcome = await addReport(deps(api), caller(team, OWNER), ISSUES_DAILY);
    expect(outcome).toEqual({ kind: 'token_rejected' });
    expect((await store.tokenLinks.getLink(team, OWNER, 'default'))?.status).toBe('invalid');
    expect(await store.reports.list(team)).toEqual([]);
  });
});

describe('resumeReport', () => {
  it("runs a resumed daily report next at the schedule's first time after now", async () => {
    const team = newTeam();
    await link(team, OWNER, 'account:read_only');
    const sub = await subscription(team, {
      schedule: { type: 'daily', time: '07:30', tz: 'UTC' },
      nextRunAt: new Date('2030-01-10T07:30:00.000Z'),
    });
    await store.reports.pause(team, sub.id, 'paused by the owner');
    const outcome = await resumeReport(deps(), caller(team, OWNER), { report: { id: sub.id } });
    // 07:30 has passed today at 09:00: tomorrow's, not the stored one from days ago.
    const tomorrow = new Date('2030-01-16T07:30:00.000Z');
    expect(outcome).toMatchObject({ kind: 'resumed', nextRunAt: tomorrow });
    expect(await store.reports.get(team, sub.id)).toMatchObject({ paused: false, nextRunAt: tomorrow });
  });
});

describe('checkReportRun', () => {
  it('refuses a run typed in another channel than the one the report posts in', async () => {
    const team = newTeam();
    await link(team, OWNER, 'account:read_only');
    const sub = await subscription(team, { channel: 'C0ELSEWHERE' });
    const outcome = await checkReportRun(deps(), caller(team, OWNER), {
      report: { typed: sub.id.slice(0, 8) },
    });
    expect(outcome.kind).toBe('elsewhere');
  });

  it('lets a report named by its whole id (a Home button) run wherever the person is', async () => {
    const team = newTeam();
    await link(team, OWNER, 'account:read_only');
    const sub = await subscription(team, { channel: 'C0ELSEWHERE' });
    const outcome = await checkReportRun(deps(), caller(team, OTHER), { report: { id: sub.id } });
    expect(outcome.kind).toBe('may_run');
  });
});

describe('runReportJob', () => {
  it("does not run a report paused since it was asked for, and names the report (whose owner's Home shows it)", async () => {
    const team = newTeam();
    const sub = await subscription(team);
    await store.reports.pause(team, sub.id, 'paused by the owner');
    const api = unreachableApi();
    const outcome = await runReportJob(
      {
        store,
        api,
        logger: new Logger({ serviceName: 'report-subscriptions-test', logLevel: 'SILENT' }),
        // Never reached: a paused report posts nothing.
        slack: createSlackWebClient('xoxb-never-used', 'http://slack.invalid/api/'),
        refreshHomes: async () => undefined,
      },
      { team, subscriptionId: sub.id, correlationId: randomUUID() },
    );
    expect(outcome).toMatchObject({ kind: 'is_paused', subscription: { id: sub.id, owner: OWNER } });
    expect(api.calls()).toBe(0);
  });
});
