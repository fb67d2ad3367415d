import { describe, expect, it } from 'vitest';
import type { AnyOperation } from '../../../../lib/api/operation.js';
import { operations } from '../../../../lib/api/operations/index.js';
import type { ManagedIssue } from '../../../../lib/api/operations/managed.js';
import { renderIssueAlert, renderIssuesDigest, renderStatsReport } from '../../../../lib/reports/render.js';
import { renderApprovalCard } from '../../../../lib/slack/render/approval.js';
import { renderOperationResult } from '../../../../lib/slack/render/result.js';
import { fallbackText, mrkdwnFallback } from '../../../../lib/slack-kit/blocks.js';
import { DEFAULT_REPORT_NOISE, type ReportSubscription } from '../../../../lib/store/report-subscriptions.js';
import { publishedExample } from '../../../support/openapi-examples.js';
import type { Message } from './message-checks.js';

/**
 * Text that did not come from the bot (API fields, what users typed) must reach Slack as text.
 * Slack reads a message's `text` and every mrkdwn block as markup: `<!channel>` there notifies
 * the whole channel, `<@U123>` pings a person, `<http://evil|innocent>` shows a disguised link.
 */

const HOSTILE = [
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '<@U123>',
  '<http://evil|innocent>',
  '<!subteam^S123|@sre>',
  '&lt;',
] as const;

/** Every string of a value replaced by `hostile`: labels, statuses, dates, URLs alike. */
function poisoned(value: unknown, hostile: string): unknown {
  if (typeof value === 'string') return hostile;
  if (Array.isArray(value)) return value.map((item) => poisoned(item, hostile));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, poisoned(item, hostile)]));
  }
  return value;
}

/** The mrkdwn Slack would parse: the fallback text and every mrkdwn text object of the blocks. */
function mrkdwnTexts(message: Message): { where: string; text: string }[] {
  const found = [{ where: 'text', text: message.text }];
  const walk = (value: unknown, where: string): void => {
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) walk(item, `${where}/${index}`);
    } else if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>;
      if (record.type === 'mrkdwn' && typeof record.text === 'string')
        found.push({ where, text: record.text });
      for (const [key, nested] of Object.entries(record)) walk(nested, `${where}/${key}`);
    }
  };
  walk(message.blocks, 'blocks');
  return found;
}

/**
 * Slack markup that is live in `text`: anything in angle brackets other than the bot's own
 * `<!date^…>` stamps and links to an http(s) address the API gave (none here: every string is
 * hostile, so no field holds an address).
 */
function liveMarkup(message: Message): string[] {
  return mrkdwnTexts(message).flatMap(({ where, text }) =>
    [...text.matchAll(/<([^<>]*)>/g)]
      .map((match) => match[1] ?? '')
      .filter((inner) => !/^!date\^\d+\^[^|]*\|[^|]*$/.test(inner))
      .map((inner) => `${where}: <${inner}>`),
  );
}

function pathInput(op: AnyOperation): Record<string, unknown> {
  return Object.fromEntries(op.pathParams.map((param) => [param, 7]));
}

const withExamples = operations.flatMap((op) => {
  const example = publishedExample(op);
  return example === undefined ? [] : [{ op, example }];
});

describe('fallbackText', () => {
  it('escapes a label so the notification text cannot mention the channel', () => {
    expect(fallbackText('Credential: <!channel>')).toBe('Credential: &lt;!channel&gt;');
  });

  it('shows an entity typed as text as that text (`&lt;` stays four characters)', () => {
    expect(fallbackText('Volume: &lt;')).toBe('Volume: &amp;lt;');
  });

  it('never cuts an escape in half when the text is too long', () => {
    const text = fallbackText(`${'x'.repeat(296)}<!channel>`);
    expect(text.length).toBeLessThanOrEqual(300);
    expect(text).not.toMatch(/&[a-z]{0,3}…$/);
  });

  it('keeps mrkdwn the bot composed as it is (a mention it made stays a mention)', () => {
    expect(mrkdwnFallback('<@U0ALICE> subscribed this channel')).toBe('<@U0ALICE> subscribed this channel');
  });
});

