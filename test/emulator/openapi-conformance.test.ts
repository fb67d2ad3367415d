import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE } from '../../infra/local/emulator/clock.js';
import type { RunningEmulator } from '../../infra/local/emulator/server.js';
import { operations } from '../../lib/api/operations/index.js';
import { type RawResponse, raw, STRONG_PASSWORD, startTestEmulator } from '../contract/support.js';

/**
 * Every operation of the table gets one real, successful request, and its body is checked against
 * the published OpenAPI schema of the same path and method. The document is read as published,
 * with the few corrections listed in PUBLISHED_SCHEMA_FIXES.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
type Json = Record<string, unknown>;

const document = JSON.parse(
  readFileSync(new URL('../../../shared/reference/cloud-api.openapi.json', import.meta.url), 'utf8'),
) as { paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, Json> } };

function schemaAt(path: string): Json {
  let node: unknown = document;
  for (const part of path.split('/').filter(Boolean)) node = (node as Json)[part];
  if (!node || typeof node !== 'object') throw new Error(`No schema at ${path}`);
  return node as Json;
}

/**
 * Where the published schema contradicts the documents in spec/ (which win) or cannot be a
 * regular expression at all.
 */
const PUBLISHED_SCHEMA_FIXES: { path: string; why: string; fix: (schema: Json) => void }[] = [
  {
    path: '/components/schemas/PersonalAccessToken/properties/expiry',
    why: 'profile document: expiry is nullable; null means the token never expires',
    fix: (s) => {
      s.nullable = true;
    },
  },
  {
    path: '/components/schemas/SecurityQuestion/properties/response',
    why: 'profile document: a listed question has a response string or null',
    fix: (s) => {
      s.nullable = true;
    },
  },
  {
    path: '/components/schemas/Node/properties/label',
    why: 'the published pattern has an unescaped `..` (any two characters), so it rejects every label longer than two',
    fix: (s) => {
      s.pattern = '^[a-zA-Z]((?!--|__|\\.\\.)[a-zA-Z0-9-_.])+$';
    },
  },
  {
    path: '/components/schemas/NodeConfig/properties/root_device',
    why: 'the published pattern is a prose list of characters, not a regular expression',
    fix: (s) => {
      delete s.pattern;
    },
  },
];

/** OpenAPI 3.0 `nullable` as JSON Schema: Ajv refuses `nullable` without `type`. */
function convertNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(convertNullable);
  if (!node || typeof node !== 'object') return node;
  const converted: Json = {};
  for (const [key, value] of Object.entries(node)) converted[key] = convertNullable(value);
  if (converted.nullable !== true) return converted;
  delete converted.nullable;
  if (Array.isArray(converted.enum)) converted.enum = [...converted.enum, null];
  if (typeof converted.type === 'string') {
    converted.type = [converted.type, 'null'];
    return converted;
  }
  return { anyOf: [converted, { type: 'null' }] };
}

function buildValidators() {
  for (const { path, fix } of PUBLISHED_SCHEMA_FIXES) fix(schemaAt(path));
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  // The documents: times are UTC "with no zone suffix in samples".
  ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?$/i);
  // Managed rule 4 monitors private-IP addresses, which ajv-formats' `url` rejects: any absolute URI.
  ajv.addFormat('url', /^[a-z][a-z0-9+.-]*:\/\/\S+$/i);
  const components = convertNullable(document.components) as Json;
  const cache = new Map<string, ValidateFunction>();
  return (method: string, path: string, status: number): ValidateFunction => {
    const key = `${method} ${path} ${status}`;
    let validate = cache.get(key);
    if (!validate) {
      const operation = document.paths[path]?.[method.toLowerCase()] as Json | undefined;
      const response = (operation?.responses as Record<string, Json> | undefined)?.[String(status)];
      const schema = (response?.content as Record<string, { schema: Json }> | undefined)?.['application/json']
        ?.schema;
      if (!schema) throw new Error(`The published spec has no ${status} JSON schema for ${method} ${path}`);
      validate = ajv.compile({ ...(convertNullable(schema) as Json), components });
      cache.set(key, validate);
    }
    return validate;
  };
}

