import type { Logger } from '@aws-lambda-powertools/logger';
import type { ApiCallEvent, ApiClient } from '../api/client.js';
import { type ApiSettings, createApiClient } from '../api/client-factory.js';
import { ApiError } from '../api/errors.js';
import type { Filter } from '../api/filter.js';
import type { AnyOperation } from '../api/operation.js';
import { isOutcomeInDoubt } from '../api/outcome.js';
import { recordChange } from '../changes/audit.js';
import { helpFitFor } from '../changes/guardrails.js';
import { SLASH_COMMAND } from '../commands/registry.js';
import { commandNameOf } from '../commands/usage.js';
import { notice, type Reply, visibilityOf } from '../slack-kit/reply.js';
import { formatNumber } from '../slack-kit/text.js';
import type { ReadAhead, Store, TokenLookup } from '../store/index.js';
import { type ListRead, readListWindow } from './list-reader.js';
import { withChangeAuthor } from './render/change-author.js';
import { ListLayout } from './render/list.js';
import { renderOperationResult } from './render/result.js';
import { resolveToken } from './token-resolution.js';

/**
 * Runs one API operation for one Slack user with that user's linked token, and turns the result
 * (or the failure) into a reply. Both the Slack function (inline) and the worker (handed off)
 * use it, so a command answers the same way whichever path it took.
 */

export interface RunnerDeps {
  readonly store: Store;
  readonly api: ApiSettings;
  readonly logger: Logger;
}

export interface OperationRequest {
  readonly team: string;
  readonly user: string;
  readonly channel: string;
  readonly op: AnyOperation;
  readonly input: Readonly<Record<string, unknown>>;
  readonly options: {
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
  };
  /** Set when the operation runs because an approval request was approved. */
  readonly approvalId?: string | undefined;
}

export interface RunControl {
  readonly signal?: AbortSignal | undefined;
  readonly deadline?: number | undefined;
  /** Receives the API's parsed result of a successful call (status watches need it raw). */
  readonly onOutput?: ((output: unknown) => void) | undefined;
  /** Runs with the caller's client just before the call (a create reads its list's baseline). */
  readonly beforeCall?: ((client: ApiClient) => Promise<void>) | undefined;
  /** Sees every call the run makes to the API, retries included, besides the settings' own hook. */
  readonly onApiCall?: ((event: ApiCallEvent) => void) | undefined;
  /** The caller's items, read with the request's claim (`RequestContext.callerRead`). */
  readonly callerRead?: ReadAhead | undefined;
  /** The caller's token, already being looked up for the request's own team and user. */
  readonly tokenLookup?: Promise<TokenLookup> | undefined;
}

/**
 * Calls the API and renders the result. API failures become replies here; anything else
 * (including aborts, which mean the caller gave up) propagates.
 */
export async function runOperation(deps: RunnerDeps, request: OperationRequest, control: RunControl = {}) {
  const { op, input, options, team, user } = request;
  const resolution = await resolveToken(deps.store, team, user, op, control.tokenLookup);
  if (!resolution.ok) return resolution.reply;

  // Read while the API answers: the buttons of the reply offer only what may run here.
  const fit = helpFitFor(deps.store, team, user, request.channel, control.callerRead);
  const client = createApiClient(withCallHook(deps.api, control.onApiCall), resolution.token);
  const filter = options.filter as Filter | undefined;
  const callOptions = {
    signal: control.signal,
    deadline: control.deadline,
    ...(filter && { filter }),
  };
  try {
    await control.beforeCall?.(client);
    if (op.paginated && !options.json) return await answerList(client, request, control, callOptions, fit);
    let output: unknown;
    if (op.paginated && options.all) {
      const all = await client.listAll(op, input, callOptions);
      output = { data: all.data, page: 1, pages: 1, results: all.results };
    } else if (op.paginated) {
      output = await client.paginate(op, input, {
        ...callOptions,
        page: options.page,
        pageSize: options.pageSize,
      });
    } else {
      output = await client.call(op, input, callOptions);
    }
    control.onOutput?.(output);
    const allowed = (await fit)?.allows;
    const rendered = renderOperationResult(op, { ...input }, output, {
      page: options.page,
      pageSize: options.pageSize,
      filter: options.filter ? { ...options.filter } : undefined,
      all: options.all,
      json: options.json,
      allowed,
    });
    if (op.method !== 'GET') await recordChange(deps, request, 'succeeded', undefined, output);
    const visibility = visibilityOf(op);
    // The channel sees the bot's message: it says whose change it is.
    const shown = visibility === 'in_channel' ? withChangeAuthor(rendered, user, op) : rendered;
    return { text: shown.text, blocks: shown.blocks, visibility } satisfies Reply;
  } catch (error) {
    if (!(error instanceof ApiError) || error.code === 'aborted') throw error;
    if (error.code === 'timeout' && control.signal?.aborted) throw error;
    if (error.code === 'unauthorized' && resolution.profile) {
      await deps.store.tokenLinks.markInvalid(team, user, resolution.profile);
    }
    if (op.method !== 'GET') {
      // A change that may have happened is not written down as failed: the caller finds out.
      const result = isOutcomeInDoubt(op, error) ? 'in_doubt' : 'failed';
      await recordChange(deps, request, result, error.code);
    }
    throw error;
  }
}

/** A list as messages the person pages through (`--all`: one line an item). */
async function answerList(
  client: ApiClient,
  request: OperationRequest,
  control: RunControl,
  callOptions: { signal?: AbortSignal | undefined; deadline?: number | undefined; filter?: Filter },
  fit: ReturnType<typeof helpFitFor>,
): Promise<Reply> {
  const { op, input, options } = request;
  // Pages are packed the same for everyone; only the rows' buttons follow what may run here.
  const layout = new ListLayout(
    op,
    { ...input },
    { filter: options.filter ? { ...options.filter } : undefined, compact: options.all },
  );
  const position = { page: options.page, start: options.start, previousStart: options.previousStart };
  const read = await readListWindow(client, op, input, layout, position, callOptions);
  if (!read.ok) return notice(listReadRefusal(op, input, read));
  const { window } = read;
  control.onOutput?.({
    data: window.items,
    page: window.page,
    pages: window.pages ?? window.page,
    results: window.results,
  });
  const allowed = (await fit)?.allows;
  const rendered = layout.render(window, allowed);
  return { text: rendered.text, blocks: rendered.blocks, visibility: visibilityOf(op) };
}

function listReadRefusal(
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  read: Exclude<ListRead, { ok: true }>,
): string {
  const ids = op.pathParams.map((name) => ` ${String(input[name])}`).join('');
  const command = `\`${SLASH_COMMAND} ${commandNameOf(op)}${ids}\``;
  if (read.reason === 'not-a-page-start') {
    return `That button is out of date: the list changed since it was shown. Run ${command} again.`;
  }
  const size =
    read.pages === undefined || read.pages === 0
      ? `it has ${formatNumber(read.results)} ${read.results === 1 ? 'item' : 'items'}`
      : `it has ${formatNumber(read.pages)} ${read.pages === 1 ? 'page' : 'pages'}`;
  return `That page is past the end of the list: ${size}. Run ${command} for the first page.`;
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
