import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE } from '../../infra/local/emulator/clock.js';
import type { RunningEmulator } from '../../infra/local/emulator/server.js';
import { priceIn } from '../../lib/api/operations/node-types.js';
import { raw, reasonsOf, STRONG_PASSWORD, startTestEmulator } from './support.js';

/**
 * The node operations of the second document (reference/API-FACTS-MORE.md) as the emulator runs
 * them: the lifecycle state machines of §2, the disks of §4 and the account events of §8, over HTTP.
 */

let emulator: RunningEmulator;
let token: string;
let labels = 0;

beforeAll(async () => {
  emulator = await startTestEmulator();
  token = emulator.control.tokens.demo;
});

afterAll(async () => {
  await emulator?.close();
});

type Node = { id: number; status: string; type: string; region: string };
type Event = {
  id: number;
  action: string;
  status: string;
  username: string | null;
  seen: boolean;
  message: string | null;
  entity: { id?: number; type: string };
};

async function call(signature: string, params: Record<string, string | number> = {}, body?: unknown) {
  return raw(emulator, signature, { token, params, ...(body !== undefined && { body }) });
}

async function nodeStatus(nodeId: number): Promise<Node> {
  return (await call('GET /node/instances/{nodeId}', { nodeId })).body as Node;
}

/** A running node from an image: a root disk and swap in one booted profile. */
async function runningNode(type = 'g6-standard-1'): Promise<number> {
  const created = await call(
    'POST /node/instances',
    {},
    {
      region: 'us-east',
      type,
      image: 'node/debian12',
      root_pass: STRONG_PASSWORD,
      label: `actions-${++labels}`,
    },
  );
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  emulator.control.advance(MINUTE);
  const id = (created.body as Node).id;
  expect((await nodeStatus(id)).status).toBe('running');
  return id;
}

async function eventsOf(nodeId: number, action: string): Promise<Event[]> {
  const listed = await raw(emulator, 'GET /account/events', {
    token,
    headers: { 'x-filter': JSON.stringify({ action, 'entity.id': nodeId }) },
  });
  return (listed.body as { data: Event[] }).data;
}

describe('reboot (§2.1)', () => {
  it('takes the node through rebooting to running, refusing other actions meanwhile', async () => {
    const nodeId = await runningNode();
    expect((await call('POST /node/instances/{nodeId}/reboot', { nodeId })).status).toBe(200);
    expect((await nodeStatus(nodeId)).status).toBe('rebooting');
    const again = await call('POST /node/instances/{nodeId}/shutdown', { nodeId });
    expect(again.status).toBe(400);
    expect(reasonsOf(again.body)).toEqual([expect.stringContaining('Node busy')]);
    expect((await eventsOf(nodeId, 'node_reboot'))[0]).toMatchObject({ status: 'started', username: 'demo' });

    emulator.control.advance(MINUTE);
    expect((await nodeStatus(nodeId)).status).toBe('running');
    expect((await eventsOf(nodeId, 'node_reboot'))[0]).toMatchObject({ status: 'finished' });
  });

  it('refuses a profile of another node', async () => {
    const nodeId = await runningNode();
    const refused = await call('POST /node/instances/{nodeId}/reboot', { nodeId }, { config_id: 1 });
    expect(refused.status).toBe(400);
    expect(reasonsOf(refused.body)).toEqual([expect.stringMatching(/^config_id: /)]);
  });
});

describe('resize (§2.3)', () => {
  it('goes through resizing to the new type and ends running, its disk grown to fill the type', async () => {
    const nodeId = await runningNode();
    const resized = await call('POST /node/instances/{nodeId}/resize', { nodeId }, { type: 'g6-standard-2' });
    expect(resized.status).toBe(200);
    expect(await nodeStatus(nodeId)).toMatchObject({ status: 'resizing', type: 'g6-standard-1' });
    emulator.control.advance(10 * MINUTE);
    expect(await nodeStatus(nodeId)).toMatchObject({ status: 'running', type: 'g6-standard-2' });
    const disks = (await call('GET /node/instances/{nodeId}/disks', { nodeId })).body as {
      data: { size: number }[];
    };
    expect(disks.data.reduce((total, d) => total + d.size, 0)).toBe(80 * 1024);
    expect((await eventsOf(nodeId, 'node_resize'))[0]).toMatchObject({ status: 'finished' });
    expect(await eventsOf(nodeId, 'node_resize_create')).toHaveLength(1);
  });

  it('refuses a smaller type than the disks allocated when the disks may not be resized', async () => {
    const nodeId = await runningNode('g6-standard-2');
    const refused = await call(
      'POST /node/instances/{nodeId}/resize',
      { nodeId },
      { type: 'g6-standard-1', allow_auto_disk_resize: false },
    );
    expect(refused.status).toBe(400);
    expect(reasonsOf(refused.body)).toEqual([expect.stringContaining('Delete or shrink disks first')]);
  });
});

