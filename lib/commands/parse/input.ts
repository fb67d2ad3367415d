import type * as z from 'zod';
import { accepts, type FieldShape } from '../../api/field-shape.js';
import type { AnyOperation } from '../../api/operation.js';
import { isBooleanField, isSecretField } from '../field-shapes.js';
import { convertText, parseJson, splitListText } from '../field-values.js';
import { positionalName } from '../names.js';
import { flagNameOf, PAGE_FIELDS } from '../usage.js';
import {
  type CollectedFlags,
  type FieldTarget,
  type PathSegment,
  type RawValue,
  TEXT_SHAPE,
} from './flags.js';
import { given, type Problems } from './result.js';

/**
 * Collected flags and positionals → the request object `op.request` validates, each value
 * converted to its field's type; and the schema's complaints about that object → flag names.
 */

export function buildInput(
  op: AnyOperation,
  root: FieldShape,
  flags: CollectedFlags,
  problems: Problems,
): Record<string, unknown> {
  return new InputBuilder(op, root, flags, problems).build();
}

class InputBuilder {
  constructor(
    private readonly op: AnyOperation,
    private readonly root: FieldShape,
    private readonly flags: CollectedFlags,
    private readonly problems: Problems,
  ) {}

  build(): Record<string, unknown> {
    const input: Record<string, unknown> = {};
    this.assignPositionals(input);
    const entries = [...this.flags.fields.values()].sort(
      (a, b) => a.target.path.length - b.target.path.length,
    );
    for (const { target, values } of entries) {
      const value = this.fieldValue(target, values);
      if (value.ok) this.place(input, target, value.value);
    }
    return input;
  }

  private assignPositionals(input: Record<string, unknown>): void {
    const command = `\`${this.op.group} ${this.op.action}\``;
    for (const [param, { target, text }] of this.flags.pathFlags) {
      this.placePathParam(input, param, target.shape, text);
    }
    const remaining = this.op.pathParams.filter((p) => !this.flags.pathFlags.has(p));
    const names = remaining.map(positionalName);
    if (this.flags.positionals.length < remaining.length) {
      const missing = names.slice(this.flags.positionals.length);
      this.problems.messages.push(
        `Missing ${missing.join(' and ')}: ${command} needs ${names.join(' ') || 'no arguments'}.`,
      );
    } else if (this.flags.positionals.length > remaining.length) {
      // The extra words are not repeated: a mistyped secret may be among them.
      const takes = names.length === 0 ? 'takes no arguments' : `takes ${names.join(' ')} only`;
      this.problems.messages.push(
        `Too many arguments: ${command} ${takes}, but ${given(this.flags.positionals.length)}. Flags start with --.`,
      );
    }
    remaining.forEach((param, index) => {
      const text = this.flags.positionals[index];
      if (text === undefined) return;
      this.placePathParam(input, param, this.root.properties?.get(param) ?? TEXT_SHAPE, text);
    });
  }

  private placePathParam(
    input: Record<string, unknown>,
    param: string,
    shape: FieldShape,
    text: string,
  ): void {
    const converted = convertText(text, shape, { secret: false });
    if (converted.ok) input[param] = converted.value;
    else this.problems.messages.push(`${positionalName(param)}: ${converted.reason}`);
  }

  private fieldValue(
    target: FieldTarget,
    values: readonly RawValue[],
  ): { ok: true; value: unknown } | { ok: false } {
    const secret = isSecretPath(target.path);
    const { shape, display } = target;
    const [only] = values;
    if (
      values.length === 1 &&
      only !== undefined &&
      'text' in only &&
      only.text === 'null' &&
      shape.kinds.has('null')
    ) {
      return { ok: true, value: null };
    }
    if (isListShape(shape)) return this.listValue(target, values, secret);
    if (values.length > 1) {
      this.problems.messages.push(`${display}: given more than once`);
      return { ok: false };
    }
    if (only === undefined) return { ok: false };
    if ('switch' in only) {
      if (isBooleanField(shape)) return { ok: true, value: only.switch };
      this.problems.messages.push(`${display}: needs a value`);
      return { ok: false };
    }
    const converted = convertText(only.text, shape, { secret });
    if (converted.ok) return converted;
    this.problems.messages.push(`${display}: ${converted.reason}`);
    return { ok: false };
  }

