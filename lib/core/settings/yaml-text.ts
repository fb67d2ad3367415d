import {
  type Document,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  stringify,
} from 'yaml';
import type * as z from 'zod';
import { isPrototypeKey } from '../../prototype-keys.js';
import { SETTINGS_FORMAT, type SettingsDocument, SettingsDocumentSchema } from './document.js';

/**
 * A settings document as text: read from YAML with the line of every mistake, and written back as
 * YAML a person can edit. Reading refuses, before anything is built from it, what could hurt the
 * process or hide a mistake: a document too large, anchors that multiply (a "billion laughs"), a
 * key written twice, a key that reaches an object's prototype, tags that make other types.
 */

/** Larger than any workspace's settings; the refusal says so before the parser sees the text. */
export const MAX_DOCUMENT_BYTES = 256 * 1024;

/** One thing wrong with a document: where (1-based line, 0 when the whole) and what. */
export interface DocumentProblem {
  readonly line: number;
  /** The path of the setting, `channels.#ops.rules.destructive.required`; empty for the whole. */
  readonly path: string;
  readonly message: string;
}

export type ReadDocument =
  | {
      readonly ok: true;
      readonly document: SettingsDocument;
      readonly lineOf: (path: readonly PathPart[]) => number;
    }
  | { readonly ok: false; readonly problems: readonly DocumentProblem[] };

export type PathPart = string | number;

/** At most this many problems are listed: the first ones tell where to start. */
const MAX_PROBLEMS = 50;

export type DocumentText =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly problems: readonly DocumentProblem[] };

/**
 * A document given as bytes (a file) as its text: UTF-8, a leading byte-order mark dropped, within
 * `MAX_DOCUMENT_BYTES`; otherwise the problem, with the line of the first byte that is not UTF-8.
 */
export function documentText(bytes: Uint8Array): DocumentText {
  if (bytes.length > MAX_DOCUMENT_BYTES) return problems([tooLarge(bytes.length)]);
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    // The text up to the first byte that is not UTF-8 encodes back to the same bytes.
    const again = Buffer.from(Buffer.from(bytes).toString('utf8'), 'utf8');
    let at = 0;
    while (at < bytes.length && bytes[at] === again[at]) at += 1;
    const line = bytes.subarray(0, at).filter((byte) => byte === 0x0a).length + 1;
    return problems([
      { line, path: '', message: 'The document is not UTF-8 text: save it as UTF-8 and try again.' },
    ]);
  }
}

export function readSettingsDocument(text: string): ReadDocument {
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_DOCUMENT_BYTES) return problems([tooLarge(bytes)]);
  const lines = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter: lines,
    uniqueKeys: true,
    // Plain YAML 1.2 types only: no `!!js/function`, no custom tags, no `<<` merges.
    schema: 'core',
    merge: false,
    prettyErrors: false,
    strict: true,
  });
  const lineAt = (offset: number | undefined) => (offset === undefined ? 0 : lines.linePos(offset).line);
  const syntax = [...doc.errors, ...doc.warnings].map((error) => ({
    line: lineAt(error.pos[0]),
    path: '',
    message: firstSentence(error.message),
  }));
  if (syntax.length > 0) return problems(syntax);
  const unsafe = unsafeNodes(doc, lineAt);
  if (unsafe.length > 0) return problems(unsafe);
  let value: unknown;
  try {
    // Anchors may be used, but never to build a document larger than its text (`maxAliasCount`).
    value = doc.toJS({ maxAliasCount: 50 });
  } catch (error) {
    return problems([{ line: 0, path: '', message: firstSentence((error as Error).message) }]);
  }
  if (value === null || value === undefined) {
    return problems([
      {
        line: 0,
        path: '',
        message: `The document is empty: it starts with \`settings: ${SETTINGS_FORMAT}\`.`,
      },
    ]);
  }
  const lineOf = (path: readonly PathPart[]) => lineOfPath(doc, path, lineAt);
  const parsed = SettingsDocumentSchema.safeParse(value);
  if (!parsed.success) return problems(parsed.error.issues.map((issue) => issueProblem(issue, lineOf)));
  return { ok: true, document: parsed.data, lineOf };
}

