import type { KnownBlock } from '@slack/types';
import type { HelpDoc } from '../../commands/help-topics.js';
import {
  blocksLength,
  contextBlock,
  fallbackText,
  headerBlock,
  MESSAGE_BUDGET,
  type RenderedMessage,
  sectionBlock,
} from '../../slack-kit/blocks.js';
import { SLACK_LIMITS } from '../../slack-kit/limits.js';
import { escapeMrkdwn } from '../../slack-kit/text.js';

/** Room kept for the "cut short" note, measured before the sections go in. */
const NOTE_ALLOWANCE = 300;

/**
 * Help as blocks: the title as a header, one section per help section (bold heading, then its
 * lines). `helpFor` already splits sections to fit Slack's section limit; this keeps the message
 * within the block count and overall size, saying so when something had to be left out.
 */
export function renderHelp(doc: HelpDoc): RenderedMessage {
  const blocks: KnownBlock[] = [headerBlock(doc.title)];
  let used = blocksLength(blocks) + NOTE_ALLOWANCE;
  let shown = 0;
  for (const section of doc.sections) {
    const lines = section.lines.map(escapeMrkdwn);
    const text = [
      ...(section.heading === undefined ? [] : [`*${escapeMrkdwn(section.heading)}*`]),
      ...lines,
    ].join('\n');
    const block = sectionBlock(text);
    const size = blocksLength([block]) + 1;
    if (used + size > MESSAGE_BUDGET || blocks.length >= SLACK_LIMITS.blocksPerMessage - 1) break;
    blocks.push(block);
    used += size;
    shown += 1;
  }
  if (shown < doc.sections.length) {
    blocks.push(
      contextBlock(
        'Cut short to fit in one Slack message; ask for help on one group or action to see the rest.',
      ),
    );
  }
  return { text: fallbackText(doc.title), blocks };
}
