import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE } from '../../infra/local/emulator/clock.js';
import type { RunningEmulator } from '../../infra/local/emulator/server.js';
import type { ApiClient } from '../../lib/api/client.js';
import { apiErrorOf, clientFor, op, raw, reasonsOf, STRONG_PASSWORD, startTestEmulator } from './support.js';

/**
 * Volumes through the client: volumes rules 1-7. Seed nodes used here: 1001 (us-east, 1 GB,
 * running), 1004 (us-east, 8 GB, running), 1005 (eu-west, 16 GB, running), 1007 (us-east, offline).
 */

let emulator: RunningEmulator;
let demo: ApiClient;
let counter = 0;

type Volume = {
  id: number;
  label: string;
  status: string;
  size: number;
  region: string;
  node_id: number | null;
};
type Config = {
  id: number;
  devices: Record<string, { disk_id: number | null; volume_id: number | null } | null>;
};

beforeAll(async () => {
  emulator = await startTestEmulator();
  demo = clientFor(emulator, emulator.control.tokens.demo);
});

afterAll(async () => {
  await emulator?.close();
});

/** An active volume in the region (creation takes a minute). */
async function activeVolume(region = 'us-east', client = demo, size = 20): Promise<Volume> {
  counter += 1;
  const volume = (await client.call(op('POST /volumes'), {
    label: `vol-${counter}`,
    region,
    size,
  })) as Volume;
  expect(volume.status).toBe('creating');
  emulator.control.advance(MINUTE);
  return volume;
}

async function configsOf(nodeId: number): Promise<Config[]> {
  return ((await demo.call(op('GET /node/instances/{nodeId}/configs'), { nodeId })) as { data: Config[] })
    .data;
}

function holds(config: Config | undefined, volumeId: number): boolean {
  return Object.values(config?.devices ?? {}).some((device) => device?.volume_id === volumeId);
}

