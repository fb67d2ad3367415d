import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDbLocal } from '../../../infra/local/dynamodb.js';
import { getOperation } from '../../../lib/api/operations/index.js';
import { runReporterTick } from '../../../lib/reports/tick.js';
import { openTable } from '../../../lib/runtime.js';
import { createStore, type Store } from '../../../lib/store/index.js';
import { LocalKeyTokenCipher } from '../../../lib/store/token-cipher.js';
import { startOwnDynamoDbLocal } from '../../support/dynamodb-local.js';
import { slackFixtures } from '../../support/slack-fixtures.js';
import { type ReporterHarness, startReporterHarness, TEAM } from './harness.js';

/**
 * DynamoDB freezing (SIGSTOP) in the middle of an alert batch, right after Slack accepted an alert:
 * the claim of that alert cannot be marked, the seen issues cannot be saved. The run says so in its
 * summary, and once DynamoDB is back every issue has been alerted exactly once — the one alert left
 * in doubt is resolved from the channel's history.
 *
 * This file starts its own DynamoDB Local: the global setup's is shared with every other test file
 * and is never frozen.
 */

const MINUTE = 60_000;
const CHANNEL = 'C0FROZEN';
const USER = 'U0BOB';

let dynamo: DynamoDbLocal;
let harness: ReporterHarness;
/** The reporter's store as in AWS (bounded calls), with tight timeouts so the test is short. */
let store: Store;

beforeAll(async () => {
  dynamo = await startOwnDynamoDbLocal({ tableName: null });
  harness = await startReporterHarness({
    stack: { dynamoEndpoint: dynamo.endpoint, slack: slackFixtures({ channels: ['C0FROZEN'] }) },
  });
  const table = openTable(
    {
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      DYNAMODB_CONNECT_TIMEOUT_MS: 300,
      DYNAMODB_REQUEST_TIMEOUT_MS: 800,
      DYNAMODB_MAX_ATTEMPTS: 2,
    },
    'background',
  );
  store = createStore(
    { table, tableName: harness.e2e.stack.tableName, now: harness.now },
    new LocalKeyTokenCipher(randomBytes(32)),
  );
}, 60_000);

afterAll(async () => {
  // A frozen JVM ignores SIGTERM until it runs again.
  if (dynamo) signalGroup(dynamo.pid, 'SIGCONT');
  await harness?.close();
  await dynamo?.stop();
});

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

function alertCounts(issues: readonly number[]): number[] {
  const texts = harness.posted(CHANNEL).map((m) => m.text);
  return issues.map((id) => texts.filter((text) => text.startsWith(`New managed issue ${id}:`)).length);
}

describe('alerts while DynamoDB freezes', () => {
  it('list the unsaved claim mark and seen issues in the summary, then alert each issue exactly once', async () => {
    const { control } = harness.e2e.emulator;
    control.createUser({ username: 'bob' });
    const { token } = control.createToken('bob', {
      scopes: 'account:read_only',
      expiry: null,
      label: 'frozen',
    });
    await store.tokenLinks.saveLink({
      team: TEAM,
      user: USER,
      profile: 'default',
      token,
      label: 'frozen',
      apiUsername: 'bob',
      scopes: 'account:read_only',
      expiry: null,
    });
    const sub = await store.reports.create({
      team: TEAM,
      kind: 'alerts',
      channel: CHANNEL,
      owner: USER,
      profile: 'default',
      schedule: { type: 'every', minutes: 5 },
      nextRunAt: harness.now(),
    });
    // One message per alert, the path this outage cuts (a burst is `alerts-noise.test.ts`'s).
    await store.reports.setNoise(TEAM, sub.id, { ...sub.noise, burstAt: 50 });
    const open = (await harness.api().listAll(getOperation('managed.issues-list'), {})).data as {
      id: number;
    }[];
    await store.reports.advance(sub, new Date(harness.now().getTime() + 5 * MINUTE), {
      lastRunAt: harness.now(),
      lastRunStatus: 'ok',
      seenIssueIds: open.map((issue) => issue.id),
    });
    const issues = Array.from(
      { length: 5 },
      (_, i) => control.createManagedIssue({ label: `outage ${i}` }).id,
    );
    harness.advance(5 * MINUTE);

    // Freeze DynamoDB the moment Slack stores the second alert, before the bot hears back.
    let posted = 0;
    const freezeOnSecond = (change: { kind: string; message?: { channel: string } }) => {
      if (change.kind === 'message_added' && change.message?.channel === CHANNEL && ++posted === 2) {
        signalGroup(dynamo.pid, 'SIGSTOP');
      }
    };
    harness.e2e.stack.standIn.store.on('change', freezeOnSecond);
    const deps = { ...harness.deps, store };
    let frozen: Awaited<ReturnType<typeof runReporterTick>>;
    try {
      frozen = await runReporterTick(deps, harness.now(), { deadline: Date.now() + 60_000 });
    } finally {
      harness.e2e.stack.standIn.store.off('change', freezeOnSecond);
      signalGroup(dynamo.pid, 'SIGCONT');
    }

    expect(frozen.alertsPosted).toBe(2);
    expect(alertCounts(issues)).toEqual([1, 1, 0, 0, 0]);
    // What was posted but not recorded is named, never `failures: []`.
    expect(frozen.failures.map((f) => [f.step, f.reason])).toEqual(
      expect.arrayContaining([
        ['alert_mark', 'storage_unavailable'],
        ['seen_issues', 'storage_unavailable'],
      ]),
    );
    // At most one alert in doubt: the second (a timed-out mark may still have landed meanwhile).
    const claims = await store.alertClaims.listForSubscription(TEAM, sub.id);
    const inDoubt = claims.filter((c) => c.status === 'posting').map((c) => c.issue);
    expect(inDoubt.length).toBeLessThanOrEqual(1);
    for (const issue of inDoubt) expect(issue).toBe(issues[1]);

    // DynamoDB is back. After the lease, runs resolve the doubt from the channel and carry on.
    const historyReads = harness.e2e.stack.standIn.store.callsTo('conversations.history').length;
    harness.advance(6 * MINUTE);
    const resumed = await runReporterTick(deps, harness.now(), { deadline: Date.now() + 60_000 });
    expect(resumed.failures).toEqual([]);
    expect(resumed.alertsPosted).toBe(3);
    // The frozen run's timed-out mark may land after the thaw, before or after `inDoubt` was
    // read: either way at most the one alert in doubt needs a look at the channel.
    expect(harness.e2e.stack.standIn.store.callsTo('conversations.history').length).toBeLessThanOrEqual(
      historyReads + 1,
    );
    harness.advance(5 * MINUTE);
    expect((await runReporterTick(deps, harness.now())).alertsPosted).toBe(0);

    expect(alertCounts(issues)).toEqual([1, 1, 1, 1, 1]);
    const after = await store.alertClaims.listForSubscription(TEAM, sub.id);
    expect(after.filter((c) => issues.includes(c.issue)).every((c) => c.status === 'posted')).toBe(true);
  }, 90_000);
});
