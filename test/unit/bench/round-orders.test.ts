import { describe, expect, it } from 'vitest';
import { roundOrders } from '../../../bench/cold-start/cold-process.js';

/**
 * The order of the cold-start benchmarks' rounds: a run leaves work behind in the services it used,
 * so no contender may always run after the same one.
 */
describe('roundOrders', () => {
  it.each([2, 3, 4, 5, 6, 7])(
    'for %i contenders: every row runs each once, and each starts and follows each other equally often',
    (n) => {
      const rows = roundOrders(n);
      expect(rows).toHaveLength(n % 2 === 0 ? n : 2 * n);
      const everyone = Array.from({ length: n }, (_, i) => i);
      for (const row of rows) expect([...row].sort((a, b) => a - b)).toEqual(everyone);

      const starts = everyone.map((i) => rows.filter((row) => row[0] === i).length);
      expect(new Set(starts).size).toBe(1);

      const follows = new Map<string, number>();
      for (const row of rows) {
        for (let k = 1; k < row.length; k++) {
          const pair = `${row[k - 1]}→${row[k]}`;
          follows.set(pair, (follows.get(pair) ?? 0) + 1);
        }
      }
      // Every ordered pair of two contenders, the same number of times.
      expect(follows.size).toBe(n * (n - 1));
      expect(new Set(follows.values()).size).toBe(1);
    },
  );
});
