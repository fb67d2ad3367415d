/**
 * What the command layer knows about a field: the JSON types it accepts, its bounds and nesting.
 * Kept apart from `field-shapes.ts`, which reads shapes out of zod schemas, so that converting a
 * bot command's flag (`--allow-self-approval off`) loads no schema library.
 */

export type ValueKind = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'null';
export type EnumValue = string | number | boolean | null;

export interface FieldShape {
  /** The JSON types the field accepts; empty means anything (an unconstrained or unrepresentable schema). */
  readonly kinds: ReadonlySet<ValueKind>;
  readonly enumValues?: readonly EnumValue[];
  /** Element shape of arrays. */
  readonly items?: FieldShape;
  /** Declared properties of objects, in declaration order. */
  readonly properties?: ReadonlyMap<string, FieldShape>;
  readonly required?: ReadonlySet<string>;
  /** Shape of further keys, for maps (`z.record`) and loose objects; absent when only declared keys are kept. */
  readonly openKeys?: FieldShape;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly format?: string;
  readonly description?: string;
}

export function accepts(shape: FieldShape, kind: ValueKind): boolean {
  return shape.kinds.size === 0 || shape.kinds.has(kind);
}

/** A bare switch: the bot's own boolean flags and the list options `--all` and `--json`. */
export const BOOLEAN_SHAPE: FieldShape = { kinds: new Set(['boolean']) };
