import { isPrototypeKey } from '../prototype-keys.js';
import { COMMAND_NAME_PATTERN } from '../store/keys.js';
import { overLongWords } from '../truncate.js';
import { actionNamesOf, type CommandOperation, type CommandRegistry, SLASH_COMMAND } from './registry.js';
import { type Token, tokenize } from './tokenize.js';

/**
 * Aliases: a short name for an operation command with positional parameters, e.g. `rm` for
 * `volumes delete $1`. This module checks names and expansions and substitutes arguments; where
 * aliases are stored is `lib/store/aliases.ts`, who may change them and what a call runs is the
 * core's (`lib/core/aliases.ts`), and the Slack layer (`lib/slack/bot-commands/alias.ts`) sends the
 * expansion down the same path as typed text.
 *
 * Arguments are substituted as tokens, never as text: an argument is one word wherever it lands,
 * so `"--break-glass now"` given as an argument stays a value and cannot become a flag. The
 * expansion is then written back as command text and read again by the same tokenizer, and used
 * only when that reading gives exactly the substituted tokens.
 */

export const MAX_ALIAS_NAME = 32;
/** Long enough for any operation with a few flags; an alias is a shortcut, not a script. */
export const MAX_EXPANSION_LENGTH = 500;
/** `$1` … `$9`. */
export const MAX_ALIAS_PARAMETERS = 9;

const PARAMETER = /^\$([1-9])$/;
/** A `$` and a digit anywhere: a parameter that is not a word of its own. */
const EMBEDDED_PARAMETER = /\$[0-9@*]/;

export type AliasCheck = { readonly ok: true } | { readonly ok: false; readonly message: string };

/**
 * Every word a command can start with: groups and their short names, every action name and its
 * aliases, the bot's commands and their subcommands, and `help`. Taken from the registry, so a
 * group or command added later is reserved without a list to update here.
 */
export function reservedNames(commands: CommandRegistry<CommandOperation>): ReadonlySet<string> {
  const names = new Set<string>(['help']);
  for (const group of commands.groups) {
    names.add(group.name);
    for (const alias of group.aliases) names.add(alias);
    for (const op of group.actions) for (const action of actionNamesOf(op)) names.add(action);
  }
  for (const command of commands.botCommands) {
    names.add(command.name);
    for (const sub of command.subcommands ?? []) names.add(sub.name);
  }
  return new Set([...names].map((name) => name.toLowerCase()));
}

export function checkAliasName(name: string, commands: CommandRegistry<CommandOperation>): AliasCheck {
  const shown = visibleName(name);
  if (name.length > MAX_ALIAS_NAME || !COMMAND_NAME_PATTERN.test(name)) {
    return {
      ok: false,
      message: `\`${shown}\` cannot be an alias name: use 1 to ${MAX_ALIAS_NAME} lowercase letters, digits or dashes, starting with a letter (e.g. \`rm-vol\`).`,
    };
  }
  if (isPrototypeKey(name)) {
    return { ok: false, message: `\`${name}\` is a reserved word and cannot be an alias name.` };
  }
  if (reservedNames(commands).has(name)) {
    return {
      ok: false,
      message: `\`${name}\` is already a group, action or command of \`${SLASH_COMMAND}\`; an alias cannot shadow it. Choose another name.`,
    };
  }
  return { ok: true };
}

/** A name as it may be echoed: printable ASCII only and short, so no markup or odd text is repeated. */
function visibleName(name: string): string {
  // `<…>` is markup in Slack even inside a code span (`<!channel>` would notify), so it goes too.
  const printable = name.replace(/[^\x21-\x7e]|[<>&]/g, '?').replace(/`/g, "'");
  return printable.length > 20 ? `${printable.slice(0, 19)}…` : printable;
}

/** What an expansion's text is made of, once it was checked to be well-formed. */
export interface AliasTemplate {
  readonly tokens: readonly Token[];
  /** How many parameters it takes: `$1` … `$count`, each used at least once. */
  readonly parameterCount: number;
}

export type TemplateReading =
  | { readonly ok: true; readonly template: AliasTemplate }
  | { readonly ok: false; readonly message: string };

/**
 * Reads an expansion's text: bounded, tokenizable, parameters as whole words (`volumes view $1`)
 * or whole flag values (`--label $2`, `--label=$2`), numbered from `$1` without gaps.
 * Whether it is an operation command is the parser's to say (see `placeholderArguments`).
 */
export function readTemplate(text: string): TemplateReading {
  if (text.trim() === '') return { ok: false, message: 'The expansion is empty: give the command to run.' };
  if (text.length > MAX_EXPANSION_LENGTH) {
    return { ok: false, message: `The expansion ${overLongWords(text.length, MAX_EXPANSION_LENGTH)}.` };
  }
  // Control characters never belong in a command; line breaks would also break the list's lines.
  if (/\p{Cc}/u.test(text)) {
    return { ok: false, message: 'An expansion is one line of ordinary text.' };
  }
  // The text was typed and already read from Slack's transport form once: written back into that
  // form, it is tokenized as typed (a literal `&amp;` stays, it is not read as `&` a second time).
  const tokenized = tokenize(toTransport(text));
  if (!tokenized.ok) return { ok: false, message: tokenized.message };
  const used = new Set<number>();
  for (const token of tokenized.tokens) {
    const text = token.kind === 'word' ? token.text : token.kind === 'flag' ? (token.value ?? '') : '';
    const parameter = PARAMETER.exec(text);
    if (parameter) used.add(Number(parameter[1]));
    else if (
      EMBEDDED_PARAMETER.test(text) ||
      (token.kind === 'flag' && EMBEDDED_PARAMETER.test(token.name))
    ) {
      return {
        ok: false,
        message:
          'A parameter `$1` … `$9` stands alone, as a word or a flag value (`volumes view $1`, `--label $2`); ' +
          '`$@` and parameters inside other text are not supported.',
      };
    }
  }
  const parameterCount = used.size === 0 ? 0 : Math.max(...used);
  for (let n = 1; n <= parameterCount; n++) {
    if (!used.has(n)) {
      return {
        ok: false,
        message: `The expansion uses \`$${parameterCount}\` but not \`$${n}\`; number the parameters from \`$1\` without gaps.`,
      };
    }
  }
  return { ok: true, template: { tokens: tokenized.tokens, parameterCount } };
}