describe('disk resize (§4.2)', () => {
  it('is accepted while the running node uses the disk, and fails later, leaving the disk as it was', async () => {
    const nodeId = await runningNode();
    const disks = (await call('GET /node/instances/{nodeId}/disks', { nodeId })).body as {
      data: { id: number; size: number; filesystem: string }[];
    };
    const swap = disks.data.find((d) => d.filesystem === 'swap');
    if (!swap) throw new Error('no swap disk');
    const started = await call(
      'POST /node/instances/{nodeId}/disks/{diskId}/resize',
      { nodeId, diskId: swap.id },
      { size: swap.size - 256 },
    );
    expect(started.status).toBe(200);
    emulator.control.advance(MINUTE);
    const disk = (await call('GET /node/instances/{nodeId}/disks/{diskId}', { nodeId, diskId: swap.id }))
      .body;
    expect(disk).toMatchObject({ size: swap.size, status: 'ready' });
    const [event] = await eventsOf(nodeId, 'disk_resize');
    expect(event).toMatchObject({ status: 'failed', entity: { id: nodeId, type: 'disks' } });
    expect(event?.message).toContain('in use');
  });

  it('succeeds on a node that is shut down', async () => {
    const nodeId = await runningNode();
    await call('POST /node/instances/{nodeId}/shutdown', { nodeId });
    emulator.control.advance(MINUTE);
    expect((await nodeStatus(nodeId)).status).toBe('offline');
    const disks = (await call('GET /node/instances/{nodeId}/disks', { nodeId })).body as {
      data: { id: number; size: number; filesystem: string }[];
    };
    const swap = disks.data.find((d) => d.filesystem === 'swap');
    if (!swap) throw new Error('no swap disk');
    await call(
      'POST /node/instances/{nodeId}/disks/{diskId}/resize',
      { nodeId, diskId: swap.id },
      { size: 256 },
    );
    expect(
      (await call('GET /node/instances/{nodeId}/disks/{diskId}', { nodeId, diskId: swap.id })).body,
    ).toMatchObject({
      status: 'not ready',
    });
    emulator.control.advance(MINUTE);
    expect(
      (await call('GET /node/instances/{nodeId}/disks/{diskId}', { nodeId, diskId: swap.id })).body,
    ).toMatchObject({
      size: 256,
      status: 'ready',
    });
    expect((await eventsOf(nodeId, 'disk_resize'))[0]).toMatchObject({ status: 'finished' });
  });
});

describe('root password reset (§2.8)', () => {
  it('needs the node shut down and a strong password, and writes password_reset', async () => {
    const nodeId = await runningNode();
    const running = await call(
      'POST /node/instances/{nodeId}/password',
      { nodeId },
      { root_pass: STRONG_PASSWORD },
    );
    expect(running.status).toBe(400);
    expect(reasonsOf(running.body)).toEqual([expect.stringContaining('must be shut down')]);
    await call('POST /node/instances/{nodeId}/shutdown', { nodeId });
    emulator.control.advance(MINUTE);
    const weak = await call('POST /node/instances/{nodeId}/password', { nodeId }, { root_pass: 'password' });
    expect(reasonsOf(weak.body)).toEqual(['root_pass: Password does not meet strength requirement']);
    expect(JSON.stringify(weak.body)).not.toContain('"password"');
    const reset = await call(
      'POST /node/instances/{nodeId}/password',
      { nodeId },
      { root_pass: STRONG_PASSWORD },
    );
    expect(reset.status).toBe(200);
    expect(await eventsOf(nodeId, 'password_reset')).toHaveLength(1);
  });
});

