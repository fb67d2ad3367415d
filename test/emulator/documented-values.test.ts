import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../infra/local/emulator/server.js';
import { raw, reasonsOf, startTestEmulator } from '../contract/support.js';

/**
 * Values the documents in spec/ allow that the provider's published schema refuses: the emulator
 * follows the documents, so each is accepted over HTTP and does what it says.
 */

let emulator: RunningEmulator;
let token: string;

beforeAll(async () => {
  emulator = await startTestEmulator();
  token = emulator.control.tokens.demo;
});

afterAll(async () => {
  await emulator?.close();
});

interface Config {
  id: number;
  devices: Record<string, { disk_id: number | null; volume_id: number | null } | null>;
}

async function firstConfigOf(nodeId: number): Promise<Config> {
  const configs = await raw(emulator, 'GET /node/instances/{nodeId}/configs', { token, params: { nodeId } });
  const [config] = (configs.body as { data: Config[] }).data;
  if (!config) throw new Error(`node ${nodeId} has no configuration profile`);
  return config;
}

async function activeDatabaseId(kind: 'mysql' | 'postgresql'): Promise<number> {
  const list = await raw(emulator, `GET /databases/${kind}/instances`, { token });
  const active = (list.body as { data: { id: number; status: string }[] }).data.find(
    (d) => d.status === 'active',
  );
  if (!active) throw new Error(`the seed has no active ${kind} database`);
  return active.id;
}

describe('configuration profile device slots that are null', () => {
  it('regression: a profile update with unused slots null was refused ("devices.sdb: must be object")', async () => {
    const nodeId = 1001;
    const config = await firstConfigOf(nodeId);
    const diskId = config.devices.sda?.disk_id;
    if (typeof diskId !== 'number') throw new Error('the seeded profile has no disk in sda');

    const updated = await raw(emulator, 'PUT /node/instances/{nodeId}/configs/{configId}', {
      token,
      params: { nodeId, configId: config.id },
      body: { devices: { sda: { disk_id: diskId }, sdb: null } },
    });

    expect(updated.status, JSON.stringify(reasonsOf(updated.body))).toBe(200);
    const devices = (updated.body as Config).devices;
    expect(devices.sda).toEqual({ disk_id: diskId, volume_id: null });
    expect(devices.sdb).toBeNull();
  });

  it('regression: a new profile with every slot named, the unused ones null, was refused', async () => {
    const nodeId = 1001;
    const diskId = (await firstConfigOf(nodeId)).devices.sda?.disk_id;
    const created = await raw(emulator, 'POST /node/instances/{nodeId}/configs', {
      token,
      params: { nodeId },
      body: {
        label: 'all-slots-named',
        devices: {
          sda: { disk_id: diskId },
          sdb: null,
          sdc: null,
          sdd: null,
          sde: null,
          sdf: null,
          sdg: null,
          sdh: null,
        },
      },
    });
    expect(created.status, JSON.stringify(reasonsOf(created.body))).toBe(200);
    expect((created.body as Config).devices.sdh).toBeNull();
  });

  it('still refuses a slot that is neither a device nor null', async () => {
    const config = await firstConfigOf(1001);
    const updated = await raw(emulator, 'PUT /node/instances/{nodeId}/configs/{configId}', {
      token,
      params: { nodeId: 1001, configId: config.id },
      body: { devices: { sdb: 'disk-1' } },
    });
    expect(updated.status).toBe(400);
    expect(reasonsOf(updated.body)).toEqual([expect.stringMatching(/^devices\.sdb: /)]);
  });
});

describe('a database allow_list with single IP addresses', () => {
  it.each(['mysql', 'postgresql'] as const)(
    'regression: %s update with a single IP was refused ("must match format ipv4/prefix_length")',
    async (kind) => {
      const instanceId = await activeDatabaseId(kind);
      const updated = await raw(emulator, `PUT /databases/${kind}/instances/{instanceId}`, {
        token,
        params: { instanceId },
        body: { allow_list: ['203.0.113.7', '192.0.2.0/24'] },
      });
      expect(updated.status, JSON.stringify(reasonsOf(updated.body))).toBe(200);
      expect((updated.body as { allow_list: string[] }).allow_list).toEqual(['203.0.113.7', '192.0.2.0/24']);
    },
  );

  it('regression: a new database allowing one address was refused', async () => {
    const created = await raw(emulator, 'POST /databases/mysql/instances', {
      token,
      body: {
        label: 'one-client',
        region: 'us-east',
        type: 'g6-nanode-1',
        engine: 'mysql/8.0.30',
        allow_list: ['203.0.113.7'],
      },
    });
    expect(created.status, JSON.stringify(reasonsOf(created.body))).toBe(200);
    expect((created.body as { allow_list: string[] }).allow_list).toEqual(['203.0.113.7']);
  });

  it.each([
    ['a host name', 'db.example.org'],
    ['an octet over 255', '203.0.113.256'],
    ['a prefix over 32', '203.0.113.0/33'],
  ])('still refuses %s', async (_what, entry) => {
    const instanceId = await activeDatabaseId('mysql');
    const updated = await raw(emulator, 'PUT /databases/mysql/instances/{instanceId}', {
      token,
      params: { instanceId },
      body: { allow_list: [entry] },
    });
    expect(updated.status).toBe(400);
    expect(reasonsOf(updated.body)).toEqual([expect.stringMatching(/^allow_list\.0: /)]);
  });
});
