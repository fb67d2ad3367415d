import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import { type ManagedStats, ManagedStatsSchema } from '../api/operations/managed.js';
import { mrkdwnFallback, sectionBlock } from '../slack/render/blocks.js';
import type { Reply } from '../slack/runner.js';
import { renderStatsChart } from './chart.js';
import { statsSummary, statsUnavailableText } from './render.js';
import { summarizeSeries } from './stats-series.js';

/**
 * `/cloud managed stats` answered like the scheduled report: the chart and the summary. It runs in
 * the worker (the Slack function does not carry the rasteriser). The picture is uploaded without
 * sharing it in any channel and shown in the reply through an image block, so a reply that only
 * the asker sees keeps its chart private too.
 */

const UploadAnswerSchema = z.object({
  files: z.array(z.object({ files: z.array(z.object({ id: z.string() })).optional() })).default([]),
});

const ZONE = 'UTC';

/** The reply with the chart, or `reply` as it is when the output is not a series. */
export async function answerWithChart(
  slack: WebClient,
  reply: Reply,
  output: unknown,
  now: Date,
): Promise<Reply> {
  const parsed = ManagedStatsSchema.safeParse(output);
  if (!parsed.success) return reply;
  const stats: ManagedStats = parsed.data;
  if (Array.isArray(stats.data)) {
    const text = statsUnavailableText(stats.data);
    return { ...reply, text: mrkdwnFallback(text), blocks: [sectionBlock(text)] };
  }
  const summary = statsSummary(
    summarizeSeries(stats.data),
    `_Times on the chart: ${ZONE}. \`/cloud reports add stats --daily 09:00 --tz Zone\` posts it every day._`,
  );
  const png = await renderStatsChart(stats.data, { zone: ZONE });
  const uploaded = UploadAnswerSchema.parse(
    await slack.files.uploadV2({
      file: png,
      filename: `managed-stats-${now.toISOString().slice(0, 16).replace(':', '')}.png`,
      title: 'Managed stats, last 24 hours',
    }),
  );
  const fileId = uploaded.files[0]?.files?.[0]?.id;
  const blocks: unknown[] = [sectionBlock(summary)];
  if (fileId) {
    blocks.push({
      type: 'image',
      slack_file: { id: fileId },
      alt_text: 'Managed stats of the last 24 hours: cpu; disk and swap; network in and out',
      title: { type: 'plain_text', text: 'Managed stats, last 24 hours' },
    });
  }
  return { ...reply, text: mrkdwnFallback(summary), blocks };
}
