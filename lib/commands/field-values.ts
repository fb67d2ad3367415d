import { accepts, type FieldShape } from '../api/field-shape.js';
import { PROTOTYPE_KEY_REASON, prototypeKeyPath } from '../prototype-keys.js';

/**
 * Typed text → typed value, driven by the field's shape. The request schema still has the last
 * word; this step only makes `50` a number and `false` a boolean, and says so when text cannot be
 * one (`must be a whole number (got "big")`).
 */

export type Conversion =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly reason: string };

const TRUE_WORDS = new Set(['true', 'yes', 'on', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'off', '0']);
/** Words that a bare boolean flag takes as its value (`--booted false`); numbers stay positional ids. */
const BOOLEAN_VALUE_WORDS = new Set(['true', 'false', 'yes', 'no', 'on', 'off']);

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const MAX_ECHO = 40;

export function isBooleanWord(text: string): boolean {
  return BOOLEAN_VALUE_WORDS.has(text.toLowerCase());
}

export interface ConvertOptions {
  /** The value must not appear in the reason (passwords, codes). */
  readonly secret: boolean;
}

export function convertText(text: string, shape: FieldShape, options: ConvertOptions): Conversion {
  const fail = (what: string, echo = true): Conversion => ({
    ok: false,
    reason: echo && !options.secret ? `${what} (got "${shorten(text)}")` : what,
  });

  if (shape.enumValues !== undefined) {
    const match = shape.enumValues.find((value) => String(value) === text);
    if (match !== undefined) return { ok: true, value: match };
    if (shape.kinds.has('null') && text === 'null') return { ok: true, value: null };
    return fail(`must be one of ${shape.enumValues.map(String).join(', ')}`);
  }
  if (shape.kinds.has('null') && text === 'null') return { ok: true, value: null };

  // Numbers first: for a field that takes anything, `1` is a number, not `true`.
  if (accepts(shape, 'integer') && INTEGER.test(text)) return numberFrom(text, fail);
  if (accepts(shape, 'number') && NUMBER.test(text)) return numberFrom(text, fail);
  const lower = text.toLowerCase();
  if (accepts(shape, 'boolean') && (TRUE_WORDS.has(lower) || FALSE_WORDS.has(lower))) {
    return { ok: true, value: TRUE_WORDS.has(lower) };
  }

  const wantsStructure = accepts(shape, 'object') || accepts(shape, 'array');
  const opener = text.trimStart()[0];
  if (wantsStructure && (opener === '{' || opener === '[')) {
    const parsed = parseJson(text);
    if (!parsed.ok && parsed.prototypeKey !== undefined) return fail(parsed.reason, false);
    if (!parsed.ok) {
      return shape.kinds.size === 0 || shape.kinds.has('string')
        ? { ok: true, value: text }
        : fail('is not valid JSON', false);
    }
    const kind = Array.isArray(parsed.value) ? 'array' : 'object';
    if (accepts(shape, kind)) return { ok: true, value: parsed.value };
  }
  if (accepts(shape, 'string')) return { ok: true, value: text };
  return fail(expectation(shape), !wantsStructure);
}

function numberFrom(text: string, fail: (what: string) => Conversion): Conversion {
  const value = Number(text);
  if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value))) {
    return fail('is too large');
  }
  return { ok: true, value };
}

/** What a field wants, in words: `a whole number`, `true or false`, `a JSON object`. */
export function expectation(shape: FieldShape): string {
  const kinds = [...shape.kinds].filter((k) => k !== 'null');
  const words: Record<string, string> = {
    string: 'text',
    integer: 'a whole number',
    number: 'a number',
    boolean: 'true or false',
    array: 'a JSON list',
    object: 'a JSON object',
  };
  if (kinds.length === 0) return 'a value';
  if (kinds.includes('integer') && kinds.includes('number')) kinds.splice(kinds.indexOf('integer'), 1);
  return `must be ${kinds.map((k) => words[k] ?? k).join(' or ')}`;
}

export type JsonParse =
  | { readonly ok: true; readonly value: unknown }
  /** Not JSON at all (no `prototypeKey`), or JSON that names a prototype key somewhere inside. */
  | { readonly ok: false; readonly reason: string; readonly prototypeKey?: string };

/**
 * JSON typed by a person. A key such as `__proto__` is refused at any depth: merged into a
 * request with plain assignment it would change the object's prototype instead of adding a field.
 */
export function parseJson(text: string): JsonParse {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    // The parser's own message quotes the input, which may be secret: the caller words the error.
    return { ok: false, reason: 'is not valid JSON' };
  }
  const path = prototypeKeyPath(value);
  if (path === undefined) return { ok: true, value };
  const key = path.at(-1) ?? '';
  return { ok: false, reason: `contains the key "${key}", which ${PROTOTYPE_KEY_REASON}`, prototypeKey: key };
}

function shorten(text: string): string {
  return text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO - 1)}…` : text;
}

/**
 * Comma-separated lists: `--tags a,b` is two tags. Splitting happens only where it cannot change
 * the meaning of a value:
 * - lists of numbers or of fixed values (enums) always split;
 * - lists of text split only when every piece is a single word after trimming (`a, b` → `a`, `b`),
 *   so `--authorized-keys "ssh-ed25519 AAAA… me@host,laptop"` stays one key.
 * A value written as a JSON list (`'["a,b", "c"]'`) is never split, and a repeated flag
 * (`--tags a --tags b`) always adds one item per flag.
 */
export function splitListText(text: string, items: FieldShape | undefined): readonly string[] {
  if (!text.includes(',')) return [text];
  const pieces = text.split(',').map((piece) => piece.trim());
  const numeric =
    items !== undefined &&
    items.kinds.size > 0 &&
    [...items.kinds].every((k) => k === 'integer' || k === 'number');
  if (numeric || items?.enumValues !== undefined) return pieces;
  const textual = items === undefined || items.kinds.size === 0 || items.kinds.has('string');
  if (textual && pieces.every((piece) => piece.length > 0 && !/\s/u.test(piece))) return pieces;
  return [text];
}
