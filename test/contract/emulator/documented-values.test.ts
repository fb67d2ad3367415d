import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmulatorError } from '../../../infra/local/emulator/errors.js';
import { PUBLISHED_CONTRACT } from '../../../infra/local/emulator/published-contract.js';
import { checkedInput } from '../../../infra/local/emulator/request-check.js';
import type { RunningEmulator } from '../../../infra/local/emulator/server.js';
import { DOCUMENTED_OPERATIONS } from '../../support/documented-operations.js';
import { DOCUMENTED_VALUES, type DocumentedValue } from '../../support/documented-values.js';
import { op, raw, reasonsOf, startTestEmulator } from '../support.js';

/**
 * Values the documents in spec/ allow: the emulator follows the documents where the provider's
 * published schema is stricter, so each is accepted (the regressions over HTTP, doing what they
 * say), and so does the bot's own request schema, so a user can send it from Slack.
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

/**
 * The emulator's request check (the published rules with the documents' overrides, then the
 * documents' cross-field rules: what the server runs before any handler), with the flat input
 * split the way HTTP carries it. The field errors it answers with; none when it accepts.
 */
function emulatorRefusal(value: DocumentedValue): string[] {
  const published = PUBLISHED_CONTRACT.get(value.at);
  if (!published) throw new Error(`The emulator's contract has no ${value.at}`);
  const pathParams: Record<string, string> = {};
  const query = new URLSearchParams();
  const body: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value.input)) {
    const where = published.parameters.get(name)?.in;
    if (where === 'path') pathParams[name] = String(field);
    else if (where === 'query') query.set(name, String(field));
    else body[name] = field;
  }
  const sendsBody = published.method === 'POST' || published.method === 'PUT';
  try {
    checkedInput(published, { pathParams, query, body: sendsBody ? body : undefined });
    return [];
  } catch (error) {
    if (!(error instanceof EmulatorError)) throw error;
    return error.errors.map((e) => (e.field ? `${e.field}: ${e.reason}` : e.reason));
  }
}

/** The bot's own request schema for the operation: the rules it breaks; none when it accepts. */
function botRefusal(value: DocumentedValue): string[] {
  const parsed = op(value.at).request.safeParse(value.input);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
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

  it('regression: a slot in the form the profile is shown in, the other id null, was refused', async () => {
    const config = await firstConfigOf(1001);
    const updated = await raw(emulator, 'PUT /node/instances/{nodeId}/configs/{configId}', {
      token,
      params: { nodeId: 1001, configId: config.id },
      body: { devices: config.devices },
    });
    expect(updated.status, JSON.stringify(reasonsOf(updated.body))).toBe(200);
    expect((updated.body as Config).devices).toEqual(config.devices);
  });

  it('still refuses a slot naming both kinds, or neither', async () => {
    const config = await firstConfigOf(1001);
    for (const device of [
      { disk_id: 1, volume_id: 2 },
      { disk_id: null, volume_id: null },
    ]) {
      const updated = await raw(emulator, 'PUT /node/instances/{nodeId}/configs/{configId}', {
        token,
        params: { nodeId: 1001, configId: config.id },
        body: { devices: { sdb: device } },
      });
      expect(reasonsOf(updated.body)).toEqual(['devices.sdb: must name exactly one of disk_id or volume_id']);
    }
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

describe('further values the documents allow that the published schema refused', () => {
  it('regression: a public interface with label and ipam_address "" and ipv4 null was refused', async () => {
    const created = await raw(emulator, 'POST /node/instances/{nodeId}/configs', {
      token,
      params: { nodeId: 1001 },
      body: {
        label: 'blank-public',
        devices: {},
        interfaces: [{ purpose: 'public', label: '', ipam_address: '', ipv4: null }],
      },
    });
    expect(created.status, JSON.stringify(reasonsOf(created.body))).toBe(200);
    const [iface] = (created.body as { interfaces: Record<string, unknown>[] }).interfaces;
    expect(iface).toMatchObject({ purpose: 'public', label: null, ipam_address: null, ipv4: null });
  });

  it('regression: a one-letter volume label (1..32 characters) was refused by the published pattern', async () => {
    const volumeId = emulator.control.createVolume({ label: 'to-rename' }).id;
    const updated = await raw(emulator, 'PUT /volumes/{volumeId}', {
      token,
      params: { volumeId },
      body: { label: 'v' },
    });
    expect(updated.status, JSON.stringify(reasonsOf(updated.body))).toBe(200);
    expect(updated.body).toMatchObject({ id: volumeId, label: 'v' });
  });
});

describe('every value the documents allow', () => {
  const cases = DOCUMENTED_VALUES.map((value) => [value.at, JSON.stringify(value.input), value] as const);

  it('covers every operation of the documents that takes a request body', () => {
    const covered = new Set(DOCUMENTED_VALUES.map((v) => v.at));
    const withBody = DOCUMENTED_OPERATIONS.filter((signature) => {
      const published = PUBLISHED_CONTRACT.get(signature);
      return (
        published &&
        (published.method === 'POST' || published.method === 'PUT') &&
        Object.keys(published.input.properties).some((name) => !published.parameters.has(name))
      );
    });
    expect(withBody.filter((signature) => !covered.has(signature))).toEqual([]);
  });

  it.each(cases)('%s %s: the emulator accepts it', (_at, _input, value) => {
    expect(emulatorRefusal(value), value.source).toEqual([]);
  });

  it.each(cases)("%s %s: the bot's request schema accepts it", (_at, _input, value) => {
    expect(botRefusal(value), value.source).toEqual([]);
  });
});

describe('what the documents still refuse next to the values they allow', () => {
  const vlan = { purpose: 'vlan', label: 'my-vlan', ipam_address: '10.0.0.1/24' };
  it.each([
    [
      'a vlan without a label',
      { ...vlan, label: '' },
      'interfaces.1.label: is required for a vlan interface',
    ],
    [
      'a vlan with a null label',
      { ...vlan, label: null },
      'interfaces.1.label: is required for a vlan interface',
    ],
    [
      'a label over 64 characters',
      { ...vlan, label: 'a'.repeat(65) },
      'interfaces.1.label: must be at most 64 characters',
    ],
    ['ipv4 that is text', { purpose: 'vpc', subnet_id: 1, ipv4: 'any' }, 'interfaces.1.ipv4: must be object'],
  ])('%s', (_what, second, refusal) => {
    for (const at of [
      'POST /node/instances/{nodeId}/configs',
      'PUT /node/instances/{nodeId}/configs/{configId}',
    ]) {
      const value = {
        at,
        input: {
          nodeId: 1,
          configId: 1,
          label: 'boot',
          devices: {},
          interfaces: [{ purpose: 'public' }, second],
        },
        source: 'compute document, Interface',
      };
      expect(emulatorRefusal(value), at).toEqual([refusal]);
      expect(botRefusal(value), at).not.toEqual([]);
    }
  });

  it.each([
    ['a label starting with a digit', '1data'],
    ['a label with two hyphens in a row', 'my--data'],
    ['a label over 32 characters', 'a'.repeat(33)],
  ])('a volume: %s', (_what, label) => {
    const value = {
      at: 'PUT /volumes/{volumeId}',
      input: { volumeId: 1, label },
      source: 'compute document',
    };
    expect(emulatorRefusal(value)).toEqual([expect.stringMatching(/^label: /)]);
  });
});
