import type { WebClient } from '@slack/web-api';
import { channelGuard } from '../changes/guardrails.js';
import { notice, type Reply, visibilityOf } from '../slack-kit/reply.js';
import { rateLimitedFor } from '../slack-kit/slack-refusals.js';
import { isStorageUnavailable } from '../store/errors.js';
import type { OperationJob } from '../worker/handoff.js';
import type { BotDeps, RequestContext } from './context.js';
import { ModalNotOpenedError } from './modals.js';
import type { OperationRequest } from './operation-runner.js';
import { guardrailRefusalText } from './render/guardrails.js';

/**
 * Where every listener's request goes once it is parsed: the channel's guardrails, approval,
 * an answer within the inline budget, or a hand-off to the worker; and what becomes of an error.
 * On Lambda the HTTP response leaves only when a listener returns, so nothing here waits for slow
 * work.
 */

// Loaded on first use, so a cold start answers `/cloud help` without them: the runner brings the
// API client, approvals their cards and store calls; what an outcome in doubt is and
// which operations answer with a chart are read from the operations table.
const approvals = () => import('./approval-answers.js');
const runner = () => import('./operation-runner.js');
// Only a failure needs them: the API's error type and the error replies (with the operations table).
const apiErrors = () => import('../api/errors.js');
const errorReplies = () => import('./render/errors.js');
const inDoubt = () => import('../api/in-doubt.js');
const chartOperations = () => import('../reports/chart-operations.js');

/**
 * Starts loading what an inline answer loads (the runner with the API client, and the table of
 * operations that answer with a chart) without waiting, so a listener can overlap it with a round
 * trip it makes first. A failed load surfaces where the module is awaited, not here.
 */
export function preloadInlineAnswer(): void {
  runner().catch(() => undefined);
  chartOperations().catch(() => undefined);
}

/** What a listener asks to run; who asks and where come from the request's context. */
export type OperationAsk = Pick<OperationRequest, 'op' | 'input' | 'options'>;

/**
 * Runs inline when the answer can come within the budget; otherwise hands off. A POST is handed
 * off at once: abandoning it at the budget and running it again in the worker could create a
 * resource twice.
 */
