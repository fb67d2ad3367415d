import type { Logger } from '@aws-lambda-powertools/logger';
import type { ApiCallEvent, ApiClient, CallOptions } from '../api/client.js';
import { type ApiSettings, createApiClient } from '../api/client-factory.js';
import { ApiError } from '../api/errors.js';
import type { Filter } from '../api/filter.js';
import { isOutcomeInDoubt } from '../api/in-doubt.js';
import { recordChange } from '../changes/audit.js';
import type { ChangeRequest } from '../changes/ports.js';
import { requesterToken, type TokenProblem } from '../changes/tokens.js';
import type { Store, TokenLookup } from '../store/index.js';

/**
 * Runs one API operation for one person, with that person's linked token: the core use case under
 * every surface. It resolves the token (none for a public operation), calls the API, audits a
 * change with how it went (a change that may have happened is written down as in doubt, never as
 * failed), and marks a token the API rejected, so the person's next command asks for a new one.
 * The answer is data; each surface words it (Slack: `lib/slack/operation-runner.ts`).
 */

export interface OperationDeps {
  readonly store: Store;
  readonly api: ApiSettings;
  readonly logger: Logger;
}

export interface OperationOptions {
  readonly all?: boolean | undefined;
  /** The page the person sees (for `--json`, the API's page). */
  readonly page?: number | undefined;
  /** Where that page starts in the whole list, when a Next or Previous button knows. */
  readonly start?: number | undefined;
  /** Where the page before it starts, when the button knows. */
  readonly previousStart?: number | undefined;
  /** The whole list as a file to the person's DM instead of a message. */
  readonly export?: 'csv' | 'json' | undefined;
  /** The API's page size; only `--json` shows API pages as they are. */
  readonly pageSize?: number | undefined;
  readonly json?: boolean | undefined;
  readonly filter?: Readonly<Record<string, unknown>> | undefined;
}

/** One operation for one person, in one channel. */
export interface OperationRequest extends ChangeRequest {
  readonly options: OperationOptions;
}

export interface OperationControl {
  readonly signal?: AbortSignal | undefined;
  readonly deadline?: number | undefined;
  /** Runs with the caller's client just before the call (a create reads its list's baseline). */
  readonly beforeCall?: ((client: ApiClient) => Promise<void>) | undefined;
  /** Sees every call the run makes to the API, retries included, besides the settings' own hook. */
  readonly onApiCall?: ((event: ApiCallEvent) => void) | undefined;
  /** The caller's token, already being looked up for the request's own team and user. */
  readonly tokenLookup?: Promise<TokenLookup> | undefined;
}

export type OperationOutcome<Output> =
  /** Nothing was called: the person has no usable token for it (`profile` names which). */
  | { readonly kind: 'no_token'; readonly problem: TokenProblem; readonly profile: string }
  | { readonly kind: 'answered'; readonly output: Output };

/**
 * How a surface reads the API's answer when the operation's own call is not the whole of it (a
 * list read page by page to fill one message). It runs with the person's client.
 */
export type ApiRead<Output> = (client: ApiClient, options: CallOptions) => Promise<Output>;

/**
 * Calls the operation as the request asks: one call, one page of a list (`--json`), or every page
 * (`--all` with `--json`). API failures are thrown after they are written down; so is anything
 * else (an abort means the caller gave up).
 */
export function runOperation(
  deps: OperationDeps,
  request: OperationRequest,
  control: OperationControl = {},
): Promise<OperationOutcome<unknown>> {
  return runOperationWith(deps, request, control, (client, options) => callAsAsked(client, request, options));
}

/** `runOperation` with the surface's own read of the answer (see `ApiRead`). */
export async function runOperationWith<Output>(
  deps: OperationDeps,
  request: OperationRequest,
  control: OperationControl,
  read: ApiRead<Output>,
): Promise<OperationOutcome<Output>> {
  const { op, team, user } = request;
  const token = await requesterToken(deps.store, team, user, op, control.tokenLookup);
  if (!token.ok) return { kind: 'no_token', problem: token.problem, profile: token.profile };

  const client = createApiClient(withCallHook(deps.api, control.onApiCall), token.token);
  const filter = request.options.filter as Filter | undefined;
  const options: CallOptions = {
    signal: control.signal,
    deadline: control.deadline,
    ...(filter && { filter }),
  };
  try {
    await control.beforeCall?.(client);
    const output = await read(client, options);
    if (op.method !== 'GET') await recordChange(deps, request, 'succeeded', undefined, output);
    return { kind: 'answered', output };
  } catch (error) {
    if (!(error instanceof ApiError) || error.code === 'aborted') throw error;
    if (error.code === 'timeout' && control.signal?.aborted) throw error;
    if (error.code === 'unauthorized' && token.profile) {
      await deps.store.tokenLinks.markInvalid(team, user, token.profile);
    }
    if (op.method !== 'GET') {
      // A change that may have happened is not written down as failed: the caller finds out.
      const result = isOutcomeInDoubt(op, error) ? 'in_doubt' : 'failed';
      await recordChange(deps, request, result, error.code);
    }
    throw error;
  }
}

async function callAsAsked(
  client: ApiClient,
  request: OperationRequest,
  options: CallOptions,
): Promise<unknown> {
  const { op, input } = request;
  if (op.paginated && request.options.all) {
    const all = await client.listAll(op, input, options);
    return { data: all.data, page: 1, pages: 1, results: all.results };
  }
  if (op.paginated) {
    return client.paginate(op, input, {
      ...options,
      page: request.options.page,
      pageSize: request.options.pageSize,
    });
  }
  return client.call(op, input, options);
}

function withCallHook(api: ApiSettings, hook: ((event: ApiCallEvent) => void) | undefined): ApiSettings {
  if (!hook) return api;
  const own = api.onCall;
  return {
    ...api,
    onCall: (event) => {
      hook(event);
      own?.(event);
    },
  };
}
