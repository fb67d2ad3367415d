import { setTimeout as sleepFor } from 'node:timers/promises';
import * as z from 'zod';
import packageJson from '../../package.json' with { type: 'json' };
import { exchange } from '../http-exchange.js';
import {
  ApiError,
  type ApiErrorCode,
  errorFromResponse,
  fieldErrorsFromIssues,
  invalidRequestError,
  invalidResponseError,
  type RateLimit,
  toApiError,
} from './errors.js';
import { type Filter, validateFilter } from './filter.js';
import {
  type AnyOperation,
  type HttpMethod,
  type OperationInput,
  type OperationItem,
  type OperationOutput,
  type Page,
  responseSchemaOf,
} from './operation.js';
import {
  type BackoffPolicy,
  DEFAULT_BACKOFF,
  isRetryable,
  mayHaveActed,
  parseRateLimit,
  type ResponseHeaders,
  retryAfterMs,
  retryDelay,
} from './retry.js';
import '../zod-settings.js';

/**
 * The typed client of the cloud API. Every call names a row of the operations table; the row says
 * how to build the request and how to read the answer. Transport concerns (retries, deadlines,
 * rate-limit headers, connection reuse) live here so callers only see typed results or `ApiError`.
 */

export const DEFAULT_BASE_URL = 'https://api.cloud.example.com/v4';
export const DEFAULT_USER_AGENT = `cloud-chatops/${packageJson.version}`;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 3;
/** The largest page the API serves: fewest round trips when listing everything. */
export const LIST_ALL_PAGE_SIZE = 500;
/**
 * Pages fetched at once after the first. Listing 5,000 nodes is 10 pages of 500: with 10 at a
 * time the rest arrive in one round trip, so the whole list takes about two. The API allows 200
 * list requests a minute per user, and a 429 is waited out, so 10 stays well inside it.
 */
export const DEFAULT_LIST_CONCURRENCY = 10;

/** The request the client hands to its transport: one attempt of one call. */
export interface DispatchedRequest {
  readonly origin: string;
  readonly path: string;
  readonly method: HttpMethod;
  readonly headers: Record<string, string>;
  readonly body: string | null;
  readonly signal: AbortSignal;
}

/** The answer, read in full by `body.text()`. */
export interface DispatchedAnswer {
  readonly statusCode: number;
  readonly headers: ResponseHeaders;
  readonly body: { text(): Promise<string> };
}

/**
 * What the client needs of an HTTP client: undici's `Dispatcher.request` shape, which tests fill
 * with undici's `MockAgent` and the listing bench with one that spreads requests over several API
 * processes; in production it is `nodeDispatcher`.
 */
export interface RequestDispatcher {
  request(request: DispatchedRequest): Promise<DispatchedAnswer>;
}

/** Connecting to the API takes at most this long; a request that never connected is sent again. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * The production transport: `node:http(s)` with the process's keep-alive connections
 * (`keepAliveAgent`). The client's deadline arrives as the signal; nothing else times it out.
 */
export const nodeDispatcher: RequestDispatcher = {
  async request({ origin, path, method, headers, body, signal }) {
    const answer = await exchange({
      url: new URL(path, origin),
      method,
      headers,
      body: body ?? undefined,
      service: 'the cloud API',
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      signal,
    });
    return {
      statusCode: answer.status,
      headers: answer.headers,
      body: { text: async () => answer.body.toString('utf8') },
    };
  },
};

/** One attempt of one call, for logs and metrics. */
export interface ApiCallEvent {
  operationId: string;
  method: HttpMethod;
  /** 1 for the first try. */
  attempt: number;
  /** Undefined when no response arrived (network failure, timeout, abort). */
  status: number | undefined;
  durationMs: number;
  /** `retry` when another attempt follows. */
  outcome: 'success' | 'retry' | 'error';
  errorCode: ApiErrorCode | undefined;
  /** The token's scopes as the API reported them (`X-OAuth-Scopes`), when it did. */
  oauthScopes?: string | undefined;
}

