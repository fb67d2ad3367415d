import { describe, expect, it } from 'vitest';
import { validateMessage } from '../../../infra/local/slack/block-kit-validator.js';
import type { ManagedIssue, ManagedStatsSeries } from '../../../lib/api/operations/managed.js';
import {
  ageText,
  renderIssueAlert,
  renderIssuesDigest,
  renderStatsReport,
} from '../../../lib/reports/render.js';
import { formatValue, summarizeSeries } from '../../../lib/reports/stats-series.js';
import { DEFAULT_REPORT_NOISE, type ReportSubscription } from '../../../lib/store/report-subscriptions.js';

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
  filter: {},
  noise: DEFAULT_REPORT_NOISE,
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

const services = new Map([
  [
    654,
    {
      id: 654,
      label: 'shop & checkout',
      address: 'https://shop.example.com/health',
      status: 'problem' as const,
    },
  ],
  [655, { id: 655, label: 'api', address: '203.0.113.7:443', status: 'disabled' as const }],
]);

const NOW = new Date('2030-01-15T09:30:00Z');

const textOf = (message: { text: string; blocks: unknown[] }) =>
  `${message.text}\n${JSON.stringify(message.blocks)}`;

type Block = {
  type: string;
  text?: { text: string };
  elements?: {
    type?: string;
    value?: string;
    text?: { text: string };
    style?: string;
    options?: { text: { text: string }; value: string }[];
  }[];
};

describe('renderIssuesDigest', () => {
  it('groups open issues under the service they affect, with label, address, status, ticket link and age', () => {
    const message = renderIssuesDigest(
      sub,
      [issue(1, { services: [654, 655] }), issue(2, { services: [999] }), issue(3, { services: [654] })],
      services,
      { now: NOW },
    );
    expect(validateMessage(message)).toEqual([]);
    const sections = (message.blocks as Block[])
      .filter((b) => b.type === 'section')
      .map((b) => b.text?.text ?? '');
    // Newest issue first: issue 3 (03:00) is on shop, then issue 2 (02:00) on an unlisted service.
    expect(sections[0]).toMatch(
      /^\*shop &amp; checkout\* · `https:\/\/shop\.example\.com\/health` · :red_circle: problem — 2 issues/,
    );
    expect(sections[0]).toContain(
      '*Issue 3* — <https://cloud.example.com/support/tickets/98003|Ticket 98003>',
    );
    expect(sections[0]).toContain('*Issue 1*');
    expect(sections[0]).toContain('open 6 h');
    expect(sections[0]).toContain('open 8 h');
    expect(sections[1]).toMatch(/^\*service 999\* · not in the services list — 1 issue/);
    expect(sections[2]).toMatch(/^\*api\* · `203\.0\.113\.7:443` · :white_circle: disabled — 1 issue/);
    expect(sections[2]).toContain('Web server &lt;prod&gt; 1 is not responding');
    expect(textOf(message)).toContain('3 open issues');
    expect(textOf(message)).not.toContain(':new:');
  });

  it('marks the issues that were not open at the previous digest, and counts them in the title', () => {
    const message = renderIssuesDigest(sub, [issue(1), issue(2)], services, {
      now: NOW,
      previous: new Set([1]),
    });
    const text = textOf(message);
    expect(message.text).toContain('2 open issues, 1 new since the last digest');
    expect(text).toContain(':new: *Issue 2*');
    expect(text).not.toContain(':new: *Issue 1*');
  });

  it('is one "all clear" line when nothing is open', () => {
    const message = renderIssuesDigest(sub, [], services, { now: NOW });
    expect(message.text).toBe(':white_check_mark: All clear: no open managed issues.');
    expect((message.blocks as Block[]).filter((b) => b.type === 'section')).toHaveLength(1);
    expect(validateMessage(message)).toEqual([]);
  });

  it('stays within Slack limits with hundreds of issues and says how many it left out', () => {
    const many = Array.from({ length: 300 }, (_, i) =>
      issue(i + 1, { services: [1000 + i], entity: { ...issue(i + 1).entity, label: 'x'.repeat(300) } }),
    );
    const message = renderIssuesDigest(sub, many, services, { now: NOW });
    expect(validateMessage(message)).toEqual([]);
    const shown = message.blocks.filter((b) => b.type === 'section').length;
    expect(shown).toBeLessThan(300);
    expect(textOf(message)).toContain(`and ${300 - shown} more issues`);
    // The command as help writes it.
    expect(textOf(message)).toContain('`/cloud managed issues list --all` lists them all');
  });

  it('names a service the list does not know as `service 1234`, never `1,234`', () => {
    const text = textOf(renderIssuesDigest(sub, [issue(1, { services: [1234] })], services, { now: NOW }));
    expect(text).toContain('*service 1234* · not in the services list');
    expect(text).not.toContain('1,234');
  });

  it('an alert for an issue without a subject does not repeat its id', () => {
    const bare = issue(8, { entity: { ...issue(8).entity, label: '' } });
    const alert = renderIssueAlert({ ...sub, kind: 'alerts' as const }, bare, services);
    expect(alert.text).toBe('New managed issue 8');
    expect(textOf(alert)).not.toMatch(/Issue 8\b/);
    expect(textOf(renderIssuesDigest(sub, [bare], services, { now: NOW }))).not.toMatch(/: Issue 8\b/);
  });

  it('names the schedule and whose token the report runs with', () => {
    expect(textOf(renderIssuesDigest(sub, [issue(1)], services, { now: NOW }))).toContain(
      "daily at 09:00 (Europe/Berlin) · runs with <@U0ALICE>'s token",
    );
  });
});

