import type { KnownBlock } from '@slack/types';
import { parameterList } from '../../commands/aliases.js';
import type { FrontParse } from '../../commands/parse/front.js';
import type { ParsedCommand } from '../../commands/parse/result.js';
import { type CommandOperation, SLASH_COMMAND } from '../../commands/registry.js';
import {
  type AliasRefusal,
  type AliasScopeKind,
  addAlias,
  callAlias,
  type ExpansionProblem,
  listAliases,
  removeAlias,
} from '../../core/aliases.js';
import { contextBlock } from '../../slack-kit/blocks.js';
import { SLACK_LIMITS } from '../../slack-kit/limits.js';
import { notice, type Reply } from '../../slack-kit/reply.js';
import { codeSpan, slackDate, userMention } from '../../slack-kit/text.js';
import type { StoredAlias } from '../../store/index.js';
import { truncate } from '../../truncate.js';
import { withAliasLine } from '../alias-line.js';
import { callerOf } from '../caller.js';
import type { BotCommandContext, BotDeps, RequestContext } from '../context.js';

/**
 * `/cloud alias add|list|remove`, and `/cloud NAME ARGS` for an alias, as Slack shows them: the
 * core (`lib/core/aliases.ts`) decides who may change which alias and what a call runs; this words
 * its outcomes, and the answer to an alias's call says what it ran.
 */

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;
type CatalogFront = FrontParse<CommandOperation>;

const LINES_PER_SECTION = 10;

export async function handleAliasCommand(context: BotCommandContext, parsed: BotParsed): Promise<Reply> {
  const scope: AliasScopeKind = parsed.flags.workspace === true ? 'workspace' : 'channel';
  switch (parsed.subcommand) {
    case 'add':
      return answerAdd(context, scope, parsed.args[0] ?? '', parsed.args[1] ?? '');
    case 'remove':
      return answerRemove(context, scope, parsed.args[0] ?? '');
    default:
      return answerList(context);
  }
}

// ---------------------------------------------------------------------------------------------
// add, remove, list

async function answerAdd(
  context: BotCommandContext,
  scope: AliasScopeKind,
  name: string,
  expansion: string,
): Promise<Reply> {
  const outcome = await addAlias(context.deps, callerOf(context), { scope, name, expansion });
  switch (outcome.kind) {
    case 'invalid_name':
      return notice(outcome.message);
    case 'invalid_expansion':
      return notice(expansionProblemText(outcome.problem));
    case 'refused':
      return notice(refusalText(outcome, name, 'replace'));
    case 'at_cap':
      return notice(
        `${scopeWords(scope, true)} has ${outcome.limit} aliases, the most it may have. Remove one first (\`${SLASH_COMMAND} alias list\`).`,
      );
    case 'added':
    case 'replaced': {
      const parameters = outcome.parameterCount;
      const call = `${SLASH_COMMAND} ${name}${parameters > 0 ? ` ${parameterList(parameters)}` : ''}`;
      return notice(
        `${outcome.kind === 'replaced' ? 'Replaced' : 'Added'} alias ${codeSpan(name)} for ${scopeWords(scope, false)}: ${codeSpan(call)} runs ${codeSpan(`${SLASH_COMMAND} ${expansion}`)}, under the guardrails and approvals of the channel it is used in.`,
      );
    }
  }
}

async function answerRemove(context: BotCommandContext, scope: AliasScopeKind, name: string): Promise<Reply> {
  const outcome = await removeAlias(context.deps, callerOf(context), { scope, name });
  switch (outcome.kind) {
    case 'invalid_name':
      return notice(outcome.message);
    case 'not_found': {
      const other = scope === 'workspace' ? '' : ' (a workspace alias is removed with `--workspace`)';
      return notice(
        `${scopeWords(scope, true)} has no alias ${codeSpan(name)}${other}. \`${SLASH_COMMAND} alias list\` lists them.`,
      );
    }
    case 'refused':
      return notice(refusalText(outcome, name, 'remove'));
    case 'already_removed':
      return notice(`Alias ${codeSpan(name)} was already removed.`);
    case 'removed':
      return notice(`Removed alias ${codeSpan(name)} of ${scopeWords(scope, false)}.`);
  }
}

