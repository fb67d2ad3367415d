import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../../infra/local/emulator/account-events.js';
import { getOperation } from '../../../lib/api/operations/index.js';
import { slackFixtures } from '../../support/slack-fixtures.js';
import { type ReporterHarness, startReporterHarness, TEAM } from './harness.js';

/**
 * The events report end to end: DynamoDB Local, the emulator over HTTP and the Slack stand-in. A
 * change made straight through the emulator's API (no Slack, no bot) is posted once, as made
 * outside the bot; the same change made through the bot's runner names the Slack user.
 */

const SCOPES = 'events:read_only volumes:read_write account:read_write';
let harness: ReporterHarness;

beforeAll(async () => {
  harness = await startReporterHarness({
    stack: { slack: slackFixtures({ channels: ['C0EVENTS', 'C0FILTER', 'C0GROUP', 'C0CUT'] }) },
  });
});

afterAll(async () => {
  await harness?.close();
});

afterEach(async () => {
  harness.e2e.stack.standIn.stall(undefined);
  await harness.clearSubscriptions();
});

async function subscribeEvents(user: string, channel: string, flags = ''): Promise<void> {
  await harness.link(user, user.toLowerCase(), { scopes: SCOPES });
  const reply = await harness.reports(user, channel, `reports add events${flags}`);
  expect(reply.text).toContain('subscribed this channel');
}

async function aVolumeId(): Promise<number> {
  const volumes = await harness.api().listAll(getOperation('volumes.list'), {});
  const volume = volumes.data[0];
  if (!volume) throw new Error('the demo account has no volume');
  return volume.id;
}

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

/** Each event the report posted in `channel`, one line each (`… · event \`500123\``), oldest first. */
function eventTexts(channel: string): string[] {
  return harness
    .posted(channel)
    .filter((m) => m.metadata?.event_type === 'account_event')
    .flatMap((m) => m.blocks as { text?: { text?: string } }[])
    .flatMap((block) => {
      const text = block.text?.text;
      return text?.includes(' · event `') ? [text] : [];
    });
}

/** The line of one event, matched by its id. */
const eventId = (id: number) => `event \`${id}\``;

/** 1,200 events from two days ago, made outside the bot: three of the API's pages. */
function recordOldEvents(volumeId: number, labelPrefix: string): void {
  const control = harness.e2e.emulator.control;
  const twoDaysAgo = control.now() - 2 * 24 * 60 * 60_000;
  for (let i = 0; i < 1200; i += 1) {
    recordEvent(control.world, {
      action: 'volume_update',
      entity: { id: volumeId, label: `${labelPrefix}-${i}`, type: 'volume', url: `/v4/volumes/${volumeId}` },
      username: 'someone-else',
      at: twoDaysAgo + i * 1000,
    });
  }
}

/** Ticks once the subscription is due again (every 5 minutes by default). */
async function tickLater() {
  harness.advance(5 * 60_000);
  return harness.tick();
}

