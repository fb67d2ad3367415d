import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE } from '../../infra/local/emulator/clock.js';
import type { RunningEmulator } from '../../infra/local/emulator/server.js';
import type { ApiClient } from '../../lib/api/client.js';
import { apiErrorOf, clientFor, op, raw, reasonsOf, STRONG_PASSWORD, startTestEmulator } from './support.js';

/**
 * Nodes through the client: node create rules 1-7, delete, snapshot, backups cancel, restore,
 * boot config choice, clone and configuration rules, and the node states. Seed nodes used here:
 * 1001 (us-east, 1 GB, backups), 1002 (eu-west), 1004 (us-east, 8 GB), 1007 (us-east, offline),
 * 1009 (ap-south, 4 GB, backups), 1013 (us-east, 1 GB, backups).
 */

let emulator: RunningEmulator;
let demo: ApiClient;
let labels = 0;

type Node = {
  id: number;
  label: string;
  status: string;
  region: string;
  tags: string[];
  has_user_data: boolean;
};
type Backup = { id: number; type: string; status: string; label: string | null; configs: string[] };
type Backups = { automatic: Backup[]; snapshot: { in_progress: Backup | null; current: Backup | null } };
type Config = {
  id: number;
  label: string;
  devices: Record<string, { disk_id?: number }>;
  interfaces: { purpose: string; label: string | null; active: boolean; ipv4?: { nat_1_1: string | null } }[];
};

beforeAll(async () => {
  emulator = await startTestEmulator();
  demo = clientFor(emulator, emulator.control.tokens.demo);
});

afterAll(async () => {
  await emulator?.close();
});

function label(prefix: string): string {
  labels += 1;
  return `${prefix}-${labels}`;
}

const fromImage = (extra: Record<string, unknown> = {}) => ({
  region: 'us-east',
  type: 'g6-standard-1',
  image: 'node/debian12',
  root_pass: STRONG_PASSWORD,
  label: label('node'),
  ...extra,
});

const create = async (input: Record<string, unknown>) =>
  (await demo.call(op('POST /node/instances'), input as never)) as Node;
const view = async (nodeId: number) =>
  (await demo.call(op('GET /node/instances/{nodeId}'), { nodeId })) as Node;
const backupsOf = async (nodeId: number) =>
  (await demo.call(op('GET /node/instances/{nodeId}/backups'), { nodeId })) as Backups;
const configsOf = async (nodeId: number) =>
  ((await demo.call(op('GET /node/instances/{nodeId}/configs'), { nodeId })) as { data: Config[] }).data;
const disksOf = (nodeId: number) => [...(emulator.control.world.nodes.get(nodeId)?.disks.values() ?? [])];

