import type { ApiClient } from '../api/client.js';
import type { AnyOperation } from '../api/operation.js';
import { readPriceBeforeRunning } from '../changes/cost.js';
import { helpFitFor } from '../changes/guardrails.js';
import { SLASH_COMMAND } from '../commands/registry.js';
import { commandNameOf } from '../commands/usage.js';
import {
  type OperationControl,
  type OperationDeps,
  type OperationRequest,
  runOperation,
  runOperationWith,
} from '../core/operations.js';
import { type RenderedMessage, sectionBlock } from '../slack-kit/blocks.js';
import { notice, type Reply, visibilityOf } from '../slack-kit/reply.js';
import { formatNumber } from '../slack-kit/text.js';
import type { ReadAhead } from '../store/index.js';
import { type ListRead, readListWindow } from './list-reader.js';
import { withChangeAuthor } from './render/change-author.js';
import { priceLines } from './render/cost.js';
import { ListLayout } from './render/list.js';
import { renderOperationResult } from './render/result.js';
import { tokenProblemReply } from './token-resolution.js';

/**
 * Runs one API operation for one Slack user (`runOperation` in `lib/core/operations.ts`) and turns
 * the result, or the failure, into a reply. Both the Slack function (inline) and the worker (handed
 * off) use it, so a command answers the same way whichever path it took.
 */

export type RunnerDeps = OperationDeps;
export type { OperationRequest };

export interface RunControl extends OperationControl {
  /** Receives the API's parsed result of a successful call (status watches need it raw). */
  readonly onOutput?: ((output: unknown) => void) | undefined;
  /** The caller's items, read with the request's claim (`RequestContext.callerRead`). */
  readonly callerRead?: ReadAhead | undefined;
}

/**
 * Calls the API and renders the result. API failures are thrown, written down by the core, for
 * the one place that answers errors; anything else (including aborts, which mean the caller gave
 * up) propagates too.
 */
export async function answerOperation(deps: RunnerDeps, request: OperationRequest, control: RunControl = {}) {
  const { op, input, options, team, user } = request;
  // Read while the API answers: the buttons of the reply offer only what may run here.
  let fit: ReturnType<typeof helpFitFor> | undefined;
  // A change that bills says what it changes and at what price, whatever the policy.
  let price: Awaited<ReturnType<typeof readPriceBeforeRunning>>;
  const core = {
    ...control,
    beforeCall: async (client: ApiClient) => {
      fit = helpFitFor(deps.store, team, user, request.channel, control.callerRead);
      if (op.method !== 'GET') price = await readPriceBeforeRunning(client, op, input);
      await control.beforeCall?.(client);
    },
  };
  if (op.paginated && !options.json) return answerList(deps, request, core, () => fit);
  const outcome = await runOperation(deps, request, core);
  if (outcome.kind === 'no_token') return tokenProblemReply(outcome);
  const { output } = outcome;
  control.onOutput?.(output);
  const allowed = (await fit)?.allows;
  const change = await price?.settled;
  const result = renderOperationResult(op, { ...input }, output, {
    page: options.page,
    pageSize: options.pageSize,
    filter: options.filter ? { ...options.filter } : undefined,
    all: options.all,
    json: options.json,
    allowed,
  });
  const rendered = change ? withPriceLines(result, priceLines(change)) : result;
  const visibility = visibilityOf(op);
  // The channel sees the bot's message: it says whose change it is.
  const shown = visibility === 'in_channel' ? withChangeAuthor(rendered, user, op) : rendered;
  return { text: shown.text, blocks: shown.blocks, visibility } satisfies Reply;
}

/** The answer with what the change bills for, from → to and its price, under it. */
function withPriceLines(rendered: RenderedMessage, lines: readonly string[]): RenderedMessage {
  const text = lines.join('\n');
  return { text: `${rendered.text}\n${text}`, blocks: [...rendered.blocks, sectionBlock(text)] };
}

/** A list as messages the person pages through (`--all`: one line an item). */
async function answerList(
  deps: RunnerDeps,
  request: OperationRequest,
  control: RunControl,
  startedFit: () => ReturnType<typeof helpFitFor> | undefined,
): Promise<Reply> {
  const { op, input, options } = request;
  // Pages are packed the same for everyone; only the rows' buttons follow what may run here.
  const layout = new ListLayout(
    op,
    { ...input },
    { filter: options.filter ? { ...options.filter } : undefined, compact: options.all },
  );
  const position = { page: options.page, start: options.start, previousStart: options.previousStart };
  const outcome = await runOperationWith(deps, request, control, (client, callOptions) =>
    readListWindow(client, op, input, layout, position, callOptions),
  );
  if (outcome.kind === 'no_token') return tokenProblemReply(outcome);
  const read = outcome.output;
  if (!read.ok) return notice(listReadRefusal(op, input, read));
  const { window } = read;
  control.onOutput?.({
    data: window.items,
    page: window.page,
    pages: window.pages ?? window.page,
    results: window.results,
  });
  const allowed = (await startedFit())?.allows;
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
