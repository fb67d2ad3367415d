import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../infra/local/emulator/server.js';
import type { ApiClient } from '../../lib/api/client.js';
import { apiErrorOf, clientFor, op, raw, startTestEmulator } from './support.js';

/**
 * The authentication rules of the compute, storage, images and databases document (the profile
 * document's are in profile.test.ts, its managed rule in managed.test.ts).
 */

let emulator: RunningEmulator;
let demo: ApiClient;

beforeAll(async () => {
  emulator = await startTestEmulator();
  demo = clientFor(emulator, emulator.control.tokens.demo);
});

afterAll(async () => {
  await emulator?.close();
});

describe('authentication rules', () => {
  it('authentication rule 1: personal access tokens and OAuth tokens are both sent as Bearer tokens', async () => {
    const oauth = emulator.control.world.issuedTokens.find((t) => t.token.startsWith('app-'));
    await expect(clientFor(emulator, oauth?.token).call(op('GET /volumes'), {})).resolves.toBeDefined();
    await expect(demo.call(op('GET /volumes'), {})).resolves.toBeDefined();
    const unknown = await raw(emulator, 'GET /volumes', { token: 'not-a-token-we-issued' });
    expect(unknown.status).toBe(401);
  });

  it('authentication rule 2: attach and detach need both volumes:read_write and nodes:read_write', async () => {
    const volume = emulator.control.createVolume({ label: 'scoped-attach' });
    const { token } = emulator.control.createToken('demo', { scopes: 'volumes:read_write nodes:read_only' });
    const error = await apiErrorOf(
      clientFor(emulator, token).call(op('POST /volumes/{volumeId}/attach'), {
        volumeId: volume.id,
        node_id: 1001,
      }),
    );
    expect(error.status).toBe(403);
    expect(error.message).toMatch(/nodes:read_write/);
    const response = await raw(emulator, 'POST /volumes/{volumeId}/detach', {
      token,
      params: { volumeId: volume.id },
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('x-accepted-oauth-scopes')).toBe('volumes:read_write nodes:read_write');
    const both = emulator.control.createToken('demo', {
      scopes: 'volumes:read_write nodes:read_write',
    }).token;
    await expect(
      clientFor(emulator, both).call(op('POST /volumes/{volumeId}/attach'), {
        volumeId: volume.id,
        node_id: 1001,
      }),
    ).resolves.toMatchObject({ node_id: 1001 });
  });

  it('authentication rule 3: listing and viewing images works without authentication, for public images only', async () => {
    const anonymous = await raw(emulator, 'GET /images');
    expect(anonymous.status).toBe(200);
    const ids = (anonymous.body as { data: { id: string }[] }).data.map((image) => image.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.filter((id) => !id.startsWith('node/'))).toEqual([]);
    // A token without images:read_only sees what an anonymous caller sees.
    const { token } = emulator.control.createToken('demo', { scopes: 'nodes:read_only' });
    const narrow = await raw(emulator, 'GET /images/{imageId}', {
      token,
      params: { imageId: 'private/101' },
    });
    expect(narrow.status).toBe(404);
  });

  it('authentication rule 4: restricted users need creation grants and entity permissions; some actions are for unrestricted users only', async () => {
    const dev = clientFor(emulator, emulator.control.tokens.restricted);
    // No add_nodes, no add_databases; add_volumes is granted.
    expect(
      (await apiErrorOf(dev.call(op('POST /node/instances'), { region: 'us-east', type: 'g6-nanode-1' })))
        .status,
    ).toBe(403);
    await expect(
      dev.call(op('POST /volumes'), { label: 'dev-data', region: 'us-east' }),
    ).resolves.toBeDefined();
    // Read-only permission on node 1002 allows viewing, not changing.
    await expect(dev.call(op('GET /node/instances/{nodeId}'), { nodeId: 1002 })).resolves.toBeDefined();
    expect(
      (await apiErrorOf(dev.call(op('PUT /node/instances/{nodeId}'), { nodeId: 1002, label: 'mine' })))
        .status,
    ).toBe(403);
    // Without any permission the entity is refused, and lists leave it out.
    expect((await apiErrorOf(dev.call(op('GET /volumes/{volumeId}'), { volumeId: 2002 }))).status).toBe(403);
    const volumes = (await dev.call(op('GET /volumes'), {})) as { data: { id: number }[] };
    expect(volumes.data.map((v) => v.id)).not.toContain(2002);
    // Database delete and credentials reset: unrestricted users only, whatever the grants.
    emulator.control.grant({ username: 'dev', kind: 'database', id: 41, permission: 'read_write' });
    const reset = await apiErrorOf(
      dev.call(op('POST /databases/mysql/instances/{instanceId}/credentials/reset'), { instanceId: 41 }),
    );
    expect(reset.status).toBe(403);
    expect(reset.message).toMatch(/unrestricted/);
  });

  it('authentication rule 5: the engine and type endpoints answer without a token', async () => {
    for (const signature of ['GET /databases/engines', 'GET /databases/types']) {
      const response = await raw(emulator, signature);
      expect(response.status, signature).toBe(200);
    }
  });
});
