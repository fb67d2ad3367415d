import { BOOLEAN_SHAPE, type FieldShape } from '../../api/field-shape.js';
import { type AnyOperation, PageQuerySchema } from '../../api/operation.js';
import { isBooleanField } from '../field-shapes.js';
import { convertText, parseJson } from '../field-values.js';
import { didYouMean, suggest } from '../suggest.js';
import { flagNameOf } from '../usage.js';
import {
  type CollectedFlags,
  INTEGER_SHAPE,
  LIST_OPTIONS,
  normalizeFilterName,
  ORDER_SHAPE,
  type RawValue,
  type ReservedOption,
} from './flags.js';
import { clip, type OperationOptions, type Problems, type SortOrder } from './result.js';

/**
 * `--all`, `--page`, `--page-size`, `--order-by`, `--order`, `--json` and the filters of a list
 * (`--filter` JSON and filter flags) → how to fetch and show it. The page fields the operation
 * declares also go into its request, so the schema checks them like any other field.
 */

export function buildListOptions(
  op: AnyOperation,
  root: FieldShape,
  flags: CollectedFlags,
  problems: Problems,
  input: Record<string, unknown>,
): OperationOptions | undefined {
  return new ListOptionsBuilder(op, root, flags, problems).build(input);
}

class ListOptionsBuilder {
  constructor(
    private readonly op: AnyOperation,
    private readonly root: FieldShape,
    private readonly flags: CollectedFlags,
    private readonly problems: Problems,
  ) {}

  build(input: Record<string, unknown>): OperationOptions | undefined {
    const command = `\`${this.op.group} ${this.op.action}\``;
    const single = (option: ReservedOption): RawValue | undefined => {
      const values = this.flags.options.get(option);
      if (values === undefined) return undefined;
      if (values.length > 1) this.problems.messages.push(`--${flagNameOf(option)}: given more than once`);
      return values[0];
    };
    const switchValue = (option: ReservedOption): boolean => {
      const raw = single(option);
      if (raw === undefined) return false;
      if ('switch' in raw) return raw.switch;
      const converted = convertText(raw.text, BOOLEAN_SHAPE, { secret: false });
      if (converted.ok) return converted.value === true;
      this.problems.messages.push(`--${flagNameOf(option)}: ${converted.reason}`);
      return false;
    };
    const textValue = (option: ReservedOption): string | undefined => {
      const raw = single(option);
      if (raw === undefined) return undefined;
      if ('switch' in raw) {
        this.problems.messages.push(`--${flagNameOf(option)}: needs a value`);
        return undefined;
      }
      return raw.text;
    };

    if (!this.op.paginated) {
      for (const option of this.flags.options.keys()) {
        if (LIST_OPTIONS.has(option))
          this.problems.messages.push(
            `--${flagNameOf(option)}: only list actions take it, and ${command} is not one`,
          );
      }
    }
    const all = switchValue('all');
    const json = switchValue('json');
    const page = this.pageNumber('page', textValue('page'));
    const pageSize = this.pageNumber('page_size', textValue('page_size'));
    const pageIssues = PageQuerySchema.safeParse({ page, page_size: pageSize });
    if (!pageIssues.success) {
      for (const issue of pageIssues.error.issues) {
        this.problems.messages.push(`--${flagNameOf(String(issue.path[0] ?? 'page'))}: ${issue.message}`);
      }
    }
    if (all && page !== undefined) this.problems.messages.push('--all: cannot be combined with --page');
    const properties = this.root.properties;
    if (page !== undefined && properties?.has('page')) input.page = page;
    if (pageSize !== undefined && properties?.has('page_size')) input.page_size = pageSize;

    const order = this.orderValue(textValue('order'));
    const orderBy = this.orderByValue(textValue('order_by'));
    if (order !== undefined && orderBy === undefined && !this.flags.options.has('order_by')) {
      this.problems.messages.push('--order: needs --order-by to say which field to sort by');
    }
    const filter = this.filterValue(textValue('filter'));
    if (this.problems.messages.length > 0) return undefined;
    return {
      all,
      json,
      ...(page === undefined ? {} : { page }),
      ...(pageSize === undefined ? {} : { pageSize }),
      ...(filter === undefined ? {} : { filter }),
      ...(orderBy === undefined ? {} : { orderBy }),
      ...(order === undefined ? {} : { order }),
    };
  }

