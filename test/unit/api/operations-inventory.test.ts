import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { operations } from '../../../lib/api/operations/index.js';
import { DOCUMENTED_OPERATIONS as DOCUMENTED } from '../../support/documented-operations.js';

/**
 * The table against the documents, with no count written down: the spec documents' operations
 * (their endpoint tables, `documented-operations.ts`) must all be rows, and every other row must
 * be an operation of the further published document (`cloud-api-more.openapi.json`). Adding a row
 * from that document needs no edit here; leaving out a documented operation still fails.
 */

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);

/** `METHOD /path` of every operation an OpenAPI document describes. */
function operationsOf(file: string): string[] {
  const document = JSON.parse(
    readFileSync(new URL(`../../../../shared/reference/${file}`, import.meta.url), 'utf8'),
  ) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((method) => METHODS.has(method))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/**
 * Where the spec documents differ from the published spec they follow (API-FACTS.md): the managed
 * credential is deleted with DELETE, where the published spec revokes it with a POST.
 */
const SPEC_DOCUMENTS_INSTEAD_OF_PUBLISHED = new Map([
  ['POST /managed/credentials/{credentialId}/revoke', 'DELETE /managed/credentials/{credentialId}'],
]);

const PUBLISHED = operationsOf('cloud-api.openapi.json').map(
  (signature) => SPEC_DOCUMENTS_INSTEAD_OF_PUBLISHED.get(signature) ?? signature,
);
const FURTHER = operationsOf('cloud-api-more.openapi.json');

describe('the operations table', () => {
  const table = operations.map((op) => `${op.method} ${op.path}`);
  const documented = new Set(DOCUMENTED);
  /** Rows beyond the spec documents: each must be an operation of the further document. */
  const further = table.filter((signature) => !documented.has(signature));

  it('lists every operation of the published spec the documents follow, each once, and nothing unpublished', () => {
    expect(new Set(DOCUMENTED).size).toBe(DOCUMENTED.length);
    expect(PUBLISHED.filter((signature) => !documented.has(signature))).toEqual([]);
    expect(DOCUMENTED.filter((s) => !PUBLISHED.includes(s) && !FURTHER.includes(s))).toEqual([]);
  });

  it('holds every operation of the spec documents', () => {
    expect(DOCUMENTED.filter((signature) => !table.includes(signature))).toEqual([]);
  });

  it('holds every operation of the further published document', () => {
    expect(FURTHER.filter((signature) => !table.includes(signature))).toEqual([]);
  });

  it('holds nothing beyond them but operations of the further published document', () => {
    expect(further.filter((signature) => !FURTHER.includes(signature))).toEqual([]);
    expect(table).toHaveLength(DOCUMENTED.length + further.length);
  });

  it('has unique ids and unique method/path pairs', () => {
    expect(new Set(operations.map((op) => op.id)).size).toBe(operations.length);
    expect(new Set(table).size).toBe(table.length);
  });

  it('marks every DELETE as destructive', () => {
    const unmarked = operations.filter((op) => op.method === 'DELETE' && !op.destructive).map((op) => op.id);
    expect(unmarked).toEqual([]);
  });

  it('keeps aliases from clashing with actions of the same group', () => {
    for (const op of operations) {
      const names = operations
        .filter((o) => o.group === op.group)
        .flatMap((o) => [o.action, ...(o.aliases ?? [])]);
      expect(new Set(names).size, `group ${op.group}`).toBe(names.length);
    }
  });
});
