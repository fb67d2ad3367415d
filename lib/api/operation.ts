import * as z from 'zod';
import '../zod-settings.js';
import { overLongWords } from '../truncate.js';

/**
 * One row of the operations table. Everything the bot knows about an API operation lives here:
 * the client, the slash commands, their help and validation, the approval flow and the emulator
 * are all derived from these rows.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export const SCOPE_AREAS = ['account', 'databases', 'volumes', 'images', 'nodes', 'events'] as const;
export type ScopeArea = (typeof SCOPE_AREAS)[number];
export type ScopeLevel = 'read_only' | 'read_write';
export type Scope = `${ScopeArea}:${ScopeLevel}`;

/** Command groups, following the provider's CLI. */
export type Group =
  | 'profile'
  | 'managed'
  | 'databases'
  | 'volumes'
  | 'images'
  | 'nodes'
  | 'regions'
  | 'events';

/**
 * Who may call the operation beyond the token scope:
 * - `public`: works without a token (engines, types, kernels, regions; public images).
 * - `any-token`: any valid token, whatever its scopes.
 * - `scoped`: the listed scopes are required.
 */
export type Access = 'public' | 'any-token' | 'scoped';

/** Grants a restricted user needs (`/profile/grants`). */
export type Grant =
  | 'add_databases'
  | 'add_volumes'
  | 'add_nodes'
  | 'add_images'
  | 'read_only'
  | 'read_write'
  | 'unrestricted_only';

/**
 * What an operation does to the account, for channel guardrails: reads; changes; changes that
 * start charges; destructive ones. Each row's class comes from its own fields (see `classOf`).
 */
export const OPERATION_CLASSES = ['read', 'change', 'costs', 'destructive'] as const;
export type OperationClass = (typeof OPERATION_CLASSES)[number];

/** Why an operation needs approval: shown on the approval card, in the words of the documents. */
export interface Destructive {
  readonly consequence: string;
}

/**
 * The request of an operation is one flat object: path parameters, query parameters and body
 * fields side by side, as a person types them (`/cloud volumes attach 12 --node-id 34`). The
 * client splits it by `pathParams` and `queryParams`; everything else is the JSON body.
 */
export interface OperationSpec<
  Req extends z.ZodType = z.ZodType,
  Res extends z.ZodType = z.ZodType,
  Paginated extends boolean = boolean,
  Id extends string = string,
> {
  /** Stable id: `<group>.<action>`, e.g. `volumes.attach`; a literal type, so lookups by id are typed. */
  readonly id: Id;
  readonly group: Group;
  /** CLI action name, e.g. `list`, `backup-restore`, `mysql-backup-restore`, `issues-list`. */
  readonly action: string;
  readonly aliases?: readonly string[];
  readonly summary: string;
  readonly method: HttpMethod;
  /** Path template relative to the base URL, e.g. `/volumes/{volumeId}/attach`. */
  readonly path: string;
  readonly access: Access;
  /** Scopes required (all of them). Empty for `public` and `any-token`. */
  readonly scopes: readonly Scope[];
  readonly grants?: readonly Grant[];
  /** The 200 body is the pagination envelope `{data, page, pages, results}`. */
  readonly paginated: Paginated;
  /** Whether `page`/`page_size` may be sent (some paginated lists do not declare them). */
  readonly pageParams: boolean;
  /** Fields usable in `X-Filter` (and `+order_by`). */
  readonly filterable: readonly string[];
  /** Fields that must not be used with `+order_by`. */
  readonly unorderable?: readonly string[];
  readonly destructive?: Destructive;
  /** Output that only the person who asked may see (new token, credentials, 2FA secret). */
  readonly sensitive: boolean;
  /** Long-running: the result's status should be watched (e.g. database provisioning). */
  readonly watch?: WatchSpec;
  /** May bill the account. */
  readonly charges?: boolean;
  /** The account events this change writes, to read back a change whose answer was lost. */
  readonly events?: EventEvidence;
  /** Derived from `method`, `destructive` and `charges`: the guardrail class of the row. */
  readonly class: OperationClass;
  /** Path parameter names, in the order they appear in the path (positional CLI arguments). */
  readonly pathParams: readonly string[];
  readonly queryParams: readonly string[];
  /** The flat request (path + query + body), with the documents' rules. */
  readonly request: Req;
  /** The success body (for paginated operations: the item; the envelope is added by `responseSchemaOf`). */
  readonly response: Res;
  /** An example invocation for help, without the `/cloud` prefix. */
  readonly example: string;
}

