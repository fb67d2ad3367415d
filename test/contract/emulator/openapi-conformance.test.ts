import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyOverrideToFieldSchema,
  DOCUMENT_OVERRIDES,
} from '../../../infra/local/emulator/published-contract.js';
import type { RunningEmulator } from '../../../infra/local/emulator/server.js';
import { operations } from '../../../lib/api/operations/index.js';
import { DOCUMENTED_OPERATIONS } from '../../support/documented-operations.js';
import {
  DATABASE_KINDS,
  databaseCatalogTour,
  databaseKindTour,
  imageTour,
  incidentTour,
  managedTour,
  nodeTour,
  profileTour,
  type Tour,
  volumeTour,
} from '../operation-tour.js';
import { type RawResponse, raw, rawFlat, startTestEmulator } from '../support.js';

/**
 * Every operation of the table gets one real, successful request, and its body is checked against
 * the published OpenAPI schema of the same path and method. The document is read as published,
 * with the few corrections listed in PUBLISHED_SCHEMA_FIXES.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
type Json = Record<string, unknown>;

interface OpenApiDocument {
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json> };
}

function readDocument(name: string): OpenApiDocument {
  return JSON.parse(
    readFileSync(new URL(`../../../../shared/reference/${name}`, import.meta.url), 'utf8'),
  ) as OpenApiDocument;
}

/** Both published documents; each stands alone, with its own copy of the schemas they share. */
const documents = [readDocument('cloud-api.openapi.json'), readDocument('cloud-api-more.openapi.json')];

function documentOf(path: string): OpenApiDocument {
  const document = documents.find((d) => d.paths[path] !== undefined);
  if (!document) throw new Error(`No published document has ${path}`);
  return document;
}

/** The schema at `path` in every document that has it (shared schemas are fixed in both). */
function schemasAt(path: string): Json[] {
  const found = documents.flatMap((document) => {
    let node: unknown = document;
    for (const part of path.split('/').filter(Boolean)) node = (node as Json | undefined)?.[part];
    return node && typeof node === 'object' ? [node as Json] : [];
  });
  if (found.length === 0) throw new Error(`No schema at ${path}`);
  return found;
}

interface SchemaFix {
  path: string;
  why: string;
  fix: (schema: Json) => void;
}

function nullable(path: string, why: string): SchemaFix {
  return {
    path,
    why,
    fix: (s) => {
      s.nullable = true;
    },
  };
}

/**
 * The request check's own corrections of a pattern (DOCUMENT_OVERRIDES), applied to the response
 * schema of the same field, so the two checks cannot drift apart.
 */
function fromOverride(path: string, at: string, field: string): SchemaFix {
  const override = DOCUMENT_OVERRIDES.find((o) => o.at === at && o.field === field);
  if (!override) throw new Error(`DOCUMENT_OVERRIDES has no override for ${field} at ${at}`);
  return { path, why: override.why, fix: (s) => applyOverrideToFieldSchema(override, s) };
}

const DEVICE_SLOTS = ['sda', 'sdb', 'sdc', 'sdd', 'sde', 'sdf', 'sdg', 'sdh'];

/**
 * Where the published schema contradicts the documents in spec/ (which win), says null only in
 * prose, or cannot be a regular expression at all.
 */
