import { describe, expect, it } from 'vitest';
import { median, percentile, ratio, speedupPerRun, summarize } from '../../../bench/stats.js';
import {
  formatBytes,
  formatChange,
  formatDuration,
  formatRatio,
  markdownTable,
} from '../../../bench/table.js';
import { evaluateTarget } from '../../../bench/targets.js';

describe('median', () => {
  it('takes the middle sample of an odd count, whatever the order', () => {
    expect(median([9, 1, 5])).toBe(5);
  });
  it('takes the mean of the two middle samples of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
  it('leaves the samples as they were', () => {
    const samples = [3, 1, 2];
    median(samples);
    expect(samples).toEqual([3, 1, 2]);
  });
  it('refuses no samples rather than answering NaN', () => {
    expect(() => median([])).toThrow(RangeError);
  });
});

describe('percentile', () => {
  const thousand = Array.from({ length: 1000 }, (_, i) => 1000 - i);

  it('p99 of 1,000 samples is the 990th smallest (nearest rank)', () => {
    expect(percentile(thousand, 99)).toBe(990);
  });
  it('p50 of 1,000 samples is the 500th smallest, one of the samples', () => {
    expect(percentile(thousand, 50)).toBe(500);
  });
  it('p100 is the largest sample', () => {
    expect(percentile([3, 7, 5], 100)).toBe(7);
  });
  it('with few samples, a high percentile is the largest one', () => {
    expect(percentile([10, 20, 30], 99)).toBe(30);
  });
  it('refuses a percentile outside (0, 100]', () => {
    expect(() => percentile([1], 0)).toThrow(RangeError);
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });
  it('refuses samples that are not finite numbers', () => {
    expect(() => percentile([1, Number.NaN], 50)).toThrow(RangeError);
  });
});

describe('summarize', () => {
  it('gives the count, median, min and max', () => {
    expect(summarize([30, 10, 20, 40])).toEqual({ runs: 4, median: 25, min: 10, max: 40 });
  });
});

describe('ratio', () => {
  it('says how many times the reference a value is', () => {
    expect(ratio(330, 110)).toBeCloseTo(3);
  });
  it('refuses a reference of 0', () => {
    expect(() => ratio(1, 0)).toThrow(RangeError);
  });
});

describe('speedupPerRun', () => {
  it("gives each run's reference over its own measured time, in run order", () => {
    expect(speedupPerRun([400, 600, 500], [100, 200, 100])).toEqual([4, 3, 5]);
  });
  it('lets one slow run show although the medians would meet the limit', () => {
    const perRun = speedupPerRun([565, 565, 565], [140, 141, 150]);
    expect(Math.min(...perRun)).toBeLessThan(4);
    expect(median([565, 565, 565]) / median([140, 141, 150])).toBeGreaterThanOrEqual(4);
  });
  it('refuses runs without a pair of times', () => {
    expect(() => speedupPerRun([], [])).toThrow(RangeError);
    expect(() => speedupPerRun([1, 2], [1])).toThrow(RangeError);
  });
});

describe('markdownTable', () => {
  it('pads cells to the column width and right-aligns numeric columns', () => {
    const table = markdownTable(
      [{ header: 'Name' }, { header: 'Time', align: 'right' }],
      [
        ['ours', '12 ms'],
        ['baseline', '9 ms'],
      ],
    );
    expect(table.split('\n')).toEqual([
      '| Name     |  Time |',
      '| -------- | ----: |',
      '| ours     | 12 ms |',
      '| baseline |  9 ms |',
    ]);
  });
  it('keeps separators at least three characters wide for one-letter columns', () => {
    expect(markdownTable([{ header: 'A' }], [['x']]).split('\n')[1]).toBe('| --- |');
  });
  it('escapes pipes so a cell cannot split the row', () => {
    expect(markdownTable([{ header: 'Cell' }], [['a|b']]).split('\n')[2]).toBe('| a\\|b |');
  });
  it('refuses a row whose cells do not match the columns', () => {
    expect(() => markdownTable([{ header: 'A' }, { header: 'B' }], [['only one']])).toThrow(
      'Row 1 has 1 cells for 2 columns',
    );
  });
});

describe('cell formats', () => {
  it('shows durations in ms with fewer decimals as they grow, and in seconds from 1,000 ms', () => {
    expect([1.234, 12.34, 123.4, 1234].map(formatDuration)).toEqual([
      '1.23 ms',
      '12.3 ms',
      '123 ms',
      '1.23 s',
    ]);
  });
  it('shows sizes in binary units', () => {
    expect([512, 2048, 3_354_739].map(formatBytes)).toEqual(['512 B', '2.0 KiB', '3.2 MiB']);
  });
  it('shows ratios with two decimals and a times sign', () => {
    expect(formatRatio(2.508)).toBe('2.51×');
  });
  it('shows changes signed, as percentages', () => {
    expect([0.234, -0.05, 0].map(formatChange)).toEqual(['+23.4%', '−5.0%', '±0.0%']);
  });
});

describe('evaluateTarget', () => {
  it('meets an upper limit at or below it', () => {
    expect(evaluateTarget({ measured: 1.2, limit: 1.2, direction: 'at-most' })).toEqual({
      met: true,
      shortfall: 0,
      verdict: 'met',
    });
  });
  it('says how far over an upper limit a miss is, relative to the limit', () => {
    const outcome = evaluateTarget({ measured: 1.35, limit: 1.2, direction: 'at-most' });
    expect(outcome.met).toBe(false);
    expect(outcome.shortfall).toBeCloseTo(0.125);
    expect(outcome.verdict).toBe('missed: 12.5% over the limit');
  });
  it('says how far short of a lower limit a miss is', () => {
    const outcome = evaluateTarget({ measured: 2, limit: 4, direction: 'at-least' });
    expect(outcome).toEqual({ met: false, shortfall: 0.5, verdict: 'missed: 50.0% short of the limit' });
  });
  it('meets a lower limit at or above it', () => {
    expect(evaluateTarget({ measured: 4.1, limit: 4, direction: 'at-least' }).met).toBe(true);
  });
});
