import type { AnyOperation } from '../api/operation.js';
import { type FieldShape, isBooleanField, isRequired, requestShapeOf } from './field-shapes.js';
import { splitListText } from './field-values.js';
import { normalizeName, positionalName } from './names.js';
import { registry } from './operation-registry.js';
import { SLASH_COMMAND } from './registry.js';

/**
 * How fields are named and described on the command line: flag names, placeholders, usage lines.
 * Shared by the parser (its error messages), help and the command reference, so they agree.
 */

/** Query fields handled by the list options (`--page`, `--page-size`), not listed as flags. */
export const PAGE_FIELDS: ReadonlySet<string> = new Set(['page', 'page_size']);

/** `node_id` → `node-id`, `volumeId` → `volume-id`: how a field is written as a flag. */
export function flagNameOf(key: string): string {
  return normalizeName(key).replace(/_/g, '-');
}

function range(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return min === max ? `${min}` : `${min}..${max}`;
  if (min !== undefined) return `${min}..`;
  if (max !== undefined) return `..${max}`;
  return '';
}

function looksLikeId(key: string): boolean {
  return /(_id|Id)$/.test(key) || key === 'id';
}

const MAX_ENUM_PLACEHOLDER = 48;

/** What follows a flag in a usage line: `<text 3..64>`, `<n 1..7>`, `<weekly|monthly>`; nothing for switches. */
export function placeholderOf(key: string, shape: FieldShape): string {
  if (isBooleanField(shape)) return '';
  return `<${placeholderText(key, shape)}>`;
}

function placeholderText(key: string, shape: FieldShape): string {
  if (shape.enumValues !== undefined) {
    const values = shape.enumValues.filter((v) => v !== null).join('|');
    return values.length <= MAX_ENUM_PLACEHOLDER ? values : 'value';
  }
  const kinds = [...shape.kinds].filter((k) => k !== 'null');
  if (kinds.length !== 1) return 'value';
  switch (kinds[0]) {
    case 'integer': {
      // Ids: named so, or a whole number from 1 up with no ceiling (`--configs 1,2`).
      if (looksLikeId(key) || (shape.minimum === 1 && shape.maximum === undefined)) return 'id';
      const bounds = range(shape.minimum, shape.maximum);
      return bounds === '' ? 'n' : `n ${bounds}`;
    }
    case 'number': {
      const bounds = range(shape.minimum, shape.maximum);
      return bounds === '' ? 'number' : `number ${bounds}`;
    }
    case 'string': {
      if (shape.format === 'date-time') return 'date-time';
      if (shape.format === 'email') return 'email';
      // A minimum of 1 only says "not empty"; it is worth showing beside a maximum.
      const min = shape.minLength === 1 && shape.maxLength === undefined ? undefined : shape.minLength;
      const bounds = range(min, shape.maxLength);
      return bounds === '' ? 'text' : `text ${bounds}`;
    }
    case 'array': {
      const items = shape.items;
      if (items === undefined || items.kinds.has('object') || items.kinds.has('array')) return 'json';
      return `${placeholderText(key.replace(/s$/, ''), items)},...`;
    }
    case 'object':
      return 'json';
    default:
      return 'value';
  }
}

/** A field described in words: `whole number, 1 to 7`, `text, 3 to 64 characters`, `one of: a, b`. */
export function describeShape(shape: FieldShape): string {
  const parts: string[] = [describeKind(shape)];
  const valueKinds = [...shape.kinds].filter((k) => k !== 'null');
  if (shape.kinds.has('null') && valueKinds.length <= 2) parts.push('`null` clears it');
  if (shape.description !== undefined) parts.push(shape.description);
  return parts.join('; ');
}

function describeKind(shape: FieldShape): string {
  if (shape.enumValues !== undefined) {
    return `one of: ${shape.enumValues
      .filter((v) => v !== null)
      .map(String)
      .join(', ')}`;
  }
  const kinds = [...shape.kinds].filter((k) => k !== 'null');
  if (kinds.length === 0 || kinds.length > 2) return 'any JSON value, or text';
  if (kinds.length === 2)
    return kinds.includes('integer') && kinds.includes('number') ? 'number' : 'JSON or text';
  switch (kinds[0]) {
    case 'integer':
      return withRange('whole number', shape.minimum, shape.maximum, '');
    case 'number':
      return withRange('number', shape.minimum, shape.maximum, '');
    case 'boolean':
      return 'true or false (bare flag: true; `--no-…`: false)';
    case 'string': {
      if (shape.format === 'date-time') return 'date-time, e.g. 2027-01-01T00:00:00';
      if (shape.format === 'email') return 'e-mail address';
      const min = shape.minLength === 1 && shape.maxLength === undefined ? undefined : shape.minLength;
      return withRange('text', min, shape.maxLength, ' characters');
    }
    case 'array':
      return describeList(shape);
    case 'object':
      return describeObject(shape);
    default:
      return 'value';
  }
}

function withRange(what: string, min: number | undefined, max: number | undefined, unit: string): string {
  if (min !== undefined && max !== undefined) {
    return min === max ? `${what}, exactly ${min}${unit}` : `${what}, ${min} to ${max}${unit}`;
  }
  if (min !== undefined) return `${what}, at least ${min}${unit}`;
  if (max !== undefined) return `${what}, at most ${max}${unit}`;
  return what;
}