const PUBLISHED_SCHEMA_FIXES: SchemaFix[] = [
  nullable(
    '/components/schemas/PersonalAccessToken/properties/expiry',
    'profile document: expiry is nullable; null means the token never expires',
  ),
  nullable(
    '/components/schemas/SecurityQuestion/properties/response',
    'profile document: a listed question has a response string or null',
  ),
  nullable(
    '/components/schemas/NodeConfigInterface/properties/ipv4',
    'compute document, Interface: ipv4 is only for vpc, null if none (the schema says so in prose only)',
  ),
  ...DEVICE_SLOTS.map((slot) =>
    nullable(
      `/components/schemas/Devices/properties/${slot}`,
      'compute document, configuration profile: each slot sda..sdh is a device or null',
    ),
  ),
  nullable(
    '/components/schemas/Device/properties/disk_id',
    "the schema's prose: the Disk ID, or null if a Volume is assigned to this slot",
  ),
  nullable(
    '/components/schemas/Device/properties/volume_id',
    "the schema's prose: the Volume ID, or null if a Disk is assigned to this slot",
  ),
  nullable(
    '/components/schemas/Node/properties/backups/properties/last_successful',
    "the schema's prose: null if there was no previous backup",
  ),
  nullable(
    '/components/schemas/Backup/properties/finished',
    'a snapshot still running has no completion date yet: null until it finishes',
  ),
  nullable(
    '/components/schemas/ManagedCredential/properties/last_decrypted',
    'managed document: the date support staff last decrypted it, so null for one never decrypted',
  ),
  nullable(
    '/components/schemas/ManagedService/properties/region',
    'managed document, rule 4: a region only for a private-IP address; the published example is null',
  ),
  nullable(
    '/components/schemas/IPAddress/properties/vpc_nat_1_1',
    "API-FACTS-MORE §3.1 and the schema's prose: null when the address has no 1:1 NAT",
  ),
  fromOverride('/components/schemas/Node/properties/label', 'PUT /node/instances/{nodeId}', 'label'),
  fromOverride(
    '/components/schemas/NodeConfig/properties/root_device',
    'PUT /node/instances/{nodeId}/configs/{configId}',
    'root_device',
  ),
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

function admitsNull(schema: unknown, components: Json, depth = 0): boolean {
  if (!schema || typeof schema !== 'object' || depth > 20) return false;
  const node = schema as Json;
  if (typeof node.$ref === 'string') {
    let target: unknown = { components };
    for (const part of node.$ref.replace(/^#\//, '').split('/'))
      target = (target as Json | undefined)?.[part];
    return admitsNull(target, components, depth + 1);
  }
  if (node.type === 'null' || (Array.isArray(node.type) && node.type.includes('null'))) return true;
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true;
  return ['anyOf', 'oneOf'].some(
    (key) =>
      Array.isArray(node[key]) && (node[key] as unknown[]).some((b) => admitsNull(b, components, depth + 1)),
  );
}

/**
 * No leniency for omitted nulls: a property that may be null must be sent, as null when it has no
 * value, because the documents say "null" and a client reading the field must not meet `undefined`.
 */
function requireNullable(node: unknown, components: Json): void {
  if (Array.isArray(node)) {
    for (const item of node) requireNullable(item, components);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const schema = node as Json;
  for (const [key, value] of Object.entries(schema))
    if (key !== 'example') requireNullable(value, components);
  if (!schema.properties || typeof schema.properties !== 'object') return;
  const nullables = Object.entries(schema.properties as Record<string, Json>)
    .filter(([, property]) => property.writeOnly !== true && admitsNull(property, components))
    .map(([name]) => name);
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  schema.required = [...new Set([...required, ...nullables])];
}

function buildValidators() {
  for (const { path, fix } of PUBLISHED_SCHEMA_FIXES) for (const schema of schemasAt(path)) fix(schema);
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  // The documents: times are UTC "with no zone suffix in samples".
  ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?$/i);
  // Managed rule 4 monitors private-IP addresses, which ajv-formats' `url` rejects: any absolute URI.
  ajv.addFormat('url', /^[a-z][a-z0-9+.-]*:\/\/\S+$/i);
  const componentsOf = new Map(
    documents.map((document) => {
      const components = convertNullable(document.components) as Json;
      requireNullable(components, components);
      return [document, components] as const;
    }),
  );
  const cache = new Map<string, ValidateFunction>();
  return (method: string, path: string, status: number): ValidateFunction => {
    const key = `${method} ${path} ${status}`;
    let validate = cache.get(key);
    if (!validate) {
      const document = documentOf(path);
      const components = componentsOf.get(document) as Json;
      const operation = document.paths[path]?.[method.toLowerCase()] as Json | undefined;
      const response = (operation?.responses as Record<string, Json> | undefined)?.[String(status)];
      const schema = (response?.content as Record<string, { schema: Json }> | undefined)?.['application/json']
        ?.schema;
      if (!schema) throw new Error(`The published spec has no ${status} JSON schema for ${method} ${path}`);
      const converted = convertNullable(schema) as Json;
      requireNullable(converted, components);
      validate = ajv.compile({ ...converted, components });
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
const covered = new Set<string>();

beforeAll(async () => {
  emulator = await startTestEmulator();
});

afterAll(async () => {
  await emulator?.close();
});

/** Sends a tour step as raw HTTP and checks the answer against the published schema. */
function conformingTour(): Tour {
  return {
    emulator,
    send: async (signature, input = {}, options = {}) => {
      const response = await rawFlat(emulator, signature, input, {
        token: options.token ?? emulator.control.tokens.demo,
      });
      const shown = `${signature}: ${response.status} ${JSON.stringify(response.body)}`;
      expect(response.status >= 200 && response.status < 300, shown).toBe(true);
      if (response.status !== 204) expect(problemsOf(signature, response), signature).toEqual([]);
      covered.add(signature);
      return response.body;
    },
  };
}

describe('every operation answers as published', () => {
  it('profile', () => profileTour(conformingTour()));
  it('managed monitoring', () => managedTour(conformingTour()));
  it('database engines, types and the all-kinds list', () => databaseCatalogTour(conformingTour()));
  it.each(DATABASE_KINDS)('$kind databases', (kind) => databaseKindTour(conformingTour(), kind));
  it('volumes', () => volumeTour(conformingTour()));
  it('images', () => imageTour(conformingTour()));
  it('nodes', () => nodeTour(conformingTour()));
  it('node actions, disks, types, kernels, regions and events', () => incidentTour(conformingTour()));

  it('answers the grants of an unrestricted user with 204 and no body', async () => {
    const response = await raw(emulator, 'GET /profile/grants', { token: emulator.control.tokens.demo });
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
  });
});

describe('the schema check itself', () => {
  it('rejects bodies that break the published schema', () => {
    const volume = {
      id: 1,
      label: 'data',
      status: 'melting',
      size: '20',
      region: 'us-east',
      node_id: null,
      node_label: null,
    };
    expect(
      problemsOf('GET /volumes/{volumeId}', { status: 200, headers: new Headers(), body: volume }),
    ).toHaveLength(2);
    const node = { id: 1, label: 'web-1', status: 'running', image: null, ipv6: null, tags: 'prod' };
    expect(
      problemsOf('GET /node/instances/{nodeId}', { status: 200, headers: new Headers(), body: node }),
    ).toEqual([expect.stringContaining('/tags must be array')]);
  });
  it('regression: a field the documents say is null passed when left out', async () => {
    const credential = { id: 1, label: 'db-admin' };
    expect(problemsOf('GET /managed/credentials/{credentialId}', ok(credential))).toEqual([
      expect.stringContaining("required property 'last_decrypted'"),
    ]);
    expect(
      problemsOf('GET /managed/credentials/{credentialId}', ok({ ...credential, last_decrypted: null })),
    ).toEqual([]);

    const configs = await raw(emulator, 'GET /node/instances/{nodeId}/configs', {
      token: emulator.control.tokens.demo,
      params: { nodeId: 1001 },
    });
    const config = (configs.body as { data: { devices: Record<string, unknown> }[] }).data[0];
    expect(problemsOf('GET /node/instances/{nodeId}/configs/{configId}', ok(config))).toEqual([]);
    const { sdh: _, ...withoutEmptySlot } = config?.devices ?? {};
    expect(
      problemsOf(
        'GET /node/instances/{nodeId}/configs/{configId}',
        ok({ ...config, devices: withoutEmptySlot }),
      ),
    ).toEqual([expect.stringContaining("/devices must have required property 'sdh'")]);
  });
});

describe('the schema check of the second document', () => {
  it('reads its schemas: a node type without its (nullable) successor, or an unknown event status, is refused', () => {
    const type = {
      id: 'g6-standard-2',
      label: 'Standard 4GB',
      class: 'standard',
      price: { hourly: 0.036, monthly: 26.28 },
    };
    expect(problemsOf('GET /node/types/{typeId}', ok(type))).toEqual([
      expect.stringContaining("required property 'successor'"),
    ]);
    expect(problemsOf('GET /node/types/{typeId}', ok({ ...type, successor: null }))).toEqual([]);
    const event = {
      id: 1,
      action: 'node_reboot',
      status: 'rebooting',
      time_remaining: null,
      username: null,
      message: null,
    };
    expect(problemsOf('GET /account/events/{eventId}', ok(event))).toEqual([
      expect.stringContaining('/status must be equal to one of the allowed values'),
    ]);
  });
});

function ok(body: unknown): RawResponse {
  return { status: 200, headers: new Headers(), body };
}

describe('coverage', () => {
  it('sent a successful request to every operation of the table', () => {
    const all = operations.map((o) => `${o.method} ${o.path}`);
    expect([...all].sort()).toEqual([...DOCUMENTED_OPERATIONS].sort());
    expect(all.filter((signature) => !covered.has(signature))).toEqual([]);
  });
});
