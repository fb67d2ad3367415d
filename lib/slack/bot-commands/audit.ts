import type { SectionBlock } from '@slack/types';
import type { ParsedCommand } from '../../commands/parse.js';
import { notice, type Reply } from '../../slack-kit/reply.js';
import { truncate } from '../../truncate.js';
import type { BotCommandContext } from '../context.js';
import { auditLine } from '../render/audit.js';

/** `/cloud audit [--limit N]`: the workspace's latest changes made through the bot, newest first. */

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;

const AUDIT_DEFAULT = 20;
/** Lines per section: a section holds 3,000 characters. */
const AUDIT_LINES_PER_SECTION = 10;

export async function auditLog({ deps, ctx }: BotCommandContext, parsed: BotParsed): Promise<Reply> {
  // `--limit` is a count from 1 to 50, read by the parser.
  const limit = typeof parsed.flags.limit === 'number' ? parsed.flags.limit : AUDIT_DEFAULT;
  const { entries } = await deps.store.audit.list(ctx.team, { limit });
  if (entries.length === 0) return notice('Nothing has been changed through the bot in this workspace yet.');
  const lines = entries.map(auditLine);
  const sections: SectionBlock[] = [];
  for (let i = 0; i < lines.length; i += AUDIT_LINES_PER_SECTION) {
    sections.push({
      type: 'section',
      text: { type: 'mrkdwn', text: truncate(lines.slice(i, i + AUDIT_LINES_PER_SECTION).join('\n'), 3000) },
    });
  }
  return {
    text: `The last ${entries.length} changes made through the bot`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: 'Changes made through the bot' } },
      ...sections,
    ],
    visibility: 'ephemeral',
  };
}