export async function answerOperation(
  deps: BotDeps,
  ctx: RequestContext,
  client: WebClient,
  ask: OperationAsk,
  replaceOriginal = false,
  breakGlassReason?: string,
  reason?: string,
): Promise<Reply> {
  const request: OperationRequest = { ...ask, team: ctx.team, user: ctx.user, channel: ctx.channel };
  const { op } = request;
  const guard = await channelGuard(deps.store, ctx.team, ctx.channel, op, ctx.callerRead);
  if (guard.refusal) return notice(guardrailRefusalText(guard.refusal));
  if (breakGlassReason !== undefined) {
    if (!guard.approvalRequired) {
      return notice(
        '`--break-glass` is only for commands that need approval; this one runs without the flag.',
      );
    }
    return (await approvals()).answerBreakGlass(deps, ctx, client, op, request.input, breakGlassReason);
  }
  if (guard.approvalRequired)
    return (await approvals()).answerApprovalRequest(deps, ctx, client, op, request.input, reason);
  if (reason !== undefined) {
    // Only a request that waits for approval keeps its reason; saying nothing would lose it.
    return notice(
      '`--reason` is for commands that need approval; this one runs without it. Run it again without `--reason`.',
    );
  }
  // A chart is drawn only in the worker: the rasteriser is not in this function's bundle.
  // So is a file: reading a whole list and uploading it takes longer than Slack waits.
  if (op.method === 'POST' || request.options.export || (await chartOperations()).answersWithChart(op))
    return handOff(deps, ctx, client, request, replaceOriginal);

  const budget = new AbortController();
  const timer = setTimeout(() => budget.abort(), deps.inlineBudgetMs);
  try {
    const { answerOperation } = await runner();
    const reply = await answerOperation(deps, request, {
      signal: budget.signal,
      deadline: Date.now() + deps.inlineBudgetMs,
      callerRead: ctx.callerRead,
      tokenLookup: ctx.tokenLookup,
    });
    // A change that went through: the resource's cards follow it, in the worker.
    if (op.method !== 'GET' && reply.visibility === 'in_channel') await handOffCards(deps, ctx, request);
    return reply;
  } catch (error) {
    // Out of time, or a change whose outcome is unknown: the worker finds out without the deadline
    // (only PUTs get here, and sending a PUT again is safe).
    if (
      budget.signal.aborted ||
      (await apiErrors()).isApiError(error, 'timeout') ||
      (await inDoubt()).isOutcomeInDoubt(op, error)
    ) {
      return handOff(deps, ctx, client, request, replaceOriginal);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Hands the cards' update to the worker; a failure only leaves the cards as they are. */
async function handOffCards(deps: BotDeps, ctx: RequestContext, request: OperationRequest): Promise<void> {
  await deps.handoff
    .dispatch({
      kind: 'resource-cards',
      correlationId: ctx.correlationId,
      team: ctx.team,
      user: ctx.user,
      operationId: request.op.id,
      input: { ...request.input },
    })
    .catch((error: unknown) =>
      deps.logger.warn('resource cards not handed off', { correlationId: ctx.correlationId, error }),
    );
}

async function handOff(
  deps: BotDeps,
  ctx: RequestContext,
  client: WebClient,
  request: OperationRequest,
  replaceOriginal: boolean,
): Promise<Reply> {
  // A change is answered to the channel: its working note is posted there, where the answer can
  // take its place. A slash command's own reply cannot be replaced or deleted later, nor can any
  // ephemeral message be edited (SLACK-FACTS, "`response_url` and ephemeral messages").
  // A whole list's file goes to the person's direct messages with the app: its note waits there.
  const note = replaceOriginal
    ? undefined
    : request.options.export
      ? await postWorkingNote(deps, ctx, client, request, 'to the person')
      : visibilityOf(request.op) === 'in_channel'
        ? await postWorkingNote(deps, ctx, client, request, 'in the channel')
        : undefined;
  const job: OperationJob = {
    kind: 'operation',
    correlationId: ctx.correlationId,
    team: ctx.team,
    user: ctx.user,
    channel: ctx.channel,
    ...(ctx.responseUrl ? { responseUrl: ctx.responseUrl } : {}),
    operationId: request.op.id,
    // The job's schema takes 1,000 characters of it (a stored expansion is at most 500).
    ...(ctx.viaAlias ? { aliasLine: ctx.viaAlias.line.slice(0, 1000) } : {}),
    input: { ...request.input },
    options: {
      all: request.options.all ?? false,
      json: request.options.json ?? false,
      ...(request.options.page !== undefined && { page: request.options.page }),
      ...(request.options.start !== undefined && { start: request.options.start }),
      ...(request.options.previousStart !== undefined && { previousStart: request.options.previousStart }),
      ...(request.options.export !== undefined && { export: request.options.export }),
      ...(request.options.pageSize !== undefined && { pageSize: request.options.pageSize }),
      ...(request.options.filter && { filter: { ...request.options.filter } }),
    },
    replaceOriginal,
    ...(note ? { note } : {}),
  };
  try {
    await deps.handoff.dispatch(job);
  } catch (error) {
    // Nothing will answer in the note's place: it goes, and the error is answered instead.
    if (note) await client.chat.delete({ channel: note.channel, ts: note.ts }).catch(() => undefined);
    throw error;
  }
  if (note?.toPerson) {
    return {
      ...notice(
        `:outbox_tray: The whole list goes to your direct messages with the app as a ${request.options.export?.toUpperCase()} file; the app says there how it went.`,
      ),
      outcome: 'handed_off',
    };
  }
  if (note)
    return { text: '', blocks: [], visibility: 'in_channel', outcome: 'handed_off', shownElsewhere: true };
  return {
    // A slash command's first reply is neither replaced nor deleted by a later response, and
    // `chat.update` cannot edit an ephemeral message (SLACK-FACTS, "`response_url` and ephemeral
    // messages"): this note stays, so it says so rather than reading as the answer to come.
    ...notice(
      `:hourglass_flowing_sand: Working on \`${request.op.group} ${request.op.action}\`… its answer comes as a message of its own; this note stays as it is.`,
    ),
    outcome: 'handed_off',
  };
}

/**
 * The message that says the work is under way, which the worker replaces with the answer (or
 * deletes, when the answer is for the person alone and the note is in the channel): a change's in
 * the channel, naming whose it is; a file's in the person's direct messages with the app, where
 * the file comes (posting to a user id opens them). Undefined when the bot cannot post there: the
 * person then gets the note that stays.
 */
async function postWorkingNote(
  deps: BotDeps,
  ctx: RequestContext,
  client: WebClient,
  request: OperationRequest,
  where: 'in the channel' | 'to the person',
): Promise<{ channel: string; ts: string; toPerson?: true } | undefined> {
  const command = `\`${request.op.group} ${request.op.action}\``;
  const working =
    where === 'to the person'
      ? `:outbox_tray: Reading the whole list of ${command} for a ${request.options.export?.toUpperCase()} file…`
      : `:hourglass_flowing_sand: <@${ctx.user}> ran ${command}; working on it… this message becomes its answer.`;
  const said = ctx.viaAlias ? `${ctx.viaAlias.line}\n${working}` : working;
  try {
    const posted = await client.chat.postMessage({
      channel: where === 'to the person' ? ctx.user : ctx.channel,
      text: said,
    });
    if (!posted.ts || !posted.channel) return undefined;
    return where === 'to the person'
      ? { channel: posted.channel, ts: posted.ts, toPerson: true }
      : { channel: posted.channel, ts: posted.ts };
  } catch (error) {
    deps.logger.warn('working note not posted', { correlationId: ctx.correlationId, where, error });
    return undefined;
  }
}

/** Every listener's work goes through here: whatever is thrown becomes a reply, never a crash. */
export async function safely(
  deps: BotDeps,
  ctx: RequestContext,
  operationId: string | undefined,
  work: () => Promise<Reply | undefined>,
): Promise<Reply | undefined> {
  try {
    return await work();
  } catch (error) {
    const referenceId = ctx.correlationId.slice(0, 8);
    if (isStorageUnavailable(error)) {
      // One short line per request: an outage would otherwise bury the logs in identical stacks.
      const cause = error instanceof Error ? error.cause : undefined;
      deps.logger.error('storage unavailable', {
        correlationId: ctx.correlationId,
        operationId,
        reason: error instanceof Error ? error.message : undefined,
        cause: cause instanceof Error ? cause.name : undefined,
      });
    } else if (error instanceof ModalNotOpenedError || rateLimitedFor(error) !== undefined) {
      // Slack's window to open a modal passed, or it rate limited a call: the person is told to
      // try again; nothing is broken.
      deps.logger.warn('slack refused for now', { correlationId: ctx.correlationId, error });
    } else {
      const { isApiError } = await apiErrors();
      if (!isApiError(error)) {
        deps.logger.error('command failed', { correlationId: ctx.correlationId, operationId, error });
      } else if (isApiError(error, 'unauthorized')) {
        // The runner marked the token rejected: the person's Home says so without being opened.
        await (await import('./home-refresh.js')).republishHome(
          deps,
          ctx.team,
          [ctx.user],
          ctx.correlationId,
        );
      }
    }
    return {
      // Changes run in the worker or after approval, and an inline update only adds a best-effort
      // audit line after its call: storage trouble that reaches this point came before any change.
      ...(await errorReplies()).renderError(error, {
        ...(operationId ? { operationId } : {}),
        referenceId,
        beforeAnyChange: true,
      }),
      visibility: 'ephemeral',
      outcome: 'failed',
    };
  }
}

export function ackBody(reply: Reply) {
  if (reply.shownElsewhere) return undefined;
  return { response_type: reply.visibility, text: reply.text, blocks: reply.blocks };
}

export function responseBody(reply: Reply, replaceOriginal: boolean) {
  return {
    response_type: reply.visibility,
    replace_original: replaceOriginal,
    text: reply.text,
    blocks: reply.blocks,
  };
}