describe('node create rules', () => {
  it('node create rule 1: the user needs the add_nodes grant', async () => {
    const dev = clientFor(emulator, emulator.control.tokens.restricted);
    const error = await apiErrorOf(dev.call(op('POST /node/instances'), fromImage()));
    expect(error.status).toBe(403);
    expect(error.message).toMatch(/add_nodes/);
  });

  it('node create rule 2: from an image the node provisions, then runs', async () => {
    const node = await create(fromImage());
    expect(node).toMatchObject({ status: 'provisioning', image: 'node/debian12' });
    emulator.control.advance(MINUTE);
    expect((await view(node.id)).status).toBe('running');
  });

  it('node create rule 2: cloud-init needs an image with the capability and a region with metadata', async () => {
    const metadata = { user_data: Buffer.from('#cloud-config\npackages: [nginx]\n').toString('base64') };
    const noCapability = await apiErrorOf(create(fromImage({ image: 'node/alpine3.19', metadata })));
    expect(noCapability.errors).toEqual([
      { field: 'metadata', reason: 'node/alpine3.19 does not support cloud-init' },
    ]);
    const noMetadata = await apiErrorOf(create(fromImage({ region: 'ap-south', metadata })));
    expect(noMetadata.errors).toEqual([{ field: 'metadata', reason: 'ap-south does not support metadata' }]);
    await expect(create(fromImage({ metadata }))).resolves.toMatchObject({ has_user_data: true });
  });

  it('node create rule 2: a StackScript needs a compatible image and its required data', async () => {
    const incompatible = await apiErrorOf(
      create(fromImage({ image: 'node/almalinux9', stackscript_id: 401 })),
    );
    expect(incompatible.errors).toEqual([
      { field: 'image', reason: 'StackScript 401 does not support node/almalinux9' },
    ]);
    const missing = await apiErrorOf(create(fromImage({ stackscript_id: 401 })));
    expect(missing.errors).toEqual([{ field: 'stackscript_data', reason: 'needs db_password' }]);
    await expect(
      create(fromImage({ stackscript_id: 401, stackscript_data: { db_password: 'x' } })),
    ).resolves.toMatchObject({
      status: 'provisioning',
    });
  });

  it('node create rule 2: from a backup it must be the same region, a successful backup and a node large enough', async () => {
    const backup = (await backupsOf(1009)).automatic[0] as Backup;
    const elsewhere = await apiErrorOf(
      create({ region: 'us-east', type: 'g6-standard-2', backup_id: backup.id }),
    );
    expect(elsewhere.message).toMatch(/same region/);
    const small = await apiErrorOf(create({ region: 'ap-south', type: 'g6-nanode-1', backup_id: backup.id }));
    expect(small.errors).toEqual([{ field: 'type', reason: 'g6-nanode-1 is too small for this backup' }]);
    const node = await create({
      region: 'ap-south',
      type: 'g6-standard-2',
      backup_id: backup.id,
      label: label('restored'),
    });
    expect((await configsOf(node.id)).map((c) => c.label)).toEqual(backup.configs);
    // A snapshot still running is not a successful backup.
    const running = (await demo.call(op('POST /node/instances/{nodeId}/backups'), {
      nodeId: 1009,
      label: 'in-flight',
    })) as Backup;
    const unfinished = await apiErrorOf(
      create({ region: 'ap-south', type: 'g6-standard-2', backup_id: running.id }),
    );
    expect(unfinished.message).toMatch(/successfully completed/);
  });

  it('node create rule 2: from a backup the user needs read_write on the backed-up node', async () => {
    emulator.control.createUser({
      username: 'reader',
      restricted: true,
      globalGrants: { add_nodes: true },
      entityGrants: [{ kind: 'node', id: 1013, permission: 'read_only' }],
    });
    const reader = clientFor(emulator, emulator.control.createToken('reader').token);
    const backup = (await backupsOf(1013)).automatic[0] as Backup;
    const error = await apiErrorOf(
      reader.call(op('POST /node/instances'), {
        region: 'us-east',
        type: 'g6-standard-1',
        backup_id: backup.id,
      }),
    );
    expect(error.status).toBe(403);
  });

  it('node create rule 2: a private VLAN needs a next-generation region; an empty node stays offline', async () => {
    const interfaces = [
      { purpose: 'public' },
      { purpose: 'vlan', label: 'backend', ipam_address: '10.0.0.1/24' },
    ];
    const old = await apiErrorOf(create(fromImage({ region: 'ap-south', interfaces })));
    expect(old.errors).toEqual([{ field: 'interfaces', reason: 'VLANs are not available in ap-south' }]);
    const withVlan = await create(fromImage({ interfaces }));
    expect((await configsOf(withVlan.id))[0]?.interfaces.map((i) => i.purpose)).toEqual(['public', 'vlan']);
    const empty = await create({ region: 'us-east', type: 'g6-nanode-1', label: label('empty') });
    emulator.control.advance(MINUTE);
    expect((await view(empty.id)).status).toBe('offline');
    expect(await configsOf(empty.id)).toEqual([]);
    expect(disksOf(empty.id)).toEqual([]);
  });

  it('node create rule 3: from an image a profile with a root disk and a 512 MB swap disk (or swap_size) is created', async () => {
    const standard = await create(fromImage());
    const [config] = await configsOf(standard.id);
    expect(Object.entries(config?.devices ?? {}).flatMap(([slot, d]) => (d ? [slot] : []))).toEqual([
      'sda',
      'sdb',
    ]);
    expect(disksOf(standard.id).map((d) => [d.filesystem, d.size])).toEqual([
      ['ext4', 50 * 1024 - 512],
      ['swap', 512],
    ]);
    const bigSwap = await create(fromImage({ swap_size: 2048 }));
    expect(disksOf(bigSwap.id).find((d) => d.filesystem === 'swap')?.size).toBe(2048);
  });

  it('node create rule 4: authorized_users need an SSH key on their profile; backup_id and image exclude each other', async () => {
    emulator.control.createUser({ username: 'keyless' });
    const error = await apiErrorOf(create(fromImage({ authorized_users: ['keyless'] })));
    expect(error.errors).toEqual([
      { field: 'authorized_users.0', reason: 'keyless has no SSH key on their profile' },
    ]);
    await expect(create(fromImage({ authorized_users: ['demo'] }))).resolves.toBeDefined();
    const both = await raw(emulator, 'POST /node/instances', {
      token: emulator.control.tokens.demo,
      body: { ...fromImage(), backup_id: 60001 },
    });
    expect(both.status).toBe(400);
    expect(reasonsOf(both.body)).toContain('backup_id: cannot be given together with image');
  });

  it('node create rule 5: a private image needs read_only or read_write permission on it', async () => {
    emulator.control.createUser({ username: 'builder', restricted: true, globalGrants: { add_nodes: true } });
    const builder = clientFor(emulator, emulator.control.createToken('builder').token);
    const input = fromImage({ image: 'private/101' });
    const refused = await apiErrorOf(builder.call(op('POST /node/instances'), input));
    expect(refused.errors).toEqual([{ field: 'image', reason: 'Image private/101 does not exist' }]);
    emulator.control.grant({
      username: 'builder',
      kind: 'image',
      id: 'private/101',
      permission: 'read_only',
    });
    await expect(
      builder.call(op('POST /node/instances'), fromImage({ image: 'private/101' })),
    ).resolves.toMatchObject({
      image: 'private/101',
    });
  });

  it('node create rule 6: user_data cannot be changed after provisioning', async () => {
    const response = await raw(emulator, 'PUT /node/instances/{nodeId}', {
      token: emulator.control.tokens.demo,
      params: { nodeId: 1004 },
      body: { metadata: { user_data: Buffer.from('#cloud-config').toString('base64') } },
    });
    expect(response.status).toBe(400);
    expect(reasonsOf(response.body)).toEqual(['metadata: is not a known field']);
  });

  it('node create rule 7: outbound ports 25, 465 and 587 are restricted for accounts created after 5 November 2019', async () => {
    const node = await create(fromImage());
    expect(emulator.control.world.nodes.get(node.id)?.restrictedOutboundPorts).toEqual([25, 465, 587]);
    const older = await startTestEmulator({ seed: { nodes: 1, accountCreated: '2019-01-01T00:00:00Z' } });
    try {
      const client = clientFor(older, older.control.tokens.demo);
      const legacy = (await client.call(op('POST /node/instances'), fromImage())) as Node;
      expect(older.control.world.nodes.get(legacy.id)?.restrictedOutboundPorts).toEqual([]);
    } finally {
      await older.close();
    }
  });

  it('a root_pass that is too weak is refused with the documented reason', async () => {
    const error = await apiErrorOf(create(fromImage({ root_pass: 'weakpassword' })));
    expect(error.errors).toEqual([
      { field: 'root_pass', reason: 'Password does not meet strength requirement' },
    ]);
  });

  it('only unrestricted users may add or modify tags on nodes (authentication rule 4)', async () => {
    const dev = clientFor(emulator, emulator.control.tokens.restricted);
    const error = await apiErrorOf(
      dev.call(op('PUT /node/instances/{nodeId}'), { nodeId: 1001, tags: ['mine'] }),
    );
    expect(error.status).toBe(403);
    await expect(
      dev.call(op('PUT /node/instances/{nodeId}'), { nodeId: 1001, watchdog_enabled: false }),
    ).resolves.toBeDefined();
    await expect(
      demo.call(op('PUT /node/instances/{nodeId}'), { nodeId: 1001, tags: ['prod', 'web'] }),
    ).resolves.toMatchObject({
      tags: ['prod', 'web'],
    });
  });

  it('booted false leaves a deployed node offline after provisioning', async () => {
    const node = await create(fromImage({ booted: false }));
    emulator.control.advance(MINUTE);
    expect((await view(node.id)).status).toBe('offline');
  });
});