describe('events report', () => {
  it('posts a change made directly through the API once, as made outside the bot, over two runs', async () => {
    const channel = 'C0EVENTS';
    const volumeId = await aVolumeId();
    await renameDirectly(volumeId, 'before-subscribing');
    await subscribeEvents('U0EVA', channel);

    await renameDirectly(volumeId, 'renamed-outside');
    await tickLater();
    await tickLater();

    const texts = eventTexts(channel);
    const updates = texts.filter((text) => text.includes('renamed-outside'));
    expect(updates).toHaveLength(1);
    expect(updates[0]).toContain('Volume *renamed-outside* updated');
    expect(updates[0]).toContain('outside the bot');
    expect(updates[0]).not.toContain('through the bot');
    // The event of before subscribing was learned, not posted.
    expect(texts.join('\n')).not.toContain('before-subscribing');
  });

  it('says who made a change through the bot', async () => {
    const channel = 'C0EVENTS';
    const volumeId = await aVolumeId();
    await subscribeEvents('U0EVA', channel);
    await harness.link('U0BOTUSER', 'botuser', { scopes: SCOPES });

    // A signed slash command, as the person types it in the channel.
    const command = await harness.e2e.stack.workspace.command(
      'U0BOTUSER',
      channel,
      `volumes update ${volumeId} --label renamed-by-bot`,
    );
    expect(command.status).toBe(200);
    await harness.e2e.stack.drain();
    expect((await harness.api().call(getOperation('volumes.view'), { volumeId })).label).toBe(
      'renamed-by-bot',
    );
    await tickLater();
    await tickLater();

    const updates = eventTexts(channel).filter((text) => text.includes('renamed-by-bot'));
    expect(updates).toHaveLength(1);
    expect(updates[0]).toContain('by <@U0BOTUSER> through the bot');
  });

  it('posts only the actions and entities its filter names', async () => {
    const channel = 'C0FILTER';
    const volumeId = await aVolumeId();
    await subscribeEvents('U0FIL', channel, ' --action volume_delete,node_reboot --entity volume');

    await renameDirectly(volumeId, 'not-in-the-filter');
    await tickLater();
    expect(eventTexts(channel)).toEqual([]);
    const [sub] = await harness.subscriptions();
    expect(sub?.filter).toEqual({ action: ['volume_delete', 'node_reboot'], entity: ['volume'] });

    await harness.clearSubscriptions();
    await subscribeEvents('U0FIL', channel, ' --action volume_update --entity volume');
    await renameDirectly(volumeId, 'in-the-filter');
    await tickLater();
    expect(eventTexts(channel).filter((text) => text.includes('in-the-filter'))).toHaveLength(1);
  });

  it('refuses a filter flag on a report kind that has none', async () => {
    await harness.link('U0FIL', 'u0fil', { scopes: 'account:read_only' });
    const reply = await harness.reports('U0FIL', 'C0FILTER', 'reports add alerts --action node_reboot');
    expect(reply.text).toContain('Nothing was subscribed');
    expect(await harness.subscriptions()).toEqual([]);
  });
});

describe('events report: matching, late events and reading only what is recent', () => {
  it('credits an SSH key added through a signed /cloud command to the Slack user (user_ssh_key_add)', async () => {
    const channel = 'C0EVENTS';
    await subscribeEvents('U0EVA', channel);
    await harness.link('U0KEYUSER', 'keyuser', { scopes: SCOPES });

    const command = await harness.e2e.stack.workspace.command(
      'U0KEYUSER',
      channel,
      'profile sshkeys-create --label laptop-key --ssh-key "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKeyForEventsTest me@laptop"',
    );
    expect(command.status).toBe(200);
    await harness.e2e.stack.drain();
    await tickLater();

    const added = eventTexts(channel).filter((text) => text.includes('SSH key *laptop-key* added'));
    expect(added).toHaveLength(1);
    expect(added[0]).toContain('by <@U0KEYUSER> through the bot');
  });

  it('posts once an event the API lists late, with an id lower than one already posted', async () => {
    const channel = 'C0EVENTS';
    const control = harness.e2e.emulator.control;
    const volumeId = await aVolumeId();
    await subscribeEvents('U0EVA', channel);
    await tickLater();

    await renameDirectly(volumeId, 'listed-late');
    await renameDirectly(volumeId, 'listed-at-once');
    const [late, prompt] = [...control.world.events.values()]
      .filter((event) => event.action === 'volume_update')
      .sort((a, b) => b.id - a.id)
      .slice(0, 2)
      .reverse();
    if (!late || !prompt) throw new Error('the renames wrote no events');
    control.withholdEvent(late.id);
    await tickLater();
    control.releaseEvent(late.id);
    await tickLater();
    await tickLater();

    const texts = eventTexts(channel);
    expect(texts.filter((text) => text.includes(eventId(prompt.id)))).toHaveLength(1);
    expect(texts.filter((text) => text.includes(eventId(late.id)))).toHaveLength(1);
    expect(late.id).toBeLessThan(prompt.id);
  });

  it('with 1,200 old events, subscribing and every run read one page of the recent ones, not every page', async () => {
    const channel = 'C0EVENTS';
    const control = harness.e2e.emulator.control;
    const volumeId = await aVolumeId();
    recordOldEvents(volumeId, 'old');
    // Subscribing reads only the recent events (what is there now is not posted), and so does
    // the first run after it.
    control.resetRequestCounts();
    await subscribeEvents('U0EVA', channel);
    expect(control.requestCount('events.list')).toBe(1);
    control.resetRequestCounts();
    await tickLater();
    expect(control.requestCount('events.list')).toBe(1);

    await renameDirectly(volumeId, 'after-the-old-ones');
    control.resetRequestCounts();
    await tickLater();
    // The API's pages hold 500 at most: the whole list would be three pages.
    expect(control.requestCount('events.list')).toBe(1);
    const posted = eventTexts(channel).filter((text) => text.includes('after-the-old-ones'));
    expect(posted).toHaveLength(1);
    expect(eventTexts(channel).join('\n')).not.toContain('old-1');
  });

  it('unprimed (its subscribing read failed), the first run reads only the recent events and posts none of them', async () => {
    const channel = 'C0EVENTS';
    const control = harness.e2e.emulator.control;
    const volumeId = await aVolumeId();
    recordOldEvents(volumeId, 'older');
    await renameDirectly(volumeId, 'before-the-first-run');
    const postedBefore = eventTexts(channel).length;
    control.injectFault({ kind: 'status', status: 500, operations: ['events.list'], times: 1 });
    await subscribeEvents('U0EVA', channel);
    control.clearFaults();
    control.resetRequestCounts();
    await tickLater();
    expect(control.requestCount('events.list')).toBe(1);
    expect(eventTexts(channel).slice(postedBefore)).toEqual([]);

    await renameDirectly(volumeId, 'after-the-first-run');
    await tickLater();
    const posted = eventTexts(channel).slice(postedBefore);
    expect(posted.filter((text) => text.includes('after-the-first-run'))).toHaveLength(1);
    expect(posted.join('\n')).not.toContain('before-the-first-run');
  });
});

