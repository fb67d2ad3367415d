import { describe, expect, it } from 'vitest';
import { settleWithConcurrency } from '../../../lib/concurrency.js';

describe('settleWithConcurrency', () => {
  it('runs at most `limit` tasks at once', async () => {
    let running = 0;
    let most = 0;
    await settleWithConcurrency(
      Array.from({ length: 20 }, (_, i) => i),
      8,
      async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 2));
        running -= 1;
      },
    );
    expect(most).toBe(8);
  });

  it('keeps going after a failure and reports every outcome in order', async () => {
    const results = await settleWithConcurrency([1, 2, 3, 4], 2, async (n) => {
      if (n === 2) throw new Error('account 2 failed');
      return n * 10;
    });
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      10,
      'account 2 failed',
      30,
      40,
    ]);
  });

  it('returns nothing for nothing', async () => {
    expect(await settleWithConcurrency([], 8, async () => 1)).toEqual([]);
  });
});
