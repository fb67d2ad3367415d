import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StoredMessage } from '../../../infra/local/slack/store.js';
import { getOperation } from '../../../lib/api/operations/index.js';
import { AlertClaimRepository } from '../../../lib/store/alert-claims.js';
import { AlertSnoozeRepository } from '../../../lib/store/alert-snoozes.js';
import { slackFixtures } from '../../support/slack-fixtures.js';
import { type ReporterHarness, startReporterHarness, TEAM } from './harness.js';

/**
 * Alerts that do not shout: a burst of new issues as one message and a thread, quiet hours held
 * and summed up, snoozes from the alert, a flapping issue counted. Driven by the reporter's clock
 * (the emulator's, which the store and the Slack stand-in read too), against DynamoDB Local, the
 * emulator over HTTP and the Slack stand-in, which withholds chosen answers as a lost connection
 * would.
 */

const MINUTE = 60_000;
/** Past the claims' lease: an alert left in doubt may be checked and resolved. */
const PAST_LEASE = 6 * MINUTE;

let harness: ReporterHarness;

beforeAll(async () => {
  harness = await startReporterHarness({
    stack: {
      slack: slackFixtures({
        channels: [
          'C0BURST',
          'C0BURSTCUT',
          'C0FEW',
          'C0QUIET',
          'C0QUIETDOWN',
          'C0QUIETEV',
          'C0SNOOZE',
          'C0FLAP',
          'C0FLAPBACK',
          'C0FLAPCUT',
          'C0FLAPLOST',
          'C0FLAPBURST',
        ],
        people: ['U0NOISE', 'U0ONCALL'],
      }),
    },
  });
});

afterAll(async () => {
  await harness?.close();
});

afterEach(async () => {
  harness.e2e.stack.standIn.stall(undefined);
  await harness.clearSubscriptions();
});

/** Subscribes `channel` to alerts (issues open now are not alerted) and returns the subscription's short id. */
async function subscribeAlerts(channel: string, user = 'U0NOISE'): Promise<string> {
  await harness.link(user, user.toLowerCase());
  const reply = await harness.reports(user, channel, 'reports add alerts');
  expect(reply.text).toContain('subscribed this channel');
  const sub = (await harness.subscriptions()).find((s) => s.channel === channel);
  if (!sub) throw new Error('nothing was subscribed');
  return sub.id.slice(0, 8);
}

function createIssues(count: number, prefix: string): number[] {
  return Array.from(
    { length: count },
    (_, i) => harness.e2e.emulator.control.createManagedIssue({ label: `${prefix} ${i + 1}` }).id,
  );
}

/** The bot's messages in the channel itself, not in a thread. */
function topLevel(channel: string): StoredMessage[] {
  return harness.posted(channel).filter((m) => (m.thread_ts ?? m.ts) === m.ts);
}

function repliesTo(channel: string, parent: StoredMessage | undefined): StoredMessage[] {
  return harness.posted(channel).filter((m) => m.thread_ts === parent?.ts && m.ts !== parent?.ts);
}

/** How often each issue's own alert was posted in `channel`, in the channel or a thread. */
function alertCounts(channel: string, issues: readonly number[]): number[] {
  const texts = harness.posted(channel).map((m) => m.text);
  return issues.map((id) => texts.filter((text) => text.startsWith(`New managed issue ${id}:`)).length);
}

