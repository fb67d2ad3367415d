import { type EngineNeutralWords, readEngineNeutralVerb } from '../engine-verbs.js';
import { positionalName } from '../names.js';
import {
  type CommandGroup,
  type CommandOperation,
  type CommandRegistry,
  isBotCommand,
  SLASH_COMMAND,
} from '../registry.js';
import { didYouMean } from '../suggest.js';
import { type Token, tokenize } from '../tokenize.js';
import { botCommandTakes, parseBotCommand } from './bot-command.js';
import {
  BREAK_GLASS_ONLY_WITH_OPERATIONS,
  FORM_ONLY_WITH_ACTIONS,
  type GlobalFlags,
  REASON_ONLY_WITH_OPERATIONS,
  takeGlobalFlags,
} from './global-flags.js';
import { clip, failure, type ParsedCommand } from './result.js';

/**
 * The front of the parser: the words, then what they name (help, a bot command, a group and its
 * action) and every answer that needs nothing more, from any registry. It needs no operation's
 * schema, so the Slack function tells `/cloud help` and `/cloud login` from `/cloud volumes list`
 * with the command catalog alone; the arguments of an operation are the full parser's
 * (`parse.ts`), which reads them against the operation's request schema.
 */

/**
 * What the front makes of a command: an answer, or an operation and the words after its name,
 * with what the global flags said about it (`--form`, `--break-glass`).
 */
export type FrontParse<Op extends CommandOperation> =
  | Exclude<ParsedCommand, { readonly kind: 'operation' | 'form' }>
  | {
      readonly kind: 'operation-args';
      readonly op: Op;
      readonly args: readonly Token[];
      readonly form: boolean;
      readonly breakGlass?: string;
      readonly reason?: string;
    }
  /**
   * `databases view 42`: an action every engine has for one database, typed without the engine
   * (`engine-verbs.ts`); the engine comes from the id, and then the words after the action are
   * read as that engine's operation's arguments.
   */
  | ({ readonly kind: 'engine-args' } & EngineArgs & {
        readonly form: boolean;
        readonly breakGlass?: string;
        readonly reason?: string;
      });

/** The engine action named (`view`, `backups-list`) and the words after it, the id first. */
export type EngineArgs = EngineNeutralWords;

/** What the words name, before the global flags are applied to it. */
type WordsParse<Op extends CommandOperation> =
  | Exclude<FrontParse<Op>, { readonly kind: 'operation-args' | 'engine-args' }>
  | { readonly kind: 'operation-args'; readonly op: Op; readonly args: readonly Token[] }
  | ({ readonly kind: 'engine-args' } & EngineArgs);

export function parseFront<Op extends CommandOperation>(
  text: string,
  commands: CommandRegistry<Op>,
): FrontParse<Op> {
  const tokenized = tokenize(text);
  if (!tokenized.ok) return failure(tokenized.message);
  const read = takeGlobalFlags(tokenized.tokens);
  if (!read.ok) return failure(read.message);
  return withGlobals(parseWords(read.rest, read.globals.help, commands), read.globals);
}

/**
 * `volumes list`, `reports add`, `help`: what a command names, for metrics. Only names the
 * registry knows, never typed words: a token pasted after `login` must not become a metric.
 */
export function namedCommand<Op extends CommandOperation>(front: FrontParse<Op>): string {
  switch (front.kind) {
    case 'operation-args':
      return `${front.op.group} ${front.op.action}`;
    case 'engine-args':
      return `${front.group} ${front.action}`;
    case 'bot':
      return front.subcommand === undefined ? front.command : `${front.command} ${front.subcommand}`;
    case 'help':
      return 'help';
    case 'error':
      return 'unknown';
  }
}

/** `--form` and `--break-glass` go with an operation only; `--all` widens help. */
function withGlobals<Op extends CommandOperation>(
  parsed: WordsParse<Op>,
  globals: GlobalFlags,
): FrontParse<Op> {
  switch (parsed.kind) {
    case 'operation-args':
    case 'engine-args':
      return {
        ...parsed,
        form: globals.form,
        ...(globals.breakGlass === undefined ? {} : { breakGlass: globals.breakGlass }),
        ...(globals.reason === undefined ? {} : { reason: globals.reason }),
      };
    case 'error':
      return parsed;
    case 'help':
      if (globals.breakGlass !== undefined) return failure(BREAK_GLASS_ONLY_WITH_OPERATIONS);
      if (globals.reason !== undefined) return failure(REASON_ONLY_WITH_OPERATIONS);
      // `volumes create --form --help` is the action's help; `volumes --form` names no action.
      if (globals.form && parsed.topic?.action === undefined) return failure(FORM_ONLY_WITH_ACTIONS);
      return globals.all ? { ...parsed, all: true } : parsed;
    case 'bot':
      if (globals.breakGlass !== undefined) return failure(BREAK_GLASS_ONLY_WITH_OPERATIONS);
      if (globals.form) return failure(FORM_ONLY_WITH_ACTIONS);
      if (globals.reason === undefined) return parsed;
      // A bot command that asks for a reviewed change (`mfa reset @bob`, `settings import`) takes
      // the reason, read as every request's is; the others take none.
      if (!botCommandTakes(parsed, 'reason')) return failure(REASON_ONLY_WITH_OPERATIONS);
      return { ...parsed, flags: { ...parsed.flags, reason: globals.reason } };
  }
}

