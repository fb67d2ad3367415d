import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedStats } from '../../lib/api/operations/managed.js';
import { CHART_SCALE, CHART_SIZE, renderStatsChart } from '../../lib/reports/chart.js';
import { formatValue, summarizeSeries } from '../../lib/reports/stats-series.js';
import { slackFixtures } from '../support/slack-fixtures.js';
import { currentStats, type ReporterHarness, startReporterHarness } from './harness.js';

/**
 * `/cloud managed stats` typed in the Slack stand-in: the Slack function hands it to the worker,
 * which answers with the same chart as the scheduled report and its summary, privately.
 */

const CHANNEL = 'C0STATSCMD';
let harness: ReporterHarness;

beforeAll(async () => {
  harness = await startReporterHarness({
    stack: { slack: slackFixtures({ channels: ['C0STATSCMD'], people: ['U0ASKER', 'U0OTHER'] }) },
  });
});

afterAll(async () => {
  await harness?.close();
});

describe('/cloud managed stats', () => {
  it('answers the asker alone with the chart (uploaded, shared in no channel) and the summary', async () => {
    await harness.link('U0ASKER', 'asker');
    const expected = (await currentStats(harness)) as ManagedStats;
    if (Array.isArray(expected.data)) throw new Error('the emulator has no series');

    const delivery = await harness.e2e.command('U0ASKER', 'managed stats', CHANNEL);
    expect(delivery.status).toBe(200);

    const answer = harness.e2e.lastSeen('U0ASKER', CHANNEL);
    expect(answer.ephemeral).toBe(true);
    expect(harness.e2e.seen('U0OTHER', CHANNEL)).toEqual([]);
    const cpu = summarizeSeries(expected.data)[0];
    expect(answer.text).toContain(`*cpu* (blue): latest ${formatValue(cpu?.latest ?? Number.NaN)}`);

    const image = (answer.blocks as { type: string; slack_file?: { id: string } }[]).find(
      (b) => b.type === 'image',
    );
    const file = image?.slack_file && harness.e2e.stack.standIn.store.file(image.slack_file.id);
    if (!file?.bytes) throw new Error(`no chart in ${JSON.stringify(answer.blocks)}`);
    // Not posted to the channel: only the private reply shows it.
    expect(file.channels).toEqual([]);
    const png = PNG.sync.read(file.bytes);
    expect([png.width, png.height]).toEqual([
      CHART_SIZE.width * CHART_SCALE,
      CHART_SIZE.height * CHART_SCALE,
    ]);
    expect(file.bytes.equals(await renderStatsChart(expected.data, { zone: 'UTC' }))).toBe(true);
  });
});
