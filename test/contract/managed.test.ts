import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE } from '../../infra/local/emulator/clock.js';
import type { RunningEmulator } from '../../infra/local/emulator/server.js';
import type { ApiClient } from '../../lib/api/client.js';
import { operations } from '../../lib/api/operations/index.js';
import { apiErrorOf, clientFor, op, raw, reasonsOf, startTestEmulator } from './support.js';

/** Managed monitoring through the client: managed rules 1-4 and "unrestricted users only". */

let emulator: RunningEmulator;
let demo: ApiClient;

beforeAll(async () => {
  emulator = await startTestEmulator();
  demo = clientFor(emulator, emulator.control.tokens.demo);
});

afterAll(async () => {
  await emulator?.close();
});

describe('managed rules', () => {
  it('managed rule 1: a contact phone is {primary, secondary}; secondary and group may be null', async () => {
    const contact = await demo.call(op('POST /managed/contacts'), {
      name: 'Night Shift',
      email: 'night@example.com',
      phone: { primary: '+1 555 0150', secondary: null },
      group: null,
    });
    expect(contact).toMatchObject({ phone: { primary: '+1 555 0150', secondary: null }, group: null });
  });

  it('managed rule 2: PUT changes only the label; username and password change through /update', async () => {
    const credential = (await demo.call(op('POST /managed/credentials'), {
      label: 'router-admin',
      username: 'admin',
      password: 'first-Pass1',
    })) as { id: number };
    const credentialId = credential.id;
    const response = await raw(emulator, 'PUT /managed/credentials/{credentialId}', {
      token: emulator.control.tokens.demo,
      params: { credentialId },
      body: { password: 'second-Pass2' },
    });
    expect(response.status).toBe(400);
    expect(reasonsOf(response.body)).toEqual(['password: is not a known field']);
    await demo.call(op('POST /managed/credentials/{credentialId}/update'), {
      credentialId,
      username: 'root',
      password: 'second-Pass2',
    });
    const stored = emulator.control.world.credentials.get(credentialId);
    expect([stored?.username, stored?.password]).toEqual(['root', 'second-Pass2']);
    // Never returned.
    const viewed = await demo.call(op('GET /managed/credentials/{credentialId}'), { credentialId });
    expect(Object.keys(viewed as object).sort()).toEqual(['id', 'label', 'last_decrypted']);
  });

  it('managed rule 3: a credential username is at most 5000 characters', async () => {
    const tooLong = await raw(emulator, 'POST /managed/credentials', {
      token: emulator.control.tokens.demo,
      body: { label: 'long-user', username: 'u'.repeat(5001), password: 'x-Pass123' },
    });
    expect(tooLong.status).toBe(400);
    expect(reasonsOf(tooLong.body)).toEqual(['username: must be at most 5000 characters']);
    await expect(
      demo.call(op('POST /managed/credentials'), {
        label: 'long-user',
        username: 'u'.repeat(5000),
        password: 'x-Pass123',
      }),
    ).resolves.toMatchObject({ label: 'long-user' });
  });

  it('managed rule 4: a service region is required for a private-IP address and refused otherwise', async () => {
    const token = emulator.control.tokens.demo;
    const base = { service_type: 'tcp', label: 'private-db', timeout: 10 };
    const missing = await raw(emulator, 'POST /managed/services', {
      token,
      body: { ...base, address: 'tcp://10.0.0.5:5432' },
    });
    expect(reasonsOf(missing.body)).toEqual(['region: is required when address is a private IP']);
    const extra = await raw(emulator, 'POST /managed/services', {
      token,
      body: { ...base, address: 'https://public.example.com', region: 'us-east' },
    });
    expect(reasonsOf(extra.body)).toEqual(['region: may only be given when address is a private IP']);
    const created = (await demo.call(op('POST /managed/services'), {
      ...base,
      address: 'tcp://10.0.0.5:5432',
      region: 'us-east',
    })) as { id: number; region?: string };
    expect(created.region).toBe('us-east');
    // Moving the service to a public address drops the region; keeping one is refused.
    const refused = await raw(emulator, 'PUT /managed/services/{serviceId}', {
      token,
      params: { serviceId: created.id },
      body: { address: 'https://db.example.com', region: 'us-east' },
    });
    expect(refused.status).toBe(400);
    const moved = (await demo.call(op('PUT /managed/services/{serviceId}'), {
      serviceId: created.id,
      address: 'https://db.example.com',
    })) as { region?: string | null };
    expect(moved.region ?? null).toBeNull();
  });

  it('authentication rule 4: every managed endpoint refuses restricted users', async () => {
    const restricted = emulator.control.tokens.restricted;
    const lists = operations.filter(
      (o) => o.group === 'managed' && o.method === 'GET' && o.pathParams.length === 0,
    );
    expect(lists.length).toBeGreaterThanOrEqual(6);
    for (const list of lists) {
      const error = await apiErrorOf(clientFor(emulator, restricted).call(list, {} as never));
      expect(error.status, list.id).toBe(403);
      expect(error.message).toMatch(/unrestricted/);
    }
  });
});

