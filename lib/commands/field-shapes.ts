import * as z from 'zod';
import type { EnumValue, FieldShape, ValueKind } from '../api/field-shape.js';
import type { AnyOperation } from '../api/operation.js';
import '../zod-settings.js';

export type { FieldShape } from '../api/field-shape.js';

/**
 * What the command layer needs to know about a field to turn typed text into a value and to
 * describe it in help: read from the JSON Schema that zod derives from a request schema, so the
 * operations table stays the only place where fields are declared.
 *
 * This is the one module that looks inside zod schemas. It reads them through `z.toJSONSchema`,
 * zod's public conversion, rather than the internal `_zod.def` tree: the conversion already
 * resolves wrappers (optional, nullable, default, pipes), writes input and output sides apart,
 * and follows recursive schemas through `$ref`, while `_zod.def` is undocumented and changes
 * between zod releases.
 */

type JsonSchema = z.core.JSONSchema.JSONSchema;
type JsonSchemaOrBoolean = z.core.JSONSchema._JSONSchema;

const COMBINATOR_KEYS: ReadonlySet<string> = new Set(['anyOf', 'oneOf', 'allOf', '$schema', '$defs']);
const ANY_SHAPE: FieldShape = { kinds: new Set() };
const VALUE_KINDS: readonly ValueKind[] = [
  'string',
  'integer',
  'number',
  'boolean',
  'array',
  'object',
  'null',
];

/** zod writes `.int()` as bounds at the safe-integer limits, which say nothing to a person. */
function meaningfulBound(value: number | undefined): number | undefined {
  if (value === undefined || Math.abs(value) >= Number.MAX_SAFE_INTEGER) return undefined;
  return value;
}

function isValueKind(value: unknown): value is ValueKind {
  return typeof value === 'string' && (VALUE_KINDS as readonly string[]).includes(value);
}

function kindOfConstant(value: EnumValue): ValueKind {
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value === 'boolean' ? 'boolean' : 'string';
}

class ShapeReader {
  /** `$ref`s being expanded right now: a reference back into one of them is a recursive schema. */
  private readonly expanding = new Set<string>();

  constructor(private readonly root: JsonSchema) {}

  read(node: JsonSchemaOrBoolean | undefined): FieldShape {
    if (node === undefined || typeof node === 'boolean') return ANY_SHAPE;
    if (node.$ref !== undefined) return this.readReference(node.$ref);
    const branches = node.anyOf ?? node.oneOf;
    if (branches === undefined && node.allOf === undefined) return this.readPlain(node);
    // Keywords beside the combinators apply too: zod writes a string with two patterns as
    // `{type, minLength, allOf: [{pattern}, {pattern}]}`.
    const parts: FieldShape[] = [];
    if (Object.keys(node).some((key) => !COMBINATOR_KEYS.has(key))) parts.push(this.readPlain(node));
    if (branches !== undefined)
      parts.push(
        mergeShapes(
          branches.map((b) => this.read(b)),
          'any-of',
        ),
      );
    for (const part of node.allOf ?? []) parts.push(this.read(part));
    return mergeShapes(parts, 'all-of');
  }

  private readReference(ref: string): FieldShape {
    const name = ref.startsWith('#/$defs/') ? ref.slice('#/$defs/'.length) : undefined;
    const target = name === undefined ? undefined : this.root.$defs?.[name];
    if (name === undefined || target === undefined || this.expanding.has(name)) return ANY_SHAPE;
    this.expanding.add(name);
    try {
      return this.read(target);
    } finally {
      this.expanding.delete(name);
    }
  }

  private readPlain(node: JsonSchema): FieldShape {
    const kinds = new Set<ValueKind>();
    const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
    for (const type of types) if (isValueKind(type)) kinds.add(type);
    let enumValues: EnumValue[] | undefined;
    if (node.const !== undefined) enumValues = [node.const];
    else if (node.enum !== undefined) enumValues = [...node.enum];
    if (kinds.size === 0 && enumValues !== undefined)
      for (const v of enumValues) kinds.add(kindOfConstant(v));
    if (node.nullable === true) kinds.add('null');

    let properties: Map<string, FieldShape> | undefined;
    if (node.properties !== undefined) {
      properties = new Map();
      for (const [key, value] of Object.entries(node.properties)) properties.set(key, this.read(value));
    }
    const openKeys =
      node.additionalProperties === undefined || node.additionalProperties === false
        ? undefined
        : this.read(node.additionalProperties);
    const items = Array.isArray(node.items)
      ? undefined
      : node.items === undefined
        ? undefined
        : this.read(node.items);

    return withoutUndefined({
      kinds,
      enumValues,
      items,
      properties,
      required: node.required === undefined ? undefined : new Set(node.required),
      openKeys,
      minimum: meaningfulBound(node.minimum),
      maximum: meaningfulBound(node.maximum),
      minLength: node.minLength,
      maxLength: node.maxLength,
      minItems: node.minItems,
      maxItems: node.maxItems,
      format: node.format,
      description: node.description,
    });
  }
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** Builds a shape leaving out absent members (the shape type has exact optional properties). */
function withoutUndefined(fields: { [K in keyof FieldShape]: FieldShape[K] | undefined }): FieldShape {
  const shape: Partial<Writable<FieldShape>> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) (shape as Record<string, unknown>)[key] = value;
  }
  return { kinds: fields.kinds ?? new Set(), ...shape };
}