describe('node backups', () => {
  it('snapshot create: the new snapshot replaces the previous one when it completes', async () => {
    const before = await backupsOf(1001);
    const previous = before.snapshot.current as Backup;
    const taken = (await demo.call(op('POST /node/instances/{nodeId}/backups'), {
      nodeId: 1001,
      label: 'release-2',
    })) as Backup;
    const during = await backupsOf(1001);
    expect(during.snapshot.in_progress?.id).toBe(taken.id);
    expect(during.snapshot.current?.id).toBe(previous.id);
    emulator.control.advance(5 * MINUTE);
    const after = await backupsOf(1001);
    expect(after.snapshot).toMatchObject({
      in_progress: null,
      current: { id: taken.id, status: 'successful' },
    });
    const gone = await apiErrorOf(
      demo.call(op('GET /node/instances/{nodeId}/backups/{backupId}'), {
        nodeId: 1001,
        backupId: previous.id,
      }),
    );
    expect(gone.status).toBe(404);
  });

  it('backups cancel deletes every existing backup permanently', async () => {
    const before = await backupsOf(1013);
    expect(before.automatic.length).toBeGreaterThan(0);
    await demo.call(op('POST /node/instances/{nodeId}/backups/cancel'), { nodeId: 1013 });
    expect(await backupsOf(1013)).toEqual({ automatic: [], snapshot: { in_progress: null, current: null } });
    expect((await view(1013)) as unknown).toMatchObject({ backups: { enabled: false } });
    const gone = await apiErrorOf(
      demo.call(op('GET /node/instances/{nodeId}/backups/{backupId}'), {
        nodeId: 1013,
        backupId: before.automatic[0]?.id as number,
      }),
    );
    expect(gone.status).toBe(404);
    await demo.call(op('POST /node/instances/{nodeId}/backups/enable'), { nodeId: 1013 });
    expect((await view(1013)) as unknown).toMatchObject({ backups: { enabled: true } });
  });

  it('backup restore: not across regions, not from a backup under maintenance, not onto a node taking a backup', async () => {
    const backup = (await backupsOf(1001)).automatic[0] as Backup;
    const restore = (target: number, overwrite = true) =>
      demo.call(op('POST /node/instances/{nodeId}/backups/{backupId}/restore'), {
        nodeId: 1001,
        backupId: backup.id,
        node_id: target,
        overwrite,
      });
    const acrossRegions = await apiErrorOf(restore(1002));
    expect(acrossRegions.message).toMatch(/across regions/);
    const record = emulator.control.world.nodeBackups.get(backup.id);
    if (!record) throw new Error('backup missing');
    record.available = false;
    expect((await apiErrorOf(restore(1004))).message).toMatch(/under maintenance/);
    record.available = true;
    const busy = await create(fromImage({ label: label('busy-target') }));
    emulator.control.advance(MINUTE);
    await demo.call(op('POST /node/instances/{nodeId}/backups'), { nodeId: busy.id, label: 'mine' });
    expect((await apiErrorOf(restore(busy.id))).message).toMatch(/creating a backup/);
  });

  it('backup restore: without overwrite a target that lacks space gets an insufficient-space error', async () => {
    const backup = (await backupsOf(1001)).automatic[0] as Backup;
    const target = await create(fromImage({ type: 'g6-nanode-1', label: label('full') }));
    emulator.control.advance(MINUTE);
    const error = await apiErrorOf(
      demo.call(op('POST /node/instances/{nodeId}/backups/{backupId}/restore'), {
        nodeId: 1001,
        backupId: backup.id,
        node_id: target.id,
        overwrite: false,
      }),
    );
    expect(error.message).toMatch(/Insufficient space/);
  });

  it('backup restore with overwrite replaces the disks and profiles, keeping disk UUIDs; delete waits for it', async () => {
    const backup = (await backupsOf(1001)).automatic[0] as Backup;
    const target = await create(
      fromImage({ type: 'g6-nanode-1', label: label('overwritten'), image: 'node/ubuntu24.04' }),
    );
    emulator.control.advance(MINUTE);
    await demo.call(op('POST /node/instances/{nodeId}/backups/{backupId}/restore'), {
      nodeId: 1001,
      backupId: backup.id,
      node_id: target.id,
      overwrite: true,
    });
    expect((await view(target.id)).status).toBe('restoring');
    const refused = await apiErrorOf(demo.call(op('DELETE /node/instances/{nodeId}'), { nodeId: target.id }));
    expect(refused.message).toMatch(/backup is being restored/);
    emulator.control.advance(3 * MINUTE);
    expect((await view(target.id)).status).toBe('offline');
    expect((await configsOf(target.id)).map((c) => c.label)).toEqual(backup.configs);
    const saved = emulator.control.world.nodeBackups.get(backup.id)?.disks.map((d) => d.uuid);
    expect(disksOf(target.id).map((d) => d.uuid)).toEqual(saved);
  });
});