export type AnyOperation = OperationSpec<z.ZodType, z.ZodType, boolean, string>;

/**
 * Which account events (API-FACTS-MORE.md §8) show that a change of this row reached the API:
 * the `action` values it writes, and which input field holds the event's `entity.id` (disk events
 * carry the node's id, §8; a create's entity is what it creates). Or, when the documents name no
 * event for the change, why not (`none`), so a row never lacks both silently.
 */
export type EventEvidence =
  | {
      readonly actions: readonly string[];
      /**
       * The input field holding the event's `entity.id`; absent when the change creates the
       * entity, whose id is the answer's `id` (a new volume, a new SSH key).
       */
      readonly entityId?: string;
      /** Where the documents name these actions, e.g. `API-FACTS-MORE.md §2.1`. */
      readonly source: string;
    }
  | { readonly none: string };

/** How to follow a long operation until its resource settles (see `lib/changes/status-watch.ts`). */
export interface WatchSpec {
  readonly statusField: string;
  readonly final: readonly string[];
  /** Id of the operation that reads the resource. */
  readonly view: string;
  /**
   * For operations whose result is not the resource (a restore answers `{}`): which input field
   * gives each path parameter of `view`, e.g. `{ nodeId: 'node_id' }` for the restore target.
   */
  readonly target?: Readonly<Record<string, string>>;
}

export type OperationInput<O extends AnyOperation> = z.input<O['request']>;
export type OperationItem<O extends AnyOperation> = z.output<O['response']>;
export type OperationOutput<O extends AnyOperation> = O['paginated'] extends true
  ? Page<z.output<O['response']>>
  : z.output<O['response']>;

export interface Page<T> {
  data: T[];
  page: number;
  pages: number;
  results: number;
}

const PATH_PARAM = /\{(\w+)\}/g;

export function pathParamsOf(path: string): string[] {
  return [...path.matchAll(PATH_PARAM)].map((m) => m[1] ?? '');
}

type DefineInput<
  G extends Group,
  A extends string,
  Req extends z.ZodType,
  Res extends z.ZodType,
  Paginated extends boolean,
> = Omit<
  OperationSpec<Req, Res, Paginated>,
  | 'request'
  | 'response'
  | 'id'
  | 'group'
  | 'action'
  | 'pathParams'
  | 'queryParams'
  | 'pageParams'
  | 'filterable'
  | 'sensitive'
  | 'access'
  | 'class'
> & {
  readonly group: G;
  readonly action: A;
  readonly access?: Access;
  readonly pageParams?: boolean;
  readonly filterable?: readonly string[];
  readonly sensitive?: boolean;
  readonly queryParams?: readonly string[];
  /**
   * The schemas, or functions that build them: a function is called on the first read of the
   * row's `request` or `response`, so loading the table builds only the schemas of the
   * operations a process uses (a cold start parses one command).
   */
  readonly request: Req | (() => Req);
  readonly response: Res | (() => Res);
};

/**
 * A schema (or a shape of schemas) built on its first use, once: the table's shared schemas are
 * declared with it so that loading the table builds none of them, only the ones a command reads.
 * A plain memoized builder rather than `z.lazy`, which would change how the schema parses.
 */