describe('a burst of new issues', () => {
  it('posts 5 new issues of one run as one message listing them, each alert with its buttons in its thread', async () => {
    const channel = 'C0BURST';
    await subscribeAlerts(channel);
    const issues = createIssues(5, 'burst');
    harness.advance(5 * MINUTE);
    const summary = await harness.tick();
    expect(summary.alertsPosted).toBe(5);

    const [message, ...others] = topLevel(channel);
    expect(others).toEqual([]);
    expect(message?.text).toContain('5 new managed issues');
    const text = harness.e2e.textOf(message as StoredMessage);
    for (const id of issues) expect(text).toContain(`*Issue ${id}*`);
    const replies = repliesTo(channel, message);
    expect(replies.map((m) => m.text.split(':')[0])).toEqual(issues.map((id) => `New managed issue ${id}`));
    expect(JSON.stringify(replies[0]?.blocks)).toContain('View issue');
    expect(alertCounts(channel, issues)).toEqual([1, 1, 1, 1, 1]);
  });

  it('posts fewer new issues than the burst size one message each', async () => {
    const channel = 'C0FEW';
    await subscribeAlerts(channel);
    const issues = createIssues(2, 'few');
    harness.advance(5 * MINUTE);
    await harness.tick();
    expect(topLevel(channel).map((m) => m.text.split(':')[0])).toEqual(
      issues.map((id) => `New managed issue ${id}`),
    );
  });

  it('cut off mid-burst (a reply sent, its answer lost, the deadline reached), posts every alert exactly once over the next runs', async () => {
    const channel = 'C0BURSTCUT';
    const id = await subscribeAlerts(channel);
    await harness.reports('U0NOISE', channel, `reports set ${id} --burst 4`);
    const issues = createIssues(6, 'cut');
    const third = issues[2] as number;
    harness.advance(5 * MINUTE);
    harness.e2e.stack.standIn.stall((method, args) =>
      method === 'chat.postMessage' && String(args.text).startsWith(`New managed issue ${third}:`)
        ? 'answer_lost'
        : undefined,
    );
    const cut = await harness.tickWithDeadline(1500);
    harness.e2e.stack.standIn.stall(undefined);
    expect(cut.alertsPosted).toBe(2);
    expect(alertCounts(channel, issues)).toEqual([1, 1, 1, 0, 0, 0]);

    // At once, within the claims' lease: the third is left to its holder, nothing is posted twice;
    // the three the cut run never sent are replied into the same group's thread.
    await harness.tick();
    expect(alertCounts(channel, issues)).toEqual([1, 1, 1, 1, 1, 1]);
    const [group, ...others] = topLevel(channel);
    expect(others).toEqual([]);
    expect(repliesTo(channel, group)).toHaveLength(6);

    // After the lease: the third is found in the group's thread and only marked.
    harness.advance(PAST_LEASE);
    await harness.tick();
    harness.advance(5 * MINUTE);
    await harness.tick();
    expect(alertCounts(channel, issues)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(topLevel(channel)).toHaveLength(1);
    const sub = (await harness.subscriptions()).find((s) => s.channel === channel);
    const claims = await harness.deps.store.alertClaims.listForSubscription(TEAM, sub?.id ?? '');
    expect(claims.filter((c) => c.status !== 'posted')).toEqual([]);
    expect([...(sub?.seenIssueIds ?? [])]).toEqual(expect.arrayContaining(issues));
  }, 60_000);
});

/** `HH:MM` in UTC, `minutes` from the shared clock's now, rounded down to the minute. */
function utcClock(minutes: number): string {
  return new Date(harness.now().getTime() + minutes * MINUTE).toISOString().slice(11, 16);
}

/** Quiet hours from 10 to 70 minutes from now (UTC), set with the command; returns when they end. */
async function quietSoon(channel: string, id: string): Promise<void> {
  const reply = await harness.reports(
    'U0NOISE',
    channel,
    `reports quiet ${id} ${utcClock(10)}-${utcClock(70)}`,
  );
  expect(reply.text).toContain('quiet ');
}

describe('quiet hours', () => {
  it('hold the alerts found while quiet, then post them as one summary with each alert in its thread at the first run after', async () => {
    const channel = 'C0QUIET';
    const id = await subscribeAlerts(channel);
    await quietSoon(channel, id);
    harness.advance(15 * MINUTE);
    const issues = createIssues(2, 'at night');
    await harness.tick();
    harness.advance(5 * MINUTE);
    await harness.tick();
    expect(harness.posted(channel).filter((m) => m.via === 'chat.postMessage')).toEqual([]);
    // Held, not swallowed: the seen set does not have them.
    const sub = (await harness.subscriptions()).find((s) => s.channel === channel);
    for (const issue of issues) expect(sub?.seenIssueIds.has(issue)).toBe(false);

    harness.advance(55 * MINUTE);
    await harness.tick();
    const [summary, ...others] = topLevel(channel).filter((m) => m.via === 'chat.postMessage');
    expect(others).toEqual([]);
    expect(harness.e2e.textOf(summary as StoredMessage)).toContain('while this channel was quiet');
    expect(repliesTo(channel, summary).map((m) => m.text.split(':')[0])).toEqual(
      issues.map((issue) => `New managed issue ${issue}`),
    );
    harness.advance(5 * MINUTE);
    await harness.tick();
    expect(alertCounts(channel, issues)).toEqual([1, 1]);
  });

  it('ending while the reporter was down for two runs, post one summary, not two', async () => {
    const channel = 'C0QUIETDOWN';
    const id = await subscribeAlerts(channel);
    await quietSoon(channel, id);
    harness.advance(15 * MINUTE);
    // Fewer than a burst: only the end of the quiet hours makes them one message.
    const issues = createIssues(2, 'overnight');
    await harness.tick();
    // The reporter is down from before the end of the quiet hours until two runs after it.
    harness.advance(65 * MINUTE);
    await harness.tick();
    harness.advance(5 * MINUTE);
    await harness.tick();
    const summaries = topLevel(channel).filter((m) => m.via === 'chat.postMessage');
    expect(summaries).toHaveLength(1);
    expect(harness.e2e.textOf(summaries[0] as StoredMessage)).toContain('while this channel was quiet');
    expect(alertCounts(channel, issues)).toEqual([1, 1]);
  });

  it('hold the account events of an events subscription and post them as one summary when they end', async () => {
    const channel = 'C0QUIETEV';
    await harness.link('U0NOISE', 'u0noise', {
      scopes: 'account:read_only events:read_only volumes:read_only',
    });
    expect((await harness.reports('U0NOISE', channel, 'reports add events')).text).toContain('subscribed');
    const id = (await harness.subscriptions()).find((s) => s.channel === channel)?.id.slice(0, 8) ?? '';
    await quietSoon(channel, id);
    harness.advance(15 * MINUTE);
    const volumes = await harness.api().listAll(getOperation('volumes.list'), {});
    const volumeId = volumes.data[0]?.id ?? 0;
    for (const label of ['quiet-1', 'quiet-2']) await renameDirectly(volumeId, label);
    await harness.tick();
    harness.advance(5 * MINUTE);
    await harness.tick();
    expect(harness.posted(channel).filter((m) => m.via === 'chat.postMessage')).toEqual([]);

    harness.advance(55 * MINUTE);
    await harness.tick();
    const [summary, ...others] = harness.posted(channel).filter((m) => m.via === 'chat.postMessage');
    expect(others).toEqual([]);
    const text = harness.e2e.textOf(summary as StoredMessage);
    expect(text).toContain('2 account events while this channel was quiet');
    expect(text).toContain('quiet-1');
    expect(text).toContain('quiet-2');
  });
});

/** Renames a volume with a plain HTTP call to the emulator, as a script outside the bot would. */
async function renameDirectly(volumeId: number, label: string): Promise<void> {
  const response = await fetch(`${harness.e2e.emulator.url}/volumes/${volumeId}`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${harness.e2e.emulator.demoToken}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ label }),
  });
  expect(response.status).toBe(200);
}

