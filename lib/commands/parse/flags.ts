import { accepts, BOOLEAN_SHAPE, type FieldShape } from '../../api/field-shape.js';
import type { AnyOperation } from '../../api/operation.js';
import { isPrototypeKey, PROTOTYPE_KEY_REASON } from '../../prototype-keys.js';
import { isBooleanField, itemShapeOf } from '../field-shapes.js';
import { isBooleanWord } from '../field-values.js';
import { normalizeName, positionalName } from '../names.js';
import { didYouMean, suggest } from '../suggest.js';
import { type FlagToken, type Token, walkTokens } from '../tokenize.js';
import { flagNameOf, PAGE_FIELDS } from '../usage.js';
import { clip, type Problems } from './result.js';

/**
 * An operation's flags, from tokens to what each one names: a request field (dotted paths walk
 * into objects, lists and maps), a path parameter given by name, a filter of a list, or one of
 * the list options. Values stay as typed; converting them is the input and list-option builders' job.
 */

export type PathSegment = string | number;

/** A flag's value as typed: text, or a bare switch (`--booted` → true, `--no-booted` → false). */
export type RawValue = { readonly text: string } | { readonly switch: boolean };

const RESERVED_OPTIONS = ['all', 'json', 'page', 'page_size', 'order_by', 'order', 'filter'] as const;
export type ReservedOption = (typeof RESERVED_OPTIONS)[number];
/** Options that only make sense for list operations. */
export const LIST_OPTIONS: ReadonlySet<ReservedOption> = new Set([
  'all',
  'page',
  'page_size',
  'order_by',
  'order',
  'filter',
]);

export const TEXT_SHAPE: FieldShape = { kinds: new Set(['string']) };
export const INTEGER_SHAPE: FieldShape = { kinds: new Set(['integer']) };
export const ORDER_SHAPE: FieldShape = { kinds: new Set(['string']), enumValues: ['asc', 'desc'] };
const OPTION_SHAPES: Readonly<Record<ReservedOption, FieldShape>> = {
  all: BOOLEAN_SHAPE,
  json: BOOLEAN_SHAPE,
  page: INTEGER_SHAPE,
  page_size: INTEGER_SHAPE,
  order_by: TEXT_SHAPE,
  order: ORDER_SHAPE,
  filter: TEXT_SHAPE,
};

export type FieldTarget = {
  readonly kind: 'field';
  readonly path: readonly PathSegment[];
  readonly shape: FieldShape;
  readonly display: string;
  readonly negated: boolean;
};

export type FilterTarget = {
  readonly kind: 'filter';
  readonly key: string;
  readonly shape: FieldShape;
  readonly display: string;
  readonly negated: boolean;
};

export type PathTarget = {
  readonly kind: 'path';
  readonly param: string;
  readonly shape: FieldShape;
  readonly display: string;
};

type Target =
  | {
      readonly kind: 'option';
      readonly option: ReservedOption;
      readonly shape: FieldShape;
      readonly display: string;
    }
  | PathTarget
  | FieldTarget
  | FilterTarget;

type Resolution =
  | { readonly ok: true; readonly target: Target }
  | { readonly ok: false; readonly problem: string; readonly suggestions: readonly string[] };

/** The words and flags of one operation command, grouped by what they name. */
export interface CollectedFlags {
  readonly positionals: readonly string[];
  readonly pathFlags: ReadonlyMap<string, { readonly target: PathTarget; readonly text: string }>;
  /** Keyed by the field's path, so `--tags a --tags b` gathers both values. */
  readonly fields: ReadonlyMap<
    string,
    { readonly target: FieldTarget; readonly values: readonly RawValue[] }
  >;
  readonly filters: ReadonlyMap<
    string,
    { readonly target: FilterTarget; readonly values: readonly RawValue[] }
  >;
  readonly options: ReadonlyMap<ReservedOption, readonly RawValue[]>;
}

export function collectFlags(
  op: AnyOperation,
  root: FieldShape,
  tokens: readonly Token[],
  problems: Problems,
): CollectedFlags {
  return new FlagCollector(op, root, problems).collect(tokens);
}

class FlagCollector {
  private readonly positionals: string[] = [];
  private readonly pathFlags = new Map<string, { target: PathTarget; text: string }>();
  private readonly fields = new Map<string, { target: FieldTarget; values: RawValue[] }>();
  private readonly filters = new Map<string, { target: FilterTarget; values: RawValue[] }>();
  private readonly options = new Map<ReservedOption, RawValue[]>();

  constructor(
    private readonly op: AnyOperation,
    private readonly root: FieldShape,
    private readonly problems: Problems,
  ) {}