export function lazySchema<T>(build: () => T): () => T {
  let built: { readonly value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}

/** A schema given as a function is built on first read, once. */
function builtOnFirstRead<S extends z.ZodType>(given: S | (() => S)): () => S {
  return typeof given === 'function' ? lazySchema(given) : () => given;
}

/** Builds an operation row, deriving what can be derived (id, path parameters, defaults). */
export function defineOperation<
  const G extends Group,
  const A extends string,
  Req extends z.ZodType,
  Res extends z.ZodType,
  const Paginated extends boolean,
>(
  input: DefineInput<G, A, Req, Res, Paginated>,
): OperationSpec<Req, Res, Paginated, `${G}.${A}`> & { readonly group: G } {
  const pageParams = input.pageParams ?? input.paginated;
  const { request, response, ...rest } = input;
  const requestSchema = builtOnFirstRead(request);
  const responseSchema = builtOnFirstRead(response);
  return {
    ...rest,
    get request() {
      return requestSchema();
    },
    get response() {
      return responseSchema();
    },
    id: `${input.group}.${input.action}` as const,
    access: input.access ?? (input.scopes.length > 0 ? 'scoped' : 'any-token'),
    pathParams: pathParamsOf(input.path),
    queryParams: [...(input.queryParams ?? []), ...(pageParams ? ['page', 'page_size'] : [])],
    pageParams,
    filterable: input.filterable ?? [],
    sensitive: input.sensitive ?? false,
    class: classOf(input),
  };
}

/** Destructive wins over costs, costs over a plain change; every GET is a read. */
export function classOf(op: Pick<AnyOperation, 'method' | 'destructive' | 'charges'>): OperationClass {
  if (op.destructive) return 'destructive';
  if (op.method === 'GET') return 'read';
  if (op.charges) return 'costs';
  return 'change';
}

// ---------------------------------------------------------------------------------------------
// Shared schemas

/**
 * Field builders that carry the documents' rules with messages a person can act on. Values are
 * typed (numbers, booleans, arrays): turning Slack text into them is the command parser's job.
 */
function expected(what: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`);
}

export function integer(min?: number, max?: number) {
  let schema = z.number({ error: expected('a whole number') }).int('must be a whole number');
  const range =
    min !== undefined && max !== undefined
      ? `must be between ${min} and ${max}`
      : min !== undefined
        ? `must be ${min} or more`
        : `must be ${max} or less`;
  if (min !== undefined) schema = schema.min(min, range);
  if (max !== undefined) schema = schema.max(max, range);
  return schema;
}

export function text(min?: number, max?: number) {
  let schema = z.string({ error: expected('text') });
  const range =
    min !== undefined && max !== undefined
      ? `must be ${min} to ${max} characters`
      : min !== undefined
        ? `must be at least ${min} characters`
        : `must be at most ${max} characters`;
  if (min !== undefined) schema = schema.min(min, range);
  // Too long is said as every over-long value is: its length and the most it can be.
  if (max !== undefined)
    schema = schema.max(max, {
      error: (issue) => (typeof issue.input === 'string' ? overLongWords(issue.input.length, max) : range),
    });
  return schema;
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: expected(`one of ${values.join(', ')}`) });
}

export function bool() {
  return z.boolean({ error: expected('true or false') });
}

export function textList() {
  return z.array(z.string({ error: expected('text') }), { error: expected('a list') });
}

/** Integer path parameter ids. */
export const IdSchema = integer(1);

/** String path parameter ids (`engineId`, `typeId`, `imageId`). */
export const StringIdSchema = text(1);

/** The API's bounds of `page_size` (published spec: 25..500, default 100). */
export const PAGE_SIZE_MIN = 25;
export const PAGE_SIZE_MAX = 500;

export const PageQuerySchema = z.object({
  page: integer(1).optional(),
  page_size: integer(PAGE_SIZE_MIN, PAGE_SIZE_MAX).optional(),
});

/** A date-time as the API writes it (ISO 8601, UTC, often without a zone suffix). */
export const DateTimeSchema = z.string();

/** `{}` returned by deletes and similar actions; anything extra is ignored. */
export const EmptyResultSchema = z.object({});

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    page: z.number().int(),
    pages: z.number().int(),
    results: z.number().int(),
  });
}

/** The full success-body schema of an operation (the envelope for paginated ones). */
export function responseSchemaOf(op: AnyOperation): z.ZodType {
  return op.paginated ? pageSchema(op.response) : op.response;
}

/** The API's error body. */
export const ApiErrorBodySchema = z.object({
  errors: z.array(
    z.object({
      field: z.string().nullish(),
      reason: z.string(),
    }),
  ),
});
