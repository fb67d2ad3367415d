import type { BotCommand, BotFlag } from '../bot-command-specs.js';
import { convertText, isBooleanWord } from '../field-values.js';
import { normalizeName } from '../names.js';
import { SLASH_COMMAND } from '../registry.js';
import { BOOLEAN_SHAPE } from '../shape.js';
import { didYouMean, suggest } from '../suggest.js';
import { type FlagToken, type Token, walkTokens } from '../tokenize.js';
import { type BotFlagValue, clip, failure, given, type ParsedCommand } from './result.js';

/**
 * The bot's own commands (`login`, `whoami`, `use`, `reports`, `policy`, …): a subcommand when
 * the command has them, then the words and flags it declares in `bot-command-specs.ts`.
 */

export function parseBotCommand(
  command: BotCommand,
  tokens: readonly Token[],
): Extract<ParsedCommand, { readonly kind: 'bot' | 'error' }> {
  const usage = command.usage.map((line) => `${SLASH_COMMAND} ${line}`).join('\n');
  let rest = tokens;
  let subcommand: string | undefined;
  let declared = command.flags ?? [];
  let expectedArgs = command.args ?? [];
  if (command.subcommands !== undefined) {
    const names = command.subcommands.map((s) => s.name);
    const [first, ...after] = tokens;
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
    subcommand = found.name;
    declared = found.flags ?? [];
    expectedArgs = found.args ?? [];
    rest = after;
  }

  const problems: string[] = [];
  const args: string[] = [];
  const flags: Record<string, BotFlagValue> = {};
  // Answers whether the flag took the next word as its value.
  const takeFlag = (token: FlagToken, next: Token | undefined): boolean => {
    const lookup = findBotFlag(declared, token.name);
    if (lookup === undefined) {
      const candidates = declared.map((f) => `--${f.name}`);
      const hint = didYouMean(suggest(`--${token.name}`, candidates));
      const known = candidates.length > 0 ? ` Its flags: ${candidates.join(', ')}.` : ' It takes no flags.';
      problems.push(
        `--${clip(token.name)}: \`${[command.name, subcommand].filter(Boolean).join(' ')}\` has no such flag.${known}${hint}`,
      );
      return token.value === undefined && next?.kind === 'word';
    }
    const { flag, negated } = lookup;
    let value: BotFlagValue | undefined;
    let consumed = false;
    if (flag.value === 'boolean') {
      const text = token.value ?? (next?.kind === 'word' && isBooleanWord(next.text) ? next.text : undefined);
      consumed = text !== undefined && token.value === undefined;
      const converted =
        text === undefined
          ? { ok: true as const, value: true }
          : convertText(text, BOOLEAN_SHAPE, { secret: false });
      if (!converted.ok) problems.push(`--${flag.name}: ${converted.reason}`);
      else value = negated ? converted.value !== true : converted.value === true;
    } else if (negated) {
      problems.push(`--${clip(token.name)}: only switches have a --no- form`);
    } else if (token.value !== undefined) {
      value = token.value;
    } else if (next?.kind === 'word') {
      value = next.text;
      consumed = true;
    } else {
      problems.push(`--${flag.name}: needs a value`);
    }
    if (value === undefined) return consumed;
    const previous = flags[flag.name];
    if (flag.repeatable === true && typeof value === 'string') {
      const pieces = value
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p.length > 0);
      flags[flag.name] = [...(Array.isArray(previous) ? previous : []), ...pieces];
    } else if (previous !== undefined) {
      problems.push(`--${flag.name}: given more than once`);
    } else {
      flags[flag.name] = value;
    }
    return consumed;
  };
  walkTokens(rest, (text) => args.push(text), takeFlag);
  const name = `\`${[command.name, subcommand].filter(Boolean).join(' ')}\``;
  if (args.length < expectedArgs.length) {
    problems.push(
      `Missing ${expectedArgs.slice(args.length).join(' and ')}: ${name} needs ${expectedArgs.join(' ')}.`,
    );
  } else if (args.length > expectedArgs.length) {
    // The extra words are not repeated: someone may have pasted a token after `login`.
    const takes = expectedArgs.length === 0 ? 'takes no arguments' : `takes ${expectedArgs.join(' ')} only`;
    problems.push(`Too many arguments: ${name} ${takes}, but ${given(args.length)}.`);
  }
  if (problems.length > 0) return failure(problems.join('\n'), { usage });
  return {
    kind: 'bot',
    command: command.name,
    ...(subcommand === undefined ? {} : { subcommand }),
    args,
    flags,
  };
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