describe('node delete, boot and clone', () => {
  it('delete: disks, backups and configs go with the node', async () => {
    const node = await create(fromImage({ backups_enabled: true }));
    emulator.control.advance(MINUTE);
    const snapshot = (await demo.call(op('POST /node/instances/{nodeId}/backups'), {
      nodeId: node.id,
      label: 'last',
    })) as Backup;
    emulator.control.advance(5 * MINUTE);
    await demo.call(op('DELETE /node/instances/{nodeId}'), { nodeId: node.id });
    expect((await apiErrorOf(view(node.id))).status).toBe(404);
    expect(emulator.control.world.nodeBackups.has(snapshot.id)).toBe(false);
    const fromGone = await apiErrorOf(
      create({ region: 'us-east', type: 'g6-standard-1', backup_id: snapshot.id }),
    );
    expect(fromGone.message).toMatch(/does not exist/);
  });

  it('boot: the only profile, else the last booted one, else an error', async () => {
    await demo.call(op('POST /node/instances/{nodeId}/boot'), { nodeId: 1007 });
    expect((await view(1007)).status).toBe('booting');
    emulator.control.advance(MINUTE);
    expect((await view(1007)).status).toBe('running');

    const empty = await create({ region: 'us-east', type: 'g6-standard-1', label: label('two-profiles') });
    emulator.control.advance(MINUTE);
    for (const name of ['alpha', 'beta']) {
      await demo.call(op('POST /node/instances/{nodeId}/configs'), {
        nodeId: empty.id,
        label: name,
        devices: {},
      });
    }
    const undecided = await apiErrorOf(
      demo.call(op('POST /node/instances/{nodeId}/boot'), { nodeId: empty.id }),
    );
    expect(undecided.errors).toEqual([
      {
        field: 'config_id',
        reason: `Node ${empty.id} has several configuration profiles and none was booted last; give config_id`,
      },
    ]);
    const beta = (await configsOf(empty.id))[1] as Config;
    await demo.call(op('POST /node/instances/{nodeId}/boot'), { nodeId: empty.id, config_id: beta.id });
    emulator.control.advance(MINUTE);
    await demo.call(op('POST /node/instances/{nodeId}/boot'), { nodeId: empty.id });
    expect(emulator.control.world.nodes.get(empty.id)?.lastBootedConfigId).toBe(beta.id);
  });

  it('clone: a sixth concurrent clone of one node is refused with 400; delete waits for the clones', async () => {
    const clone = (name: string) =>
      demo.call(op('POST /node/instances/{nodeId}/clone'), {
        nodeId: 1004,
        region: 'us-east',
        type: 'g6-standard-4',
        label: name,
      }) as Promise<Node>;
    const clones: Node[] = [];
    for (let i = 0; i < 5; i++) clones.push(await clone(label('copy')));
    const sixth = await apiErrorOf(clone(label('copy')));
    expect(sixth.status).toBe(400);
    expect(sixth.message).toMatch(/At most 5 clones/);
    const source = await apiErrorOf(demo.call(op('DELETE /node/instances/{nodeId}'), { nodeId: 1004 }));
    expect(source.message).toMatch(/clone/);
    const target = await apiErrorOf(
      demo.call(op('DELETE /node/instances/{nodeId}'), { nodeId: clones[0]?.id as number }),
    );
    expect(target.message).toMatch(/clone/);
    emulator.control.advance(3 * MINUTE);
    await expect(clone(label('copy'))).resolves.toMatchObject({ status: 'cloning' });
    expect((await view(clones[0]?.id as number)).status).toBe('offline');
  });

  it("clone: the source's tags are copied; configs [] clones no profile; absent clones them all", async () => {
    const all = (await demo.call(op('POST /node/instances/{nodeId}/clone'), {
      nodeId: 1002,
      region: 'eu-west',
      type: 'g6-standard-2',
      label: label('tagged'),
    })) as Node;
    expect(all.tags).toEqual((await view(1002)).tags);
    expect(await configsOf(all.id)).toHaveLength(1);
    const bare = (await demo.call(op('POST /node/instances/{nodeId}/clone'), {
      nodeId: 1002,
      region: 'eu-west',
      type: 'g6-standard-2',
      label: label('bare'),
      configs: [],
    })) as Node;
    expect(await configsOf(bare.id)).toEqual([]);
  });

  it('clone: a new node needs add_nodes; region and type only for a new node; the target must be idle', async () => {
    const dev = clientFor(emulator, emulator.control.tokens.restricted);
    const grant = await apiErrorOf(
      dev.call(op('POST /node/instances/{nodeId}/clone'), {
        nodeId: 1001,
        region: 'us-east',
        type: 'g6-standard-1',
      }),
    );
    expect(grant.status).toBe(403);
    const mixed = await raw(emulator, 'POST /node/instances/{nodeId}/clone', {
      token: emulator.control.tokens.demo,
      params: { nodeId: 1001 },
      body: { node_id: 1004, region: 'us-east' },
    });
    expect(reasonsOf(mixed.body)).toEqual([
      'region: may only be given when cloning to a new node (without node_id)',
    ]);
    const provisioning = await create({ region: 'us-east', type: 'g6-standard-8', label: label('not-idle') });
    const busy = await apiErrorOf(
      demo.call(op('POST /node/instances/{nodeId}/clone'), { nodeId: 1001, node_id: provisioning.id }),
    );
    expect(busy.message).toMatch(/running or queued actions/);
    emulator.control.advance(MINUTE);
    await expect(
      demo.call(op('POST /node/instances/{nodeId}/clone'), { nodeId: 1001, node_id: provisioning.id }),
    ).resolves.toMatchObject({ id: provisioning.id, status: 'cloning' });
  });

  it('clone: metadata is required when the source has user data', async () => {
    const metadata = { user_data: Buffer.from('#cloud-config').toString('base64') };
    const source = await create(fromImage({ metadata }));
    emulator.control.advance(MINUTE);
    const input = { nodeId: source.id, region: 'us-east', type: 'g6-standard-1', label: label('ud-copy') };
    const missing = await apiErrorOf(demo.call(op('POST /node/instances/{nodeId}/clone'), input));
    expect(missing.errors).toEqual([
      { field: 'metadata', reason: 'is required because the source node has user data' },
    ]);
    await expect(
      demo.call(op('POST /node/instances/{nodeId}/clone'), { ...input, metadata }),
    ).resolves.toMatchObject({
      has_user_data: true,
    });
  });

  it('clone: VLANs need a next-generation data centre, and 1:1 NAT on a vpc interface becomes any', async () => {
    const source = await create(fromImage({ label: label('networked') }));
    emulator.control.advance(MINUTE);
    const [config] = await configsOf(source.id);
    await demo.call(op('PUT /node/instances/{nodeId}/configs/{configId}'), {
      nodeId: source.id,
      configId: config?.id as number,
      interfaces: [
        { purpose: 'vpc', subnet_id: 7, primary: true, ipv4: { nat_1_1: '203.0.113.50' } },
        { purpose: 'vlan', label: 'backend', ipam_address: '10.0.0.5/24' },
      ],
    });
    const toOldDc = await apiErrorOf(
      demo.call(op('POST /node/instances/{nodeId}/clone'), {
        nodeId: source.id,
        region: 'ap-south',
        type: 'g6-standard-1',
      }),
    );
    expect(toOldDc.message).toMatch(/VLANs are not available in ap-south/);
    const copy = (await demo.call(op('POST /node/instances/{nodeId}/clone'), {
      nodeId: source.id,
      region: 'eu-west',
      type: 'g6-standard-1',
      label: label('networked-copy'),
    })) as Node;
    const [cloned] = await configsOf(copy.id);
    expect(cloned?.interfaces[0]?.ipv4?.nat_1_1).toBe('any');
  });
});