describe('rebuild (§2.4), migrate (§2.6) and mutate (§2.7)', () => {
  it('rebuild replaces every disk and profile and boots the new image', async () => {
    const nodeId = await runningNode();
    const before = (await call('GET /node/instances/{nodeId}/disks', { nodeId })).body as {
      data: { id: number }[];
    };
    const rebuilt = await call(
      'POST /node/instances/{nodeId}/rebuild',
      { nodeId },
      { image: 'node/ubuntu24.04', root_pass: STRONG_PASSWORD },
    );
    expect(rebuilt.body).toMatchObject({ id: nodeId, status: 'rebuilding', image: 'node/ubuntu24.04' });
    const after = (await call('GET /node/instances/{nodeId}/disks', { nodeId })).body as {
      data: { id: number }[];
    };
    expect(after.data.map((d) => d.id).filter((id) => before.data.some((d) => d.id === id))).toEqual([]);
    emulator.control.advance(5 * MINUTE);
    expect((await nodeStatus(nodeId)).status).toBe('running');
  });

  it('migrate refuses warm data centre moves, upgrades nobody offers and host migrations nobody scheduled', async () => {
    const nodeId = await runningNode();
    const warm = await call(
      'POST /node/instances/{nodeId}/migrate',
      { nodeId },
      { region: 'eu-west', type: 'warm' },
    );
    expect(reasonsOf(warm.body)).toEqual([expect.stringMatching(/^type: Warm migrations are not available/)]);
    const upgrade = await call(
      'POST /node/instances/{nodeId}/migrate',
      { nodeId },
      { region: 'eu-west', upgrade: true },
    );
    expect(reasonsOf(upgrade.body)).toEqual(['upgrade: No free upgrade is available']);
    const host = await call('POST /node/instances/{nodeId}/migrate', { nodeId }, {});
    expect(reasonsOf(host.body)).toEqual([`Node ${nodeId} has no pending migration`]);

    expect(
      (await call('POST /node/instances/{nodeId}/migrate', { nodeId }, { region: 'eu-west' })).status,
    ).toBe(200);
    expect((await nodeStatus(nodeId)).status).toBe('migrating');
    emulator.control.advance(15 * MINUTE);
    expect(await nodeStatus(nodeId)).toMatchObject({ status: 'running', region: 'eu-west' });
    expect(await eventsOf(nodeId, 'node_migrate_datacenter_create')).toHaveLength(1);
  });

  it('mutate moves a deprecated type to its successor and refuses a current one', async () => {
    const current = await runningNode();
    const refused = await call('POST /node/instances/{nodeId}/mutate', { nodeId: current });
    expect(reasonsOf(refused.body)).toEqual([expect.stringContaining('not on a type that can be upgraded')]);
    const legacy = await runningNode('g5-standard-1');
    const successor = (await call('GET /node/types/{typeId}', { typeId: 'g5-standard-1' })).body as {
      successor: string;
    };
    expect((await call('POST /node/instances/{nodeId}/mutate', { nodeId: legacy })).status).toBe(200);
    emulator.control.advance(10 * MINUTE);
    expect(await nodeStatus(legacy)).toMatchObject({ status: 'running', type: successor.successor });
  });
});

describe('node types (§5)', () => {
  it("gives a region's own price where it has one and the default elsewhere", async () => {
    const type = (await call('GET /node/types/{typeId}', { typeId: 'g6-standard-2' })).body as Parameters<
      typeof priceIn
    >[0] & { price: { monthly: number } };
    expect(priceIn(type, 'us-east')).toEqual(type.price);
    expect(priceIn(type, 'ap-south').monthly).toBeGreaterThan(type.price.monthly);
  });
});

describe('account events (§8)', () => {
  it('records a change made through the API directly, by whoever made it', async () => {
    const created = await call('POST /volumes', {}, { label: 'direct-call', region: 'us-east', size: 20 });
    const volumeId = (created.body as { id: number }).id;
    const listed = await raw(emulator, 'GET /account/events', {
      token,
      headers: { 'x-filter': JSON.stringify({ action: 'volume_create' }) },
    });
    expect((listed.body as { data: Event[] }).data[0]).toMatchObject({
      status: 'finished',
      username: 'demo',
      entity: { id: volumeId, type: 'volume' },
    });
  });

  it('lists the newest first and marks every event up to the given one as seen', async () => {
    const nodeId = await runningNode();
    await call('POST /node/instances/{nodeId}/reboot', { nodeId });
    const all = ((await call('GET /account/events')).body as { data: Event[] }).data;
    const ids = all.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const [newest, previous] = all;
    if (!newest || !previous) throw new Error('expected at least two events');
    expect((await call('POST /account/events/{eventId}/seen', { eventId: previous.id })).status).toBe(200);
    const after = ((await call('GET /account/events')).body as { data: Event[] }).data;
    expect(after.find((e) => e.id === newest.id)?.seen).toBe(false);
    expect(after.filter((e) => e.id <= previous.id).every((e) => e.seen)).toBe(true);
  });

  it('shows a restricted user the events of the nodes they may view, and none of the others', async () => {
    const world = emulator.control.world;
    const user = [...world.users.values()].find((u) => u.restricted);
    if (!user) throw new Error('the seed has no restricted user');
    const [granted] = [...user.grants.entities.node.keys()].map(Number);
    if (granted === undefined) throw new Error('the restricted user may view no node');
    // A reboot of the node they may view, by someone else; the earlier tests' nodes they may not.
    await call('POST /node/instances/{nodeId}/reboot', { nodeId: granted });
    const hidden = [...world.events.values()].filter(
      (e) => e.entity.type === 'node' && !user.grants.entities.node.has(String(e.entity.id)),
    );
    expect(hidden.length).toBeGreaterThan(0);
    const listed = await raw(emulator, 'GET /account/events', { token: emulator.control.tokens.restricted });
    const ids = (listed.body as { data: Event[] }).data.map((e) => e.id);
    expect(ids).toContain(
      [...world.events.values()].find((e) => e.action === 'node_reboot' && e.entity.id === granted)?.id,
    );
    expect(ids.filter((id) => hidden.some((e) => e.id === id))).toEqual([]);
  });
});
