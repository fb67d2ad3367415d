import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, CHANNEL } from '../../support/e2e.js';
import { type ReporterHarness, startReporterHarness, TEAM } from './harness.js';

/**
 * A node's lifecycle actions end to end (API-FACTS-MORE.md §2): started from Slack with a signed
 * slash command, their answer is `{}`, so the channel message follows the node by reading it as
 * the emulator's clock moves it through its states.
 */

const MINUTE = 60_000;

let harness: ReporterHarness;

beforeAll(async () => {
  harness = await startReporterHarness();
  await harness.e2e.login(ALICE, harness.e2e.emulator.demoToken);
});

afterAll(async () => {
  await harness?.close();
});

function world() {
  return harness.e2e.emulator.control.world;
}

/** A seeded node that runs with a booted profile, so a reboot has one to boot again. */
function runningNode() {
  const node = [...world().nodes.values()].find(
    (n) => n.status === 'running' && n.lastBootedConfigId !== null,
  );
  if (!node) throw new Error('the seed has no running node');
  return node;
}

function channelMessageOf(command: string) {
  const message = harness.e2e.stack.standIn.store
    .messages(CHANNEL)
    .filter((m) => `${m.text}${JSON.stringify(m.blocks)}`.includes(command))
    .at(-1);
  if (!message) throw new Error(`no channel message for ${command}`);
  return message;
}

function messageAt(ts: string) {
  const message = harness.e2e.stack.standIn.store.findMessage(CHANNEL, ts);
  if (!message) throw new Error(`no message ${ts}`);
  return { ...message, all: `${message.text}\n${JSON.stringify(message.blocks)}` };
}

describe('a node rebooted from Slack', () => {
  it('gets its channel message updated through rebooting until the node is running', async () => {
    const node = runningNode();
    const delivery = await harness.e2e.command(ALICE, `nodes reboot ${node.id}`);
    expect(delivery.status).toBe(200);
    expect(world().nodes.get(node.id)?.status).toBe('rebooting');

    const watched = channelMessageOf('/cloud nodes reboot');
    // The answer was `{}` ("Reboot started."): until the node is read, its status is not known.
    expect(messageAt(watched.ts).all).toContain(`Node ${node.id} is rebooting.`);
    expect(messageAt(watched.ts).all).not.toContain('done');
    // It says what it waits for, in words, and that it has not read a status yet.
    expect(messageAt(watched.ts).all).toContain(
      ':hourglass_flowing_sand: Its status is not known yet. Waiting until it is running, offline or stopped; this message is updated when it is.',
    );
    expect(messageAt(watched.ts).all).not.toContain('Status unknown');
    const running = await harness.deps.store.statusWatches.running(50);
    const watch = running.find((w) => w.messageTs === watched.ts);
    if (!watch) throw new Error('the worker started no watch for the message');

    // The first run reads the node mid-reboot; the reboot takes a minute in the emulator.
    const first = await harness.tick();
    expect(first.watches.updated).toBe(1);
    // What it last saw, and when it saw it.
    expect(messageAt(watched.ts).all).toMatch(
      /:hourglass_flowing_sand: Last seen `rebooting` <!date\^\d+\^\{date_short_pretty\} \{time\}\|[^>]+>\. Waiting until it is running, offline or stopped/,
    );
    harness.advance(MINUTE);
    const second = await harness.tick();
    expect(second.watches).toMatchObject({ updated: 1, finished: 1 });

    const message = messageAt(watched.ts);
    expect(message.all).toContain(':white_check_mark: Status *running*, after 1 minute.');
    expect(message.all).toContain(`:bust_in_silhouette: <@${ALICE}> ran \`/cloud nodes reboot\``);
    expect(await harness.deps.store.statusWatches.get(TEAM, watch.id)).toMatchObject({
      finished: true,
      outcome: 'final',
      lastStatus: 'running',
    });
  });

  it('is written to the account events, started and then finished, under the token owner', async () => {
    const node = runningNode();
    await harness.e2e.command(ALICE, `nodes reboot ${node.id}`);
    const reboots = () =>
      [...world().events.values()].filter((e) => e.action === 'node_reboot' && e.entity.id === node.id);
    expect(reboots().at(-1)).toMatchObject({ status: 'started', username: 'demo' });
    harness.advance(MINUTE);
    world().settle();
    expect(reboots().at(-1)).toMatchObject({ status: 'finished', percentComplete: 100 });
  });
});

describe('a disk added from Slack', () => {
  it('has its message followed from not ready until the disk is ready', async () => {
    const node = runningNode();
    // Room for another disk: the seeded disks fill the node's type.
    const [root] = [...node.disks.values()].filter((d) => d.filesystem !== 'swap');
    if (!root) throw new Error('the node has no root disk');
    root.size -= 2048;
    const delivery = await harness.e2e.command(
      ALICE,
      `nodes disks-create ${node.id} --size 1024 --label scratch`,
    );
    expect(delivery.status).toBe(200);
    const watched = channelMessageOf('/cloud nodes disks-create');
    expect(messageAt(watched.ts).all).toContain('Last seen `not ready`');
    expect(messageAt(watched.ts).all).toContain('Waiting until it is ready;');
    harness.advance(MINUTE);
    // The reboot of the test before is still watched too: only this message is looked at.
    await harness.tick();
    expect(messageAt(watched.ts).all).toContain(':white_check_mark: Status *ready*');
  });
});