function parseWords<Op extends CommandOperation>(
  tokens: readonly Token[],
  help: boolean,
  commands: CommandRegistry<Op>,
): WordsParse<Op> {
  const [first, ...rest] = tokens;
  if (first === undefined) return { kind: 'help' };
  if (first.kind !== 'word') {
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
    if (help) return { kind: 'help', topic: { group: topic.value.name } };
    return parseBotCommand(topic.value, rest);
  }
  return parseGroupCommand(topic.value, rest, help, commands);
}

function helpCommand<Op extends CommandOperation>(
  words: readonly Token[],
  commands: CommandRegistry<Op>,
): Extract<ParsedCommand, { readonly kind: 'help' }> {
  const [groupWord, actionWord, ...more] = words.flatMap((token) =>
    token.kind === 'word' ? [token.text] : [],
  );
  if (groupWord === undefined) return { kind: 'help' };
  const topic = commands.findTopic(groupWord);
  if (!topic.found || isBotCommand(topic.value)) {
    return { kind: 'help', topic: { group: topic.found ? topic.value.name : groupWord } };
  }
  const group = topic.value;
  if (actionWord === undefined) return { kind: 'help', topic: { group: group.name } };
  const read = commands.readActionWords(group, [actionWord, ...more]);
  return {
    kind: 'help',
    topic: { group: group.name, action: read.kind === 'action' ? read.op.action : actionWord },
  };
}

function parseGroupCommand<Op extends CommandOperation>(
  group: CommandGroup<Op>,
  tokens: readonly Token[],
  help: boolean,
  commands: CommandRegistry<Op>,
): WordsParse<Op> {
  const [actionToken] = tokens;
  if (actionToken === undefined || (help && actionToken.kind !== 'word'))
    return { kind: 'help', topic: { group: group.name } };
  if (actionToken.kind !== 'word') {
    return failure(
      `Name an action after \`${group.name}\`, e.g. \`${SLASH_COMMAND} ${group.name} ${group.actions[0]?.action ?? 'list'}\`; \`${SLASH_COMMAND} help ${group.name}\` lists them.`,
    );
  }
  if (actionToken.text.toLowerCase() === 'help') return { kind: 'help', topic: { group: group.name } };
  const read = commands.readActionWords(group, leadingWords(tokens));
  if (read.kind === 'ambiguous') {
    const readings = read.readings.map((reading) => {
      const extra = leadingWords(tokens).slice(reading.wordCount, read.readings[0]?.wordCount);
      return extra.length === 0
        ? `\`${group.name} ${reading.op.action}\``
        : `\`${group.name} ${reading.op.action}\` with \`${extra.join(' ')}\` as its ${reading.op.pathParams.map(positionalName).join(' ')}`;
    });
    return failure(
      `\`${group.name} ${clip(leadingWords(tokens).slice(0, read.readings[0]?.wordCount).join(' '))}\` could mean ${readings.join(' or ')}. Type the action with hyphens to say which.`,
      { suggestions: read.readings.map((reading) => `${group.name} ${reading.op.action}`) },
    );
  }
  if (read.kind === 'none') {
    const neutral = readEngineNeutralVerb(group, leadingWords(tokens), commands);
    if (neutral !== undefined) {
      if (help) return { kind: 'help', topic: { group: group.name } };
      return {
        kind: 'engine-args',
        group: group.name,
        action: neutral.action,
        args: tokens.slice(neutral.wordCount),
      };
    }
    const action = commands.findAction(group, actionToken.text);
    const suggestions = action.found ? [] : action.suggestions.map((name) => `${group.name} ${name}`);
    return failure(
      `\`${group.name}\` has no action \`${clip(actionToken.text)}\`.${didYouMean(suggestions)} \`${SLASH_COMMAND} help ${group.name}\` lists its actions.`,
      { suggestions },
    );
  }
  const args = tokens.slice(read.wordCount);
  if (help) return { kind: 'help', topic: { group: group.name, action: read.op.action } };
  return { kind: 'operation-args', op: read.op, args };
}

/** The words after the group up to the first flag: where an action's name, spaced or not, can be. */
function leadingWords(tokens: readonly Token[]): readonly string[] {
  const end = tokens.findIndex((token) => token.kind !== 'word');
  return (end === -1 ? tokens : tokens.slice(0, end)).flatMap((token) =>
    token.kind === 'word' ? [token.text] : [],
  );
}
