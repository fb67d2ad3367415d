import type { ApiErrorCode } from '../api/errors.js';
import { ENGINE_GROUP, engineCommandsText, idWordsOf } from '../commands/engine-verbs.js';
import type { EngineArgs } from '../commands/parse/front.js';
import { type ParsedCommand, parseForEngine } from '../commands/parse.js';
import { SLASH_COMMAND } from '../commands/registry.js';
import { findDatabaseEngine } from '../core/database-engine.js';
import { notice, type Reply } from '../slack-kit/reply.js';
import type { BotDeps, RequestContext } from './context.js';
import { tokenProblemReply } from './token-resolution.js';

/**
 * `/cloud databases view 42`: the engine of database 42 found from its id (`findDatabaseEngine` in
 * the core), then the command read as that engine's own (`databases postgresql-view 42`), which
 * goes on exactly as if it had been typed so: its guardrails, approval and step-up are the real
 * operation's. When the engine cannot be found, the answer says why and names both engines'
 * commands, never one engine's alone.
 */

/** Ids the API gives databases: positive whole numbers. */
const DATABASE_ID = /^[1-9][0-9]{0,14}$/;

export async function readForEngine(
  deps: BotDeps,
  ctx: RequestContext,
  front: EngineArgs,
  text: string,
): Promise<{ readonly parsed: ParsedCommand } | { readonly reply: Reply }> {
  const named = `\`${SLASH_COMMAND} ${front.group} ${front.action}\``;
  const [first] = front.args;
  const id = first?.kind === 'word' && DATABASE_ID.test(first.text) ? first.text : undefined;
  if (id === undefined) {
    return {
      reply: notice(
        `${named} takes the database's id first, e.g. \`${SLASH_COMMAND} ${front.group} ${front.action} 42\`; \`${SLASH_COMMAND} ${ENGINE_GROUP} list\` lists yours with their ids.`,
      ),
    };
  }
  // Within the inline budget, like any answer given while Slack waits.
  const budget = AbortSignal.timeout(deps.inlineBudgetMs);
  const lookup = await findDatabaseEngine(deps, ctx, Number(id), {
    signal: budget,
    deadline: Date.now() + deps.inlineBudgetMs,
    tokenLookup: ctx.tokenLookup,
  });
  const both = engineCommandsText(front.action, idWordsOf(front.args), SLASH_COMMAND);
  switch (lookup.kind) {
    case 'found':
      return { parsed: parseForEngine(text, lookup.engine) };
    case 'no_token':
      return { reply: tokenProblemReply(lookup) };
    case 'not_found':
      return {
        reply: notice(
          `No database of yours has the id ${id}, of any engine. \`${SLASH_COMMAND} ${ENGINE_GROUP} list\` lists yours with their ids.`,
        ),
      };
    case 'other_engine':
      return {
        reply: notice(
          `Database ${id} runs ${lookup.engine.slice(0, 40)}, which the bot has no commands for; it has ${both}.`,
        ),
      };
    case 'unanswered':
      return {
        reply: notice(
          `Could not find out which engine database ${id} is: ${unansweredWords(lookup.code)}. Nothing was run. Name the engine to go ahead: ${both}.`,
        ),
      };
  }
}

function unansweredWords(code: ApiErrorCode): string {
  switch (code) {
    case 'timeout':
    case 'aborted':
      return 'the API did not answer in time';
    case 'rate_limited':
      return 'the API asked for fewer requests for now';
    default:
      return 'the API is not answering right now';
  }
}