describe('volumes rules', () => {
  it('volumes rule 1: create and clone need the add_volumes grant', async () => {
    emulator.control.createUser({
      username: 'no-volumes',
      restricted: true,
      entityGrants: [{ kind: 'volume', id: 2001, permission: 'read_write' }],
    });
    const { token } = emulator.control.createToken('no-volumes');
    const client = clientFor(emulator, token);
    const create = await apiErrorOf(client.call(op('POST /volumes'), { label: 'nope', region: 'us-east' }));
    expect(create.status).toBe(403);
    const clone = await apiErrorOf(
      client.call(op('POST /volumes/{volumeId}/clone'), { volumeId: 2001, label: 'nope' }),
    );
    expect(clone.status).toBe(403);
    // `dev` holds add_volumes and may use what it creates.
    const dev = clientFor(emulator, emulator.control.tokens.restricted);
    const created = await activeVolume('eu-west', dev);
    await expect(dev.call(op('GET /volumes/{volumeId}'), { volumeId: created.id })).resolves.toMatchObject({
      status: 'active',
    });
  });

  it('volumes rule 2: region is required without node_id, and config_id only comes with node_id', async () => {
    const token = emulator.control.tokens.demo;
    const noRegion = await raw(emulator, 'POST /volumes', { token, body: { label: 'floating' } });
    expect(reasonsOf(noRegion.body)).toEqual(['region: is required when node_id is not given']);
    const configId = (await configsOf(1001))[0]?.id as number;
    const strayConfig = await raw(emulator, 'POST /volumes', {
      token,
      body: { label: 'floating', region: 'us-east', config_id: configId },
    });
    expect(reasonsOf(strayConfig.body)).toEqual(['config_id: may only be given with node_id']);
    const foreign = await apiErrorOf(
      demo.call(op('POST /volumes'), { label: 'foreign', node_id: 1004, config_id: configId }),
    );
    expect(foreign.errors).toEqual([
      { field: 'config_id', reason: `Configuration profile ${configId} does not belong to node 1004` },
    ]);
  });

  it("volumes rule 2: with node_id alone the volume joins the node's only profile, in the node's region", async () => {
    const volume = (await demo.call(op('POST /volumes'), { label: 'joins-only', node_id: 1004 })) as Volume;
    expect(volume).toMatchObject({ region: 'us-east', node_id: 1004, size: 20 });
    const [only] = await configsOf(1004);
    expect(holds(only, volume.id)).toBe(true);
  });

  it('volumes rule 2: several profiles: the last booted one, and without one an error', async () => {
    const node = (await demo.call(op('POST /node/instances'), {
      region: 'us-east',
      type: 'g6-standard-2',
      label: 'two-configs',
    })) as {
      id: number;
    };
    for (const label of ['first', 'second']) {
      await demo.call(op('POST /node/instances/{nodeId}/configs'), { nodeId: node.id, label, devices: {} });
    }
    const none = await apiErrorOf(demo.call(op('POST /volumes'), { label: 'undecided', node_id: node.id }));
    expect(none.status).toBe(400);
    expect(none.message).toMatch(/none was booted last/);
    const [, second] = await configsOf(node.id);
    emulator.control.advance(MINUTE);
    await demo.call(op('POST /node/instances/{nodeId}/boot'), {
      nodeId: node.id,
      config_id: second?.id as number,
    });
    const volume = (await demo.call(op('POST /volumes'), { label: 'decided', node_id: node.id })) as Volume;
    const configs = await configsOf(node.id);
    expect(configs.map((config) => holds(config, volume.id))).toEqual([false, true]);
  });

  it('volumes rule 3: volume and node must be in the same region; without config_id the last booted profile is used', async () => {
    const european = await activeVolume('eu-west');
    const far = await apiErrorOf(
      demo.call(op('POST /volumes/{volumeId}/attach'), { volumeId: european.id, node_id: 1004 }),
    );
    expect(far.message).toMatch(/same region/);
    const local = await activeVolume('us-east');
    const attached = await demo.call(op('POST /volumes/{volumeId}/attach'), {
      volumeId: local.id,
      node_id: 1004,
    });
    expect(attached).toMatchObject({ node_id: 1004 });
    expect(holds((await configsOf(1004))[0], local.id)).toBe(true);
  });

  it('volumes rule 3: attaching needs read_write on the volume and on the node', async () => {
    const dev = clientFor(emulator, emulator.control.tokens.restricted);
    const volume = await activeVolume('eu-west', dev);
    // dev may only read node 1002.
    const error = await apiErrorOf(
      dev.call(op('POST /volumes/{volumeId}/attach'), { volumeId: volume.id, node_id: 1002 }),
    );
    expect(error.status).toBe(403);
    expect(error.message).toMatch(/read_write access to node 1002/);
  });

  it('volumes rule 3: without config persistence the node must be running and config_id must not be passed', async () => {
    const volume = await activeVolume('us-east');
    const offline = await apiErrorOf(
      demo.call(op('POST /volumes/{volumeId}/attach'), {
        volumeId: volume.id,
        node_id: 1007,
        persist_across_boots: false,
      }),
    );
    expect(offline.message).toMatch(/must be running/);
    const withConfig = await raw(emulator, 'POST /volumes/{volumeId}/attach', {
      token: emulator.control.tokens.demo,
      params: { volumeId: volume.id },
      body: { node_id: 1001, persist_across_boots: false, config_id: 1 },
    });
    expect(reasonsOf(withConfig.body)).toEqual([
      'config_id: must not be given when persist_across_boots is false',
    ]);
    const attached = await demo.call(op('POST /volumes/{volumeId}/attach'), {
      volumeId: volume.id,
      node_id: 1001,
      persist_across_boots: false,
    });
    expect(attached).toMatchObject({ node_id: 1001 });
    expect((await configsOf(1001)).some((config) => holds(config, volume.id))).toBe(false);
  });

  it('volumes rule 3: without persistence a node takes 8 volumes, or as many as its GB of RAM from 16 GB', async () => {
    const attach = (volumeId: number, nodeId: number) =>
      demo.call(op('POST /volumes/{volumeId}/attach'), {
        volumeId,
        node_id: nodeId,
        persist_across_boots: false,
      });
    const attachedTo = (nodeId: number) =>
      [...emulator.control.world.volumes.values()].filter((v) => v.nodeId === nodeId).length;
    // 1001 has 1 GB of RAM: eight at most.
    while (attachedTo(1001) < 8) await attach((await activeVolume('us-east')).id, 1001);
    const ninth = await apiErrorOf(attach((await activeVolume('us-east')).id, 1001));
    expect(ninth.message).toMatch(/at most 8 volumes/);
    // 1005 has 16 GB: a ninth is fine.
    while (attachedTo(1005) < 9) await attach((await activeVolume('eu-west')).id, 1005);
    expect(attachedTo(1005)).toBe(9);
  });

  it('volumes rule 4: only an active volume can be cloned; the copy has its size', async () => {
    const creating = (await demo.call(op('POST /volumes'), {
      label: 'young',
      region: 'us-east',
      size: 70,
    })) as Volume;
    const early = await apiErrorOf(
      demo.call(op('POST /volumes/{volumeId}/clone'), { volumeId: creating.id, label: 'young-copy' }),
    );
    expect(early.message).toMatch(/only active volumes can be cloned/);
    emulator.control.advance(MINUTE);
    const copy = (await demo.call(op('POST /volumes/{volumeId}/clone'), {
      volumeId: creating.id,
      label: 'young-copy',
    })) as Volume;
    expect(copy).toMatchObject({ size: 70, region: 'us-east', node_id: null });
    expect(copy.id).not.toBe(creating.id);
  });

  it('volumes rule 5: resize only grows, and only an active volume', async () => {
    const volume = await activeVolume('us-east', demo, 40);
    const shrink = await apiErrorOf(
      demo.call(op('POST /volumes/{volumeId}/resize'), { volumeId: volume.id, size: 30 }),
    );
    expect(shrink.errors).toEqual([{ field: 'size', reason: 'must be larger than the current size (40)' }]);
    const growing = (await demo.call(op('POST /volumes/{volumeId}/resize'), {
      volumeId: volume.id,
      size: 80,
    })) as Volume;
    expect(growing).toMatchObject({ status: 'resizing', size: 80 });
    const again = await apiErrorOf(
      demo.call(op('POST /volumes/{volumeId}/resize'), { volumeId: volume.id, size: 100 }),
    );
    expect(again.message).toMatch(/only active volumes can be resized/);
    emulator.control.advance(MINUTE);
    await expect(demo.call(op('GET /volumes/{volumeId}'), { volumeId: volume.id })).resolves.toMatchObject({
      status: 'active',
      size: 80,
    });
  });

  it('volumes rule 6: delete is refused while the volume migrates, and is irreversible', async () => {
    const volume = await activeVolume('us-east');
    const record = emulator.control.world.volumes.get(volume.id);
    if (!record) throw new Error('volume missing');
    record.migratingUntil = emulator.control.now() + 10 * MINUTE;
    const refused = await apiErrorOf(demo.call(op('DELETE /volumes/{volumeId}'), { volumeId: volume.id }));
    expect(refused.message).toMatch(/migrating/);
    emulator.control.advance(10 * MINUTE);
    await demo.call(op('DELETE /volumes/{volumeId}'), { volumeId: volume.id });
    expect((await apiErrorOf(demo.call(op('GET /volumes/{volumeId}'), { volumeId: volume.id }))).status).toBe(
      404,
    );
  });

  it('volumes rule 7: volumes are detached automatically when their node is deleted', async () => {
    const node = (await demo.call(op('POST /node/instances'), {
      region: 'us-east',
      type: 'g6-standard-1',
      image: 'node/debian12',
      root_pass: STRONG_PASSWORD,
      label: 'short-lived',
    })) as { id: number };
    emulator.control.advance(MINUTE);
    const volume = (await demo.call(op('POST /volumes'), { label: 'survivor', node_id: node.id })) as Volume;
    await demo.call(op('DELETE /node/instances/{nodeId}'), { nodeId: node.id });
    await expect(demo.call(op('GET /volumes/{volumeId}'), { volumeId: volume.id })).resolves.toMatchObject({
      node_id: null,
      node_label: null,
    });
  });

  it('detach takes the volume out of its profile', async () => {
    const volume = (await demo.call(op('POST /volumes'), { label: 'detachable', node_id: 1004 })) as Volume;
    await demo.call(op('POST /volumes/{volumeId}/detach'), { volumeId: volume.id });
    expect(holds((await configsOf(1004))[0], volume.id)).toBe(false);
    const again = await apiErrorOf(demo.call(op('POST /volumes/{volumeId}/detach'), { volumeId: volume.id }));
    expect(again.message).toMatch(/not attached/);
  });
});