/** `$1 $2`: the parameters as usage shows them. */
export function parameterList(count: number): string {
  return Array.from({ length: count }, (_, i) => `$${i + 1}`).join(' ');
}

export type Expansion =
  | {
      readonly ok: true;
      /** The command as Slack would send it (`&`, `<`, `>` as entities), for the parser. */
      readonly transportText: string;
      /** The command as a person would type it, to show what ran. */
      readonly displayText: string;
    }
  | { readonly ok: false; readonly message: string };

/**
 * Substitutes the invocation's words for `$1` … `$n`. The invocation gives words only, exactly as
 * many as the alias takes: a flag there would be read by the alias's command, not by the alias, and
 * an extra word would land nowhere the alias's author chose.
 */
export function expandAlias(name: string, template: AliasTemplate, invocation: readonly Token[]): Expansion {
  const usage = `\`${SLASH_COMMAND} ${name}${template.parameterCount > 0 ? ` ${parameterList(template.parameterCount)}` : ''}\``;
  const args: string[] = [];
  for (const token of invocation) {
    if (token.kind !== 'word') {
      return {
        ok: false,
        message:
          `Alias \`${name}\` takes only its arguments (${usage}), no flags. ` +
          'To add flags (or `--break-glass`), type the command it runs instead.',
      };
    }
    args.push(token.text);
  }
  if (args.length !== template.parameterCount) {
    const count =
      template.parameterCount === 0
        ? 'takes no arguments'
        : `takes ${template.parameterCount} argument${template.parameterCount === 1 ? '' : 's'}`;
    return {
      ok: false,
      message: `Alias \`${name}\` ${count}, but ${args.length} ${args.length === 1 ? 'was' : 'were'} given: ${usage}.`,
    };
  }
  const tokens = template.tokens.map((token): Token => {
    if (token.kind === 'word') {
      const parameter = PARAMETER.exec(token.text);
      return parameter ? { kind: 'word', text: args[Number(parameter[1]) - 1] ?? '' } : token;
    }
    if (token.kind === 'flag' && token.value !== undefined) {
      const parameter = PARAMETER.exec(token.value);
      return parameter ? { ...token, value: args[Number(parameter[1]) - 1] ?? '' } : token;
    }
    return token;
  });
  const transportText = writeCommand(tokens, true);
  const reread = tokenize(transportText);
  if (!reread.ok || !sameTokens(reread.tokens, tokens)) {
    return { ok: false, message: `An argument of alias \`${name}\` cannot be passed on as one value.` };
  }
  return { ok: true, transportText, displayText: writeCommand(tokens, false) };
}

/**
 * Placeholder arguments to check an expansion with when it is added: an id and a word, tried in
 * turn for all parameters, since a parameter may stand for a number or a name.
 */
export const PLACEHOLDER_VALUES = ['1', 'example-1'] as const;

export function placeholderArguments(template: AliasTemplate, value: string): readonly Token[] {
  return Array.from({ length: template.parameterCount }, () => ({ kind: 'word' as const, text: value }));
}

/** Tokens back to text the tokenizer reads as the same tokens. */
function writeCommand(tokens: readonly Token[], transport: boolean): string {
  const text = tokens
    .map((token) => {
      if (token.kind === 'end-of-flags') return '--';
      if (token.kind === 'word') return quoted(token.text);
      return token.value === undefined ? `--${token.name}` : `--${token.name}=${quoted(token.value)}`;
    })
    .join(' ');
  return transport ? toTransport(text) : text;
}

/** Text as Slack sends what was typed: `&`, `<` and `>` as entities. */
function toTransport(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Plain words stay bare; anything else is double-quoted, with its quotes and backslashes escaped. */
function quoted(text: string): string {
  if (/^[A-Za-z0-9_.,:/@+=#][A-Za-z0-9_.,:/@+=#-]*$/.test(text)) return text;
  return `"${text.replace(/[\\"\u201c\u201d\u201e]/g, (char) => `\\${char}`)}"`;
}

function sameTokens(a: readonly Token[], b: readonly Token[]): boolean {
  return (
    a.length === b.length && a.every((token, index) => JSON.stringify(token) === JSON.stringify(b[index]))
  );
}