export interface ApiClientOptions {
  baseUrl?: string | undefined;
  /** The user's personal access token; public operations work without one. */
  token?: string | undefined;
  userAgent?: string | undefined;
  dispatcher?: RequestDispatcher | undefined;
  /** Budget of one call, retries and waits included, unless the call sets an earlier deadline. */
  timeoutMs?: number | undefined;
  /** Further attempts after the first one. */
  maxRetries?: number | undefined;
  backoff?: BackoffPolicy | undefined;
  now?: (() => number) | undefined;
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Uniform in [0, 1): the jitter of the backoff. */
  random?: (() => number) | undefined;
  /** Called after every attempt; failures of the hook are ignored. */
  onResponse?: ((event: ApiCallEvent) => void) | undefined;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** Epoch milliseconds; no attempt or wait runs past it. */
  deadline?: number | undefined;
  /** Overrides the client's budget for this call. */
  timeoutMs?: number | undefined;
  filter?: Filter | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
}

export interface ListAllOptions extends Omit<CallOptions, 'page'> {
  /** Pages fetched at the same time after the first one. */
  concurrency?: number | undefined;
  /** Stop after this many pages (the result says whether the list is complete). */
  maxPages?: number | undefined;
}

export interface ListAllResult<T> {
  /** Items of every fetched page, in page order. */
  data: T[];
  /** Total items the API reported. */
  results: number;
  /** Total pages the API reported. */
  pages: number;
  /** False when `maxPages` (or an operation without page parameters) left pages unfetched. */
  complete: boolean;
}

interface PreparedRequest {
  method: HttpMethod;
  /** Path and query, below the origin. */
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

type ExchangeResult =
  | { ok: true; value: unknown; status: number; oauthScopes: string | undefined }
  | { ok: false; error: ApiError };

/**
 * Each operation's response schema, compiled by zod (`z.compile`) from the second answer a process
 * reads on. Compiling costs 5-12 ms per schema, more than one answer saves, so a process that reads
 * an operation once (a cold start running one command) never pays it; a process that reads more
 * (the pages of a list, a warm function) gets a parser that builds no intermediate results per
 * field: parsing a page of 500 nodes takes about a third less time and leaves far less garbage
 * behind, which is most of what the pages of `listAll` cost when they arrive together. The
 * compiled schema accepts, refuses and reports exactly what the schema does: an answer its fast
 * path does not accept is parsed again by zod's own parser, whose issues are the ones reported.
 */
interface ResponseParser {
  schema: z.ZodType;
  compiled: boolean;
}

const responseParsers = new WeakMap<AnyOperation, ResponseParser>();

function responseSchemaFor(op: AnyOperation): z.ZodType {
  const parser = responseParsers.get(op);
  if (!parser) {
    const schema = responseSchemaOf(op);
    responseParsers.set(op, { schema, compiled: false });
    return schema;
  }
  if (!parser.compiled) {
    parser.schema = z.compile(parser.schema);
    parser.compiled = true;
  }
  return parser.schema;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function queryValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function assertPositiveInteger(op: AnyOperation, field: string, value: number | undefined) {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
    throw invalidRequestError(op.id, [{ field, reason: 'must be a whole number of 1 or more' }]);
  }
}

export class ApiClient {
  readonly baseUrl: string;
  readonly #origin: string;
  readonly #basePath: string;
  readonly #token: string | undefined;
  readonly #userAgent: string;
  readonly #dispatcher: RequestDispatcher;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #backoff: BackoffPolicy;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #onResponse: ((event: ApiCallEvent) => void) | undefined;
  #lastRateLimit: RateLimit | undefined;

  constructor(options: ApiClientOptions = {}) {
    this.baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
    const url = new URL(this.baseUrl);
    this.#origin = url.origin;
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#token = options.token || undefined;
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.#dispatcher = options.dispatcher ?? nodeDispatcher;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? ((ms, signal) => sleepFor(ms, undefined, signal ? { signal } : {}));
    this.#random = options.random ?? Math.random;
    this.#onResponse = options.onResponse;
  }

