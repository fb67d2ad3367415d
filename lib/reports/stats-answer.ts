import type { WebClient } from '@slack/web-api';
import { type ManagedStats, managedStatsSchema } from '../api/operations/managed.js';
import { contextBlock, mrkdwnFallback, sectionBlock } from '../slack-kit/blocks.js';
import { shareFile } from '../slack-kit/file-share.js';
import type { Reply } from '../slack-kit/reply.js';
import { renderStatsChart } from './chart.js';
import { statsSummary, statsUnavailableText } from './render.js';
import { summarizeSeries } from './stats-series.js';

/**
 * `/cloud managed stats` answered like the scheduled report: the chart and the summary. It runs in
 * the worker (the Slack function does not carry the rasteriser).
 *
 * Slack shares an upload asynchronously and refuses an image block whose file is not yet processed
 * or not shared where the message goes; no ephemeral message can show a file, and a file shared in
 * no channel is the uploader's alone. So the chart is shared, with the summary as its comment,
 * where the answer's readers are: in the channel for an answer to the channel, otherwise in the
 * asker's direct message with the app (the only private place for a file). Slack posts it there
 * once processed; the reply itself carries the summary and says where the chart goes.
 *
 * Slack's native `data_visualization` block is not used: its reference caps a chart at 6 series
 * and the libraries that model it disagree on the points a series may hold (20 in one) and on
 * blocks per message, while this chart is three panels with their own axes over 24 hours of points.
 */

const ZONE = 'UTC';
const TITLE = 'Managed stats, last 24 hours';

export interface ChartAsker {
  readonly user: string;
  /** Where the command was typed. */
  readonly channel: string;
}

/** The reply with the chart on its way, or `reply` as it is when the output is not a series. */
export async function answerWithChart(
  slack: WebClient,
  reply: Reply,
  output: unknown,
  now: Date,
  asker: ChartAsker,
): Promise<Reply> {
  const parsed = managedStatsSchema().safeParse(output);
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
  const where = await shareChart(slack, png, summary, now, asker, reply.visibility === 'ephemeral');
  return {
    ...reply,
    text: mrkdwnFallback(summary),
    blocks: [sectionBlock(summary), contextBlock(where)],
  };
}

/**
 * Shares the chart with the summary as its comment: in the asker's DM with the app when the answer
 * is private, otherwise in the channel. Says where it went, or why it did not: Slack accepting the
 * share means it will post it once processed, not that it has.
 */
async function shareChart(
  slack: WebClient,
  png: Buffer,
  summary: string,
  now: Date,
  asker: ChartAsker,
  privately: boolean,
): Promise<string> {
  const share = await shareFile(
    slack,
    privately ? { directMessageWith: asker.user } : { channel: asker.channel },
    {
      file: png,
      filename: `managed-stats-${now.toISOString().slice(0, 16).replace(':', '')}.png`,
      title: TITLE,
      comment: summary,
    },
  );
  switch (share.kind) {
    case 'no_direct_message':
      return `:warning: The chart could not be sent to you: your direct message with the app did not open (${share.code}).`;
    case 'refused':
      return `:warning: The chart could not be uploaded (${share.code}); the numbers above are complete.`;
    case 'in_doubt': {
      const where = privately ? 'your direct messages with the app' : 'this channel';
      return `:hourglass_flowing_sand: Slack did not confirm the chart's upload (${share.code}), so it may still appear in ${where}. Ask again only if it has not arrived in a minute; the numbers above are complete.`;
    }
    case 'on_its_way':
      return privately
        ? ':envelope: The chart is on its way to your direct messages with the app; Slack shows it there once it has processed the picture.'
        : ':bar_chart: The chart is on its way to this channel; Slack shows it once it has processed the picture.';
  }
}
