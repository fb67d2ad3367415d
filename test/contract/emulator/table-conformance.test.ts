import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { EmulatorError } from '../../../infra/local/emulator/errors.js';
import {
  DOCUMENT_OVERRIDES,
  PUBLISHED_CONTRACT,
  type PublishedOperation,
} from '../../../infra/local/emulator/published-contract.js';
import { checkedInput } from '../../../infra/local/emulator/request-check.js';
import { fieldErrorsFromIssues } from '../../../lib/api/errors.js';
import type { AnyOperation } from '../../../lib/api/operation.js';
import { operations } from '../../../lib/api/operations/index.js';
import { jsonSchemaOf } from '../../../lib/commands/field-shapes.js';
import { DOCUMENTED_OPERATIONS } from '../../support/documented-operations.js';

/**
 * The bot's operations table and the emulator's contract (the provider's published schema plus
 * the documents' overrides) are written independently; this test holds them to each other. A
 * rule changed in the table alone (a required field made optional, a bound, an enum, a scope)
 * makes the two disagree here instead of passing every test by construction.
 */

type Json = Record<string, unknown>;
const RULE_KEYWORDS = [
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'enum',
  'minItems',
  'maxItems',
] as const;

function signatureOf(op: AnyOperation): string {
  return `${op.method} ${op.path}`;
}

function publishedOf(op: AnyOperation): PublishedOperation {
  const published = PUBLISHED_CONTRACT.get(signatureOf(op));
  if (!published) throw new Error(`The published contract has no ${signatureOf(op)}`);
  return published;
}

function tableSchemaOf(op: AnyOperation): Json & { properties?: Record<string, Json>; required?: string[] } {
  return jsonSchemaOf(op.request, 'input') as Json;
}

