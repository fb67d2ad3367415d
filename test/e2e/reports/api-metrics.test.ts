import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiCallEvent } from '../../../lib/api/client.js';
import { runReporterTick } from '../../../lib/reports/tick.js';
import { slackFixtures } from '../../support/slack-fixtures.js';
import { type ReporterHarness, startReporterHarness } from './harness.js';

/**
 * The reporter built its API clients by hand, without the settings' metrics hook, so a report
 * run emitted no per-operation metrics. Through the emulator, DynamoDB Local and the Slack
 * stand-in, a tick must now report each API attempt it makes.
 */

let harness: ReporterHarness;

beforeAll(async () => {
  harness = await startReporterHarness({
    stack: { slack: slackFixtures({ channels: ['C0METRICS'], people: ['U0METRICS'] }) },
  });
});

afterAll(async () => {
  await harness?.close();
});

describe('reporter tick', () => {
  it('reports every API attempt of a report run to the metrics hook, by operation id', async () => {
    await harness.link('U0METRICS', 'alice');
    const reply = await harness.reports('U0METRICS', 'C0METRICS', 'reports add issues --every 1h');
    expect(reply.visibility).toBe('in_channel');

    const events: ApiCallEvent[] = [];
    const deps = {
      ...harness.deps,
      api: { ...harness.deps.api, onCall: (event: ApiCallEvent) => events.push(event) },
    };
    const summary = await runReporterTick(deps, harness.now());
    expect(summary.failures).toEqual([]);
    expect(harness.posted('C0METRICS')).toHaveLength(1);

    const perOperation: Record<string, number> = {};
    for (const event of events) perOperation[event.operationId] = (perOperation[event.operationId] ?? 0) + 1;
    expect(perOperation['managed.issues-list']).toBeGreaterThan(0);
    // The tick's own per-account count sees the same attempts the metrics hook saw.
    const counted: Record<string, number> = {};
    for (const calls of Object.values(summary.apiCalls))
      for (const [operation, count] of Object.entries(calls))
        counted[operation] = (counted[operation] ?? 0) + count;
    expect(perOperation).toEqual(counted);
  });
});