describe('snoozing from an alert', () => {
  /** A monitored service of the emulator and a subscription of C0SNOOZE that has learned what is open. */
  async function snoozeSetup(): Promise<{ service: { id: number; label: string } }> {
    const service = [...harness.e2e.emulator.control.world.services.values()].find(
      (s) => s.status !== 'disabled',
    );
    if (!service) throw new Error('the emulator has no monitored service');
    await subscribeAlerts('C0SNOOZE');
    harness.advance(5 * MINUTE);
    await harness.tick();
    return { service };
  }

  async function alertOf(label: string, service: number): Promise<{ id: number; alert: StoredMessage }> {
    const { id } = harness.e2e.emulator.control.createManagedIssue({ services: [service], label });
    harness.advance(5 * MINUTE);
    await harness.tick();
    const alert = harness.posted('C0SNOOZE').find((m) => m.text.startsWith(`New managed issue ${id}:`));
    if (!alert) throw new Error(`no alert for issue ${id}`);
    return { id, alert };
  }

  async function choose(user: string, alert: StoredMessage, option: string): Promise<void> {
    const delivery = await harness.e2e.stack.workspace.click(user, alert, {
      actionId: 'report:snooze',
      option,
    });
    expect(delivery.status).toBe(200);
    await harness.e2e.stack.drain();
  }

  it("snoozed for 1 h, a service's new alerts are held, and one still open when the snooze ends is posted then, once", async () => {
    const { service } = await snoozeSetup();
    const { alert } = await alertOf('first outage', service.id);
    await choose('U0ONCALL', alert, `Snooze ${service.label} for 1 h`);
    const said = harness.e2e.textOf(harness.e2e.lastSeen('U0NOISE', 'C0SNOOZE'));
    expect(said).toContain(`<@U0ONCALL> snoozed the alerts of service ${service.id} until`);

    const held = harness.e2e.emulator.control.createManagedIssue({ services: [service.id], label: 'again' });
    harness.advance(5 * MINUTE);
    await harness.tick();
    expect(alertCounts('C0SNOOZE', [held.id])).toEqual([0]);
    const listed = await harness.reports('U0NOISE', 'C0SNOOZE', 'reports snoozes');
    expect(listed.text).toContain(`service ${service.id} until`);
    expect(listed.text).toContain('<@U0ONCALL>');

    harness.advance(60 * MINUTE);
    await harness.tick();
    harness.advance(5 * MINUTE);
    await harness.tick();
    expect(alertCounts('C0SNOOZE', [held.id])).toEqual([1]);
    const audit = await harness.deps.store.audit.list(TEAM, { limit: 20 });
    expect(audit.entries.find((e) => e.action === 'reports.snooze')?.actor).toBe('U0ONCALL');
  });

  it('chosen twice, leaves one snooze; unsnooze ends it and the next alert is posted', async () => {
    const { service } = await snoozeSetup();
    const { alert } = await alertOf('twice', service.id);
    await choose('U0ONCALL', alert, `Snooze ${service.label} until resolved`);
    await choose('U0ONCALL', alert, `Snooze ${service.label} until resolved`);
    const listed = await harness.reports('U0NOISE', 'C0SNOOZE', 'reports snoozes');
    expect(listed.text.match(/• service/g)).toHaveLength(1);
    expect(listed.text).toContain('until it is resolved');

    const ended = await harness.reports('U0NOISE', 'C0SNOOZE', `reports unsnooze service ${service.id}`);
    expect(ended.text).toContain(`ended the snooze of service ${service.id}`);
    const next = harness.e2e.emulator.control.createManagedIssue({ services: [service.id], label: 'after' });
    harness.advance(5 * MINUTE);
    await harness.tick();
    expect(alertCounts('C0SNOOZE', [next.id])).toEqual([1]);
  });

  it('storage failing while recording it, tells the clicker it may not have been recorded, and the alerts go on', async () => {
    const { service } = await snoozeSetup();
    const { alert } = await alertOf('storage down', service.id);
    // DynamoDB answers the write with a 500, as it does in an outage.
    const failure = Object.assign(new Error('Internal server error'), { name: 'InternalServerError' });
    const put = vi.spyOn(AlertSnoozeRepository.prototype, 'put').mockRejectedValue(failure);
    try {
      await choose('U0ONCALL', alert, `Snooze ${service.label} for 4 h`);
    } finally {
      put.mockRestore();
    }
    const said = harness.e2e.textOf(harness.e2e.lastSeen('U0ONCALL', 'C0SNOOZE'));
    expect(said).toContain('may not have been recorded');
    const next = harness.e2e.emulator.control.createManagedIssue({
      services: [service.id],
      label: 'still on',
    });
    harness.advance(5 * MINUTE);
    await harness.tick();
    expect(alertCounts('C0SNOOZE', [next.id])).toEqual([1]);
  });
});