  collect(tokens: readonly Token[]): CollectedFlags {
    walkTokens(
      tokens,
      (text) => this.positionals.push(text),
      (token, next) => this.take(token, next),
    );
    return {
      positionals: this.positionals,
      pathFlags: this.pathFlags,
      fields: this.fields,
      filters: this.filters,
      options: this.options,
    };
  }

  /** Answers whether the flag took the next word as its value. */
  private take(token: FlagToken, next: Token | undefined): boolean {
    const resolution = this.resolve(token.name);
    if (!resolution.ok) {
      this.problems.messages.push(resolution.problem);
      this.problems.suggestions.push(...resolution.suggestions);
      // A value that follows an unknown flag is not a positional argument.
      return token.value === undefined && next?.kind === 'word';
    }
    const value = this.valueOf(token, resolution.target, next);
    if (value === undefined) return false;
    this.record(resolution.target, value.raw);
    return value.consumedNext;
  }

  private valueOf(
    token: FlagToken,
    target: Target,
    next: Token | undefined,
  ): { raw: RawValue; consumedNext: boolean } | undefined {
    const negated = (target.kind === 'field' || target.kind === 'filter') && target.negated;
    if (negated) {
      if (token.value !== undefined) {
        this.problems.messages.push(
          `--${clip(token.name)}: takes no value (write ${target.display}=false instead)`,
        );
        return undefined;
      }
      return { raw: { switch: false }, consumedNext: false };
    }
    if (token.value !== undefined) return { raw: { text: token.value }, consumedNext: false };
    if (isBooleanField(target.shape)) {
      if (next?.kind === 'word' && isBooleanWord(next.text))
        return { raw: { text: next.text }, consumedNext: true };
      return { raw: { switch: true }, consumedNext: false };
    }
    if (next?.kind === 'word') return { raw: { text: next.text }, consumedNext: true };
    this.problems.messages.push(`${target.display}: needs a value`);
    return undefined;
  }

  private record(target: Target, raw: RawValue): void {
    switch (target.kind) {
      case 'option':
        this.options.set(target.option, [...(this.options.get(target.option) ?? []), raw]);
        return;
      case 'path':
        if ('switch' in raw) this.problems.messages.push(`${target.display}: needs a value`);
        else if (this.pathFlags.has(target.param))
          this.problems.messages.push(`${target.display}: given more than once`);
        else this.pathFlags.set(target.param, { target, text: raw.text });
        return;
      case 'field': {
        const key = JSON.stringify(target.path);
        const entry = this.fields.get(key) ?? { target, values: [] };
        entry.values.push(raw);
        this.fields.set(key, entry);
        return;
      }
      case 'filter': {
        const entry = this.filters.get(target.key) ?? { target, values: [] };
        entry.values.push(raw);
        this.filters.set(target.key, entry);
        return;
      }
    }
  }

  private resolve(name: string): Resolution {
    if (name.split('.').some(isPrototypeKey)) {
      return { ok: false, problem: `--${clip(name)}: ${PROTOTYPE_KEY_REASON}`, suggestions: [] };
    }
    const normalized = normalizeName(name);
    const reserved = RESERVED_OPTIONS.find((option) => option === normalized);
    if (reserved !== undefined) {
      return {
        ok: true,
        target: { kind: 'option', option: reserved, shape: OPTION_SHAPES[reserved], display: `--${name}` },
      };
    }
    // A body field wins over a path parameter of the same name: `nodes backups-restore 1 2
    // --node-id 3` names the restore target, while the source node is the first positional.
    const direct = this.resolveField(name.split('.'), false);
    if (direct.ok) return direct;
    const param = this.op.pathParams.find((p) => normalizeName(p) === normalized);
    if (param !== undefined) {
      const shape = this.root.properties?.get(param) ?? TEXT_SHAPE;
      return { ok: true, target: { kind: 'path', param, shape, display: positionalName(param) } };
    }

    const negation = /^no[-_]/i.exec(name);
    if (negation !== null) {
      const negated = this.resolveField(name.slice(negation[0].length).split('.'), true);
      if (negated.ok) {
        if (isBooleanField(negated.target.shape)) return negated;
        return { ok: false, problem: `--${name}: only true/false fields have a --no- form`, suggestions: [] };
      }
    }
    if (this.op.paginated) {
      const filter = this.resolveFilter(name, false);
      if (filter !== undefined) return { ok: true, target: filter };
      const negatedFilter =
        negation === null ? undefined : this.resolveFilter(name.slice(negation[0].length), true);
      if (negatedFilter !== undefined && isBooleanField(negatedFilter.shape))
        return { ok: true, target: negatedFilter };
    }
    return direct;
  }