async function answerList(context: BotCommandContext): Promise<Reply> {
  const { channel, workspace } = await listAliases(context.deps, callerOf(context));
  if (channel.length === 0 && workspace.length === 0) {
    return notice(
      `No aliases here yet. Add one with ${codeSpan(`${SLASH_COMMAND} alias add rmvol "volumes delete $1"`)}.`,
    );
  }
  const own = new Set(channel.map((alias) => alias.name));
  const line = (alias: StoredAlias) => {
    const shadowed =
      alias.scope.kind === 'workspace' && own.has(alias.name) ? ' _(this channel has its own)_' : '';
    return `• ${codeSpan(alias.name)} → ${codeSpan(`${SLASH_COMMAND} ${alias.expansion}`)} by ${userMention(alias.createdBy)} ${slackDate(alias.createdAt)}${shadowed}`;
  };
  const blocks: KnownBlock[] = [];
  const section = (title: string, aliases: readonly StoredAlias[]) => {
    if (aliases.length === 0) return;
    const lines = aliases.map(line);
    for (let i = 0; i < lines.length; i += LINES_PER_SECTION) {
      const head = i === 0 ? `*${title}*\n` : '';
      blocks.push({
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: truncate(
            `${head}${lines.slice(i, i + LINES_PER_SECTION).join('\n')}`,
            SLACK_LIMITS.sectionText,
          ),
        },
      });
    }
  };
  section('Aliases of this channel', channel);
  section('Aliases of the workspace', workspace);
  blocks.push(
    contextBlock(
      `Run one with ${codeSpan(`${SLASH_COMMAND} NAME ARGS`)}; a channel's alias wins over the workspace's of the same name.`,
    ),
  );
  return {
    text: `${channel.length} channel and ${workspace.length} workspace aliases`,
    blocks,
    visibility: 'ephemeral',
  };
}

/** Why the person may not replace or remove the alias, in words. */
function refusalText(refusal: AliasRefusal, name: string, verb: 'replace' | 'remove'): string {
  if (refusal.reason === 'workspace_needs_admin') {
    return 'Only workspace admins (or the admins named in the approval policy) can change workspace aliases. Leave out `--workspace` to change an alias of this channel.';
  }
  return `Alias ${codeSpan(name)} was added by ${userMention(refusal.author)}; only they or a workspace admin can ${verb} it.`;
}

/** Why an expansion cannot be an alias's, or cannot run, in words. */
function expansionProblemText(problem: ExpansionProblem): string {
  switch (problem.kind) {
    case 'unreadable':
      return problem.message;
    case 'not_a_command':
      return `The expansion is not a command: ${problem.message}`;
    case 'not_an_operation':
      return `An alias runs an operation such as ${codeSpan('volumes delete $1')}, not help, the bot's own commands or another alias.`;
    case 'break_glass':
      return '`--break-glass` cannot be part of an alias: type the command with its reason when it is needed.';
    case 'does_not_run':
      return `The expansion is not a command that runs (checked with ${problem.placeholders.map((v) => codeSpan(v)).join(' and ')} for its parameters): ${problem.message ?? 'it does not parse'}`;
  }
}

// ---------------------------------------------------------------------------------------------
// running an alias

/** The same path as typed text: the front of the expansion in, the answer out. */
export type AnswerExpansion = (
  front: CatalogFront,
  transportText: string,
  viaAlias: { readonly name: string; readonly line: string },
) => Promise<Reply | undefined>;

/**
 * `/cloud NAME ARGS` when NAME is an alias here: the answer to its expansion with what it ran on
 * top (none when a form opened). `not-an-alias` when the first word names no alias, so the caller
 * answers "no such command".
 */
export async function answerAliasCall(
  deps: BotDeps,
  ctx: RequestContext,
  text: string,
  answerExpansion: AnswerExpansion,
): Promise<Reply | undefined | 'not-an-alias'> {
  const call = await callAlias(deps, ctx, text);
  if (call.kind === 'not_an_alias') return 'not-an-alias';
  const { alias } = call;
  const where = alias.scope.kind === 'workspace' ? 'the workspace' : 'this channel';
  const definition = `Alias ${codeSpan(alias.name)} of ${where} runs ${codeSpan(`${SLASH_COMMAND} ${alias.expansion}`)}`;
  switch (call.kind) {
    case 'help':
      return notice(`${definition}. Added by ${userMention(alias.createdBy)} ${slackDate(alias.createdAt)}.`);
    case 'cannot_run':
      return notice(`${definition}, which cannot run: ${expansionProblemText(call.problem)}`);
    case 'bad_arguments':
      return notice(call.message);
    case 'expanded': {
      const ran = `:link: Alias ${codeSpan(alias.name)} (${where}): ${codeSpan(`${SLASH_COMMAND} ${call.displayText}`)}`;
      const reply = await answerExpansion(call.front, call.transportText, { name: alias.name, line: ran });
      return reply && withAliasLine(reply, ran);
    }
  }
}

// ---------------------------------------------------------------------------------------------

function scopeWords(scope: AliasScopeKind, capital: boolean): string {
  const words = scope === 'workspace' ? 'the workspace' : 'this channel';
  return capital ? `${words[0]?.toUpperCase()}${words.slice(1)}` : words;
}