describe('configuration rules', () => {
  it('an interface update redefines every interface, and takes effect after a reboot', async () => {
    const node = await create(fromImage({ label: label('reconfigured') }));
    emulator.control.advance(MINUTE);
    const [config] = await configsOf(node.id);
    const configId = config?.id as number;
    expect(config?.interfaces.map((i) => [i.purpose, i.active])).toEqual([['public', true]]);
    const updated = (await demo.call(op('PUT /node/instances/{nodeId}/configs/{configId}'), {
      nodeId: node.id,
      configId,
      interfaces: [{ purpose: 'vlan', label: 'storage', ipam_address: '10.1.0.2/24' }],
    })) as Config;
    expect(updated.interfaces.map((i) => [i.purpose, i.label, i.active])).toEqual([
      ['vlan', 'storage', false],
    ]);
    await demo.call(op('POST /node/instances/{nodeId}/boot'), { nodeId: node.id, config_id: configId });
    emulator.control.advance(MINUTE);
    const [rebooted] = await configsOf(node.id);
    expect(rebooted?.interfaces.map((i) => i.active)).toEqual([true]);
  });

  it('device slots must hold disks of the node; sde to sdh are not available in fullvirt', async () => {
    const foreignDisk = disksOf(1004)[0]?.id as number;
    const error = await apiErrorOf(
      demo.call(op('POST /node/instances/{nodeId}/configs'), {
        nodeId: 1001,
        label: 'borrowed',
        devices: { sda: { disk_id: foreignDisk } },
      }),
    );
    expect(error.errors).toEqual([
      { field: 'devices.sda.disk_id', reason: `Disk ${foreignDisk} does not belong to node 1001` },
    ]);
    const fullvirt = await raw(emulator, 'POST /node/instances/{nodeId}/configs', {
      token: emulator.control.tokens.demo,
      params: { nodeId: 1001 },
      body: { label: 'hvm', virt_mode: 'fullvirt', devices: { sde: { disk_id: disksOf(1001)[0]?.id } } },
    });
    expect(reasonsOf(fullvirt.body)).toEqual(['devices.sde: is not available when virt_mode is fullvirt']);
  });
});
