import * as z from 'zod';
import { type ApiFieldError, invalidRequestError } from './errors.js';
import type { AnyOperation } from './operation.js';
import '../zod-settings.js';

/**
 * The `X-Filter` header: a JSON object whose keys are filterable fields of the listed objects and
 * operators (`+and`, `+or`, `+gt`, ...). Checked against the operation's row before it is sent,
 * so a typo in a field name is reported by the bot instead of silently matching nothing.
 */

export type FilterScalar = string | number | boolean | null;

export const RANGE_OPERATORS = ['+gt', '+gte', '+lt', '+lte'] as const;
export const FIELD_OPERATORS = [...RANGE_OPERATORS, '+contains', '+neq'] as const;
export type FieldOperator = (typeof FIELD_OPERATORS)[number];

/** A condition on one field: a value to equal, or operators applied to the field. */
export type FieldCondition = FilterScalar | { readonly [K in FieldOperator]?: FilterScalar };

export type FilterValue = FieldCondition | readonly Filter[];

/**
 * A filter object. Field keys map to conditions; `+and`/`+or` hold lists of filters;
 * `+order_by` names a field and `+order` is `asc` or `desc`.
 */
export interface Filter {
  readonly [key: string]: FilterValue;
}

export type SortOrder = 'asc' | 'desc';

const ScalarSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** The structure of a filter; which keys an operation accepts is checked by `filterProblems`. */
export const FilterSchema: z.ZodType<Filter> = z.lazy(() =>
  z.record(z.string(), z.union([ScalarSchema, z.record(z.string(), ScalarSchema), z.array(FilterSchema)])),
);

const LOGICAL_OPERATORS = new Set(['+and', '+or']);
const SORT_ORDERS: readonly string[] = ['asc', 'desc'] satisfies SortOrder[];

function allowedFields(op: AnyOperation): string {
  return op.filterable.length > 0
    ? `filterable fields: ${op.filterable.join(', ')}`
    : 'no field is filterable';
}

function orderableFields(op: AnyOperation): string[] {
  return op.filterable.filter((f) => !op.unorderable?.includes(f));
}

function quote(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function checkFieldCondition(field: string, condition: unknown, problems: ApiFieldError[]) {
  if (condition === null || typeof condition !== 'object') return;
  if (Array.isArray(condition)) {
    problems.push({ field, reason: 'takes one value or an operator object, not a list' });
    return;
  }
  for (const [operator, operand] of Object.entries(condition)) {
    if (!(FIELD_OPERATORS as readonly string[]).includes(operator)) {
      problems.push({
        field,
        reason: `unknown operator ${operator}; use one of ${FIELD_OPERATORS.join(', ')}`,
      });
    } else if ((RANGE_OPERATORS as readonly string[]).includes(operator)) {
      // Numbers for sizes and counts; ISO date-time strings for `created` and similar.
      if (typeof operand !== 'number' && typeof operand !== 'string') {
        problems.push({ field, reason: `${operator} needs a number or a date, not ${quote(operand)}` });
      }
    } else if (operator === '+contains' && typeof operand !== 'string') {
      problems.push({ field, reason: `+contains needs text, not ${quote(operand)}` });
    } else if (operand === null) {
      problems.push({ field, reason: `${operator} needs a value` });
    }
  }
}

function checkFilterObject(op: AnyOperation, filter: unknown, where: string, problems: ApiFieldError[]) {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
    problems.push({ field: where, reason: `must be a JSON object, not ${quote(filter)}` });
    return;
  }
  const entries = Object.entries(filter);
  for (const [key, value] of entries) {
    if (LOGICAL_OPERATORS.has(key)) {
      if (!Array.isArray(value) || value.length === 0) {
        problems.push({ field: key, reason: 'needs a non-empty list of filter objects' });
        continue;
      }
      value.forEach((nested, index) => {
        checkFilterObject(op, nested, `${key}[${index}]`, problems);
      });
    } else if (key === '+order_by') {
      if (typeof value !== 'string' || !op.filterable.includes(value)) {
        problems.push({
          field: key,
          reason: `${quote(value)} is not a filterable field of ${op.id} (${allowedFields(op)})`,
        });
      } else if (op.unorderable?.includes(value)) {
        problems.push({
          field: key,
          reason: `${op.id} cannot be ordered by ${value} (orderable fields: ${orderableFields(op).join(', ')})`,
        });
      }
    } else if (key === '+order') {
      if (typeof value !== 'string' || !SORT_ORDERS.includes(value)) {
        problems.push({ field: key, reason: `must be asc or desc, not ${quote(value)}` });
      }
      if (!entries.some(([other]) => other === '+order_by')) {
        problems.push({ field: key, reason: 'needs +order_by beside it' });
      }
    } else if ((FIELD_OPERATORS as readonly string[]).includes(key)) {
      problems.push({
        field: key,
        reason: `${key} applies to a field, e.g. {"size": {"${key}": 100}}`,
      });
    } else if (key.startsWith('+')) {
      problems.push({ field: key, reason: 'is not a filter operator' });
    } else if (!op.filterable.includes(key)) {
      problems.push({ field: key, reason: `is not a filterable field of ${op.id} (${allowedFields(op)})` });
    } else {
      checkFieldCondition(key, value, problems);
    }
  }
}

/** Everything wrong with a filter for this operation; empty when it may be sent. */
export function filterProblems(op: AnyOperation, filter: unknown): ApiFieldError[] {
  const problems: ApiFieldError[] = [];
  checkFilterObject(op, filter, 'X-Filter', problems);
  return problems;
}

/** Checks a filter (typed or as parsed from user input) against the operation's row. */
export function validateFilter(op: AnyOperation, filter: unknown): Filter {
  const problems = filterProblems(op, filter);
  const parsed = FilterSchema.safeParse(filter);
  if (problems.length > 0 || !parsed.success) {
    throw invalidRequestError(
      op.id,
      problems.length > 0 ? problems : [{ field: 'X-Filter', reason: 'is not a valid filter object' }],
    );
  }
  return parsed.data;
}

export interface SortFlags {
  orderBy?: string | undefined;
  order?: SortOrder | undefined;
}

/**
 * A filter from simple `--field value` flags: each becomes an equality condition (combined with
 * AND by the API), plus ordering. Undefined when nothing was asked for, so no header is sent.
 */
export function filterFromFlags(
  op: AnyOperation,
  fields: Readonly<Record<string, FilterScalar | undefined>>,
  sort: SortFlags = {},
): Filter | undefined {
  const filter: Record<string, FilterValue> = {};
  for (const [field, value] of Object.entries(fields)) {
    if (value !== undefined) filter[field] = value;
  }
  if (sort.orderBy !== undefined) filter['+order_by'] = sort.orderBy;
  if (sort.order !== undefined) filter['+order'] = sort.order;
  return Object.keys(filter).length === 0 ? undefined : validateFilter(op, filter);
}
