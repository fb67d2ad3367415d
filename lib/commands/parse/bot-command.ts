import {
  BOT_COMMANDS,
  type BotArg,
  type BotCommand,
  type BotFlag,
  type BotSubcommand,
} from '../bot-command-specs.js';
import { isBooleanWord } from '../field-values.js';
import { normalizeName } from '../names.js';
import { SLASH_COMMAND } from '../registry.js';
import { didYouMean, suggest } from '../suggest.js';
import { type FlagToken, type Token, walkTokens } from '../tokenize.js';
import { readBotValue } from './bot-values.js';
import { type BotValue, clip, failure, given, type ParsedCommand } from './result.js';

/**
 * The bot's own commands (`login`, `whoami`, `use`, `reports`, `policy`, …): a subcommand when
 * the command has them, then the words and flags it declares in `bot-command-specs.ts`, each read
 * as its declared kind.
 */

type BotParse = Extract<ParsedCommand, { readonly kind: 'bot' | 'error' }>;

/** What one command or subcommand takes after its name. */
interface Accepts {
  /** `reports add`, for problems. */
  readonly name: string;
  readonly args: readonly BotArg[];
  readonly flags: readonly BotFlag[];
  /** Optional words after the required ones (`runbook run NAME ARGS…`), kept as typed. */
  readonly trailing?: BotSubcommand['trailing'];
}

export function parseBotCommand(command: BotCommand, tokens: readonly Token[]): BotParse {
  const usage = command.usage.map((line) => `${SLASH_COMMAND} ${line}`).join('\n');
  const chosen = chooseSubcommand(command, tokens, usage);
  if (chosen.kind === 'error') return chosen;
  const { accepts, subcommand, rest } = chosen;
  const problems: string[] = [];
  const words: string[] = [];
  const flags: Record<string, BotValue> = {};
  walkTokens(
    rest,
    (text) => words.push(text),
    (token, next) => takeFlag(accepts, token, next, flags, problems),
  );
  // Only this answer, without usage: the words may be a token, and are not repeated.
  if (command.strayWords !== undefined && words.length > accepts.args.length)
    return failure(command.strayWords);
  const args = readArgs(accepts, words, problems);
  if (problems.length > 0) return failure(problems.join('\n'), { usage });
  return {
    kind: 'bot',
    command: command.name,
    ...(subcommand === undefined ? {} : { subcommand }),
    args,
    flags,
  };
}

/**
 * Whether the bot command (or its subcommand) declares `--flag`: a flag the front reads for every
 * command (`--reason`) reaches only a bot command that takes it.
 */
export function botCommandTakes(
  parsed: { readonly command: string; readonly subcommand?: string },
  flag: string,
): boolean {
  const command = BOT_COMMANDS.find((c) => c.name === parsed.command);
  const declared =
    parsed.subcommand === undefined
      ? command?.flags
      : command?.subcommands?.find((s) => s.name === parsed.subcommand)?.flags;
  return declared?.some((f) => f.name === flag) ?? false;
}

type Chosen =
  | {
      readonly kind: 'chosen';
      readonly accepts: Accepts;
      readonly subcommand?: string;
      readonly rest: readonly Token[];
    }
  | Extract<ParsedCommand, { readonly kind: 'error' }>;

function chooseSubcommand(command: BotCommand, tokens: readonly Token[], usage: string): Chosen {
  if (command.subcommands === undefined) {
    return {
      kind: 'chosen',
      accepts: { name: command.name, args: command.args ?? [], flags: command.flags ?? [] },
      rest: tokens,
    };
  }
  const names = command.subcommands.map((s) => s.name);
  const [first, ...after] = tokens;
  const fallback = command.subcommands.find((s) => s.name === command.defaultSubcommand);
  if (first === undefined && fallback !== undefined) return chosenSubcommand(command, fallback, []);
  if (first?.kind !== 'word') {
    return failure(`\`${command.name}\` needs one of: ${names.join(', ')}.`, { usage });
  }
  const found = command.subcommands.find((s) => s.name === first.text.toLowerCase());
  if (found === undefined) {
    const suggestions = suggest(first.text, names).map((name) => `${command.name} ${name}`);
    return failure(
      `\`${command.name}\` has no \`${clip(first.text)}\`; use one of: ${names.join(', ')}.${didYouMean(suggestions)}`,
      { usage, suggestions },
    );
  }
  return chosenSubcommand(command, found, after);
}