  /** The rate-limit headers of the latest response that carried them. */
  get lastRateLimit(): RateLimit | undefined {
    return this.#lastRateLimit;
  }

  /**
   * Runs one operation: validates the input, sends it (retrying what is safe) and parses the
   * answer. For lists prefer `paginate` or `listAll`, whose result types always carry the page
   * envelope.
   */
  async call<O extends AnyOperation>(
    op: O,
    input: OperationInput<O>,
    options: CallOptions = {},
  ): Promise<OperationOutput<O>> {
    try {
      return (await this.#run(op, input, options)) as OperationOutput<O>;
    } catch (error) {
      throw this.#toSafeError(error, op);
    }
  }

  /** One page of a paginated operation. */
  async paginate<O extends AnyOperation>(
    op: O,
    input: OperationInput<O>,
    options: CallOptions = {},
  ): Promise<Page<OperationItem<O>>> {
    try {
      if (!op.paginated) {
        throw invalidRequestError(op.id, [{ reason: `${op.id} is not a paginated list` }]);
      }
      return (await this.#run(op, input, options)) as Page<OperationItem<O>>;
    } catch (error) {
      throw this.#toSafeError(error, op);
    }
  }

  /**
   * Every item of a paginated operation: page 1 first (it tells how many pages there are), then
   * the remaining pages in parallel, at most `concurrency` at a time. The first failure cancels
   * the pages still in flight and is thrown.
   */
  async listAll<O extends AnyOperation>(
    op: O,
    input: OperationInput<O>,
    options: ListAllOptions = {},
  ): Promise<ListAllResult<OperationItem<O>>> {
    const { concurrency = DEFAULT_LIST_CONCURRENCY, maxPages, ...callOptions } = options;
    try {
      assertPositiveInteger(op, 'concurrency', concurrency);
      assertPositiveInteger(op, 'maxPages', maxPages);
      const requestedSize = isRecord(input) ? input.page_size : undefined;
      const pageSize =
        callOptions.pageSize ?? (typeof requestedSize === 'number' ? requestedSize : LIST_ALL_PAGE_SIZE);
      const pageOptions: CallOptions = op.pageParams ? { ...callOptions, pageSize } : callOptions;

      const first = await this.paginate(op, input, op.pageParams ? { ...pageOptions, page: 1 } : pageOptions);
      const lastPage = op.pageParams ? Math.min(first.pages, maxPages ?? first.pages) : 1;
      const remaining = Array.from({ length: Math.max(0, lastPage - 1) }, (_, i) => i + 2);

      const cancel = new AbortController();
      const signal = callOptions.signal
        ? AbortSignal.any([callOptions.signal, cancel.signal])
        : cancel.signal;
      const rest = await mapWithConcurrency(
        remaining,
        concurrency,
        (page) => this.paginate(op, input, { ...pageOptions, signal, page }),
        () => cancel.abort(),
      );
      return {
        data: [first, ...rest].flatMap((page) => page.data),
        results: first.results,
        pages: first.pages,
        complete: lastPage >= first.pages,
      };
    } catch (error) {
      throw this.#toSafeError(error, op);
    }
  }

  #toSafeError(error: unknown, op: AnyOperation): ApiError {
    return toApiError(error, { operationId: op.id, secrets: this.#token ? [this.#token] : [] });
  }

  async #run(op: AnyOperation, input: unknown, options: CallOptions): Promise<unknown> {
    const request = this.#prepare(op, input, options);
    const budget = options.timeoutMs ?? this.#timeoutMs;
    const deadline = Math.min(options.deadline ?? Number.POSITIVE_INFINITY, this.#now() + budget);
    const callerSignal = options.signal;

    // An earlier attempt that may have been carried out: a repeated DELETE then finds nothing to
    // delete, and its 404 says "gone", not "never there". The caller hears the earlier doubt.
    let mayHaveDeleted: ApiError | undefined;
    for (let attempt = 1; ; attempt++) {
      if (callerSignal?.aborted) throw abortedError(op, callerSignal.reason);
      const remainingMs = deadline - this.#now();
      if (remainingMs <= 0) throw deadlineError(op);

      const started = this.#now();
      const result = await this.#exchange(op, request, remainingMs, callerSignal);
      const durationMs = this.#now() - started;
      if (result.ok) {
        this.#emit({
          op,
          attempt,
          status: result.status,
          durationMs,
          outcome: 'success',
          errorCode: undefined,
          oauthScopes: result.oauthScopes,
        });
        return result.value;
      }

      const { error } = result;
      const delayMs =
        attempt <= this.#maxRetries && isRetryable(request.method, error)
          ? retryDelay(error, attempt, this.#random, this.#backoff)
          : undefined;
      // A wait that would end past the deadline is not started: the caller hears now, with the
      // API's own answer (and its Retry-After), instead of after a sleep that cannot help.
      const retry = delayMs !== undefined && this.#now() + delayMs < deadline;
      this.#emit({
        op,
        attempt,
        status: error.status,
        durationMs,
        outcome: retry ? 'retry' : 'error',
        errorCode: error.code,
      });
      if (!retry) throw error.code === 'not_found' && mayHaveDeleted ? mayHaveDeleted : error;
      if (request.method === 'DELETE' && mayHaveActed(error)) mayHaveDeleted ??= error;
      try {
        await this.#sleep(delayMs, callerSignal);
      } catch (sleepError) {
        throw abortedError(op, sleepError);
      }
    }
  }