describe('events as an incident timeline', () => {
  const RESIZE_SCOPES = `${SCOPES} nodes:read_write`;

  /** A running node the demo user may resize to the next type up, and that type. */
  async function aResizableNode(): Promise<{ id: number; label: string; type: string }> {
    const nodes = await harness.api().listAll(getOperation('nodes.list'), {});
    const node = nodes.data.find((n) => n.status === 'running' && n.type === 'g6-standard-1');
    if (!node) throw new Error('the demo account has no running g6-standard-1 node');
    return { id: node.id, label: node.label, type: 'g6-standard-2' };
  }

  /** Resizes a node with a signed `/cloud nodes resize` in `channel`, as a person types it. */
  async function resizeThroughTheBot(user: string, channel: string, node: { id: number; type: string }) {
    await harness.link(user, user.toLowerCase(), { scopes: RESIZE_SCOPES });
    const command = await harness.e2e.stack.workspace.command(
      user,
      channel,
      `nodes resize ${node.id} --type ${node.type}`,
    );
    expect(command.status).toBe(200);
    await harness.e2e.stack.drain();
  }

  it("labels both events of the bot's own resize as made through the bot, never outside it", async () => {
    const channel = 'C0EVENTS';
    await subscribeEvents('U0EVA', channel);
    const node = await aResizableNode();
    await resizeThroughTheBot('U0RESIZER', channel, node);
    await tickLater();

    const resize = eventTexts(channel).filter((text) => text.includes(`*${node.label}*`));
    expect(resize.map((text) => text.split(' · ')[0])).toEqual([
      `:white_check_mark: Node *${node.label}* queued for a resize`,
      `:arrows_counterclockwise: Node *${node.label}* is being resized`,
    ]);
    for (const text of resize) {
      expect(text).toContain('by <@U0RESIZER> through the bot');
      expect(text).not.toContain('outside the bot');
    }
  });

  it('lists events titled by what happened to which node, with the status in words and who did it', async () => {
    const node = await aResizableNode();
    await resizeThroughTheBot('U0LISTER', 'C0EVENTS', node);
    const list = await harness.e2e.command('U0LISTER', 'events list');
    const text = JSON.stringify(list.message?.blocks ?? []);
    expect(text).toContain(`*Node ${node.label} is being resized*`);
    expect(text).toContain(`*Node ${node.label} queued for a resize*`);
    expect(text).toContain(':arrows_counterclockwise: in progress');
    expect(text).toContain('by u0lister');
    // Not the API user as the title, nor the raw action.
    expect(text).not.toMatch(/\*u0lister\*|action node_resize/);
  });

  it('views an event with its status in words and its duration with a unit', async () => {
    const node = await aResizableNode();
    await resizeThroughTheBot('U0VIEWER', 'C0EVENTS', node);
    harness.advance(11 * 60_000);
    const resized = [...harness.e2e.emulator.control.world.events.values()]
      .filter((event) => event.action === 'node_resize' && event.entity.id === node.id)
      .sort((a, b) => b.id - a.id)[0];
    if (!resized) throw new Error('the resize wrote no event');
    const view = await harness.e2e.command('U0VIEWER', `events view ${resized.id}`);
    const text = JSON.stringify(view.message?.blocks ?? []);
    expect(text).toContain(`Event: Node ${node.label} resized`);
    expect(text).toContain(':white_check_mark: done');
    expect(text).toContain('10 min');
    expect(text).not.toMatch(/grey_question|Duration\*\\n\d+"/);
  });
});

describe("the events report groups a run's events into one message", () => {
  const MINUTE = 60_000;

  /** The report's messages in the channel itself (not in a thread) that show events of `prefix`. */
  function groupMessages(channel: string, prefix: string) {
    return harness
      .posted(channel)
      .filter(
        (m) =>
          m.metadata?.event_type === 'account_event' &&
          (m.thread_ts ?? m.ts) === m.ts &&
          JSON.stringify(m.blocks).includes(`*${prefix}-`),
      );
  }

  /** How often each rename shows in `channel`, the message and its thread counted together. */
  function timesShown(channel: string, labels: readonly string[]): number[] {
    const lines = eventTexts(channel);
    return labels.map((label) => lines.filter((line) => line.includes(`*${label}*`)).length);
  }

  async function renames(prefix: string, count: number): Promise<string[]> {
    const volumeId = await aVolumeId();
    const labels = Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);
    for (const label of labels) await renameDirectly(volumeId, label);
    return labels;
  }

  it('posts 12 events of one run as one message with the count and the first five, the other seven in its thread', async () => {
    const channel = 'C0GROUP';
    await subscribeEvents('U0EVA', channel);
    const labels = await renames('grouped', 12);
    await tickLater();

    const [message, ...others] = groupMessages(channel, 'grouped');
    expect(others).toEqual([]);
    expect(JSON.stringify(message?.blocks)).toContain(
      '*12 account events*, the first 5 here and 7 more in the thread',
    );
    const replies = harness
      .posted(channel)
      .filter((m) => m.thread_ts === message?.ts && m.ts !== message?.ts);
    expect(replies).toHaveLength(1);
    expect(replies[0]?.blocks).toHaveLength(7);
    expect(timesShown(channel, labels)).toEqual(labels.map(() => 1));
    // Within Slack's limits for one message (SLACK-FACTS, Block Kit limits).
    for (const m of [message, ...replies]) {
      expect(m?.blocks.length).toBeLessThanOrEqual(50);
      expect(JSON.stringify(m?.blocks).length).toBeLessThan(13_000);
    }
  });

  it("cut off when the group's message went out but its answer was lost, a later run finds it, marks what it shows and replies the rest into its thread, once each", async () => {
    const channel = 'C0CUT';
    await subscribeEvents('U0EVA', channel);
    const labels = await renames('cut', 8);
    harness.advance(5 * MINUTE);
    // Slack posts the group's message, and its answer never comes back; the deadline ends the run.
    const cut = await harness.tickStalled(
      (method, args) =>
        method === 'chat.postMessage' && String(args.text).startsWith('8 account events')
          ? 'answer_lost'
          : undefined,
      1500,
    );
    expect(cut.messagesPosted).toBe(0);
    expect(groupMessages(channel, 'cut')).toHaveLength(1);
    expect(timesShown(channel, labels)).toEqual([1, 1, 1, 1, 1, 0, 0, 0]);

    // At once, within the claims' lease: nothing posted twice.
    await harness.tick();
    expect(timesShown(channel, labels)).toEqual([1, 1, 1, 1, 1, 0, 0, 0]);

    // After the lease: the message is found; the three meant for its thread are replied there.
    harness.advance(6 * MINUTE);
    await harness.tick();
    harness.advance(5 * MINUTE);
    await harness.tick();
    const [message, ...others] = groupMessages(channel, 'cut');
    expect(others).toEqual([]);
    expect(timesShown(channel, labels)).toEqual(labels.map(() => 1));
    const replies = harness
      .posted(channel)
      .filter((m) => m.thread_ts === message?.ts && m.ts !== message?.ts);
    expect(replies).toHaveLength(1);
    const claims = await harness.deps.store.alertClaims.listForSubscription(
      TEAM,
      (await harness.subscriptions())[0]?.id ?? '',
    );
    // No event left in doubt: every claim is marked with the message that shows it.
    expect(claims.filter((c) => c.status !== 'posted')).toEqual([]);
  }, 60_000);
});
