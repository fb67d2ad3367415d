import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StallMode } from '../../../infra/local/slack/server.js';
import { type ReporterHarness, startReporterHarness, TEAM } from './harness.js';

/**
 * New-issue alerts posted exactly once by a bot distributed outside the Marketplace, which Slack
 * allows one `conversations.history` call a minute per workspace, 15 messages a call. Alerts whose
 * answers were lost are in doubt; checking them needs more than one page of a busy channel, and one
 * check is refused with a 429. Five reporter runs: none posted twice, none lost.
 */

const MINUTE = 60_000;
/** Past the claims' lease: an alert left in doubt by a lost answer may be checked. */
const PAST_LEASE = 6 * MINUTE;
const CHANNEL = 'C0OPS';
const USER = 'U0ALICE';

let harness: ReporterHarness;

beforeAll(async () => {
  harness = await startReporterHarness({ stack: { slack: { botTokenInstall: 'distributed' } } });
});

afterAll(async () => {
  await harness?.close();
});

function alertCounts(issues: readonly number[]): number[] {
  const texts = harness.posted(CHANNEL).map((m) => m.text);
  return issues.map((id) => texts.filter((text) => text.startsWith(`New managed issue ${id}:`)).length);
}

function stallAlertOf(issue: number, mode: StallMode): void {
  harness.e2e.stack.standIn.stall((method, args) =>
    method === 'chat.postMessage' && String(args.text).startsWith(`New managed issue ${issue}:`)
      ? mode
      : undefined,
  );
}

/** People talking in the channel: more than one page of history above the alerts. */
function chatter(count: number): void {
  for (let i = 0; i < count; i++) {
    harness.e2e.stack.standIn.store.addMessage({
      channel: CHANNEL,
      user: 'U0BOB',
      text: `chatter ${i}`,
      blocks: [],
      ephemeral: false,
      via: 'chat.postMessage',
    });
  }
}

describe('alerts within the history limits of a distributed install', () => {
  it('posts each alert once over five runs with lost answers, 15-message pages and a refused check', async () => {
    await harness.link(USER, 'alice');
    const added = await harness.reports(USER, CHANNEL, 'reports add alerts');
    expect(added.text).toContain('subscribed this channel');
    const sub = (await harness.subscriptions()).find((s) => s.channel === CHANNEL);
    if (!sub) throw new Error('nothing was subscribed');
    // One message per alert, the path these runs check (a burst is `alerts-noise.test.ts`'s).
    await harness.deps.store.reports.setNoise(TEAM, sub.id, { ...sub.noise, burstAt: 50 });
    const issues = [1, 2, 3].map(
      (i) => harness.e2e.emulator.control.createManagedIssue({ label: `incident ${i}` }).id,
    );
    const [first, second] = issues as [number, number, number];
    const { store } = harness.e2e.stack.standIn;
    harness.advance(5 * MINUTE);

    // Run 1: the first alert is posted but its answer is lost; the run ends in doubt.
    stallAlertOf(first, 'answer_lost');
    await harness.tickWithDeadline(2000);
    harness.e2e.stack.standIn.stall(undefined);
    expect(alertCounts(issues)).toEqual([1, 0, 0]);
    chatter(20);

    // Run 2, past the lease: one page of 15 (all chatter) is all a minute allows; still in doubt.
    harness.advance(PAST_LEASE);
    const reads = store.callsTo('conversations.history').length;
    await harness.tickWithDeadline(10_000);
    expect(alertCounts(issues)).toEqual([1, 0, 0]);
    const run2Reads = store.callsTo('conversations.history').slice(reads);
    expect(run2Reads).toHaveLength(1);
    expect(Number(run2Reads[0]?.body.limit)).toBeLessThanOrEqual(15);

    // Run 3, two minutes on: the check carries on below the chatter and finds the post; the
    // second alert's answer is lost in turn.
    harness.advance(2 * MINUTE);
    stallAlertOf(second, 'answer_lost');
    await harness.tickWithDeadline(2000);
    harness.e2e.stack.standIn.stall(undefined);
    expect(alertCounts(issues)).toEqual([1, 1, 0]);

    // Run 4, past the lease, but a history read made just before uses up the minute: Slack answers
    // 429, and the alert stays in doubt instead of being posted again.
    harness.advance(PAST_LEASE);
    await harness.deps.slack.conversations.history({ channel: 'C0GENERAL', limit: 1 });
    const before429 = store.callsTo('conversations.history').length;
    await harness.tickWithDeadline(10_000);
    expect(
      store
        .callsTo('conversations.history')
        .slice(before429)
        .map((c) => c.error),
    ).toEqual(['ratelimited']);
    expect(alertCounts(issues)).toEqual([1, 1, 0]);

    // Run 5, two minutes on: found and marked; the third alert goes out.
    harness.advance(2 * MINUTE);
    await harness.tickWithDeadline(10_000);
    expect(alertCounts(issues)).toEqual([1, 1, 1]);

    const claims = await harness.deps.store.alertClaims.listForSubscription(TEAM, sub.id);
    expect(claims.map((c) => [c.issue, c.status]).sort()).toEqual(issues.map((id) => [id, 'posted']).sort());
    const posted = new Map(harness.posted(CHANNEL).map((m) => [m.text.split(':')[0], m.ts]));
    for (const claim of claims) expect(claim.messageTs).toBe(posted.get(`New managed issue ${claim.issue}`));
    // Never more than one history read a minute in the workspace.
    const times = store
      .callsTo('conversations.history')
      .filter((c) => c.ok)
      .map((c) => c.at);
    for (let i = 1; i < times.length; i++)
      expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThanOrEqual(MINUTE);
  }, 90_000);
});