/**
 * One shape for several alternatives (`anyOf`, `oneOf`: a nullable field, literal unions,
 * discriminated unions) or for an intersection (`allOf`). A key is required by alternatives only
 * when every alternative requires it, and by an intersection when any part does.
 */
function mergeShapes(shapes: readonly FieldShape[], mode: 'any-of' | 'all-of'): FieldShape {
  if (shapes.length === 1 && shapes[0] !== undefined) return shapes[0];
  const anything = mode === 'any-of' && shapes.some((s) => s.kinds.size === 0);
  const kinds = new Set<ValueKind>();
  if (!anything) for (const s of shapes) for (const k of s.kinds) kinds.add(k);

  const valued = shapes.filter((s) => !(s.kinds.size === 1 && s.kinds.has('null')));
  let enumValues: EnumValue[] | undefined;
  if (mode === 'all-of') {
    enumValues = shapes.find((s) => s.enumValues !== undefined)?.enumValues?.slice();
  } else if (valued.length > 0 && valued.every((s) => s.enumValues !== undefined)) {
    enumValues = [...new Set(valued.flatMap((s) => s.enumValues ?? []))];
  }

  const objects = shapes.filter((s) => s.properties !== undefined || s.openKeys !== undefined);
  let properties: Map<string, FieldShape> | undefined;
  let required: Set<string> | undefined;
  if (objects.length > 0) {
    const collected = new Map<string, FieldShape[]>();
    for (const s of objects) {
      for (const [key, value] of s.properties ?? [])
        collected.set(key, [...(collected.get(key) ?? []), value]);
    }
    properties = new Map([...collected].map(([key, values]) => [key, mergeShapes(values, mode)]));
    const requiredSets = objects.map((s) => s.required ?? new Set<string>());
    required =
      mode === 'all-of'
        ? new Set(requiredSets.flatMap((r) => [...r]))
        : new Set([...(requiredSets[0] ?? [])].filter((key) => requiredSets.every((r) => r.has(key))));
  }
  const openKeyShapes = objects.flatMap((s) => (s.openKeys === undefined ? [] : [s.openKeys]));
  const itemShapes = shapes.flatMap((s) => (s.items === undefined ? [] : [s.items]));
  const pick = <K extends keyof FieldShape>(key: K) => valued.find((s) => s[key] !== undefined)?.[key];
  // Alternatives allow the loosest bound (none when one alternative has none); an intersection
  // keeps the tightest.
  const bound = (key: 'minimum' | 'minLength' | 'minItems' | 'maximum' | 'maxLength' | 'maxItems') => {
    const values = valued.map((s) => s[key]);
    const numbers = values.filter((v): v is number => v !== undefined);
    if (numbers.length === 0 || (mode === 'any-of' && numbers.length < values.length)) return undefined;
    const lower = key.startsWith('min');
    return lower === (mode === 'any-of') ? Math.min(...numbers) : Math.max(...numbers);
  };

  return withoutUndefined({
    kinds,
    enumValues,
    items: itemShapes.length === 0 ? undefined : mergeShapes(itemShapes, mode),
    properties,
    required,
    openKeys: openKeyShapes.length === 0 ? undefined : mergeShapes(openKeyShapes, 'any-of'),
    minimum: bound('minimum'),
    maximum: bound('maximum'),
    minLength: bound('minLength'),
    maxLength: bound('maxLength'),
    minItems: bound('minItems'),
    maxItems: bound('maxItems'),
    format: pick('format'),
    description: pick('description'),
  });
}

/**
 * A schema as JSON Schema, for readers that compare raw keywords with another JSON Schema.
 * Unrepresentable parts (transforms, custom checks) become "anything" rather than throwing.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: 'any' });
}

export function shapeOfSchema(schema: z.ZodType, io: 'input' | 'output'): FieldShape {
  const json = jsonSchemaOf(schema, io);
  return new ShapeReader(json).read(json);
}

const requestShapes = new WeakMap<AnyOperation, FieldShape>();
const itemShapes = new WeakMap<AnyOperation, FieldShape>();

/** The shape of an operation's flat request (path, query and body fields), as a person types it. */
export function requestShapeOf(op: AnyOperation): FieldShape {
  let shape = requestShapes.get(op);
  if (shape === undefined) {
    shape = shapeOfSchema(op.request, 'input');
    requestShapes.set(op, shape);
  }
  return shape;
}

/** The shape of one listed item (for paginated operations), which gives filter values their types. */
export function itemShapeOf(op: AnyOperation): FieldShape {
  let shape = itemShapes.get(op);
  if (shape === undefined) {
    shape = shapeOfSchema(op.response, 'output');
    itemShapes.set(op, shape);
  }
  return shape;
}

/** A true/false field (possibly nullable): a bare `--flag` sets it. */
export function isBooleanField(shape: FieldShape): boolean {
  const kinds = [...shape.kinds].filter((k) => k !== 'null');
  return kinds.length === 1 && kinds[0] === 'boolean';
}

export function isRequired(parent: FieldShape, key: string): boolean {
  return parent.required?.has(key) ?? false;
}

/**
 * Field names whose values must never be repeated back (error texts, help examples are fine):
 * passwords, tokens, one-time codes and security answers.
 */
const SECRET_FIELD = /(^|_)(pass|password|passphrase|secret|token|tfa_code|otp_code|response)$/i;

export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name);
}
