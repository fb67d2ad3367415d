import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getOperation } from '../../../lib/api/operations/index.js';
import { renderDetail } from '../../../lib/slack/render/detail.js';
import { statusLine } from '../../../lib/slack/status-watch.js';
import { enumWords, isEnumField, statusWords } from '../../../lib/slack-kit/enum-words.js';
import { fieldValue } from '../../../lib/slack-kit/field-words.js';
import { database, postgresDatabase } from '../slack/render/fixtures.js';
import { visibleText } from '../slack/render/message-checks.js';

/**
 * The API's enum values read as words wherever a person sees them. The table is held to the API
 * documents: the OpenAPI documents beside the emulator, and the spec's tables (which win).
 */

type Enums = Map<string, Set<string>>;

function add(enums: Enums, field: string, values: readonly string[]): void {
  if (values.length === 0) return;
  const known = enums.get(field) ?? new Set<string>();
  for (const value of values) known.add(value);
  enums.set(field, known);
}

/** Every string enum of an OpenAPI document, by the name of the property that holds it. */
function openApiEnums(file: string, enums: Enums): void {
  const walk = (node: unknown, field: string): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item, field);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const values = (node as { enum?: unknown }).enum;
    if (Array.isArray(values) && field !== '') {
      add(
        enums,
        field,
        values.filter((v): v is string => typeof v === 'string'),
      );
    }
    for (const [key, child] of Object.entries(node)) {
      const structural = ['properties', 'items', 'allOf', 'oneOf', 'anyOf', 'schema'].includes(key);
      walk(child, key === 'properties' ? '' : structural ? field : key);
    }
  };
  const document = JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8')) as unknown;
  walk(document, '');
}

/** The spec's `| field | … enum \`a\`, \`b\` … |` rows. */
function specEnums(file: string, enums: Enums): void {
  for (const line of readFileSync(new URL(file, import.meta.url), 'utf8').split('\n')) {
    const row = /^\| (\w+) \|(.*\benum\b.*)$/.exec(line);
    if (!row?.[1] || !row[2]) continue;
    const after = row[2].slice(row[2].indexOf('enum'));
    add(
      enums,
      row[1],
      [...after.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '').filter((v) => !/^\d+$/.test(v)),
    );
  }
}

const EMULATOR = '../../../infra/local/emulator/';
const documented: Enums = new Map();
openApiEnums(`${EMULATOR}cloud-api.openapi.json`, documented);
openApiEnums(`${EMULATOR}cloud-api-more.openapi.json`, documented);
specEnums('../../../../shared/spec/compute-storage-images-databases.md', documented);
specEnums('../../../../shared/spec/account-profile-and-managed-monitoring.md', documented);
// Paths and query parameters name enums too (`engine_kind`, `+order`); only fields of answers count.
const ANSWER_FIELDS = [...documented].filter(
  ([field]) => /^[a-z][a-z_]*$/.test(field) && field !== 'engine_kind',
);

describe('enum words, held to the API documents', () => {
  it('finds the enums of both documents (the table is not checked against nothing)', () => {
    const fields = ANSWER_FIELDS.map(([field]) => field);
    expect(fields).toEqual(
      expect.arrayContaining(['status', 'replication_type', 'lish_auth_method', 'type']),
    );
    expect(documented.get('status')?.has('shutting_down')).toBe(true);
  });

  it('knows every documented string enum field as an enum field', () => {
    const unknown = ANSWER_FIELDS.map(([field]) => field).filter((field) => !isEnumField(field));
    expect(unknown).toEqual([]);
  });

  it('words every documented enum value without underscores or run-together words', () => {
    const raw = ANSWER_FIELDS.flatMap(([field, values]) =>
      [...values]
        .map((value) => [field, value, fieldValue(value, field) ?? ''] as const)
        .filter(([, , words]) => /_|[a-z][A-Z][a-z]/.test(words)),
    );
    expect(raw).toEqual([]);
  });
});

describe('enum words, as people read them', () => {
  it('"Status shutting_down" → "shutting down"', () => {
    expect(statusWords('shutting_down')).toBe('shutting down');
    expect(statusWords('needsPostProcessing')).toBe('needs post-processing');
  });

  it('"Replication type asynch" → "asynchronous", "semi_synch" → "semi-synchronous"', () => {
    expect(enumWords('replication_type', 'asynch')).toBe('asynchronous');
    const text = visibleText(renderDetail(getOperation('databases.mysql-view'), { instanceId: 5 }, database));
    expect(text).toContain('*Replication type*\nsemi-synchronous');
    expect(text).toContain('*Engine*\nMySQL 8.0.26');
    const postgres = {
      ...postgresDatabase,
      replication_type: 'asynch',
      replication_commit_type: 'remote_apply',
    };
    const pgText = visibleText(
      renderDetail(getOperation('databases.postgresql-view'), { instanceId: 6 }, postgres),
    );
    expect(pgText).toContain('*Replication type*\nasynchronous');
    expect(pgText).toContain('*Replication commit type*\nremote apply');
  });

  it('a value the table does not know reads as its own words, never raw', () => {
    expect(fieldValue('waiting_for_a_new_host', 'status')).toBe('waiting for a new host');
    expect(fieldValue('brand_new', 'replication_type')).toBe('brand new');
  });

  it('leaves fields that are not enums as the API wrote them (a label is a name)', () => {
    expect(fieldValue('my_db_backup', 'label')).toBe('my_db_backup');
  });

  it('the status watch line says the status in words: "shutting_down" → "shutting down"', () => {
    const watch = {
      user: 'U0ALICE',
      startedAt: new Date('2026-01-01T00:00:00Z'),
      viewOperationId: 'nodes.view',
      viewInput: { nodeId: 7 },
    };
    const line = statusLine(
      watch,
      { kind: 'watching', status: 'shutting_down', final: ['offline', 'billing_suspension'] },
      new Date('2026-01-01T00:01:00Z'),
    );
    expect(line).toContain('Last seen `shutting down`');
    expect(line).toContain('offline or suspended for billing');
    expect(line.replace(/:[a-z_]+:/g, '').replace(/<!date\^[^>]+>/g, '')).not.toMatch(/_/);
  });
});