function chosenSubcommand(command: BotCommand, found: BotSubcommand, rest: readonly Token[]): Chosen {
  return {
    kind: 'chosen',
    accepts: {
      name: `${command.name} ${found.name}`,
      args: found.args ?? [],
      flags: found.flags ?? [],
      ...(found.trailing && { trailing: found.trailing }),
    },
    subcommand: found.name,
    rest,
  };
}

/**
 * Reads one flag into `flags` (or a problem into `problems`), and answers whether it took the
 * next word as its value, so that word is not also a positional argument.
 */
function takeFlag(
  accepts: Accepts,
  token: FlagToken,
  next: Token | undefined,
  flags: Record<string, BotValue>,
  problems: string[],
): boolean {
  const lookup = findBotFlag(accepts.flags, token.name);
  if (lookup === undefined) {
    const candidates = accepts.flags.map((f) => `--${f.name}`);
    const hint = didYouMean(suggest(`--${token.name}`, candidates));
    const known = candidates.length > 0 ? ` Its flags: ${candidates.join(', ')}.` : ' It takes no flags.';
    problems.push(`--${clip(token.name)}: \`${accepts.name}\` has no such flag.${known}${hint}`);
    return token.value === undefined && next?.kind === 'word';
  }
  const { flag, negated } = lookup;
  const isSwitch = flag.kind.type === 'switch';
  if (negated && !isSwitch) {
    problems.push(`--${clip(token.name)}: only switches have a --no- form`);
    return false;
  }
  const nextWord = next?.kind === 'word' ? next.text : undefined;
  const takesNext =
    token.value === undefined && nextWord !== undefined && (!isSwitch || isBooleanWord(nextWord));
  const text = token.value ?? (takesNext ? nextWord : undefined);
  if (text === undefined && !isSwitch) {
    problems.push(`--${flag.name}: needs a value`);
    return false;
  }
  const previous = flags[flag.name];
  if (previous !== undefined && flag.kind.type !== 'people') {
    problems.push(`--${flag.name}: given more than once`);
    return takesNext;
  }
  const read =
    text === undefined
      ? { ok: true as const, value: true }
      : readBotValue(flag.kind, text, `--${flag.name}`, previous);
  if (!read.ok) problems.push(read.problem);
  else flags[flag.name] = negated ? read.value !== true : read.value;
  return takesNext;
}

/** The positional words, each read as its declared kind; too few or too many is a problem. */
function readArgs(accepts: Accepts, words: readonly string[], problems: string[]): string[] {
  const expected = accepts.args;
  const names = expected.map((arg) => arg.name);
  const name = `\`${accepts.name}\``;
  const trailing = accepts.trailing;
  if (trailing && words.length > expected.length) {
    const extra = words.slice(expected.length);
    if (extra.length > trailing.max) {
      problems.push(
        `Too many ${trailing.name}: ${name} takes at most ${trailing.max}, but ${given(extra.length)}.`,
      );
      return [];
    }
    const { trailing: _, ...required } = accepts;
    return [...readArgs(required, words.slice(0, expected.length), problems), ...extra];
  }
  if (words.length > expected.length) {
    // The extra words are not repeated: someone may have pasted a token after `login`.
    const takes = expected.length === 0 ? 'takes no arguments' : `takes ${names.join(' ')} only`;
    problems.push(`Too many arguments: ${name} ${takes}, but ${given(words.length)}.`);
    return [];
  }
  const required = expected.filter((arg) => !arg.optional).length;
  if (words.length < required) {
    problems.push(
      `Missing ${names.slice(words.length, required).join(' and ')}: ${name} needs ${names.slice(0, required).join(' ')}.`,
    );
    return [];
  }
  const args: string[] = [];
  expected.slice(0, words.length).forEach((arg, index) => {
    const read = readBotValue(arg.kind, words[index] ?? '', arg.name);
    if (!read.ok) problems.push(read.problem);
    else args.push(String(read.value));
  });
  return args;
}

function findBotFlag(
  declared: readonly BotFlag[],
  name: string,
): { flag: BotFlag; negated: boolean } | undefined {
  const wanted = normalizeName(name);
  const direct = declared.find((f) => normalizeName(f.name) === wanted);
  if (direct !== undefined) return { flag: direct, negated: false };
  const negation = /^no_/.exec(wanted);
  if (negation === null) return undefined;
  const positive = declared.find((f) => normalizeName(f.name) === wanted.slice(negation[0].length));
  return positive === undefined ? undefined : { flag: positive, negated: true };
}
