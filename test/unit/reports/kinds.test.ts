import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ApiClient } from '../../../lib/api/client.js';
import type { AnyOperation } from '../../../lib/api/operation.js';
import { AccountFeed } from '../../../lib/reports/account-feed.js';
import { isReportKind, REPORT_KIND_SPECS, REPORT_KINDS } from '../../../lib/reports/kinds.js';
import { scheduleFromFlags } from '../../../lib/reports/schedule.js';
import type { ReportKind } from '../../../lib/store/index.js';

/** A feed over a client that answers every read with nothing, and the operations it was asked for. */
function recordingFeed(): { readonly feed: AccountFeed; readonly asked: string[] } {
  const asked: string[] = [];
  const answer = async (op: AnyOperation) => {
    asked.push(op.id);
    return op.paginated ? { data: [], results: 0, pages: 1 } : {};
  };
  return { feed: new AccountFeed({ listAll: answer, call: answer } as unknown as ApiClient), asked };
}

/**
 * Report kinds used to be string switches over eight files, and a kind could be declared and
 * documented while its handler was missing. Each kind is now one registry entry; these tests keep
 * every entry complete.
 */
describe('the report-kind registry', () => {
  it('has one entry per stored kind, under its own value', () => {
    expectTypeOf<keyof typeof REPORT_KINDS>().toEqualTypeOf<ReportKind>();
    for (const [key, spec] of Object.entries(REPORT_KINDS)) expect(spec.kind).toBe(key);
    expect(isReportKind('constructor')).toBe(false);
  });

  it.each(REPORT_KIND_SPECS.map((spec) => [spec.kind, spec] as const))(
    '%s has every part: title, usage, scopes, schedule, prefetch and its own deliverer',
    async (_kind, spec) => {
      expect(spec.title.trim(), 'title').not.toBe('');
      expect(spec.usage.trim(), 'usage').not.toBe('');
      expect(spec.scopes.length, 'scopes').toBeGreaterThan(0);
      const { feed, asked } = recordingFeed();
      await Promise.all(spec.prefetch(feed, [], new Date()));
      expect(asked.length, 'prefetch').toBeGreaterThan(0);
      expect(typeof (await spec.deliverer()), 'deliverer').toBe('function');
      const fallback = scheduleFromFlags(spec.schedule, {});
      expect(fallback.ok && fallback.value.type).toBe(
        spec.schedule.defaultRun === 'daily' ? 'daily' : 'every',
      );
      const daily = scheduleFromFlags(spec.schedule, { daily: '09:00' });
      expect(daily.ok).toBe(spec.schedule.whyNotDaily === undefined);
    },
  );

  it('gives every kind that posts each new item once the words for what it posts', () => {
    // `/cloud reports run` on an events report once said "No new managed issues to post".
    const eachOnce = REPORT_KIND_SPECS.filter((spec) => spec.learnsOpenIssuesFirst);
    for (const spec of eachOnce) expect(spec.eachNew, spec.kind).toBeDefined();
    expect(REPORT_KINDS.events.eachNew?.none).toBe('No new account events to post');
    expect(REPORT_KINDS.events.eachNew?.noun).toBe('new event');
  });

  it('gives each kind its own deliverer', async () => {
    const chosen = await Promise.all(REPORT_KIND_SPECS.map((spec) => spec.deliverer()));
    expect(new Set(chosen).size).toBe(chosen.length);
  });
});

describe('the account feed', () => {
  it('reads a list that several kinds of one account name once per tick', async () => {
    const { feed, asked } = recordingFeed();
    await Promise.all([feed.list('regions.list'), feed.list('regions.list'), feed.list('nodes.list')]);
    expect(asked).toEqual(['regions.list', 'nodes.list']);
  });

  it('serves the issues the alerts read and a list of the same operation from one read', async () => {
    const { feed, asked } = recordingFeed();
    await Promise.all([feed.issues(), feed.list('managed.issues-list')]);
    expect(asked).toEqual(['managed.issues-list']);
  });
});