/** The document as YAML, with a first line that points editors at its schema. */
export function writeSettingsDocument(document: SettingsDocument, header: readonly string[]): string {
  const body = stringify(document, { lineWidth: 0, defaultKeyType: 'PLAIN', aliasDuplicateObjects: false });
  return `${header.map((line) => `# ${line}`).join('\n')}\n${body}`;
}

function tooLarge(bytes: number): DocumentProblem {
  return {
    line: 0,
    path: '',
    message: `The document is ${bytes.toLocaleString('en-US')} bytes; the most it can be is ${MAX_DOCUMENT_BYTES.toLocaleString('en-US')}.`,
  };
}

/** A list of problems in document order, at most `MAX_PROBLEMS` of them. */
function problems(found: readonly DocumentProblem[]): {
  readonly ok: false;
  readonly problems: DocumentProblem[];
} {
  const sorted = [...found].sort((a, b) => a.line - b.line);
  const shown = sorted.slice(0, MAX_PROBLEMS);
  if (sorted.length > MAX_PROBLEMS) {
    shown.push({ line: 0, path: '', message: `…and ${sorted.length - MAX_PROBLEMS} more.` });
  }
  return { ok: false, problems: shown };
}

/** Keys that reach a prototype, keys that are not plain text, and tags: each with its line. */
function unsafeNodes(doc: Document, lineAt: (offset: number | undefined) => number): DocumentProblem[] {
  const found: DocumentProblem[] = [];
  const pending: { node: unknown; path: string }[] = [{ node: doc.contents, path: '' }];
  while (pending.length > 0 && found.length <= MAX_PROBLEMS) {
    const { node, path } = pending.pop() ?? { node: null, path: '' };
    if (node === null || typeof node !== 'object') continue;
    const tag = (node as Node).tag;
    if (tag !== undefined && !/^tag:yaml.org,2002:(str|int|float|bool|null|map|seq)$/.test(tag)) {
      found.push({
        line: lineAt((node as Node).range?.[0]),
        path,
        message: `The tag ${tag} is not allowed here.`,
      });
      continue;
    }
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = pair.key;
        const line = lineAt(isScalar(key) ? key.range?.[0] : undefined);
        if (!isScalar(key) || (typeof key.value !== 'string' && typeof key.value !== 'number')) {
          found.push({ line, path, message: 'A key must be plain text.' });
          continue;
        }
        const name = String(key.value);
        if (isPrototypeKey(name)) {
          found.push({ line, path: join(path, name), message: `\`${name}\` cannot be a key.` });
          continue;
        }
        pending.push({ node: pair.value, path: join(path, name) });
      }
    } else if (isSeq(node)) {
      for (const [index, item] of node.items.entries())
        pending.push({ node: item, path: join(path, String(index)) });
    }
  }
  return found;
}

function join(path: string, part: string): string {
  return path === '' ? part : `${path}.${part}`;
}

/** The line of the node at `path`, else of its nearest parent that is there. */
function lineOfPath(
  doc: Document,
  path: readonly PathPart[],
  lineAt: (offset: number | undefined) => number,
): number {
  for (let depth = path.length; depth >= 0; depth -= 1) {
    const node = doc.getIn(path.slice(0, depth), true) as Node | undefined;
    if (node && typeof node === 'object' && node.range) return lineAt(node.range[0]);
  }
  return 0;
}

function issueProblem(
  issue: z.core.$ZodIssue,
  lineOf: (path: readonly PathPart[]) => number,
): DocumentProblem {
  const path = issue.path.map((part) => (typeof part === 'symbol' ? String(part.description) : part));
  const where = path.join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((key) => `\`${key}\``).join(', ');
    return {
      line: lineOf([...path, issue.keys[0] ?? '']),
      path: where,
      message: `${issue.keys.length === 1 ? 'Unknown key' : 'Unknown keys'} ${keys}${where ? ` in ${where}` : ''}.`,
    };
  }
  return { line: lineOf(path), path: where, message: `${where || 'The document'}: ${issue.message}.` };
}

/** YAML's messages carry a code frame after the first line; the line number is given apart. */
function firstSentence(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '').slice(0, 200);
}
