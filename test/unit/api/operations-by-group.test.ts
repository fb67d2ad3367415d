import { describe, expect, it } from 'vitest';
import { loadOperation } from '../../../lib/api/operations/by-group.js';
import { operations } from '../../../lib/api/operations/index.js';

/** The operations table one group at a time (`by-group.ts`), as an agent's call looks its row up. */

describe('loadOperation', () => {
  it('finds every row of the table by its id, the very row the whole table holds', async () => {
    for (const op of operations) expect(await loadOperation(op.id), op.id).toBe(op);
  });

  it.each(['volumes.nope', '__proto__.list', 'constructor.list', 'hasOwnProperty.x', 'volumes', '', '.list'])(
    'finds no row for %j, which no row has',
    async (id) => {
      expect(await loadOperation(id)).toBeUndefined();
    },
  );
});
