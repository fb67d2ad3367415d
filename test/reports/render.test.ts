import { describe, expect, it } from 'vitest';
import type { ManagedIssue, ManagedStatsSeries } from '../../lib/api/operations/managed.js';
import { renderIssueAlert, renderIssuesDigest, renderStatsReport } from '../../lib/reports/render.js';
import { formatValue, summarizeSeries } from '../../lib/reports/stats-series.js';
import { validateMessage } from '../../lib/slack/limits.js';
import type { ReportSubscription } from '../../lib/store/report-subscriptions.js';

const sub: ReportSubscription = {
  id: '1a2b3c4d-0000-4000-8000-000000000001',
  team: 'T0001',
  kind: 'issues',
  channel: 'C0OPS',
  owner: 'U0ALICE',
  profile: 'default',
  schedule: { type: 'daily', time: '09:00', tz: 'Europe/Berlin' },
  nextRunAt: new Date('2030-01-15T08:00:00Z'),
  paused: false,
  pauseReason: null,
  seenIssueIds: new Set(),
  lastRun: null,
  createdAt: new Date('2030-01-01T00:00:00Z'),
};

function issue(id: number, overrides: Partial<ManagedIssue> = {}): ManagedIssue {
  return {
    id,
    created: `2030-01-15T0${id % 10}:00:00`,
    services: [654],
    entity: {
      id: 98000 + id,
      label: `Web server <prod> ${id} is not responding`,
      type: 'ticket',
      url: `https://cloud.example.com/support/tickets/${98000 + id}`,
    },
    ...overrides,
  };
}

const labels = new Map([
  [654, 'shop & checkout'],
  [655, 'api'],
]);

const textOf = (message: { text: string; blocks: unknown[] }) =>
  `${message.text}\n${JSON.stringify(message.blocks)}`;

describe('renderIssuesDigest', () => {
  it('lists each open issue with its ticket link, creation time and affected services by label', () => {
    const message = renderIssuesDigest(
      sub,
      [issue(1, { services: [654, 655] }), issue(2, { services: [999] })],
      labels,
    );
    const text = textOf(message);
    expect(text).toContain('2 open issues');
    expect(text).toContain('<https://cloud.example.com/support/tickets/98001|Ticket 98001>');
    expect(text).toContain('Web server &lt;prod&gt; 1 is not responding');
    expect(text).toContain('shop &amp; checkout, api');
    expect(text).toContain('service 999');
    expect(text).toMatch(/<!date\^\d+\^/);
    expect(validateMessage(message)).toEqual([]);
  });

  it('says so when nothing is open', () => {
    const message = renderIssuesDigest(sub, [], labels);
    expect(textOf(message)).toContain('No open managed issues');
    expect(validateMessage(message)).toEqual([]);
  });

  it('stays within Slack limits with hundreds of issues and says how many it left out', () => {
    const many = Array.from({ length: 300 }, (_, i) =>
      issue(i + 1, { entity: { ...issue(i + 1).entity, label: 'x'.repeat(300) } }),
    );
    const message = renderIssuesDigest(sub, many, labels);
    expect(validateMessage(message)).toEqual([]);
    const shown = message.blocks.filter((b) => b.type === 'section').length;
    expect(shown).toBeLessThan(300);
    expect(textOf(message)).toContain(`and ${300 - shown} more issues`);
  });

  it('names the schedule and whose token the report runs with', () => {
    expect(textOf(renderIssuesDigest(sub, [issue(1)], labels))).toContain(
      "daily at 09:00 (Europe/Berlin) · runs with <@U0ALICE>'s token",
    );
  });
});

describe('renderIssueAlert', () => {
  it('is one message about one new issue', () => {
    const message = renderIssueAlert({ ...sub, kind: 'alerts' }, issue(7), labels);
    expect(message.text).toContain('New managed issue 7');
    expect(textOf(message)).toContain('tickets/98007');
    expect(validateMessage(message)).toEqual([]);
  });
});

describe('stats summary', () => {
  const data: ManagedStatsSeries = {
    cpu: [
      { x: 3, y: 10 },
      { x: 1, y: 30 },
      { x: 2, y: 20 },
    ],
    disk: [{ x: 1, y: 29.94 }],
    swap: [],
    net_in: [
      { x: 1, y: 15_300 },
      { x: 2, y: 1_000 },
    ],
    net_out: [{ x: 1, y: 0 }],
  };

  it('takes latest by time, not by position, and min, average and max of each series', () => {
    const [cpu, disk, swap] = summarizeSeries(data);
    expect(cpu).toMatchObject({ latest: 10, min: 10, average: 20, max: 30, points: 3 });
    expect(disk).toMatchObject({ latest: 29.94, min: 29.94, max: 29.94 });
    expect(swap).toMatchObject({ points: 0 });
    expect(swap?.latest).toBeUndefined();
  });

  it('writes the numbers with the colours of the chart', () => {
    const report = renderStatsReport({ ...sub, kind: 'stats' }, { data });
    if (report.kind !== 'chart') throw new Error('expected a chart');
    expect(report.summary).toContain('*cpu* (blue): latest 10 · min 10 · avg 20 · max 30');
    expect(report.summary).toContain('*disk* (orange): latest 29.9');
    expect(report.summary).toContain('*swap* (purple): no data');
    expect(report.summary).toContain('*net in* (green): latest 1000 · min 1000 · avg 8150 · max 15.3k');
    expect(report.summary).toContain('Europe/Berlin');
  });

  it('says why there is no chart when the API has no series yet', () => {
    const report = renderStatsReport({ ...sub, kind: 'stats' }, { data: ['Graphs are not yet available.'] });
    expect(report.kind).toBe('unavailable');
    if (report.kind === 'unavailable') expect(report.message.text).toContain('Graphs are not yet available.');
  });

  it.each([
    [0, '0'],
    [29.94, '29.9'],
    [1500, '1500'],
    [15_300, '15.3k'],
    [2_500_000, '2.5M'],
    [3e9, '3G'],
  ])('formats %d as %s', (value, text) => {
    expect(formatValue(value)).toBe(text);
  });
});
