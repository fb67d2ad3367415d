import type { AnyOperation } from '../api/operation.js';
import { requestShapeOf } from './field-shapes.js';
import { parseBotCommand } from './parse/bot-command.js';
import { collectFlags } from './parse/flags.js';
import { buildInput, issueMessages } from './parse/input.js';
import { buildListOptions } from './parse/list-options.js';
import { clip, failure, type ParsedCommand, type ParseError, type Problems } from './parse/result.js';
import {
  type CommandGroup,
  type CommandRegistry,
  isBotCommand,
  registry,
  SLASH_COMMAND,
} from './registry.js';
import { didYouMean } from './suggest.js';
import { type Token, tokenize } from './tokenize.js';
import { normalizeName, usageOf } from './usage.js';

export type { ParsedCommand } from './parse/result.js';

/**
 * `/cloud <group> <action> [ID ...] [--field value ...]` → what to do. The parser knows every
 * operation's fields from its request schema, converts typed text to the field's type, and
 * validates the assembled request with the schema itself, so a command that parses is a request
 * the table accepts. Its parts live in `parse/`: flags, input building, list options and the
 * bot's own commands.
 */

function isHelpFlag(token: Token | undefined): boolean {
  return token?.kind === 'flag' && normalizeName(token.name) === 'help';
}

export function parseCommand(text: string, commands: CommandRegistry = registry): ParsedCommand {
  const tokenized = tokenize(text);
  if (!tokenized.ok) return failure(tokenized.message);
  const [first, ...rest] = tokenized.tokens;
  if (first === undefined) return { kind: 'help' };
  if (first.kind !== 'word') {
    if (isHelpFlag(first)) return { kind: 'help' };
    return failure(
      `Start with a group or a command, e.g. \`${SLASH_COMMAND} volumes list\`; \`${SLASH_COMMAND} help\` lists them.`,
    );
  }
  if (first.text.toLowerCase() === 'help') return helpCommand(rest, commands);

  const topic = commands.findTopic(first.text);
  if (!topic.found) {
    return failure(
      `There is no \`${clip(first.text)}\` command.${didYouMean(topic.suggestions)} \`${SLASH_COMMAND} help\` lists the groups and commands.`,
      { suggestions: topic.suggestions },
    );
  }
  if (isBotCommand(topic.value)) {
    if (rest.some(isHelpFlag)) return { kind: 'help', topic: { group: topic.value.name } };
    return parseBotCommand(topic.value, rest);
  }
  return parseGroupCommand(topic.value, rest, commands);
}

function helpCommand(words: readonly Token[], commands: CommandRegistry): ParsedCommand {
  const [groupWord, actionWord] = words.flatMap((token) => (token.kind === 'word' ? [token.text] : []));
  if (groupWord === undefined) return { kind: 'help' };
  const topic = commands.findTopic(groupWord);
  if (!topic.found || isBotCommand(topic.value)) {
    return { kind: 'help', topic: { group: topic.found ? topic.value.name : groupWord } };
  }
  const group = topic.value;
  if (actionWord === undefined) return { kind: 'help', topic: { group: group.name } };
  const action = commands.findAction(group, actionWord);
  return {
    kind: 'help',
    topic: { group: group.name, action: action.found ? action.value.action : actionWord },
  };
}

function parseGroupCommand(
  group: CommandGroup,
  tokens: readonly Token[],
  commands: CommandRegistry,
): ParsedCommand {
  const [actionToken, ...args] = tokens;
  if (actionToken === undefined || isHelpFlag(actionToken))
    return { kind: 'help', topic: { group: group.name } };
  if (actionToken.kind !== 'word') {
    return failure(
      `Name an action after \`${group.name}\`, e.g. \`${SLASH_COMMAND} ${group.name} ${group.actions[0]?.action ?? 'list'}\`; \`${SLASH_COMMAND} help ${group.name}\` lists them.`,
    );
  }
  if (actionToken.text.toLowerCase() === 'help') return { kind: 'help', topic: { group: group.name } };
  const action = commands.findAction(group, actionToken.text);
  if (!action.found) {
    const suggestions = action.suggestions.map((name) => `${group.name} ${name}`);
    return failure(
      `\`${group.name}\` has no action \`${clip(actionToken.text)}\`.${didYouMean(suggestions)} \`${SLASH_COMMAND} help ${group.name}\` lists its actions.`,
      { suggestions },
    );
  }
  if (args.some(isHelpFlag))
    return { kind: 'help', topic: { group: group.name, action: action.value.action } };
  return parseOperation(action.value, args);
}

// ---------------------------------------------------------------------------------------------
// Operations

/** Every problem is collected before answering, so one reply lists them all. */
function parseOperation(op: AnyOperation, tokens: readonly Token[]): ParsedCommand {
  const root = requestShapeOf(op);
  const problems: Problems = { messages: [], suggestions: [] };
  const error = (): ParseError =>
    failure([...new Set(problems.messages)].join('\n'), {
      usage: usageOf(op),
      suggestions: [...new Set(problems.suggestions)],
    });
  const flags = collectFlags(op, root, tokens, problems);
  if (problems.messages.length > 0) return error();
  const input = buildInput(op, root, flags, problems);
  const options = buildListOptions(op, root, flags, problems, input);
  if (problems.messages.length > 0 || options === undefined) return error();
  const result = op.request.safeParse(input);
  if (!result.success) {
    problems.messages.push(...issueMessages(op, root, result.error.issues, input));
    return error();
  }
  const data = result.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return failure(`\`${op.group} ${op.action}\` could not be prepared.`, { usage: usageOf(op) });
  }
  return { kind: 'operation', op, input: data as Record<string, unknown>, options };
}