describe('every resource kind, with every string the API returns made hostile', () => {
  it('covers the operations table', () => {
    // The walk below is only worth something if it renders most operations.
    expect(withExamples.length).toBeGreaterThan(operations.length / 2);
  });

  for (const hostile of HOSTILE) {
    it(`renders ${hostile} as text in the fallback and in every block`, () => {
      const failures: string[] = [];
      for (const { op, example } of withExamples) {
        for (const json of [false, true]) {
          const message = renderOperationResult(op, pathInput(op), poisoned(example, hostile), { json });
          failures.push(
            ...liveMarkup(message).map((problem) => `${op.id}${json ? ' --json' : ''} ${problem}`),
          );
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it('names a hostile label in the fallback of a detail view, escaped', () => {
    const op = operations.find((o) => o.id === 'managed.credentials-view');
    if (!op) throw new Error('managed.credentials-view is not in the table');
    const message = renderOperationResult(op, { credentialId: 7 }, { id: 7, label: '<!channel>' });
    expect(message.text).toBe('Credential: &lt;!channel&gt;');
  });
});

const subscription: ReportSubscription = {
  id: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
  team: 'T0TEAM',
  kind: 'alerts',
  channel: 'C0OPS',
  owner: 'U0ALICE',
  profile: 'default',
  schedule: { type: 'every', minutes: 15 },
  nextRunAt: new Date('2026-01-01T00:00:00Z'),
  paused: false,
  pauseReason: null,
  seenIssueIds: new Set(),
  filter: {},
  noise: DEFAULT_REPORT_NOISE,
  lastRun: null,
  createdAt: new Date('2026-01-01T00:00:00Z'),
};

function issue(hostile: string): ManagedIssue {
  return {
    id: 823,
    created: '2018-01-01T00:01:01',
    services: [654],
    entity: { id: 98823, label: hostile, type: 'ticket', url: hostile },
  } as ManagedIssue;
}

/** The footer names whose token a report runs with: that mention is the bot's own. */
function notOwnersMention(message: Message): string[] {
  return liveMarkup(message).filter((problem) => !problem.endsWith(`: <@${subscription.owner}>`));
}

describe('reports with hostile ticket titles and service labels', () => {
  for (const hostile of HOSTILE) {
    it(`the issue alert and the digest show ${hostile} as text`, () => {
      const labels = new Map([[654, { id: 654, label: hostile, address: hostile, status: 'ok' as const }]]);
      expect(notOwnersMention(renderIssueAlert(subscription, issue(hostile), labels))).toEqual([]);
      expect(
        notOwnersMention(renderIssuesDigest(subscription, [issue(hostile)], labels, { now: new Date() })),
      ).toEqual([]);
    });

    it(`the stats report without data shows the API's reason ${hostile} as text`, () => {
      const report = renderStatsReport(subscription, { data: [hostile] } as never);
      if (report.kind !== 'unavailable') throw new Error('expected the unavailable message');
      expect(notOwnersMention(report.message)).toEqual([]);
    });
  }

  it('an alert names the ticket title in its notification text, escaped', () => {
    const message = renderIssueAlert(subscription, issue('<!here> disk full'), new Map());
    expect(message.text).toBe('New managed issue 823: &lt;!here&gt; disk full');
  });
});

describe('approval cards with a hostile target label', () => {
  it.each(HOSTILE)('show %s as text', (hostile) => {
    const message = renderApprovalCard({
      approval: {
        id: 'a1b2c3d4',
        operationId: 'volumes.delete',
        status: 'pending',
        requester: 'U0ALICE',
        summary: hostile,
        targetLabel: hostile,
        approvals: [],
        requiredApprovals: 1,
        decideBy: new Date('2026-01-01T00:15:00Z'),
      } as never,
    });
    // The requester's mention is the bot's own; nothing else may be live.
    const live = liveMarkup(message).filter((problem) => !problem.endsWith(': <@U0ALICE>'));
    expect(live).toEqual([]);
  });
});