describe('ageText', () => {
  it.each([
    ['2030-01-15T09:10:00', '20 min'],
    ['2030-01-15T01:30:00', '8 h'],
    ['2030-01-13T09:30:00', '2 d'],
  ])('an issue opened %s has been open %s', (created, age) => {
    expect(ageText(created, NOW)).toBe(age);
  });
});

describe('renderIssueAlert', () => {
  const alertSub = { ...sub, kind: 'alerts' as const };

  it('is one message about one new issue, naming each affected service with its address and status', () => {
    const message = renderIssueAlert(alertSub, issue(7, { services: [654, 655] }), services);
    expect(message.text).toContain('New managed issue 7');
    const text = textOf(message);
    expect(text).toContain('tickets/98007');
    expect(text).toContain(
      'Affected: *shop &amp; checkout* · `https://shop.example.com/health` · :red_circle: problem',
    );
    expect(text).toContain('Affected: *api* · `203.0.113.7:443` · :white_circle: disabled');
    expect(validateMessage(message)).toEqual([]);
  });

  it('has buttons to view the issue, view each service, and switch its monitoring off (or on when disabled)', () => {
    const message = renderIssueAlert(alertSub, issue(7, { services: [654, 655] }), services);
    const buttons = (message.blocks as Block[])
      .filter((b) => b.type === 'actions')
      .flatMap((b) => b.elements ?? [])
      .filter((e) => e.type === 'button')
      .map((e) => ({ label: e.text?.text, payload: JSON.parse(e.value ?? '{}'), style: e.style }));
    expect(buttons).toEqual([
      {
        label: 'View shop & checkout',
        payload: { o: 'managed.services-view', i: { serviceId: 654 } },
        style: undefined,
      },
      {
        label: 'Disable monitoring',
        payload: { o: 'managed.services-disable', i: { serviceId: 654 } },
        style: 'danger',
      },
      { label: 'View api', payload: { o: 'managed.services-view', i: { serviceId: 655 } }, style: undefined },
      {
        label: 'Enable monitoring',
        payload: { o: 'managed.services-enable', i: { serviceId: 655 } },
        style: 'primary',
      },
      { label: 'View issue', payload: { o: 'managed.issues-view', i: { issueId: 7 } }, style: 'primary' },
    ]);
  });

  it('offers to snooze the issue and each service for 1 h, 4 h or until resolved, each option naming the subscription', () => {
    const message = renderIssueAlert(alertSub, issue(7, { services: [654] }), services);
    const menus = (message.blocks as Block[])
      .flatMap((b) => b.elements ?? [])
      .filter((e) => e.type === 'overflow');
    expect(menus.map((menu) => menu.options?.map((o) => o.text.text))).toEqual([
      [
        'Snooze shop & checkout for 1 h',
        'Snooze shop & checkout for 4 h',
        'Snooze shop & checkout until resolved',
      ],
      ['Snooze this issue for 1 h', 'Snooze this issue for 4 h', 'Snooze this issue until resolved'],
    ]);
    expect(JSON.parse(menus[1]?.options?.[2]?.value ?? '{}')).toEqual({
      s: alertSub.id,
      k: 'i',
      t: 7,
      d: 'r',
    });
    for (const option of menus.flatMap((menu) => menu.options ?? []))
      expect(option.value.length).toBeLessThanOrEqual(150);
  });

  it('asks before disabling monitoring, naming the service', () => {
    const message = renderIssueAlert(alertSub, issue(7, { services: [654] }), services);
    const disable = (message.blocks as Block[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.text?.text === 'Disable monitoring') as
      | { confirm?: { text: { text: string } } }
      | undefined;
    expect(disable?.confirm?.text.text).toBe(
      'shop & checkout will raise no new issues until its monitoring is enabled again.',
    );
  });

  it('stays within Slack limits when an issue names many services', () => {
    const many = Array.from({ length: 40 }, (_, i) => 2000 + i);
    const message = renderIssueAlert(alertSub, issue(7, { services: many }), services);
    expect(validateMessage(message)).toEqual([]);
    expect(textOf(message)).toContain('Also affected: service 2005');
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
