import { describe, expect, it } from 'vitest';
import { operations } from '../../../lib/api/operations/index.js';
import { DOCUMENTED_OPERATIONS as DOCUMENTED } from '../../support/documented-operations.js';

describe('the operations table', () => {
  const table = operations.map((op) => `${op.method} ${op.path}`);

  it('holds every documented operation, 149 in all', () => {
    expect(DOCUMENTED).toHaveLength(149);
    expect([...table].sort()).toEqual([...DOCUMENTED].sort());
  });

  it('has unique ids and unique method/path pairs', () => {
    expect(new Set(operations.map((op) => op.id)).size).toBe(operations.length);
    expect(new Set(table).size).toBe(table.length);
  });

  it('counts per area as the documents do', () => {
    const count = (group: string) => operations.filter((op) => op.group === group).length;
    expect([count('profile'), count('managed'), count('databases')]).toEqual([31, 25, 33]);
    expect([count('volumes'), count('images'), count('nodes')]).toEqual([9, 6, 40]);
    expect([count('regions'), count('events')]).toEqual([2, 3]);
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