describe('managed services and issues', () => {
  it('a new service is pending until its first check, then ok; disable and enable pause and resume it', async () => {
    const service = (await demo.call(op('POST /managed/services'), {
      service_type: 'url',
      label: 'docs-site',
      address: 'https://docs.example.com',
      timeout: 20,
    })) as { id: number; status: string };
    expect(service.status).toBe('pending');
    emulator.control.advance(5 * MINUTE);
    const view = () => demo.call(op('GET /managed/services/{serviceId}'), { serviceId: service.id });
    expect(await view()).toMatchObject({ status: 'ok' });
    await expect(
      demo.call(op('POST /managed/services/{serviceId}/disable'), { serviceId: service.id }),
    ).resolves.toMatchObject({
      status: 'disabled',
    });
    await expect(
      demo.call(op('POST /managed/services/{serviceId}/enable'), { serviceId: service.id }),
    ).resolves.toMatchObject({
      status: 'pending',
    });
  });

  it('an issue opened through the control interface shows up with its services and ticket', async () => {
    const services = (await demo.call(op('GET /managed/services'), {})) as { data: { id: number }[] };
    const serviceId = services.data[0]?.id as number;
    const issue = emulator.control.createManagedIssue({ services: [serviceId], label: 'shop is down' });
    const listed = (await demo.call(op('GET /managed/issues'), {})) as { data: { id: number }[] };
    expect(listed.data[0]?.id).toBe(issue.id);
    const viewed = await demo.call(op('GET /managed/issues/{issueId}'), { issueId: issue.id });
    expect(viewed).toMatchObject({
      services: [serviceId],
      entity: { type: 'ticket', label: 'shop is down' },
    });
    expect(await demo.call(op('GET /managed/services/{serviceId}'), { serviceId })).toMatchObject({
      status: 'problem',
    });
  });

  it('stats cover the last 24 hours in 5-minute points, the same on every call', async () => {
    const first = (await demo.call(op('GET /managed/stats'), {})) as {
      data: Record<string, { x: number; y: number }[]>;
    };
    const second = await demo.call(op('GET /managed/stats'), {});
    expect(Object.keys(first.data).sort()).toEqual(['cpu', 'disk', 'net_in', 'net_out', 'swap']);
    const cpu = first.data.cpu ?? [];
    expect(cpu).toHaveLength(288);
    expect((cpu.at(-1)?.x ?? 0) - (cpu[0]?.x ?? 0)).toBe(24 * 60 * MINUTE - 5 * MINUTE);
    expect(second).toEqual(first);
  });

  it('node settings exist for every node and keep the SSH access set for support staff', async () => {
    const settings = (await demo.call(op('GET /managed/node-settings'), {})) as {
      results: number;
      data: { id: number }[];
    };
    const nodes = (await demo.call(op('GET /node/instances'), {})) as { results: number };
    expect(settings.results).toBe(nodes.results);
    const nodeId = settings.data[2]?.id as number;
    await demo.call(op('PUT /managed/node-settings/{nodeId}'), {
      nodeId,
      ssh: { access: false, user: 'ops' },
    });
    expect(await demo.call(op('GET /managed/node-settings/{nodeId}'), { nodeId })).toMatchObject({
      ssh: { access: false, user: 'ops', port: null },
    });
  });
});
