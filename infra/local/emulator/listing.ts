import type { AnyOperation } from '../../../lib/api/operation.js';
import { badRequest, EmulatorError, type FieldError } from './errors.js';

/**
 * Pagination and `X-Filter` for every paginated operation, in one place. Filters apply to the
 * response objects, on the fields the row marks filterable; `+order_by` sorts on one of them.
 */

export const DEFAULT_PAGE_SIZE = 100;

const FIELD_OPERATORS = new Set(['+gt', '+gte', '+lt', '+lte', '+contains', '+neq']);

type Item = Record<string, unknown>;

/**
 * The items of a list, rendered only when a range of them is read: a page of 500 out of 5000 nodes
 * renders 500, where rendering every visible record on every page made one page cost as much as
 * the whole list. A plain array of rendered items has the same shape.
 */
export interface ListItems {
  readonly length: number;
  slice(start: number, end: number): Item[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `interfaces[].label` and `interfaces.label` name the same nested field. */
function normalizeField(field: string): string {
  return field.replace(/\[\]/g, '');
}

/** The values of a (possibly nested) field; arrays on the way are flattened. */
function valuesOf(item: unknown, path: readonly string[]): unknown[] {
  if (path.length === 0) return Array.isArray(item) ? item : [item];
  if (Array.isArray(item)) return item.flatMap((element) => valuesOf(element, path));
  if (!isRecord(item)) return [];
  const [head, ...rest] = path;
  return valuesOf(item[head ?? ''], rest);
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : -1;
  if (b === null || b === undefined) return 1;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function equals(actual: unknown, expected: unknown): boolean {
  if (actual === expected) return true;
  // Header values are JSON, so `"12"` and `12` are treated alike, as the API does.
  if (typeof actual === 'number' && typeof expected === 'string') return String(actual) === expected;
  if (typeof actual === 'string' && typeof expected === 'number') return actual === String(expected);
  return false;
}

class FilterCompiler {
  readonly #filterable: Set<string>;
  readonly problems: FieldError[] = [];

  constructor(op: AnyOperation) {
    this.#filterable = new Set(op.filterable.map(normalizeField));
  }

  compile(filter: unknown, where: string): (item: Item) => boolean {
    if (!isRecord(filter)) {
      this.problems.push({ field: where, reason: 'must be a JSON object' });
      return () => false;
    }
    const tests: ((item: Item) => boolean)[] = [];
    for (const [key, value] of Object.entries(filter)) {
      if (key === '+and' || key === '+or') {
        if (!Array.isArray(value) || value.length === 0) {
          this.problems.push({ field: key, reason: 'needs a non-empty list of filter objects' });
          continue;
        }
        const parts = value.map((nested, index) => this.compile(nested, `${key}[${index}]`));
        tests.push(
          key === '+and' ? (item) => parts.every((t) => t(item)) : (item) => parts.some((t) => t(item)),
        );
      } else if (key === '+order_by' || key === '+order') {
        // Ordering is read from the top level by `orderOf`; nested ordering keys are ignored.
      } else if (key.startsWith('+')) {
        this.problems.push({ field: key, reason: `${key} is not a filter operator here` });
      } else if (!this.#filterable.has(normalizeField(key))) {
        this.problems.push({ field: key, reason: `Cannot filter on ${key}` });
      } else {
        tests.push(this.#fieldTest(key, value));
      }
    }
    return (item) => tests.every((t) => t(item));
  }

  #fieldTest(key: string, condition: unknown): (item: Item) => boolean {
    const path = normalizeField(key).split('.');
    if (Array.isArray(condition)) {
      this.problems.push({ field: key, reason: 'takes one value or an operator object' });
      return () => false;
    }
    if (!isRecord(condition)) {
      return (item) => valuesOf(item, path).some((v) => equals(v, condition));
    }
    const checks: ((value: unknown) => boolean)[] = [];
    for (const [operator, operand] of Object.entries(condition)) {
      if (!FIELD_OPERATORS.has(operator)) {
        this.problems.push({ field: key, reason: `${operator} is not a filter operator` });
        continue;
      }
      switch (operator) {
        case '+gt':
          checks.push((v) => v !== null && v !== undefined && compare(v, operand) > 0);
          break;
        case '+gte':
          checks.push((v) => v !== null && v !== undefined && compare(v, operand) >= 0);
          break;
        case '+lt':
          checks.push((v) => v !== null && v !== undefined && compare(v, operand) < 0);
          break;
        case '+lte':
          checks.push((v) => v !== null && v !== undefined && compare(v, operand) <= 0);
          break;
        case '+contains':
          if (typeof operand !== 'string') this.problems.push({ field: key, reason: '+contains needs text' });
          checks.push(
            (v) => typeof v === 'string' && v.toLowerCase().includes(String(operand).toLowerCase()),
          );
          break;
        case '+neq':
          checks.push((v) => !equals(v, operand));
          break;
      }
    }
    if (Object.hasOwn(condition, '+neq')) {
      // Not equal holds when no value equals the operand (array fields included).
      return (item) => {
        const values = valuesOf(item, path);
        return checks.every((check) => (values.length === 0 ? check(undefined) : values.every(check)));
      };
    }
    return (item) => valuesOf(item, path).some((v) => checks.every((check) => check(v)));
  }
}

interface Ordering {
  field: string;
  direction: 1 | -1;
}

function orderOf(
  op: AnyOperation,
  filter: Record<string, unknown>,
  problems: FieldError[],
): Ordering | undefined {
  const orderBy = filter['+order_by'];
  const order = filter['+order'];
  if (order !== undefined && order !== 'asc' && order !== 'desc') {
    problems.push({ field: '+order', reason: 'must be asc or desc' });
  }
  if (orderBy === undefined) {
    if (order !== undefined) problems.push({ field: '+order', reason: 'needs +order_by' });
    return undefined;
  }
  const filterable = op.filterable.map(normalizeField);
  if (typeof orderBy !== 'string' || !filterable.includes(normalizeField(orderBy))) {
    problems.push({ field: '+order_by', reason: `Cannot order by ${String(orderBy)}` });
    return undefined;
  }
  if (op.unorderable?.map(normalizeField).includes(normalizeField(orderBy))) {
    problems.push({ field: '+order_by', reason: `Ordering by ${orderBy} is not available` });
    return undefined;
  }
  return { field: normalizeField(orderBy), direction: order === 'desc' ? -1 : 1 };
}

/**
 * Applies an `X-Filter` header value; 400 for bad JSON, unfilterable fields or unknown operators.
 * Without a filter the items come back as they are, still unrendered; a filter reads the response
 * objects, so it renders them all.
 */
export function applyFilter(op: AnyOperation, items: ListItems, header: string | undefined): ListItems {
  if (header === undefined || header.trim() === '') return items;
  let filter: unknown;
  try {
    filter = JSON.parse(header);
  } catch {
    throw badRequest('is not valid JSON', 'X-Filter');
  }
  if (!isRecord(filter)) throw badRequest('must be a JSON object', 'X-Filter');
  const compiler = new FilterCompiler(op);
  const test = compiler.compile(filter, 'X-Filter');
  const ordering = orderOf(op, filter, compiler.problems);
  if (compiler.problems.length > 0) throw new EmulatorError(400, compiler.problems);
  const kept = items.slice(0, items.length).filter(test);
  if (ordering) {
    const path = ordering.field.split('.');
    kept.sort((a, b) => compare(valuesOf(a, path)[0], valuesOf(b, path)[0]) * ordering.direction);
  }
  return kept;
}

export interface PageEnvelope {
  data: unknown[];
  page: number;
  pages: number;
  results: number;
}

/** One page of the (filtered) items; a page past the end is empty. */
export function pageOf(items: ListItems, page = 1, pageSize = DEFAULT_PAGE_SIZE): PageEnvelope {
  const pages = Math.max(1, Math.ceil(items.length / pageSize));
  const start = (page - 1) * pageSize;
  return { data: items.slice(start, start + pageSize), page, pages, results: items.length };
}
