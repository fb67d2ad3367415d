import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../infra/local/emulator/server.js';
import { operations } from '../../lib/api/operations/index.js';
import {
  DATABASE_KINDS,
  databaseCatalogTour,
  databaseKindTour,
  imageTour,
  managedTour,
  nodeTour,
  profileTour,
  type Tour,
  volumeTour,
} from '../contract/operation-tour.js';
import { type RawResponse, raw, rawFlat, startTestEmulator } from '../contract/support.js';

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

  it('answers the grants of an unrestricted user with 204 and no body', async () => {
    const response = await raw(emulator, 'GET /profile/grants', { token: emulator.control.tokens.demo });
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
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
