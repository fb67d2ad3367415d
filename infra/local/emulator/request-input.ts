import type { z } from 'zod';
import { fieldErrorsFromIssues } from '../../../lib/api/errors.js';
import type { AnyOperation } from '../../../lib/api/operation.js';
import { badRequest, EmulatorError } from './errors.js';

/**
 * Turns an HTTP request into the operation's flat input (path parameters, query parameters and
 * body fields side by side) and checks it with the row's request schema, so the emulator enforces
 * exactly the field rules the table documents.
 */

interface LooseDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
}

function defOf(schema: z.ZodType): LooseDef {
  return (schema as unknown as { _zod: { def: LooseDef } })._zod.def;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (
      def.innerType &&
      ['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch'].includes(def.type)
    ) {
      current = def.innerType;
    } else if (def.type === 'pipe' && def.in) {
      current = def.in;
    } else {
      return current;
    }
  }
}

/** The object shape of a request schema, when it has one. */
export function requestShapeOf(op: AnyOperation): Record<string, z.ZodType> | undefined {
  const def = defOf(unwrap(op.request));
  return def.type === 'object' ? def.shape : undefined;
}

export type FieldKind = 'number' | 'boolean' | 'string' | 'other';

/** What a path or query parameter should become before validation. */
export function fieldKindOf(op: AnyOperation, name: string): FieldKind {
  const field = requestShapeOf(op)?.[name];
  if (!field) return 'other';
  const type = defOf(unwrap(field)).type;
  if (type === 'number' || type === 'int') return 'number';
  if (type === 'boolean') return 'boolean';
  if (type === 'string' || type === 'enum') return 'string';
  return 'other';
}

function convertParameter(op: AnyOperation, name: string, raw: string): unknown {
  const kind = fieldKindOf(op, name);
  if (kind === 'number' || (kind === 'other' && (name === 'page' || name === 'page_size'))) {
    return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  }
  if (kind === 'boolean') {
    if (raw === 'true') return true;
    if (raw === 'false') return false;
  }
  return raw;
}

export interface RawRequest {
  pathParams: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body, or undefined when there was none. */
  body: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Builds the flat input and validates it; 400 with the schema's field errors when it fails. */
export function parseOperationInput(op: AnyOperation, raw: RawRequest): Record<string, unknown> {
  if (raw.body !== undefined && !isRecord(raw.body)) {
    throw badRequest('The request body must be a JSON object');
  }
  const flat: Record<string, unknown> = { ...(raw.body ?? {}) };
  for (const name of op.queryParams) {
    const value = raw.query.get(name);
    if (value !== null) flat[name] = convertParameter(op, name, value);
  }
  for (const [name, value] of Object.entries(raw.pathParams)) {
    flat[name] = convertParameter(op, name, value);
  }
  const parsed = op.request.safeParse(flat);
  if (!parsed.success) {
    const errors = fieldErrorsFromIssues(parsed.error.issues);
    throw new EmulatorError(
      400,
      errors.map((e) =>
        e.field === undefined ? { reason: e.reason } : { field: e.field, reason: e.reason },
      ),
    );
  }
  return isRecord(parsed.data) ? parsed.data : {};
}
