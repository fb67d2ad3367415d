import type { SectionBlock } from '@slack/types';
import { type RequestStanding, standingOf } from '../../changes/request-standing.js';
import type { ParsedCommand } from '../../commands/parse.js';
import { notice, type Reply } from '../../slack-kit/reply.js';
import type { AuditEntry } from '../../store/index.js';
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
  const standings = await standingsOf(deps, ctx.team, entries);
  const lines = entries.map((entry) =>
    auditLine(entry, entry.approvalId ? standings.get(entry.approvalId) : undefined),
  );
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

/**
 * How each request the entries name stands now, read once per request (at most `--limit` of
 * them, side by side). A request past its retention, or one that cannot be read, has none.
 */
async function standingsOf(
  deps: BotCommandContext['deps'],
  team: string,
  entries: readonly AuditEntry[],
): Promise<Map<string, RequestStanding>> {
  const ids = [...new Set(entries.flatMap((entry) => (entry.approvalId ? [entry.approvalId] : [])))];
  const read = await Promise.all(ids.map((id) => deps.store.approvals.get(team, id).catch(() => undefined)));
  return new Map(
    read.flatMap((approval) => (approval ? [[approval.id, standingOf(approval)] as const] : [])),
  );
}
