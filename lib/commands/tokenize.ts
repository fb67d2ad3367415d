/**
 * Splits slash-command text into words and flags, the way a shell would for this purpose.
 *
 * Slack does not send what the person typed verbatim: it escapes `&`, `<` and `>` as entities,
 * wraps links and mentions in `<...>` markup, and its clients may replace quotes with typographic
 * ones and `--` with a dash. All of that is undone here so the parser sees the typed text.
 */

export type Token =
  /** A positional word or a flag's value; quoting never survives into `text`. */
  | { readonly kind: 'word'; readonly text: string }
  /** `--name`, or `--name=value` (value present, possibly empty). */
  | { readonly kind: 'flag'; readonly name: string; readonly value?: string }
  /** A bare `--`: every later token is a word, even when it starts with `--`. */
  | { readonly kind: 'end-of-flags' };

export type TokenizeResult =
  | { readonly ok: true; readonly tokens: readonly Token[] }
  | { readonly ok: false; readonly message: string };

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>' };

/**
 * Turns Slack's transport form back into the typed text: `&amp;` `&lt;` `&gt;` become the
 * characters, a link `<http://x|x>` becomes the text it was typed as (the label, or the address
 * when there is none, without a `mailto:` prefix). User, channel and group mentions keep their
 * canonical form (`<@U123>`, `<#C123>`, `<!subteam^S123>`) so commands can resolve the ids.
 */
export function unescapeSlackText(text: string): string {
  return text.replace(
    /<([^<>]*)>|&(amp|lt|gt);/g,
    (_match, markup: string | undefined, entity: string | undefined) => {
      if (entity !== undefined) return ENTITIES[entity] ?? '';
      const inner = markup ?? '';
      const bar = inner.indexOf('|');
      const target = bar === -1 ? inner : inner.slice(0, bar);
      if (/^[@#!]/.test(target)) return `<${target}>`;
      if (bar !== -1) return decodeEntities(inner.slice(bar + 1));
      return decodeEntities(target.startsWith('mailto:') ? target.slice('mailto:'.length) : target);
    },
  );
}

function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt);/g, (_match, entity: string) => ENTITIES[entity] ?? '');
}

// Typographic quotes that Slack clients substitute while typing. The right single quote is also
// the apostrophe (`don’t`), so outside quotes it is an ordinary character.
const DOUBLE_QUOTES = new Set(['"', '\u201c', '\u201d', '\u201e']);
const SINGLE_QUOTE_OPENERS = new Set(["'", '\u2018']);
const SINGLE_QUOTE_CLOSERS = new Set(["'", '\u2019']);
/** Clients turn a typed `--` into an en or em dash. */
const DASHES = new Set(['\u2013', '\u2014']);

type QuoteState = { readonly kind: 'none' } | { readonly kind: 'double' | 'single'; readonly column: number };

/** One character of a token, remembering whether it was inside quotes (quoted text is never a flag). */
interface TokenChar {
  readonly char: string;
  readonly quoted: boolean;
}

export function tokenize(rawText: string): TokenizeResult {
  const chars = [...unescapeSlackText(rawText)];
  const tokens: Token[] = [];
  let current: TokenChar[] | undefined;
  let quote: QuoteState = { kind: 'none' };
  let flagsEnded = false;

  const push = (char: string, quoted: boolean) => {
    current ??= [];
    current.push({ char, quoted });
  };
  const finish = () => {
    if (current === undefined) return;
    const token = classify(current, flagsEnded);
    if (token.kind === 'end-of-flags') flagsEnded = true;
    tokens.push(token);
    current = undefined;
  };

  for (let index = 0; index < chars.length; index++) {
    const char = chars[index] ?? '';
    const next = chars[index + 1];
    if (quote.kind === 'double') {
      if (DOUBLE_QUOTES.has(char)) quote = { kind: 'none' };
      else if (char === '\\' && next !== undefined && (DOUBLE_QUOTES.has(next) || next === '\\')) {
        push(next, true);
        index++;
      } else push(char, true);
      continue;
    }
    if (quote.kind === 'single') {
      if (SINGLE_QUOTE_CLOSERS.has(char)) quote = { kind: 'none' };
      else push(char, true);
      continue;
    }
    if (/\s/u.test(char)) {
      finish();
    } else if (DOUBLE_QUOTES.has(char)) {
      current ??= [];
      quote = { kind: 'double', column: index + 1 };
    } else if (SINGLE_QUOTE_OPENERS.has(char)) {
      current ??= [];
      quote = { kind: 'single', column: index + 1 };
    } else if (char === '\\' && next !== undefined && isEscapableOutsideQuotes(next)) {
      push(next, true);
      index++;
    } else if (DASHES.has(char) && current === undefined) {
      push('-', false);
      push('-', false);
    } else {
      push(char, false);
    }
  }
  if (quote.kind !== 'none') {
    const mark = quote.kind === 'double' ? 'double' : 'single';
    // The quoted text itself is not repeated: it may be a password or a token.
    return {
      ok: false,
      message: `The ${mark} quote at character ${quote.column} is never closed. Add the closing quote, or put \\ before a quote that belongs to a value.`,
    };
  }
  finish();
  return { ok: true, tokens };
}

