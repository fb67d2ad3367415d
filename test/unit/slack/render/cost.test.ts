import { describe, expect, it } from 'vitest';
import { changeLine, costLine, dollars } from '../../../../lib/slack/render/cost.js';

describe('dollars', () => {
  it('shows cents, and further decimals only where the price has them', () => {
    expect(dollars(26.28)).toBe('$26.28');
    expect(dollars(24)).toBe('$24.00');
    expect(dollars(0.036)).toBe('$0.036');
    expect(dollars(0.0075)).toBe('$0.0075');
    expect(dollars(0)).toBe('$0.00');
  });

  it('shows no float artefacts', () => {
    expect(dollars(26.28 - 5.48)).toBe('$20.80');
    expect(dollars(0.1 + 0.2)).toBe('$0.30');
  });

  it('groups thousands', () => {
    expect(dollars(1234.5)).toBe('$1,234.50');
  });
});

describe('costLine', () => {
  it('a resize: before → after, then the change a month and an hour', () => {
    expect(
      costLine({
        kind: 'known',
        before: { hourly: 0.018, monthly: 12 },
        after: { hourly: 0.036, monthly: 24 },
        delta: { hourly: 0.018, monthly: 12 },
        currency: 'USD',
      }),
    ).toBe('*Cost:* $12.00/month → $24.00/month (+$12.00/month, +$0.018/hour)');
  });

  it('a resize down says the price falls, and where region prices applied', () => {
    expect(
      costLine({
        kind: 'known',
        before: { hourly: 0.043, monthly: 31.54 },
        after: { hourly: 0.009, monthly: 6.58 },
        delta: { hourly: -0.034, monthly: -24.96 },
        currency: 'USD',
        regionPrice: 'ap-south',
      }),
    ).toBe('*Cost:* $31.54/month → $6.58/month (−$24.96/month, −$0.034/hour) at ap-south prices');
  });

  it('something new: its price', () => {
    expect(
      costLine({
        kind: 'known',
        after: { hourly: 0.036, monthly: 26.28 },
        delta: { hourly: 0.036, monthly: 26.28 },
        currency: 'USD',
      }),
    ).toBe('*Cost:* new, $26.28/month ($0.036/hour)');
  });

  it('an unknown price says so, with the reason escaped', () => {
    expect(costLine({ kind: 'unknown', why: 'there is no node type <!channel>' })).toBe(
      '*Cost:* price unknown: there is no node type &lt;!channel&gt;.',
    );
  });
});

describe('changeLine', () => {
  it('a new database: its cluster size and type', () => {
    expect(
      changeLine({
        kind: 'database_type',
        to: { id: 'g6-dedicated-2', vcpus: 2, memoryMb: 4096, diskMb: 81920 },
        clusterSize: 3,
      }),
    ).toBe(
      '*Change:* new database cluster of 3 nodes of type `g6-dedicated-2` (2 CPU, 4 GB RAM, 80 GB disk)',
    );
  });

  it('an upgrade whose successor could not be read says so, never a guess', () => {
    expect(changeLine({ kind: 'node_type', from: { id: 'g6-standard-1' } })).toBe(
      '*Change:* node type `g6-standard-1` → its successor type (not readable)',
    );
  });

  it('memory that is not a whole gigabyte stays in MB', () => {
    expect(changeLine({ kind: 'node_type', to: { id: 'tiny', memoryMb: 512 } })).toBe(
      '*Change:* new node of type `tiny` (512 MB RAM)',
    );
  });
});
