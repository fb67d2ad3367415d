import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOperation } from '../../../lib/api/operations/index.js';
import { watchPlanFor } from '../../../lib/changes/status-watch.js';
import { postStatusWatch } from '../../../lib/slack/status-watch.js';
import { ALICE, BOB, CHANNEL } from '../../support/e2e.js';
import { type ReporterHarness, startReporterHarness, TEAM } from './harness.js';

/**
 * Status watches end to end: an operation started from Slack, its message updated by reporter
 * runs as the emulator's clock moves the resource through its states.
 *
 * The first test goes through the worker as a person would; the others start watches directly to
 * reach the edge cases (deleted while provisioning, the time limit).
 */

const MINUTE = 60_000;
const DATABASE = '--region us-east --type g6-dedicated-2 --engine mysql/8.0.26';

let harness: ReporterHarness;

beforeAll(async () => {
  harness = await startReporterHarness();
  await harness.e2e.login(ALICE, harness.e2e.emulator.demoToken);
});

afterAll(async () => {
  await harness?.close();
});

/** Creates a database with `/cloud databases mysql-create` and returns it as the API shows it now. */
async function createDatabaseFromSlack(label: string) {
  const delivery = await harness.e2e.command(ALICE, `databases mysql-create --label ${label} ${DATABASE}`);
  expect(delivery.status).toBe(200);
  const list = await harness.api().listAll(getOperation('databases.mysql-list'), {});
  const db = (list.data as { id: number; label: string; status: string }[]).find((d) => d.label === label);
  if (!db) throw new Error(`database ${label} was not created`);
  return db;
}

/** A watch of `db` as it is now, started directly (not through a command); Alice's by default. */
async function watchDatabase(db: { id: number }, options: { user?: string; giveUpAfterMs?: number } = {}) {
  const started = await postStatusWatch(harness.deps, {
    team: TEAM,
    user: options.user ?? ALICE,
    channel: CHANNEL,
    op: getOperation('databases.mysql-create'),
    input: {},
    result: db,
    ...(options.giveUpAfterMs === undefined ? {} : { giveUpAfterMs: options.giveUpAfterMs }),
    now: harness.now(),
  });
  if (started.status !== 'watching') throw new Error('watch not started');
  return started;
}

function messageAt(ts: string) {
  const message = harness.e2e.stack.standIn.store.findMessage(CHANNEL, ts);
  if (!message) throw new Error(`no message ${ts}`);
  return { ...message, all: `${message.text}\n${JSON.stringify(message.blocks)}` };
}

