import { describe, expect, it } from 'vitest';
import { loadAhead, onFirstUse } from '../../../lib/store/lazy.js';

/**
 * Repositories load their module on first use; a request that knows what it will need starts the
 * load early (`loadAhead`) while it waits on something else.
 */

class Counter {
  count = 0;
  async add(n: number): Promise<number> {
    this.count += n;
    return this.count;
  }
}

function counting(outcomes: ('ok' | 'fail')[] = []) {
  let loads = 0;
  const repository = onFirstUse(async () => {
    loads += 1;
    if (outcomes.shift() === 'fail') throw new Error('chunk not found');
    return new Counter();
  });
  return { repository, loads: () => loads };
}

describe('onFirstUse', () => {
  it('loads on the first call, once, and is not mistaken for a promise', async () => {
    const { repository, loads } = counting();
    expect(loads()).toBe(0);
    expect(await Promise.all([repository.add(1), repository.add(2)])).toEqual([1, 3]);
    expect(await repository.add(3)).toBe(6);
    expect(loads()).toBe(1);
    expect((repository as { then?: unknown }).then).toBeUndefined();
  });
});

describe('loadAhead', () => {
  it('starts the load without a call, and the first call uses it', async () => {
    const { repository, loads } = counting();
    loadAhead(repository);
    expect(loads()).toBe(1);
    expect(await repository.add(5)).toBe(5);
    expect(loads()).toBe(1);
  });

  it('forgets a failed load: the first call loads again, and reports a failure of its own', async () => {
    const { repository, loads } = counting(['fail', 'fail', 'ok']);
    loadAhead(repository);
    await Promise.resolve();
    await expect(repository.add(1)).rejects.toThrow('chunk not found');
    expect(await repository.add(1)).toBe(1);
    expect(loads()).toBe(3);
  });

  it('leaves alone what onFirstUse did not make', () => {
    const plain = new Counter();
    expect(() => loadAhead(plain)).not.toThrow();
    expect(plain.count).toBe(0);
  });
});