  private pageNumber(option: 'page' | 'page_size', text: string | undefined): number | undefined {
    if (text === undefined) return undefined;
    const converted = convertText(text, INTEGER_SHAPE, { secret: false });
    if (converted.ok && typeof converted.value === 'number') return converted.value;
    if (!converted.ok) this.problems.messages.push(`--${flagNameOf(option)}: ${converted.reason}`);
    return undefined;
  }

  private orderValue(text: string | undefined): SortOrder | undefined {
    if (text === undefined) return undefined;
    const converted = convertText(text.toLowerCase(), ORDER_SHAPE, { secret: false });
    if (converted.ok && (converted.value === 'asc' || converted.value === 'desc')) return converted.value;
    this.problems.messages.push(`--order: ${converted.ok ? 'must be asc or desc' : converted.reason}`);
    return undefined;
  }

  private orderByValue(text: string | undefined): string | undefined {
    if (text === undefined) return undefined;
    const wanted = normalizeFilterName(text);
    const field = this.op.filterable.find((f) => normalizeFilterName(f) === wanted);
    const unorderable = new Set(this.op.unorderable ?? []);
    const sortable = this.op.filterable.filter((f) => !unorderable.has(f));
    if (field !== undefined && !unorderable.has(field)) return field;
    const command = `\`${this.op.group} ${this.op.action}\``;
    if (sortable.length === 0) {
      this.problems.messages.push(`--order-by: ${command} cannot be sorted`);
      return undefined;
    }
    const hint = didYouMean(suggest(text, sortable));
    const why = field === undefined ? 'is not a sortable field' : 'cannot be used to sort';
    this.problems.messages.push(
      `--order-by: ${clip(text)} ${why}; sort by one of ${sortable.join(', ')}.${hint}`,
    );
    return undefined;
  }

  private filterValue(text: string | undefined): Readonly<Record<string, unknown>> | undefined {
    const conditions: Record<string, unknown>[] = [];
    if (text !== undefined) {
      const parsed = parseJson(text);
      if (!parsed.ok && parsed.prototypeKey !== undefined) {
        this.problems.messages.push(`--filter: ${parsed.reason}`);
      } else if (
        !parsed.ok ||
        typeof parsed.value !== 'object' ||
        parsed.value === null ||
        Array.isArray(parsed.value)
      ) {
        this.problems.messages.push(`--filter: must be a JSON object, e.g. '{"label": "web-1"}'`);
      } else {
        conditions.push(parsed.value as Record<string, unknown>);
      }
    }
    for (const { target, values } of this.flags.filters.values()) {
      const converted: unknown[] = [];
      for (const raw of values) {
        if ('switch' in raw) {
          if (isBooleanField(target.shape)) converted.push(raw.switch);
          else this.problems.messages.push(`${target.display}: needs a value`);
          continue;
        }
        const value = convertText(raw.text, target.shape, { secret: false });
        if (value.ok) converted.push(value.value);
        else this.problems.messages.push(`${target.display}: ${value.reason}`);
      }
      // Several values of one field: any of them matches.
      if (converted.length === 1) conditions.push({ [target.key]: converted[0] });
      else if (converted.length > 1)
        conditions.push({ '+or': converted.map((value) => ({ [target.key]: value })) });
    }
    return combineConditions(conditions);
  }
}

/** One condition stays as it is; several share one object when their keys differ, else `+and`. */
function combineConditions(
  conditions: readonly Record<string, unknown>[],
): Readonly<Record<string, unknown>> | undefined {
  if (conditions.length === 0) return undefined;
  if (conditions.length === 1) return conditions[0];
  const keys = conditions.flatMap((c) => Object.keys(c));
  if (new Set(keys).size === keys.length) return Object.assign({}, ...conditions) as Record<string, unknown>;
  return { '+and': conditions };
}