describe('a flapping issue', () => {
  /** Subscribes `channel`, then opens an issue and runs until its alert is posted. */
  async function alerted(channel: string): Promise<{ issue: number; alert: StoredMessage }> {
    await subscribeAlerts(channel);
    harness.advance(5 * MINUTE);
    await harness.tick();
    const [issue] = createIssues(1, `flapping in ${channel}`);
    harness.advance(5 * MINUTE);
    await harness.tick();
    const alert = topLevel(channel).find((m) => m.text.startsWith(`New managed issue ${issue}:`));
    if (issue === undefined || !alert) throw new Error('no alert');
    return { issue, alert };
  }

  /** The feed stops listing the issue (closed, as the API tells it), and a run sees that. */
  async function close(issue: number): Promise<(tick?: () => Promise<unknown>) => Promise<void>> {
    const { issues } = harness.e2e.emulator.control.world;
    const record = issues.get(issue);
    if (!record) throw new Error(`no issue ${issue}`);
    issues.delete(issue);
    harness.advance(5 * MINUTE);
    await harness.tick();
    return async (tick = () => harness.tick()) => {
      issues.set(issue, record);
      harness.advance(5 * MINUTE);
      await tick();
    };
  }

  async function claimOf(channel: string, issue: number) {
    const sub = (await harness.subscriptions()).find((s) => s.channel === channel);
    const claims = await harness.deps.store.alertClaims.listForSubscription(TEAM, sub?.id ?? '');
    return claims.find((c) => c.issue === issue);
  }

  it('closed and reopened twice within the window, is alerted once, with a reply counting each reopening in its thread', async () => {
    const channel = 'C0FLAP';
    const { issue, alert } = await alerted(channel);
    await (await close(issue))();
    await (await close(issue))();
    harness.advance(5 * MINUTE);
    await harness.tick();

    expect(alertCounts(channel, [issue])).toEqual([1]);
    expect(topLevel(channel)).toEqual([alert]);
    expect(repliesTo(channel, alert).map((m) => m.text)).toEqual([
      `Issue ${issue} reopened — the 2nd time, each within an hour of closing: it is flapping`,
      `Issue ${issue} reopened — the 3rd time, each within an hour of closing: it is flapping`,
    ]);
    expect(await claimOf(channel, issue)).toMatchObject({ reopenCount: 2, toldCount: 2, closedAt: null });
  });

  it('back after the flapping window, is alerted again as a new top-level message', async () => {
    const channel = 'C0FLAPBACK';
    const { issue, alert } = await alerted(channel);
    const reopen = await close(issue);
    for (let run = 0; run < 12; run += 1) {
      harness.advance(5 * MINUTE);
      await harness.tick();
    }
    await reopen();

    expect(alertCounts(channel, [issue])).toEqual([2]);
    expect(topLevel(channel)).toHaveLength(2);
    expect(repliesTo(channel, alert)).toEqual([]);
  });

  it('cut off between counting the reopening and posting its reply, counts it once and replies once on the next run', async () => {
    const channel = 'C0FLAPCUT';
    const { issue, alert } = await alerted(channel);
    const reopen = await close(issue);
    const failure = Object.assign(new Error('Internal server error'), { name: 'InternalServerError' });
    const take = vi.spyOn(AlertClaimRepository.prototype, 'takeTelling').mockRejectedValueOnce(failure);
    try {
      await reopen();
    } finally {
      take.mockRestore();
    }
    expect(repliesTo(channel, alert)).toEqual([]);
    expect(await claimOf(channel, issue)).toMatchObject({ reopenCount: 1, toldCount: 0 });

    harness.advance(5 * MINUTE);
    await harness.tick();
    harness.advance(5 * MINUTE);
    await harness.tick();
    expect(repliesTo(channel, alert).map((m) => m.text)).toEqual([
      `Issue ${issue} reopened — the 2nd time, each within an hour of closing: it is flapping`,
    ]);
    expect(await claimOf(channel, issue)).toMatchObject({ reopenCount: 1, toldCount: 1 });
    expect(alertCounts(channel, [issue])).toEqual([1]);
  });

  it("losing Slack's answer to the reopening's reply, does not reply twice", async () => {
    const channel = 'C0FLAPLOST';
    const { issue, alert } = await alerted(channel);
    const reopen = await close(issue);
    harness.e2e.stack.standIn.stall((method, args) =>
      method === 'chat.postMessage' && String(args.text).startsWith(`Issue ${issue} reopened`)
        ? 'answer_lost'
        : undefined,
    );
    // The reply's answer never comes: the run's deadline ends it.
    await reopen(() => harness.tickWithDeadline(1500));
    harness.e2e.stack.standIn.stall(undefined);
    harness.advance(PAST_LEASE);
    await harness.tick();
    expect(repliesTo(channel, alert)).toHaveLength(1);
    expect(alertCounts(channel, [issue])).toEqual([1]);
  });

  it("alerted in a burst's thread, is told of its reopening in that thread", async () => {
    const channel = 'C0FLAPBURST';
    await subscribeAlerts(channel);
    harness.advance(5 * MINUTE);
    await harness.tick();
    const issues = createIssues(3, 'flapping burst');
    harness.advance(5 * MINUTE);
    await harness.tick();
    const [group, ...others] = topLevel(channel);
    expect(others).toEqual([]);
    const last = issues[2] as number;
    await (await close(last))();

    expect(topLevel(channel)).toEqual([group]);
    expect(repliesTo(channel, group).map((m) => m.text.split(':')[0])).toEqual([
      ...issues.map((id) => `New managed issue ${id}`),
      `Issue ${last} reopened — the 2nd time, each within an hour of closing`,
    ]);
  });
});