const validatorFor = buildValidators();

/** Our documents delete a managed credential with DELETE; the published spec with POST .../revoke. */
const PUBLISHED_NAME: Record<string, string> = {
  'DELETE /managed/credentials/{credentialId}': 'POST /managed/credentials/{credentialId}/revoke',
};

function problemsOf(signature: string, response: RawResponse): string[] {
  const [method, path] = (PUBLISHED_NAME[signature] ?? signature).split(' ') as [string, string];
  const validate = validatorFor(method, path, response.status);
  if (validate(response.body)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '(body)'} ${e.message} ${JSON.stringify(e.params)}`,
  );
}

let emulator: RunningEmulator;
let demo: string;
let restricted: string;
const covered = new Set<string>();

beforeAll(async () => {
  emulator = await startTestEmulator();
  demo = emulator.control.tokens.demo;
  restricted = emulator.control.tokens.restricted;
});

afterAll(async () => {
  await emulator?.close();
});

type Call = (signature: string, options?: Parameters<typeof raw>[2]) => Promise<RawResponse>;

/** A successful request; the body must match the published schema. */
const conform: Call = async (signature, options = {}) => {
  const response = await raw(emulator, signature, { token: demo, ...options });
  expect(response.status, `${signature}: ${JSON.stringify(response.body)}`).toBeGreaterThanOrEqual(200);
  expect(response.status, `${signature}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
  if (response.status !== 204) expect(problemsOf(signature, response), signature).toEqual([]);
  covered.add(signature);
  return response;
};

const idOf = (response: RawResponse) => (response.body as { id: number }).id;
const dataOf = (response: RawResponse) => (response.body as { data: Json[] }).data;