/** A keyword's value on a field, looking through `anyOf` (nullable fields). */
function keywordOf(schema: unknown, keyword: string): unknown {
  if (!schema || typeof schema !== 'object') return undefined;
  const node = schema as Json;
  if (node[keyword] !== undefined) return node[keyword];
  const options = Array.isArray(node.anyOf) ? node.anyOf : [];
  for (const option of options) {
    const found = keywordOf(option, keyword);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A rule only counts when it restricts something: `minLength: 0` allows everything. */
function meaningful(keyword: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (keyword === 'minLength' || keyword === 'minItems') return value !== 0;
  return true;
}

function sorted(values: readonly unknown[]): unknown[] {
  return [...values].map((v) => (v === null ? 'null' : v)).sort();
}

/** The table's rules that the published contract (with the documents' overrides) does not share. */
function differencesOf(op: AnyOperation): string[] {
  const published = publishedOf(op);
  const table = tableSchemaOf(op);
  const differences: string[] = [];
  if (sorted(op.scopes).join(' ') !== sorted(published.scopes).join(' ')) {
    differences.push(`scopes: table ${op.scopes.join(' ')}, contract ${published.scopes.join(' ')}`);
  }
  if (op.access !== published.access)
    differences.push(`access: table ${op.access}, contract ${published.access}`);
  const tableUnrestricted = op.grants?.includes('unrestricted_only') ?? false;
  if (tableUnrestricted !== (published.grant === 'unrestricted only')) {
    differences.push(`unrestricted only: table ${tableUnrestricted}, contract ${published.grant}`);
  }
  const required = sorted(table.required ?? []).join(',');
  const publishedRequired = sorted(published.input.required).join(',');
  if (required !== publishedRequired) {
    differences.push(`required: table [${required}], contract [${publishedRequired}]`);
  }
  for (const [name, field] of Object.entries(table.properties ?? {})) {
    const theirs = published.input.properties[name];
    if (theirs === undefined) {
      differences.push(`${name}: the contract has no such field`);
      continue;
    }
    for (const keyword of RULE_KEYWORDS) {
      const contractValue = keywordOf(theirs, keyword);
      if (!meaningful(keyword, contractValue)) continue;
      const tableValue = keywordOf(field, keyword);
      const same =
        keyword === 'enum'
          ? JSON.stringify(sorted((tableValue as unknown[]) ?? [])) ===
            JSON.stringify(sorted(contractValue as unknown[]))
          : tableValue === contractValue;
      if (!same) {
        differences.push(
          `${name}.${keyword}: table ${JSON.stringify(tableValue)}, contract ${JSON.stringify(contractValue)}`,
        );
      }
    }
  }
  return differences;
}

// ---------------------------------------------------------------------------------------------
// Generated requests

/** The simplest value the contract's field schema accepts. */
function validValue(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object') return 'sample';
  const node = schema as Json;
  if (Array.isArray(node.anyOf)) return validValue(node.anyOf[0]);
  if (Array.isArray(node.enum)) return node.enum.find((v) => v !== null);
  const type = Array.isArray(node.type) ? node.type[0] : node.type;
  if (type === 'integer' || type === 'number') return Math.max(1, Number(node.minimum ?? 1));
  if (type === 'boolean') return true;
  if (type === 'array') {
    return Array.from({ length: Number(node.minItems ?? 0) }, (_, i) => {
      const item = validValue(node.items);
      return item && typeof item === 'object' && 'question_id' in item
        ? { ...item, question_id: i + 1 }
        : item;
    });
  }
  if (type === 'object' || node.properties) {
    const required = Array.isArray(node.required) ? (node.required as string[]) : [];
    const properties = (node.properties ?? {}) as Record<string, unknown>;
    return Object.fromEntries(required.map((name) => [name, validValue(properties[name])]));
  }
  const length = Math.max(Number(node.minLength ?? 0), 3);
  return 'abc'.padEnd(length, 'x').slice(0, Number(node.maxLength ?? length));
}

/** Requests the generic filler cannot build, for the documents' rules that tie fields together. */
const VALID_INPUTS: Record<string, Json> = {
  'POST /node/instances/{nodeId}/clone': { nodeId: 1, node_id: 2 },
  // API-FACTS-MORE §4.1: an empty disk needs a label (a document rule the schema does not state).
  'POST /node/instances/{nodeId}/disks': { nodeId: 1, size: 1, label: 'abc' },
  'POST /volumes': { label: 'abc', region: 'us-east' },
  'POST /profile/phone-number': { iso_code: 'us', phone_number: '555-555-5555' },
  'POST /managed/services': {
    service_type: 'url',
    label: 'shop',
    address: 'https://shop.example.org',
    timeout: 30,
  },
  'POST /databases/mysql/instances': {
    label: 'orders',
    type: 'g6-nanode-1',
    region: 'us-east',
    engine: 'mysql/8.0.26',
  },
  'POST /databases/postgresql/instances': {
    label: 'orders',
    type: 'g6-nanode-1',
    region: 'us-east',
    engine: 'postgresql/13.2',
  },
  'PUT /images/{imageId}': { imageId: 'private/1' },
  'DELETE /images/{imageId}': { imageId: 'private/1' },
};

function validInput(published: PublishedOperation): Json {
  const own = VALID_INPUTS[published.signature];
  if (own) return { ...own };
  return validValue({ ...published.input, type: 'object' }) as Json;
}

interface Violation {
  field: string;
  rule: string;
  input: Json;
}

/** One request per published rule on a top-level field, breaking only that rule. */
function violationsOf(published: PublishedOperation, valid: Json): Violation[] {
  const violations: Violation[] = [];
  for (const [field, raw] of Object.entries(published.input.properties)) {
    if (published.parameters.get(field)?.in === 'path') continue;
    const schema = raw as Json;
    const base = { ...valid };
    if (published.input.required.includes(field)) {
      const { [field]: _, ...without } = base;
      violations.push({ field, rule: 'required', input: without });
    }
    const enumValues = keywordOf(schema, 'enum');
    if (Array.isArray(enumValues))
      violations.push({ field, rule: 'enum', input: { ...base, [field]: 'not-an-option' } });
    const minLength = keywordOf(schema, 'minLength');
    if (typeof minLength === 'number' && minLength > 0) {
      violations.push({ field, rule: 'minLength', input: { ...base, [field]: 'x'.repeat(minLength - 1) } });
    }
    const maxLength = keywordOf(schema, 'maxLength');
    if (typeof maxLength === 'number' && keywordOf(schema, 'type') !== 'object') {
      violations.push({ field, rule: 'maxLength', input: { ...base, [field]: 'x'.repeat(maxLength + 1) } });
    }
    const minimum = keywordOf(schema, 'minimum');
    if (typeof minimum === 'number')
      violations.push({ field, rule: 'minimum', input: { ...base, [field]: minimum - 1 } });
    const maximum = keywordOf(schema, 'maximum');
    if (typeof maximum === 'number')
      violations.push({ field, rule: 'maximum', input: { ...base, [field]: maximum + 1 } });
  }
  return violations;
}

interface Verdict {
  accepted: boolean;
  fields: string[];
}

function topLevel(fields: readonly (string | undefined)[]): string[] {
  return [...new Set(fields.map((f) => (f ?? '(request)').split('.')[0] ?? ''))].sort();
}

function botVerdict(op: AnyOperation, input: Json): Verdict {
  const parsed = op.request.safeParse(input);
  if (parsed.success) return { accepted: true, fields: [] };
  return {
    accepted: false,
    fields: topLevel(fieldErrorsFromIssues(parsed.error.issues).map((e) => e.field)),
  };
}

/** The emulator's own request check, with the input split the way HTTP carries it. */
function emulatorVerdict(published: PublishedOperation, input: Json): Verdict {
  const pathParams: Record<string, string> = {};
  const query = new URLSearchParams();
  const body: Json = {};
  for (const [name, value] of Object.entries(input)) {
    const where = published.parameters.get(name)?.in;
    if (where === 'path') pathParams[name] = String(value);
    else if (where === 'query') query.set(name, String(value));
    else body[name] = value;
  }
  const hasBody = published.method === 'POST' || published.method === 'PUT';
  try {
    checkedInput(published, { pathParams, query, body: hasBody ? body : undefined });
    return { accepted: true, fields: [] };
  } catch (error) {
    if (!(error instanceof EmulatorError)) throw error;
    return { accepted: false, fields: topLevel(error.errors.map((e) => e.field)) };
  }
}

describe("the bot's table and the emulator's contract", () => {
  it('name the same operations, every documented one', () => {
    expect(operations.map(signatureOf).filter((s) => !PUBLISHED_CONTRACT.has(s))).toEqual([]);
    expect(operations.map(signatureOf).sort()).toEqual([...DOCUMENTED_OPERATIONS].sort());
  });

  it.each(operations.map((op) => [op.id, op] as const))(
    '%s: the table declares the scopes, grants, required fields, enums and bounds of the contract',
    (_id, op) => {
      expect(differencesOf(op)).toEqual([]);
    },
  );

  it.each(operations.map((op) => [op.id, op] as const))(
    '%s: a valid request and each single-rule violation get the same verdict and field from both',
    (_id, op) => {
      const published = publishedOf(op);
      const valid = validInput(published);
      const cases = [{ field: '(valid)', rule: 'none', input: valid }, ...violationsOf(published, valid)];
      const disagreements = cases.flatMap(({ field, rule, input }) => {
        const bot = botVerdict(op, input);
        const emulator = emulatorVerdict(published, input);
        const same = bot.accepted === emulator.accepted && bot.fields.join() === emulator.fields.join();
        return same
          ? []
          : [`${field} ${rule}: bot ${JSON.stringify(bot)}, emulator ${JSON.stringify(emulator)}`];
      });
      expect(disagreements).toEqual([]);
    },
  );
});

describe("the documents' overrides", () => {
  it('each names an operation of the contract and says why', () => {
    for (const override of DOCUMENT_OVERRIDES) {
      expect(PUBLISHED_CONTRACT.has(override.at), override.at).toBe(true);
      expect(override.why.length, override.at).toBeGreaterThan(20);
    }
  });

  it('catches a table row that makes a required field optional', () => {
    const op = operations.find((o) => o.id === 'profile.tfa-confirm');
    if (!op) throw new Error('profile.tfa-confirm is missing');
    const loosened = {
      ...op,
      request: z.object({ tfa_code: z.string().optional() }),
    } as unknown as AnyOperation;
    expect(differencesOf(loosened)).toEqual(['required: table [], contract [tfa_code]']);
  });
});
