import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../infra/local/emulator/server.js';
import { raw, startTestEmulator } from '../support.js';

/** Answers found to differ from the documents when the provider's own client ran against the emulator. */

let emulator: RunningEmulator;
let token: string;

beforeAll(async () => {
  emulator = await startTestEmulator();
  token = emulator.control.tokens.demo;
});

afterAll(async () => {
  await emulator?.close();
});

async function activeMysqlId(): Promise<number> {
  const list = await raw(emulator, 'GET /databases/mysql/instances', { token });
  const active = (list.body as { data: { id: number; status: string }[] }).data.find(
    (d) => d.status === 'active',
  );
  if (!active) throw new Error('the seed has no active MySQL database');
  return active.id;
}

describe('database snapshots', () => {
  it('regression: a snapshot just created was a 404 by its id until it finished', async () => {
    const instanceId = await activeMysqlId();
    const created = await raw(emulator, 'POST /databases/mysql/instances/{instanceId}/backups', {
      token,
      params: { instanceId },
      body: { label: 'before-upgrade' },
    });
    expect(created.status).toBe(200);
    const backups = await raw(emulator, 'GET /databases/mysql/instances/{instanceId}/backups', {
      token,
      params: { instanceId },
    });
    const listed = (backups.body as { data: { id: number; label: string }[] }).data.find(
      (b) => b.label === 'before-upgrade',
    );
    expect(listed).toBeDefined();
    const byId = await raw(emulator, 'GET /databases/mysql/instances/{instanceId}/backups/{backupId}', {
      token,
      params: { instanceId, backupId: listed?.id ?? 0 },
    });
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({ label: 'before-upgrade', type: 'snapshot' });
  });
});

describe('managed credentials', () => {
  it('regression: the published POST .../revoke form was a 404; it removes the credential like DELETE', async () => {
    const created = await raw(emulator, 'POST /managed/credentials', {
      token,
      body: { label: 'switch-admin', username: 'admin', password: 'Secret-pass-1' },
    });
    const credentialId = (created.body as { id: number }).id;
    const revoked = await raw(emulator, 'POST /managed/credentials/{credentialId}/revoke', {
      token,
      params: { credentialId },
    });
    expect([revoked.status, revoked.body]).toEqual([200, {}]);
    const after = await raw(emulator, 'GET /managed/credentials/{credentialId}', {
      token,
      params: { credentialId },
    });
    expect(after.status).toBe(404);
  });
});

describe('scopes come from the published contract', () => {
  it("refuses a token without the operation's published scope and names the accepted one", async () => {
    const narrow = emulator.control.createToken('demo', { scopes: 'volumes:read_only' }).token;
    const response = await raw(emulator, 'POST /profile/tfa-enable-confirm', {
      token: narrow,
      body: { tfa_code: '123456' },
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('x-accepted-oauth-scopes')).toBe('account:read_write');
  });
});

describe('null where the documents say null, not a missing key', () => {
  it('regression: a profile listed only its used device slots, each with one kind of id', async () => {
    const configs = await raw(emulator, 'GET /node/instances/{nodeId}/configs', {
      token,
      params: { nodeId: 1001 },
    });
    const [config] = (configs.body as { data: { devices: Record<string, unknown> }[] }).data;
    expect(Object.keys(config?.devices ?? {})).toEqual([
      'sda',
      'sdb',
      'sdc',
      'sdd',
      'sde',
      'sdf',
      'sdg',
      'sdh',
    ]);
    expect(config?.devices.sda).toEqual({ disk_id: expect.any(Number), volume_id: null });
    expect(config?.devices.sdh).toBeNull();
  });

  it('regression: a public interface had no ipv4 key; it is null outside vpc', async () => {
    const created = await raw(emulator, 'POST /node/instances/{nodeId}/configs', {
      token,
      params: { nodeId: 1001 },
      body: { label: 'with-public', devices: {}, interfaces: [{ purpose: 'public' }] },
    });
    expect(created.status).toBe(200);
    const [iface] = (created.body as { interfaces: Record<string, unknown>[] }).interfaces;
    expect(iface).toHaveProperty('ipv4', null);
  });

  it('regression: a node never backed up had no backups.last_successful; it is null', async () => {
    const created = await raw(emulator, 'POST /node/instances', {
      token,
      body: { region: 'us-east', type: 'g6-standard-1', label: 'never-backed-up' },
    });
    expect(created.status).toBe(200);
    expect((created.body as { backups: Record<string, unknown> }).backups).toHaveProperty(
      'last_successful',
      null,
    );
  });

  it('regression: a snapshot in progress had no finished key; it is null until it completes', async () => {
    await raw(emulator, 'POST /node/instances/{nodeId}/backups', {
      token,
      params: { nodeId: 1001 },
      body: { label: 'in-flight' },
    });
    const backups = await raw(emulator, 'GET /node/instances/{nodeId}/backups', {
      token,
      params: { nodeId: 1001 },
    });
    const inProgress = (backups.body as { snapshot: { in_progress: Record<string, unknown> | null } })
      .snapshot.in_progress;
    expect(inProgress).toMatchObject({ label: 'in-flight', finished: null });
  });

  it('regression: a credential never decrypted had no last_decrypted key; it is null', async () => {
    const created = await raw(emulator, 'POST /managed/credentials', {
      token,
      body: { label: 'fresh-cred', username: 'ops', password: 'Secret-pass-2' },
    });
    expect(created.body).toEqual({ id: expect.any(Number), label: 'fresh-cred', last_decrypted: null });
  });

  it('regression: a service on a public address had no region key; it is null', async () => {
    const created = await raw(emulator, 'POST /managed/services', {
      token,
      body: { service_type: 'url', label: 'public-site', address: 'https://example.org', timeout: 30 },
    });
    expect(created.status).toBe(200);
    expect(created.body).toHaveProperty('region', null);
  });
});
