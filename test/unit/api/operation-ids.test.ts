import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ApiClient } from '../../../lib/api/client.js';
import type { Page } from '../../../lib/api/operation.js';
import {
  getOperation,
  isOperationId,
  type OperationId,
  operations,
  requireOperation,
} from '../../../lib/api/operations/index.js';
import type { ManagedIssue, ManagedStats } from '../../../lib/api/operations/managed.js';
import type { Volume } from '../../../lib/api/operations/volumes.js';

// The type assertions below are checked by `tsc --noEmit` (part of `npm test`); the runtime
// assertions keep the lookups honest.
describe('operation ids as types', () => {
  it('getOperation returns the row of that id, so client.call returns its typed result (no casts by callers)', () => {
    const list = getOperation('volumes.list');
    expectTypeOf(list.id).toEqualTypeOf<'volumes.list'>();
    expectTypeOf(list.paginated).toEqualTypeOf<true>();
    expectTypeOf(typedResults).toBeFunction();
    expect(list.path).toBe('/volumes');
  });

  it('a misspelt id does not compile (and throws if forced through)', () => {
    // @ts-expect-error 'volumes.lsit' is not an operation id
    expect(() => getOperation('volumes.lsit')).toThrow('Unknown operation volumes.lsit');
  });

  it('the id union holds exactly the ids of the table, each once', () => {
    const ids = operations.map((op) => op.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(isOperationId(id), id).toBe(true);
      expect(requireOperation(id).id).toBe(id);
    }
    expect(isOperationId('volumes.lsit')).toBe(false);
    expectTypeOf<'nodes.delete'>().toExtend<OperationId>();
    expectTypeOf<string>().not.toExtend<OperationId>();
  });
});

// Never called: its body is the type assertion, checked by the compiler.
async function typedResults(client: ApiClient) {
  expectTypeOf(await client.call(getOperation('volumes.list'), {})).toEqualTypeOf<Page<Volume>>();
  expectTypeOf(await client.call(getOperation('managed.stats'), {})).toEqualTypeOf<ManagedStats>();
  expectTypeOf((await client.listAll(getOperation('managed.issues-list'), {})).data).toEqualTypeOf<
    ManagedIssue[]
  >();
  // @ts-expect-error volumes.view needs its volumeId
  await client.call(getOperation('volumes.view'), {});
}