  /** Walks `updates.day-of-week` through the request shape: declared keys, list indexes, map keys. */
  private resolveField(segments: readonly string[], negated: boolean): Resolution {
    let shape = this.root;
    const path: PathSegment[] = [];
    const display: string[] = [];
    for (const [depth, segment] of segments.entries()) {
      const declared = [...(shape.properties?.keys() ?? [])].filter(
        (key) => depth > 0 || !(this.op.pathParams.includes(key) || PAGE_FIELDS.has(key)),
      );
      const key = declared.find((k) => normalizeName(k) === normalizeName(segment));
      const child = key === undefined ? undefined : shape.properties?.get(key);
      if (key !== undefined && child !== undefined) {
        path.push(key);
        display.push(flagNameOf(key));
        shape = child;
      } else if (/^\d+$/.test(segment) && shape.items !== undefined && accepts(shape, 'array')) {
        path.push(Number(segment));
        display.push(segment);
        shape = shape.items;
      } else if (shape.openKeys !== undefined && segment.length > 0 && !isPrototypeKey(segment)) {
        path.push(segment);
        display.push(segment);
        shape = shape.openKeys;
      } else {
        return this.unknownField(segments, depth, declared, display);
      }
    }
    return { ok: true, target: { kind: 'field', path, shape, display: `--${display.join('.')}`, negated } };
  }

  private unknownField(
    segments: readonly string[],
    depth: number,
    declared: readonly string[],
    resolved: readonly string[],
  ): Resolution {
    const typed = `--${clip(segments.join('.'))}`;
    const command = `\`${this.op.group} ${this.op.action}\``;
    if (depth > 0) {
      const prefix = `--${resolved.join('.')}.`;
      const candidates = declared.map((key) => `${prefix}${flagNameOf(key)}`);
      const suggestions = suggest(`${prefix}${segments[depth] ?? ''}`, candidates);
      const known = candidates.length > 0 ? ` Its fields: ${candidates.join(', ')}.` : '';
      return {
        ok: false,
        problem: `${typed}: not a field of --${resolved.join('.')}.${known}${didYouMean(suggestions)}`,
        suggestions,
      };
    }
    const fieldFlags = declared.map((key) => `--${flagNameOf(key)}`);
    const filterFlags = this.op.paginated ? this.op.filterable.map(filterFlagName) : [];
    const optionFlags = RESERVED_OPTIONS.filter((o) => this.op.paginated || !LIST_OPTIONS.has(o)).map(
      (o) => `--${flagNameOf(o)}`,
    );
    const suggestions = suggest(typed, [...fieldFlags, ...filterFlags, ...optionFlags]);
    if (this.op.paginated) {
      const filterable =
        filterFlags.length > 0
          ? ` It can be filtered by ${filterFlags.join(', ')}.`
          : ' It cannot be filtered by any field.';
      return {
        ok: false,
        problem: `${typed}: ${command} has no such flag.${filterable}${didYouMean(suggestions)}`,
        suggestions,
      };
    }
    const known = fieldFlags.length > 0 ? ` Its flags: ${fieldFlags.join(', ')}.` : ' It takes no flags.';
    return {
      ok: false,
      problem: `${typed}: ${command} has no such flag.${known}${didYouMean(suggestions)}`,
      suggestions,
    };
  }

  private resolveFilter(name: string, negated: boolean): FilterTarget | undefined {
    const wanted = normalizeFilterName(name);
    const key = this.op.filterable.find((field) => normalizeFilterName(field) === wanted);
    if (key === undefined) return undefined;
    return { kind: 'filter', key, shape: filterShapeOf(this.op, key), display: filterFlagName(key), negated };
  }
}

/** `interfaces[].label` → `interfaces.label`, normalized like flag names. */
export function normalizeFilterName(name: string): string {
  return name.replace(/\[\]/g, '').split('.').map(normalizeName).join('.');
}

export function filterFlagName(field: string): string {
  return `--${field.replace(/\[\]/g, '').split('.').map(flagNameOf).join('.')}`;
}

/** The type of a filterable field, from the listed item's schema (`tags` → text, `deprecated` → boolean). */
export function filterShapeOf(op: AnyOperation, field: string): FieldShape {
  let shape: FieldShape | undefined = itemShapeOf(op);
  for (const segment of field.replace(/\[\]/g, '').split('.')) {
    while (shape?.items !== undefined && accepts(shape, 'array') && shape.properties === undefined)
      shape = shape.items;
    shape = shape?.properties?.get(segment);
  }
  while (shape?.items !== undefined && accepts(shape, 'array')) shape = shape.items;
  if (shape === undefined || shape.kinds.size === 0) return TEXT_SHAPE;
  return shape;
}