describe('a database created from Slack', () => {
  it('gets its message updated from provisioning to active', async () => {
    const db = await createDatabaseFromSlack('ledger');
    expect(db.status).toBe('provisioning');
    // The worker posted the result in the channel and started watching it.
    const watched = harness.e2e.stack.standIn.store
      .messages(CHANNEL)
      .filter((m) => `${m.text}${JSON.stringify(m.blocks)}`.includes('ledger'))
      .at(-1);
    if (!watched) throw new Error('no channel message for the new database');
    const started = { ts: watched.ts };
    expect(messageAt(started.ts).all).toContain('Last seen `provisioning`');
    const author = `:bust_in_silhouette: <@${ALICE}> ran \`/cloud databases mysql-create\``;
    expect(messageAt(started.ts).all).toContain(author);
    const running = await harness.deps.store.statusWatches.running(50);
    const watch = running.find((w) => w.messageTs === watched.ts);
    if (!watch) throw new Error('the worker started no watch for the message');

    // Provisioning takes 20 minutes in the emulator; the reporter runs every 5.
    const updates: number[] = [];
    for (let minutes = 0; minutes <= 25; minutes += 5) {
      const summary = await harness.tick();
      updates.push(summary.watches.updated);
      harness.advance(5 * MINUTE);
    }
    expect(updates).toEqual([0, 0, 0, 0, 1, 0]);

    const message = messageAt(started.ts);
    expect(message.updatedAt).toBeDefined();
    expect(message.all).toContain(':white_check_mark: Status *active*, after 20 minutes.');
    expect(message.all).not.toContain('provisioning');
    // Re-read from the API, the message still names who created the database.
    expect(message.all).toContain(author);
    expect(await harness.deps.store.statusWatches.get(TEAM, watch.id)).toMatchObject({
      finished: true,
      outcome: 'final',
      lastStatus: 'active',
    });
    expect((await harness.tick()).watches.running).toBe(0);
  });

  it('offers, once re-read, only the buttons its channel allows: none that a read-only channel would refuse', async () => {
    const db = await createDatabaseFromSlack('guarded');
    const watched = harness.e2e.stack.standIn.store
      .messages(CHANNEL)
      .filter((m) => `${m.text}${JSON.stringify(m.blocks)}`.includes('guarded'))
      .at(-1);
    if (!watched) throw new Error('no channel message for the new database');
    // Where everything may run, the message offers the database's changes.
    expect(messageAt(watched.ts).all).toContain('databases.mysql-delete');
    await harness.deps.store.channelPolicy.put(TEAM, CHANNEL, { allowedClasses: ['read'] }, ALICE);
    try {
      for (let minutes = 0; minutes <= 25; minutes += 5) {
        await harness.tick();
        harness.advance(5 * MINUTE);
      }
    } finally {
      await harness.deps.store.channelPolicy.clear(TEAM, CHANNEL);
    }
    const message = messageAt(watched.ts);
    expect(message.all).toContain(':white_check_mark: Status *active*');
    expect(message.all).toContain('databases.mysql-backups-list');
    for (const refused of [
      'databases.mysql-delete',
      'databases.mysql-creds-reset',
      'databases.mysql-backup-snapshot',
    ]) {
      expect(message.all).not.toContain(refused);
    }
    expect(db.status).toBe('provisioning');
  });

  it('says so and stops when the database is deleted while provisioning', async () => {
    const db = await createDatabaseFromSlack('scratch');
    const started = await watchDatabase(db);
    harness.e2e.emulator.control.world.databases.delete(db.id);
    const summary = await harness.tick();
    // Two watches follow it: the worker's, from the command, and this test's own.
    expect(summary.watches).toMatchObject({ finished: 2, updated: 2 });
    expect(messageAt(started.ts).all).toContain('no longer exists');
  });

  it("ends when the API rejects the watcher's token, and their Home shows the profile rejected", async () => {
    const watcher = BOB;
    const { token } = harness.e2e.emulator.control.createToken('demo', { scopes: '*' });
    await harness.e2e.login(watcher, token, 'watching');
    const db = await createDatabaseFromSlack('rejected-watch');
    await watchDatabase(db, { user: watcher });
    const home = () =>
      JSON.stringify(harness.e2e.stack.standIn.store.homeView(TEAM, watcher)?.view.blocks ?? []);
    expect(home()).not.toContain('rejected by the API');
    harness.e2e.emulator.control.revokeToken(token);
    await harness.tick();
    expect(home()).toMatch(/`watching`[^"]*rejected by the API/);
  });

  it('tells the person directly how it ended when the bot was removed from the channel meanwhile', async () => {
    const db = await createDatabaseFromSlack('orphan');
    const started = await watchDatabase(db);
    const { store } = harness.e2e.stack.standIn;
    const directBefore = store.messages(`D${ALICE}`).length;
    store.kickBot(CHANNEL);
    try {
      harness.e2e.emulator.control.world.databases.delete(db.id);
      await harness.tick();
    } finally {
      store.inviteBot(CHANNEL);
    }
    expect(messageAt(started.ts).all).not.toContain('no longer exists');
    const told = store.messages(`D${ALICE}`).slice(directBefore);
    // Two watches follow it (the worker's and this test's), each tells once.
    expect(told).toHaveLength(2);
    expect(told.every((m) => `${m.text}${JSON.stringify(m.blocks)}`.includes('no longer exists'))).toBe(true);
    expect(told[0]?.text).toContain(`<#${CHANNEL}>`);
  });

  it('gives up after its time limit and says how to check', async () => {
    const db = await createDatabaseFromSlack('slowpoke');
    const started = await watchDatabase(db, { giveUpAfterMs: 10 * MINUTE });
    harness.advance(11 * MINUTE);
    await harness.tick();
    const text = messageAt(started.ts).all;
    expect(text).toContain('Stopped watching after 11 minutes');
    expect(text).toContain(`/cloud databases mysql-view ${db.id}`);
  });

  it('posts a result that has already settled without watching it', async () => {
    const started = await postStatusWatch(harness.deps, {
      team: TEAM,
      user: ALICE,
      channel: CHANNEL,
      op: getOperation('volumes.resize'),
      input: { volumeId: 12, size: 40 },
      result: { id: 12, label: 'data', status: 'active', size: 40, region: 'us-east' },
      now: harness.now(),
    });
    expect(started.status).toBe('posted');
  });
});

describe('watchPlanFor', () => {
  it('reads the new resource of a create or clone from the result', () => {
    expect(
      watchPlanFor(
        getOperation('nodes.clone'),
        { nodeId: 1, region: 'us-east' },
        { id: 9, status: 'provisioning' },
      ),
    ).toMatchObject({ viewInput: { nodeId: 9 }, status: 'provisioning', view: { id: 'nodes.view' } });
  });

  it('finds the image inside the result of an upload', () => {
    const result = {
      image: { id: 'private/17', status: 'pending_upload' },
      upload_to: 'https://upload.example',
    };
    expect(
      watchPlanFor(getOperation('images.upload'), { label: 'x', region: 'us-east' }, result),
    ).toMatchObject({
      viewInput: { imageId: 'private/17' },
      status: 'pending_upload',
    });
  });

  it('watches the database or the target node of a backup restore, whose result is empty', () => {
    expect(
      watchPlanFor(getOperation('databases.mysql-backup-restore'), { instanceId: 5, backupId: 9 }, {}),
    ).toMatchObject({
      viewInput: { instanceId: 5 },
      status: null,
      spec: { final: ['active', 'failed', 'degraded'] },
    });
    expect(
      watchPlanFor(getOperation('nodes.backups-restore'), { nodeId: 1, backupId: 2, node_id: 3 }, {}),
    ).toMatchObject({ viewInput: { nodeId: 3 } });
  });

  it('keeps the path id of an action on an existing resource', () => {
    expect(
      watchPlanFor(
        getOperation('volumes.resize'),
        { volumeId: 12, size: 40 },
        { id: 12, status: 'resizing' },
      ),
    ).toMatchObject({
      viewInput: { volumeId: 12 },
    });
  });

  it('has nothing to watch for operations that finish at once', () => {
    expect(
      watchPlanFor(getOperation('volumes.attach'), { volumeId: 12, node_id: 3 }, { id: 12 }),
    ).toBeUndefined();
  });
});