  /** Lists gather every occurrence of the flag: JSON lists, JSON objects, comma-separated items. */
  private listValue(
    target: FieldTarget,
    values: readonly RawValue[],
    secret: boolean,
  ): { ok: true; value: unknown } | { ok: false } {
    const items: unknown[] = [];
    const itemShape = target.shape.items ?? { kinds: new Set() };
    for (const raw of values) {
      if ('switch' in raw) {
        this.problems.messages.push(`${target.display}: needs a value`);
        return { ok: false };
      }
      const text = raw.text.trim();
      if (text.startsWith('[') || (text.startsWith('{') && accepts(itemShape, 'object'))) {
        const parsed = parseJson(text);
        if (!parsed.ok) {
          this.problems.messages.push(`${target.display}: ${parsed.reason}`);
          return { ok: false };
        }
        // One at a time: spreading a long pasted list into push() would overflow the stack.
        if (Array.isArray(parsed.value)) for (const item of parsed.value) items.push(item);
        else items.push(parsed.value);
        continue;
      }
      for (const piece of splitListText(raw.text, itemShape)) {
        const converted = convertText(piece, itemShape, { secret });
        if (!converted.ok) {
          this.problems.messages.push(`${target.display}: each item ${converted.reason}`);
          return { ok: false };
        }
        items.push(converted.value);
      }
    }
    return { ok: true, value: items };
  }

  /** Puts a value at its path, creating the objects and lists on the way (`--updates.duration 2`). */
  private place(input: Record<string, unknown>, target: FieldTarget, value: unknown): void {
    let container: Record<string, unknown> | unknown[] = input;
    const { path } = target;
    for (const [index, segment] of path.entries()) {
      const last = index === path.length - 1;
      if (last) {
        setMember(container, segment, value);
        return;
      }
      const existing = getMember(container, segment);
      if (existing === undefined) {
        const created: Record<string, unknown> | unknown[] = typeof path[index + 1] === 'number' ? [] : {};
        setMember(container, segment, created);
        container = created;
      } else if (typeof existing === 'object' && existing !== null) {
        container = existing as Record<string, unknown> | unknown[];
      } else {
        const parent = `--${target.display
          .slice(2)
          .split('.')
          .slice(0, index + 1)
          .join('.')}`;
        this.problems.messages.push(
          `${target.display}: cannot be combined with a ${parent} that is not an object`,
        );
        return;
      }
    }
  }
}

/** The schema's issues as lines naming the flags a person typed. */
export function issueMessages(
  op: AnyOperation,
  root: FieldShape,
  issues: readonly z.core.$ZodIssue[],
  input: Record<string, unknown>,
): string[] {
  return issues.flatMap((issue) => {
    const path = issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => `${displayPath(op, root, [...path, key])}: is not a known field`);
    }
    const missing = issue.code === 'invalid_type' && valueAt(input, path) === undefined;
    const message = missing ? 'is required' : issue.message;
    return [path.length === 0 ? message : `${displayPath(op, root, path)}: ${message}`];
  });
}

/** `['updates', 'day_of_week']` → `--updates.day-of-week`; a path parameter → `<instanceId>`. */
function displayPath(op: AnyOperation, root: FieldShape, path: readonly PathSegment[]): string {
  const [first] = path;
  if (typeof first === 'string' && op.pathParams.includes(first) && path.length === 1) {
    return positionalName(first);
  }
  if (path.length === 1 && typeof first === 'string' && PAGE_FIELDS.has(first))
    return `--${flagNameOf(first)}`;
  let shape: FieldShape | undefined = root;
  const parts: string[] = [];
  for (const segment of path) {
    if (typeof segment === 'number') {
      parts.push(String(segment));
      shape = shape?.items;
    } else if (shape?.properties?.has(segment)) {
      parts.push(flagNameOf(segment));
      shape = shape.properties.get(segment);
    } else {
      parts.push(segment);
      shape = shape?.openKeys;
    }
  }
  return `--${parts.join('.')}`;
}

/** Only the container's own members: an inherited one (`constructor`) is never walked into. */
function getMember(container: Record<string, unknown> | unknown[], key: PathSegment): unknown {
  const name = Array.isArray(container) ? Number(key) : String(key);
  return Object.hasOwn(container, name) ? (container as Record<string | number, unknown>)[name] : undefined;
}

/** Defines an own member, so even a `__proto__` that got this far could not replace a prototype. */
function setMember(container: Record<string, unknown> | unknown[], key: PathSegment, value: unknown): void {
  const name = Array.isArray(container) ? Number(key) : String(key);
  Object.defineProperty(container, name, { value, writable: true, enumerable: true, configurable: true });
}

function valueAt(input: unknown, path: readonly PathSegment[]): unknown {
  let current: unknown = input;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[String(segment)];
  }
  return current;
}

/** A list field (possibly nullable); fields that take any JSON value are not lists. */
function isListShape(shape: FieldShape): boolean {
  const kinds = [...shape.kinds].filter((k) => k !== 'null');
  return kinds.length === 1 && kinds[0] === 'array';
}

function isSecretPath(path: readonly PathSegment[]): boolean {
  return path.some((segment) => typeof segment === 'string' && isSecretField(segment));
}