/**
 * Splits a list of commands at `separator` where it stands outside quotes, with the quoting rules
 * of `tokenize` (typographic quotes too); `\` before the separator keeps it in the command. The
 * commands keep their quotes: each is tokenized again on its own.
 */
export function splitCommands(text: string, separator: string): string[] {
  const commands: string[] = [];
  let current = '';
  let quote: QuoteState['kind'] = 'none';
  const chars = [...text];
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index] ?? '';
    const next = chars[index + 1];
    if (quote === 'double') {
      if (DOUBLE_QUOTES.has(char)) quote = 'none';
      else if (char === '\\' && next !== undefined) {
        current += char + next;
        index++;
        continue;
      }
    } else if (quote === 'single') {
      if (SINGLE_QUOTE_CLOSERS.has(char)) quote = 'none';
    } else if (char === '\\' && next === separator) {
      current += separator;
      index++;
      continue;
    } else if (char === separator) {
      commands.push(current);
      current = '';
      continue;
    } else if (DOUBLE_QUOTES.has(char)) quote = 'double';
    else if (SINGLE_QUOTE_OPENERS.has(char)) quote = 'single';
    current += char;
  }
  commands.push(current);
  return commands;
}

function isEscapableOutsideQuotes(char: string): boolean {
  return /\s/u.test(char) || char === '\\' || DOUBLE_QUOTES.has(char) || SINGLE_QUOTE_OPENERS.has(char);
}

function classify(chars: readonly TokenChar[], flagsEnded: boolean): Token {
  const text = chars.map((c) => c.char).join('');
  const startsAsFlag =
    !flagsEnded &&
    chars.length >= 2 &&
    chars[0]?.char === '-' &&
    chars[1]?.char === '-' &&
    !chars[0].quoted &&
    !chars[1].quoted;
  if (!startsAsFlag) return { kind: 'word', text };
  if (chars.length === 2) return { kind: 'end-of-flags' };
  const equals = chars.findIndex((c, i) => i > 2 && c.char === '=' && !c.quoted);
  if (equals === -1) return { kind: 'flag', name: text.slice(2) };
  return {
    kind: 'flag',
    name: chars
      .slice(2, equals)
      .map((c) => c.char)
      .join(''),
    value: chars
      .slice(equals + 1)
      .map((c) => c.char)
      .join(''),
  };
}

export type FlagToken = Extract<Token, { kind: 'flag' }>;

/**
 * Visits words and flags in order. `onFlag` answers whether it took the next token as its value,
 * so that word is not also a positional argument. Flags after `--` are not flags any more.
 */
export function walkTokens(
  tokens: readonly Token[],
  onWord: (text: string) => void,
  onFlag: (flag: FlagToken, next: Token | undefined) => boolean,
): void {
  let flagsEnded = false;
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index];
    if (token === undefined) continue;
    if (token.kind === 'end-of-flags') {
      flagsEnded = true;
    } else if (token.kind === 'word') {
      onWord(token.text);
    } else if (!flagsEnded && onFlag(token, tokens[index + 1])) {
      index++;
    }
  }
}
