import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../lib/api/client.js';
import { getOperation } from '../../lib/api/operations/index.js';
import { ALICE, type E2E, startE2E } from '../support/e2e.js';

/**
 * Values the documents in spec/ allow and the provider's published schema refuses, typed into
 * Slack as a user would (signed slash commands through the whole stack) and read back from the
 * API: the bot passes them on and the API takes them.
 */

let e2e: E2E;
let api: ApiClient;

beforeAll(async () => {
  e2e = await startE2E();
  await e2e.login(ALICE, e2e.emulator.demoToken);
  api = new ApiClient({ baseUrl: e2e.emulator.url, token: e2e.emulator.demoToken, maxRetries: 0 });
});

afterAll(async () => {
  await e2e?.close();
});

/** What ALICE was told after her last command, in the channel and to her alone. */
function toldSince(before: number): string {
  return e2e
    .seen(ALICE)
    .slice(before)
    .map((m) => e2e.textOf(m))
    .join('\n');
}

type Devices = Record<string, { disk_id: number | null; volume_id: number | null } | null>;

describe('configuration profile devices with unused slots null', () => {
  it('regression: `--devices` with "sdb": null was refused by the API; it is applied', async () => {
    const nodeId = 1001;
    const configs = (await api.call(getOperation('nodes.configs-list'), { nodeId })) as {
      data: { id: number; devices: Devices }[];
    };
    const config = configs.data[0];
    const diskId = config?.devices.sda?.disk_id;
    if (!config || typeof diskId !== 'number') throw new Error('the seeded node has no profile with a disk');

    const before = e2e.seen(ALICE).length;
    const delivery = await e2e.command(
      ALICE,
      `nodes configs-update ${nodeId} ${config.id} --devices '{"sda":{"disk_id":${diskId}},"sdb":null}'`,
    );

    expect(delivery.status).toBe(200);
    const told = toldSince(before);
    expect(told).not.toMatch(/must be object|refused|error/i);
    const after = (await api.call(getOperation('nodes.configs-view'), {
      nodeId,
      configId: config.id,
    })) as { devices: Devices };
    expect(after.devices.sda).toEqual({ disk_id: diskId, volume_id: null });
    expect(after.devices.sdb).toBeNull();
  });
});

describe('a database allow_list with a single IP address', () => {
  it('regression: `--allow-list 203.0.113.7` was refused by the API; it is applied', async () => {
    const databases = (await api.call(getOperation('databases.mysql-list'), {})) as {
      data: { id: number; status: string }[];
    };
    const database = databases.data.find((d) => d.status === 'active');
    if (!database) throw new Error('the seed has no active MySQL database');

    const before = e2e.seen(ALICE).length;
    const delivery = await e2e.command(
      ALICE,
      `databases mysql-update ${database.id} --allow-list 203.0.113.7 --allow-list 192.0.2.0/24`,
    );

    expect(delivery.status).toBe(200);
    expect(toldSince(before)).not.toMatch(/must match format|refused|error/i);
    const after = (await api.call(getOperation('databases.mysql-view'), { instanceId: database.id })) as {
      allow_list: string[];
    };
    expect(after.allow_list).toEqual(['203.0.113.7', '192.0.2.0/24']);
  });

  it('an address that is not one is answered with usage and no API call', async () => {
    const calls = e2e.emulator.control.requestCount('databases.mysql-update');
    const delivery = await e2e.command(ALICE, 'databases mysql-update 1 --allow-list 203.0.113.256');
    expect(e2e.textOf(delivery.message)).toContain('must be an IPv4 address or CIDR range');
    expect(e2e.emulator.control.requestCount('databases.mysql-update')).toBe(calls);
  });
});