describe('profile', () => {
  it('every profile operation answers as published', async () => {
    await conform('GET /profile');
    await conform('PUT /profile', { body: { timezone: 'Europe/Berlin', email_notifications: false } });
    const apps = dataOf(await conform('GET /profile/apps'));
    const appId = apps[0]?.id as number;
    await conform('GET /profile/apps/{appId}', { params: { appId } });
    const devices = dataOf(await conform('GET /profile/devices'));
    const deviceId = devices[0]?.id as number;
    await conform('GET /profile/devices/{deviceId}', { params: { deviceId } });
    await conform('GET /profile/grants', { token: restricted });
    const logins = dataOf(await conform('GET /profile/logins'));
    await conform('GET /profile/logins/{loginId}', { params: { loginId: logins[0]?.id as number } });

    await conform('POST /profile/phone-number', { body: { iso_code: 'US', phone_number: '+1 555 0100' } });
    const code = emulator.control.lastSmsCode('demo');
    await conform('POST /profile/phone-number/verify', { body: { otp_code: code } });
    await conform('DELETE /profile/phone-number');

    await conform('PUT /profile/preferences', { body: { theme: 'dark', pageSize: 50 } });
    await conform('GET /profile/preferences');
    await conform('POST /profile/security-questions', {
      body: {
        security_questions: [
          { question_id: 1, response: 'Gotham' },
          { question_id: 2, response: 'Rex the dog' },
          { question_id: 3, response: 'Blue' },
        ],
      },
    });
    await conform('GET /profile/security-questions');

    await conform('GET /profile/sshkeys');
    const key = await conform('POST /profile/sshkeys', {
      body: { label: 'ci', ssh_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx ci@example' },
    });
    await conform('GET /profile/sshkeys/{sshKeyId}', { params: { sshKeyId: idOf(key) } });
    await conform('PUT /profile/sshkeys/{sshKeyId}', {
      params: { sshKeyId: idOf(key) },
      body: { label: 'ci-2' },
    });
    await conform('DELETE /profile/sshkeys/{sshKeyId}', { params: { sshKeyId: idOf(key) } });

    const secret = (await conform('POST /profile/tfa-enable')).body as { secret: string };
    const tfaCode = TOTP.generate({
      secret: Secret.fromBase32(secret.secret),
      timestamp: emulator.control.now(),
    });
    await conform('POST /profile/tfa-enable-confirm', { body: { tfa_code: tfaCode } });
    await conform('POST /profile/tfa-disable');

    await conform('GET /profile/tokens');
    const token = await conform('POST /profile/tokens', {
      body: { label: 'ci', scopes: 'nodes:read_only', expiry: '2026-01-01T00:00:00' },
    });
    await conform('GET /profile/tokens/{tokenId}', { params: { tokenId: idOf(token) } });
    await conform('PUT /profile/tokens/{tokenId}', {
      params: { tokenId: idOf(token) },
      body: { label: 'ci-2' },
    });
    await conform('DELETE /profile/tokens/{tokenId}', { params: { tokenId: idOf(token) } });

    await conform('DELETE /profile/apps/{appId}', { params: { appId } });
    await conform('DELETE /profile/devices/{deviceId}', { params: { deviceId } });
  });

  it('answers the grants of an unrestricted user with 204 and no body', async () => {
    const response = await raw(emulator, 'GET /profile/grants', { token: demo });
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
  });
});

describe('managed', () => {
  it('every managed operation answers as published', async () => {
    await conform('GET /managed/contacts');
    const contact = await conform('POST /managed/contacts', {
      body: {
        name: 'On Call',
        email: 'oncall@example.com',
        phone: { primary: '+1 555 0199', secondary: null },
        group: 'ops',
      },
    });
    const contactId = idOf(contact);
    await conform('GET /managed/contacts/{contactId}', { params: { contactId } });
    await conform('PUT /managed/contacts/{contactId}', {
      params: { contactId },
      body: { group: 'night-ops' },
    });
    await conform('DELETE /managed/contacts/{contactId}', { params: { contactId } });

    await conform('GET /managed/credentials');
    const credential = await conform('POST /managed/credentials', {
      body: { label: 'backup-admin', username: 'admin', password: 's3cret-Pass' },
    });
    const credentialId = idOf(credential);
    await conform('GET /managed/credentials/sshkey');
    await conform('GET /managed/credentials/{credentialId}', { params: { credentialId } });
    await conform('PUT /managed/credentials/{credentialId}', {
      params: { credentialId },
      body: { label: 'backup-root' },
    });
    await conform('POST /managed/credentials/{credentialId}/update', {
      params: { credentialId },
      body: { username: 'root', password: 'n3w-Secret' },
    });
    await conform('DELETE /managed/credentials/{credentialId}', { params: { credentialId } });

    const issues = dataOf(await conform('GET /managed/issues'));
    await conform('GET /managed/issues/{issueId}', { params: { issueId: issues[0]?.id as number } });

    const settings = dataOf(await conform('GET /managed/node-settings'));
    const nodeId = settings[1]?.id as number;
    await conform('GET /managed/node-settings/{nodeId}', { params: { nodeId } });
    await conform('PUT /managed/node-settings/{nodeId}', {
      params: { nodeId },
      body: { ssh: { access: true, port: 2222, user: 'support' } },
    });

    await conform('GET /managed/services');
    const service = await conform('POST /managed/services', {
      body: { service_type: 'url', label: 'status-page', address: 'https://status.example.com', timeout: 30 },
    });
    const serviceId = idOf(service);
    await conform('GET /managed/services/{serviceId}', { params: { serviceId } });
    await conform('PUT /managed/services/{serviceId}', { params: { serviceId }, body: { timeout: 45 } });
    await conform('POST /managed/services/{serviceId}/disable', { params: { serviceId } });
    await conform('POST /managed/services/{serviceId}/enable', { params: { serviceId } });
    await conform('DELETE /managed/services/{serviceId}', { params: { serviceId } });
    await conform('GET /managed/stats');
  });
});

describe('databases', () => {
  it('engines, types and the all-kinds list answer as published', async () => {
    const engines = dataOf(await conform('GET /databases/engines'));
    await conform('GET /databases/engines/{engineId}', { params: { engineId: engines[0]?.id as string } });
    await conform('GET /databases/instances');
    const types = dataOf(await conform('GET /databases/types'));
    await conform('GET /databases/types/{typeId}', { params: { typeId: types[0]?.id as string } });
  });

  it.each([
    ['mysql', 'orders', 'mysql/8.0.30'],
    ['postgresql', 'analytics', 'postgresql/16.2'],
  ])('every %s operation answers as published', async (kind, seededLabel, engine) => {
    const base = `/databases/${kind}/instances`;
    const list = dataOf(await conform(`GET ${base}`));
    const seeded = list.find((db) => db.label === seededLabel);
    const instanceId = seeded?.id as number;
    const params = { instanceId };
    const created = await conform(`POST ${base}`, {
      body: { label: `${kind}-new`, region: 'us-east', type: 'g6-standard-1', engine },
    });
    await conform(`GET ${base}/{instanceId}`, { params });
    await conform(`PUT ${base}/{instanceId}`, { params, body: { label: `${seededLabel}-main` } });
    const backups = dataOf(await conform(`GET ${base}/{instanceId}/backups`, { params }));
    const backupId = backups[0]?.id as number;
    await conform(`GET ${base}/{instanceId}/backups/{backupId}`, { params: { ...params, backupId } });
    await conform(`POST ${base}/{instanceId}/backups`, { params, body: { label: 'nightly_copy' } });
    await conform(`GET ${base}/{instanceId}/credentials`, { params });
    await conform(`GET ${base}/{instanceId}/ssl`, { params });
    await conform(`DELETE ${base}/{instanceId}/backups/{backupId}`, { params: { ...params, backupId } });
    await conform(`POST ${base}/{instanceId}/patch`, { params });
    emulator.control.advance(30 * MINUTE);
    const remaining = dataOf(
      await raw(emulator, `GET ${base}/{instanceId}/backups`, { token: demo, params }),
    );
    await conform(`POST ${base}/{instanceId}/backups/{backupId}/restore`, {
      params: { ...params, backupId: remaining[0]?.id as number },
    });
    await conform(`POST ${base}/{instanceId}/credentials/reset`, { params });
    await conform(`DELETE ${base}/{instanceId}`, { params: { instanceId: idOf(created) } });
  });
});

describe('volumes', () => {
  it('every volume operation answers as published', async () => {
    await conform('GET /volumes');
    const volume = await conform('POST /volumes', {
      body: { label: 'scratch', region: 'us-east', size: 30 },
    });
    const volumeId = idOf(volume);
    await conform('GET /volumes/{volumeId}', { params: { volumeId } });
    await conform('PUT /volumes/{volumeId}', { params: { volumeId }, body: { tags: ['ci'] } });
    emulator.control.advance(MINUTE);
    await conform('POST /volumes/{volumeId}/attach', { params: { volumeId }, body: { node_id: 1001 } });
    await conform('POST /volumes/{volumeId}/clone', {
      params: { volumeId },
      body: { label: 'scratch-copy' },
    });
    await conform('POST /volumes/{volumeId}/detach', { params: { volumeId } });
    await conform('POST /volumes/{volumeId}/resize', { params: { volumeId }, body: { size: 60 } });
    await conform('DELETE /volumes/{volumeId}', { params: { volumeId } });
  });
});

describe('images', () => {
  it('every image operation answers as published', async () => {
    await conform('GET /images');
    const disk = [...(emulator.control.world.nodes.get(1001)?.disks.values() ?? [])][0];
    const captured = await conform('POST /images', {
      body: { disk_id: disk?.id as number, label: 'web-capture' },
    });
    await conform('POST /images/upload', {
      body: { label: 'appliance', region: 'us-east', cloud_init: true },
    });
    await conform('GET /images/{imageId}', { params: { imageId: 'node/debian12' } });
    await conform('PUT /images/{imageId}', {
      params: { imageId: 'private/101' },
      body: { description: 'patched' },
    });
    const capturedId = (captured.body as { id: string }).id;
    await conform('DELETE /images/{imageId}', { params: { imageId: capturedId } });
  });
});

describe('nodes', () => {
  it('every node operation answers as published', async () => {
    await conform('GET /node/instances');
    const created = await conform('POST /node/instances', {
      body: {
        region: 'us-east',
        type: 'g6-standard-1',
        image: 'node/debian12',
        root_pass: STRONG_PASSWORD,
        label: 'conformance-1',
      },
    });
    const nodeId = idOf(created);
    await conform('GET /node/instances/{nodeId}', { params: { nodeId } });
    await conform('PUT /node/instances/{nodeId}', {
      params: { nodeId },
      body: { label: 'conformance-2', watchdog_enabled: false },
    });

    // Node 1001 has backups and a current snapshot; a new snapshot makes one in progress too.
    const source = { nodeId: 1001 };
    await conform('POST /node/instances/{nodeId}/backups', {
      params: source,
      body: { label: 'before-deploy' },
    });
    const backups = (await conform('GET /node/instances/{nodeId}/backups', { params: source })).body as {
      automatic: Json[];
    };
    const backupId = backups.automatic[0]?.id as number;
    await conform('GET /node/instances/{nodeId}/backups/{backupId}', { params: { ...source, backupId } });
    await conform('POST /node/instances/{nodeId}/backups/{backupId}/restore', {
      params: { ...source, backupId },
      body: { node_id: 1004, overwrite: true },
    });
    await conform('POST /node/instances/{nodeId}/backups/enable', { params: { nodeId: 1002 } });
    await conform('POST /node/instances/{nodeId}/backups/cancel', { params: { nodeId: 1005 } });
    await conform('POST /node/instances/{nodeId}/boot', { params: { nodeId: 1007 } });
    await conform('POST /node/instances/{nodeId}/clone', {
      params: source,
      body: { region: 'us-east', type: 'g6-standard-2', label: 'web-clone' },
    });

    const configNode = { nodeId: 1010 };
    await conform('GET /node/instances/{nodeId}/configs', { params: configNode });
    const rootDisk = [...(emulator.control.world.nodes.get(1010)?.disks.values() ?? [])][0];
    const config = await conform('POST /node/instances/{nodeId}/configs', {
      params: configNode,
      body: { label: 'rescue', devices: { sda: { disk_id: rootDisk?.id as number } } },
    });
    const configParams = { ...configNode, configId: idOf(config) };
    await conform('GET /node/instances/{nodeId}/configs/{configId}', { params: configParams });
    await conform('PUT /node/instances/{nodeId}/configs/{configId}', {
      params: configParams,
      body: {
        kernel: 'node/grub2',
        interfaces: [
          { purpose: 'public' },
          { purpose: 'vlan', label: 'backend', ipam_address: '10.0.0.2/24' },
        ],
      },
    });
    await conform('DELETE /node/instances/{nodeId}/configs/{configId}', { params: configParams });
    await conform('DELETE /node/instances/{nodeId}', { params: { nodeId } });
  });
});

describe('the schema check itself', () => {
  it('rejects bodies that break the published schema', () => {
    const volume = { id: 1, label: 'data', status: 'melting', size: '20', region: 'us-east', node_id: null };
    expect(
      problemsOf('GET /volumes/{volumeId}', { status: 200, headers: new Headers(), body: volume }),
    ).toHaveLength(2);
    const node = { id: 1, label: 'web-1', status: 'running', image: null, ipv6: null, tags: 'prod' };
    expect(
      problemsOf('GET /node/instances/{nodeId}', { status: 200, headers: new Headers(), body: node }),
    ).toEqual([expect.stringContaining('/tags must be array')]);
  });
});

describe('coverage', () => {
  it('sent a successful request to every operation of the table', () => {
    const all = operations.map((o) => `${o.method} ${o.path}`);
    expect(all).toHaveLength(122);
    expect(all.filter((signature) => !covered.has(signature))).toEqual([]);
  });
});