  #prepare(op: AnyOperation, input: unknown, options: CallOptions): PreparedRequest {
    if (op.access !== 'public' && !this.#token) {
      throw new ApiError('unauthorized', `${op.id} needs an API token`, { operationId: op.id });
    }
    assertPositiveInteger(op, 'page', options.page);
    assertPositiveInteger(op, 'page_size', options.pageSize);
    if ((options.page !== undefined || options.pageSize !== undefined) && !op.pageParams) {
      throw invalidRequestError(op.id, [{ reason: `${op.id} does not take page or page_size` }]);
    }
    const paging = {
      ...(options.page !== undefined && { page: options.page }),
      ...(options.pageSize !== undefined && { page_size: options.pageSize }),
    };
    const parsed = op.request.safeParse(isRecord(input) ? { ...input, ...paging } : input);
    if (!parsed.success) {
      throw invalidRequestError(op.id, fieldErrorsFromIssues(parsed.error.issues), parsed.error);
    }
    const fields: Record<string, unknown> = isRecord(parsed.data) ? { ...parsed.data } : {};

    const missing: string[] = [];
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = fields[name];
      delete fields[name];
      if (value === undefined || value === null || value === '') {
        missing.push(name);
        return '';
      }
      return encodeURIComponent(String(value));
    });
    if (missing.length > 0) {
      throw invalidRequestError(
        op.id,
        missing.map((field) => ({ field, reason: 'is required' })),
      );
    }

    const query = new URLSearchParams();
    for (const name of op.queryParams) {
      const value = fields[name];
      delete fields[name];
      for (const item of Array.isArray(value) ? value : [value]) {
        if (item !== undefined && item !== null) query.append(name, queryValue(item));
      }
    }

    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.#userAgent,
    };
    if (this.#token) headers.authorization = `Bearer ${this.#token}`;
    if (options.filter !== undefined) {
      headers['x-filter'] = JSON.stringify(validateFilter(op, options.filter));
    }

    let body: string | undefined;
    if (op.method === 'POST' || op.method === 'PUT') {
      body = JSON.stringify(isRecord(parsed.data) ? fields : parsed.data);
      headers['content-type'] = 'application/json';
    }

    const search = query.toString();
    return {
      method: op.method,
      path: `${this.#basePath}${path}${search ? `?${search}` : ''}`,
      headers,
      body,
    };
  }

  /** One attempt: never throws, so the retry loop sees every failure as an `ApiError`. */
  async #exchange(
    op: AnyOperation,
    request: PreparedRequest,
    remainingMs: number,
    callerSignal: AbortSignal | undefined,
  ): Promise<ExchangeResult> {
    const deadlineTimer = new AbortController();
    const timer = setTimeout(() => deadlineTimer.abort(), remainingMs);
    const signal = callerSignal
      ? AbortSignal.any([callerSignal, deadlineTimer.signal])
      : deadlineTimer.signal;
    try {
      const response = await this.#dispatcher.request({
        origin: this.#origin,
        path: request.path,
        method: request.method,
        headers: request.headers,
        body: request.body ?? null,
        signal,
      });
      const bodyText = await response.body.text();
      const headers = response.headers;
      const rateLimit = parseRateLimit(headers);
      if (rateLimit) this.#lastRateLimit = rateLimit;

      const status = response.statusCode;
      if (status >= 200 && status < 300) {
        const scopesHeader = headers['x-oauth-scopes'];
        const oauthScopes = Array.isArray(scopesHeader) ? scopesHeader.join(' ') : scopesHeader;
        return { ok: true, status, value: parseSuccessBody(op, status, bodyText), oauthScopes };
      }
      const retryAfter = status === 429 || status === 503 ? retryAfterMs(headers, this.#now()) : undefined;
      return {
        ok: false,
        error: errorFromResponse({
          status,
          bodyText,
          operationId: op.id,
          retryAfterMs: retryAfter,
          rateLimit,
        }),
      };
    } catch (error) {
      if (error instanceof ApiError) return { ok: false, error };
      if (callerSignal?.aborted) return { ok: false, error: abortedError(op, callerSignal.reason) };
      if (deadlineTimer.signal.aborted) return { ok: false, error: deadlineError(op) };
      return { ok: false, error: toApiError(error, { operationId: op.id }) };
    } finally {
      clearTimeout(timer);
    }
  }

  #emit(event: Omit<ApiCallEvent, 'operationId' | 'method'> & { op: AnyOperation }) {
    if (!this.#onResponse) return;
    const { op, ...rest } = event;
    try {
      this.#onResponse({ operationId: op.id, method: op.method, ...rest });
    } catch {
      // Observability must never change the outcome of a call.
    }
  }
}

