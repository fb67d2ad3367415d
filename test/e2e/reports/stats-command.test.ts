import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedStats } from '../../../lib/api/operations/managed.js';
import { CHART_SCALE, CHART_SIZE, renderStatsChart } from '../../../lib/reports/chart.js';
import { formatValue, summarizeSeries } from '../../../lib/reports/stats-series.js';
import { slackFixtures } from '../../support/slack-fixtures.js';
import { currentStats, type ReporterHarness, startReporterHarness } from './harness.js';

/**
 * `/cloud managed stats` typed in the Slack stand-in: the Slack function hands it to the worker,
 * which answers the asker privately with the summary and shares the same chart as the scheduled
 * report in the asker's direct message with the app. Slack shares uploads asynchronously and
 * refuses an image block whose file is not processed or not visible where the message goes, so
 * the stand-in takes two seconds to process the picture, as a slow day at Slack would.
 */

const CHANNEL = 'C0OPS';
const ASKER = 'U0ALICE';
const OTHER = 'U0BOB';
const PROCESSING_MS = 2000;
let harness: ReporterHarness;

beforeAll(async () => {
  harness = await startReporterHarness({
    stack: {
      slack: {
        ...slackFixtures({ channels: ['C0STATSCMD'], people: ['U0ASKER', 'U0OTHER'] }),
        fileProcessingMs: PROCESSING_MS,
      },
    },
  });
});

afterAll(async () => {
  await harness?.close();
});

describe('/cloud managed stats', () => {
  it('answers the asker alone with the summary, and the chart reaches their DM once Slack has processed it', async () => {
    await harness.link(ASKER, 'asker');
    const expected = (await currentStats(harness)) as ManagedStats;
    if (Array.isArray(expected.data)) throw new Error('the emulator has no series');
    const { store } = harness.e2e.stack.standIn;

    const delivery = await harness.e2e.command(ASKER, 'managed stats', CHANNEL);
    expect(delivery.status).toBe(200);

    // The reply: only the asker sees it, and it was not refused (no image of an unprocessed file).
    const answer = harness.e2e.lastSeen(ASKER, CHANNEL);
    expect(answer.ephemeral).toBe(true);
    expect(harness.e2e.seen(OTHER, CHANNEL)).toEqual([]);
    const cpu = summarizeSeries(expected.data)[0];
    expect(answer.text).toContain(`*cpu* (blue): latest ${formatValue(cpu?.latest ?? Number.NaN)}`);
    expect(harness.e2e.textOf(answer)).toContain('on its way to your direct messages');
    expect(store.callsTo('response_url').filter((call) => !call.ok)).toEqual([]);

    // Not shared in the channel, and not yet in the DM: Slack is still processing it.
    const dm = `D${ASKER}`;
    expect(store.messages(CHANNEL)).toEqual([]);
    expect(store.messages(dm)).toEqual([]);

    harness.advance(PROCESSING_MS);
    const [shared] = store.messages(dm);
    const file = shared?.files?.[0];
    if (!shared || !file?.bytes) throw new Error(`no chart in the DM: ${JSON.stringify(store.messages(dm))}`);
    expect(shared.text).toContain(`*cpu* (blue): latest ${formatValue(cpu?.latest ?? Number.NaN)}`);
    expect(store.file(file.id)?.channels).toEqual([dm]);
    expect(store.messages(CHANNEL)).toEqual([]);
    const png = PNG.sync.read(file.bytes);
    expect([png.width, png.height]).toEqual([
      CHART_SIZE.width * CHART_SCALE,
      CHART_SIZE.height * CHART_SCALE,
    ]);
    expect(file.bytes.equals(await renderStatsChart(expected.data, { zone: 'UTC' }))).toBe(true);
  });
});

describe('/cloud managed stats when Slack answers the upload but the answer is lost', () => {
  it('says the chart may still arrive, never that it could not be uploaded, and it does arrive', async () => {
    await harness.link(ASKER, 'asker');
    const { standIn } = harness.e2e.stack;
    const { store } = standIn;
    const dm = `D${ASKER}`;
    const before = store.messages(dm).length;
    const uploads = store.callsTo('files.completeUploadExternal').length;
    standIn.stall((method) => (method === 'files.completeUploadExternal' ? 'answer_lost' : undefined));
    const command = harness.e2e.command(ASKER, 'managed stats', CHANNEL);
    // Slack completed the upload; the connection carrying its answer then drops.
    await expect
      .poll(() => store.callsTo('files.completeUploadExternal').length, { timeout: 10_000 })
      .toBeGreaterThan(uploads);
    standIn.stall(undefined);
    expect((await command).status).toBe(200);
    await expect
      .poll(() => harness.e2e.textOf(harness.e2e.lastSeen(ASKER, CHANNEL)), { timeout: 10_000 })
      .toMatch(/did not confirm the chart's upload .* may still appear in your direct messages/);
    expect(harness.e2e.textOf(harness.e2e.lastSeen(ASKER, CHANNEL))).not.toContain('could not be uploaded');
    harness.advance(PROCESSING_MS);
    expect(store.messages(dm).length).toBe(before + 1);
  });
});