function describeList(shape: FieldShape): string {
  const items = shape.items;
  const count =
    shape.minItems !== undefined || shape.maxItems !== undefined
      ? ` (${withRange('items', shape.minItems, shape.maxItems, '').replace(/^items, /, '')} items)`
      : '';
  if (items === undefined) return `JSON list${count}`;
  if (items.kinds.has('object')) {
    const fields = [...(items.properties?.keys() ?? [])].map((key) =>
      items.required?.has(key) === true ? `${key} (required)` : key,
    );
    const withFields = fields.length > 0 ? ` with ${fields.join(', ')}` : '';
    return `JSON list of objects${withFields}${count}; repeat the flag to add one object at a time`;
  }
  // Whether commas split is decided by the same rule the parser applies.
  const commas = splitListText('a,b', items).length > 1 ? ', or separate with commas' : '';
  return `list${count}, each item ${describeKind(items)}; repeat the flag${commas}`;
}

function describeObject(shape: FieldShape): string {
  if (shape.properties !== undefined && shape.properties.size > 0)
    return 'JSON object, or set its fields one by one';
  return 'JSON object, or set keys one by one with `.key`';
}

/** A flag of an operation as help and the reference list it. */
export interface FlagDoc {
  /** `--node-id`, `--updates.day-of-week`, `--devices.<key>`. */
  readonly flag: string;
  readonly placeholder: string;
  readonly required: boolean;
  readonly description: string;
  /** 0 for a top-level field, 1 for a field of an object flag, and so on. */
  readonly depth: number;
}

const MAX_FLAG_DEPTH = 2;

/** Every flag of an operation's request (path parameters and page fields aside), nested fields included. */
export function flagDocsOf(op: AnyOperation): readonly FlagDoc[] {
  const shape = requestShapeOf(op);
  const skip = new Set([...op.pathParams, ...(op.paginated ? PAGE_FIELDS : [])]);
  const docs: FlagDoc[] = [];
  collectFlagDocs(shape, '--', 0, skip, docs);
  return docs;
}

function collectFlagDocs(
  parent: FieldShape,
  prefix: string,
  depth: number,
  skip: ReadonlySet<string>,
  out: FlagDoc[],
) {
  for (const [key, shape] of parent.properties ?? []) {
    if (depth === 0 && skip.has(key)) continue;
    const flag = `${prefix}${flagNameOf(key)}`;
    out.push({
      flag,
      placeholder: placeholderOf(key, shape),
      required: isRequired(parent, key),
      description: describeShape(shape),
      depth,
    });
    if (depth < MAX_FLAG_DEPTH && shape.kinds.has('object'))
      collectFlagDocs(shape, `${flag}.`, depth + 1, skip, out);
  }
  if (parent.openKeys !== undefined) {
    const keyFlag = `${prefix}<key>`;
    out.push({
      flag: keyFlag,
      placeholder: placeholderOf('key', parent.openKeys),
      required: false,
      description: `${depth === 0 ? 'any key' : 'any key of the object'}: ${describeShape(parent.openKeys)}`,
      depth,
    });
    if (depth < MAX_FLAG_DEPTH && isObjectOnly(parent.openKeys)) {
      collectFlagDocs(parent.openKeys, `${keyFlag}.`, depth + 1, skip, out);
    }
  }
}

/** Map values that are objects themselves (`devices.sda.disk_id`), not any JSON value. */
function isObjectOnly(shape: FieldShape): boolean {
  const kinds = [...shape.kinds].filter((k) => k !== 'null');
  return kinds.length === 1 && kinds[0] === 'object' && shape.properties !== undefined;
}

/** `managed issues list`: the group and action as help, usage lines and replies write them. */
export function commandNameOf(op: AnyOperation): string {
  return `${op.group} ${registry.spokenAction(op)}`;
}

/** The operation's example as help writes it: `managed issues list` for `managed issues-list`. */
export function exampleOf(op: AnyOperation): string {
  const written = `${op.group} ${op.action}`;
  return op.example.startsWith(written)
    ? `${commandNameOf(op)}${op.example.slice(written.length)}`
    : op.example;
}

/** Other names of an action: the hyphenated one when help writes it with spaces, then its aliases. */
export function alsoTypedAs(op: AnyOperation): readonly string[] {
  const spoken = registry.spokenAction(op);
  return [...(spoken === op.action ? [] : [op.action]), ...(op.aliases ?? [])];
}

/**
 * `/cloud volumes attach <volumeId> --node-id <id> [--config-id <id>] [--persist-across-boots]`:
 * positionals, then required flags, then optional ones; list operations end with `[list options]`.
 */
export function usageOf(op: AnyOperation): string {
  const positionals = op.pathParams.map(positionalName);
  const topLevel = flagDocsOf(op).filter((doc) => doc.depth === 0);
  const flag = (doc: FlagDoc) => (doc.placeholder === '' ? doc.flag : `${doc.flag} ${doc.placeholder}`);
  const required = topLevel.filter((doc) => doc.required).map(flag);
  const optional = topLevel.filter((doc) => !doc.required).map((doc) => `[${flag(doc)}]`);
  const list = op.paginated ? ['[list options]'] : [];
  return [SLASH_COMMAND, commandNameOf(op), ...positionals, ...required, ...optional, ...list].join(' ');
}