function parseSuccessBody(op: AnyOperation, status: number, bodyText: string): unknown {
  let json: unknown = {};
  if (status !== 204 && bodyText.trim() !== '') {
    try {
      json = JSON.parse(bodyText);
    } catch (error) {
      throw new ApiError('invalid_response', `${op.id}: the response is not JSON`, {
        status,
        operationId: op.id,
        errors: [{ reason: 'is not JSON' }],
        cause: error,
      });
    }
  }
  const parsed = responseSchemaFor(op).safeParse(json);
  if (!parsed.success) throw invalidResponseError(op.id, parsed.error.issues);
  return parsed.data;
}

function deadlineError(op: AnyOperation): ApiError {
  return new ApiError('timeout', `${op.id}: no answer from the API before the deadline`, {
    operationId: op.id,
  });
}

function abortedError(op: AnyOperation, cause: unknown): ApiError {
  return new ApiError('aborted', `${op.id}: the request was cancelled`, { operationId: op.id, cause });
}

/**
 * Runs `task` over `items` with at most `limit` running at once; results keep the items' order.
 * After the first failure no new task starts, `onFailure` runs (to cancel those in flight), and
 * that first failure is thrown once every running task has settled.
 */
async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
  onFailure: () => void,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;

  async function worker() {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        results[index] = await task(items[index] as T);
      } catch (error) {
        if (failure === undefined) {
          failure = { error };
          onFailure();
        }
      }
    }
  }

  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return results;
}
