import { randomUUID } from 'node:crypto';
import { App, type Authorize, AwsLambdaReceiver, ErrorCode, LogLevel } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ApiError } from '../api/errors.js';
import { findOperation } from '../api/operations/index.js';
import { isOutcomeInDoubt } from '../api/outcome.js';
import { extractBreakGlass } from '../commands/break-glass.js';
import { helpFor } from '../commands/help.js';
import { type ParsedCommand, parseCommand } from '../commands/parse.js';
import { registry, SLASH_COMMAND } from '../commands/registry.js';
import { DEFAULT_SLACK_STORAGE_BUDGET_MS } from '../config.js';
import { recordCommand } from '../observability/metrics.js';
import { answersWithChart } from '../reports/chart-operations.js';
import { isStorageUnavailable } from '../store/errors.js';
import { withoutStorageBudget, withStorageBudget } from '../store/store-context.js';
import { channelGuard, helpFitFor } from './guardrails.js';
import type { OperationJob } from './handoff.js';
import {
  ActionId,
  ApprovalPayloadSchema,
  CallbackId,
  decodeActionValue,
  PagePayloadSchema,
  type RunPayload,
  RunPayloadSchema,
} from './interactions.js';
import { oauthRoutes } from './oauth.js';
import { actionIdPattern } from './render/blocks.js';
import { modalErrorText, renderError } from './render/errors.js';
import { renderHelp } from './render/help.js';
import type { OperationRequest, Reply } from './runner.js';
import type { BotCommandContext, BotDeps, RequestContext } from './types.js';
import { type RemovalReason, removeTeam } from './uninstall.js';

// Loaded on first use, so a cold start answers `/cloud help` without them: the runner brings the
// API client and undici, the bot's own commands bring login and approvals, forms their field shapes.
const approvals = () => import('./approvals.js');
const botCommands = () => import('./bot-commands.js');
const forms = () => import('./forms.js');
const runner = () => import('./runner.js');

/**
 * The Slack side of the bot: Bolt verifies signatures and routes; the listeners parse, answer
 * within the inline budget when they can, and hand everything else to the worker. On Lambda the
 * HTTP response leaves only when a listener returns, so no listener waits for slow work.
 */

export type SlackHandler = (
  event: APIGatewayProxyEventV2,
  context: unknown,
) => Promise<APIGatewayProxyStructuredResultV2>;

export function createSlackApp(given: BotDeps): { app: App; handler: SlackHandler } {
  // A job handed off in process would otherwise inherit the request's storage budget.
  const deps: BotDeps = {
    ...given,
    handoff: { dispatch: (job) => withoutStorageBudget(() => given.handoff.dispatch(job)) },
  };
  const receiver = new AwsLambdaReceiver({ signingSecret: deps.signingSecret, logLevel: LogLevel.ERROR });
  const app = new App({
    authorize: authorizeFor(deps),
    ignoreSelf: false,
    receiver,
    logLevel: LogLevel.ERROR,
    clientOptions: {
      ...(deps.slackApiUrl ? { slackApiUrl: deps.slackApiUrl } : {}),
      // Lambda cannot wait out Slack's default 30-minute retry schedule.
      retryConfig: { retries: 1, factor: 1, minTimeout: 200, maxTimeout: 500 },
      rejectRateLimitedCalls: true,
    },
  });

  app.command(SLASH_COMMAND, async ({ command, ack, client }) => {
    const ctx: RequestContext = {
      team: command.team_id,
      user: command.user_id,
      channel: command.channel_id,
      responseUrl: command.response_url,
      triggerId: command.trigger_id,
      correlationId: randomUUID(),
    };
    const started = performance.now();
    const reply = await safely(deps, ctx, undefined, async () =>
      (await isFirstCommandDelivery(deps, ctx, command))
        ? answerCommand(deps, ctx, command.text, client)
        : undefined,
    );
    await ack(reply ? ackBody(reply) : undefined);
    if (deps.metrics) {
      const outcome = reply?.outcome ?? 'answered';
      recordCommand(deps.metrics, commandName(command.text), outcome, performance.now() - started);
    }
  });

  app.action(actionIdPattern(ActionId.run), async ({ ack, body, action, respond, client }) => {
    await ack();
    const ctx = actionContext(body);
    if (!ctx || action.type !== 'button' || !(await isFirstClick(deps, ctx, action))) return;
    const payload = decodeActionValue(RunPayloadSchema, action.value);
    const reply = await safely(deps, ctx, payload?.o, () => answerRun(deps, ctx, client, payload, false));
    if (reply) await respond(responseBody(reply, false));
  });

  app.action(actionIdPattern(ActionId.page), async ({ ack, body, action, respond, client }) => {
    await ack();
    const ctx = actionContext(body);
    if (!ctx || action.type !== 'button' || !(await isFirstClick(deps, ctx, action))) return;
    const payload = decodeActionValue(PagePayloadSchema, action.value);
    const reply = await safely(deps, ctx, payload?.o, () =>
      answerRun(
        deps,
        ctx,
        client,
        payload && { ...payload, options: { page: payload.p, pageSize: payload.s, filter: payload.f } },
        true,
      ),
    );
    if (reply) await respond(responseBody(reply, true));
  });

  app.action(actionIdPattern(ActionId.menu), async ({ ack, body, action, respond, client }) => {
    await ack();
    const ctx = actionContext(body);
    if (!ctx || action.type !== 'overflow' || !(await isFirstClick(deps, ctx, action))) return;
    const payload = decodeActionValue(RunPayloadSchema, action.selected_option.value);
    const reply = await safely(deps, ctx, payload?.o, () => answerRun(deps, ctx, client, payload, false));
    if (reply) await respond(responseBody(reply, false));
  });

  for (const [actionId, decision] of [
    [ActionId.approve, 'approve'],
    [ActionId.deny, 'deny'],
    [ActionId.cancel, 'cancel'],
  ] as const) {
    app.action(actionIdPattern(actionId), async ({ ack, body, action, respond, client }) => {
      await ack();
      const ctx = actionContext(body);
      if (!ctx || action.type !== 'button' || !(await isFirstClick(deps, ctx, action))) return;
      const payload = decodeActionValue(ApprovalPayloadSchema, action.value);
      const reply = await safely(deps, ctx, undefined, async () =>
        payload
          ? (await approvals()).decide(deps, client, ctx, payload.a, decision)
          : notice('That button is out of date.'),
      );
      // What the clicker alone is told: a new ephemeral message, the card stays as it is.
      if (reply) await respond({ ...responseBody(reply, false), response_type: 'ephemeral' });
    });
  }

  app.action(ActionId.login, async ({ ack, body, client, respond }) => {
    await ack();
    const ctx = actionContext(body);
    if (!ctx) return;
    const reply = await safely(deps, ctx, undefined, async () =>
      (await botCommands()).handleBotCommand(botContext(deps, ctx, client), {
        kind: 'bot',
        command: 'login',
        args: [],
        flags: {},
      }),
    );
    if (reply) await respond(responseBody(reply, false));
  });

  app.view(CallbackId.operationForm, async ({ ack, body, view, client }) => {
    const submission = (await forms()).readOperationForm(view);
    if (!submission.ok) {
      await ack(
        'errors' in submission ? { response_action: 'errors', errors: submission.errors } : undefined,
      );
      return;
    }
    await ack();
    const ctx: RequestContext = {
      team: body.team?.id ?? body.user.team_id ?? '',
      user: body.user.id,
      channel: submission.channel,
      correlationId: randomUUID(),
    };
    const reply = await safely(deps, ctx, submission.op.id, () =>
      answerOperation(deps, ctx, client, {
        team: ctx.team,
        user: ctx.user,
        channel: ctx.channel,
        op: submission.op,
        input: submission.input,
        options: {},
      }),
    );
    if (reply)
      await postReply(client, ctx, reply).catch((error: unknown) =>
        deps.logger.warn('form reply not posted', { error }),
      );
  });

  app.view(CallbackId.login, async ({ ack, body, view, client }) => {
    const { handleLoginSubmission, TOKEN_BLOCK } = await botCommands();
    const result = await handleLoginSubmission(deps, {
      team: body.team?.id ?? body.user.team_id ?? '',
      user: body.user.id,
      view,
      client,
    }).catch((error: unknown) => {
      const text = modalErrorText(error);
      if (text === undefined) throw error;
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.name : undefined;
      deps.logger.error('login not stored: storage unavailable', { cause });
      return { ack: { response_action: 'errors' as const, errors: { [TOKEN_BLOCK]: text } } };
    });
    await ack(result.ack);
  });

  // Signed by Slack, not by a user: these only remove, and a redelivery finds nothing left to remove.
  for (const reason of ['app_uninstalled', 'tokens_revoked'] as const satisfies RemovalReason[]) {
    app.event(reason, async ({ body, event }) => {
      if (reason === 'tokens_revoked' && !('tokens' in event && event.tokens.bot?.length)) return;
      const team = body.team_id;
      if (!team) return;
      await withoutStorageBudget(() => removeTeam(deps, team, body.enterprise_id ?? undefined, reason));
    });
  }

  app.error(async (error) => {
    // No installation for the request's team: Slack must see a failure, and nothing has run.
    if (error.code === ErrorCode.AuthorizationError) {
      deps.logger.warn('request refused: workspace not authorised', { reason: error.message });
      throw error;
    }
    deps.logger.error('unhandled Slack listener error', { error: error.message, code: error.code });
  });

  const lambdaHandler = receiver.toHandler();
  const storageBudgetMs = deps.storageBudgetMs ?? DEFAULT_SLACK_STORAGE_BUDGET_MS;
  const oauth =
    deps.installer &&
    oauthRoutes(
      deps.installer,
      (team) => {
        if (team) deps.botTokens?.forget(team);
      },
      deps.slackApiUrl,
    );
  const handler: SlackHandler = async (event, context) => {
    const page = oauth?.handle(event);
    if (page) return page;
    try {
      return (await withStorageBudget(storageBudgetMs, () =>
        lambdaHandler(event, context),
      )) as APIGatewayProxyStructuredResultV2;
    } catch (error) {
      // A body Bolt cannot parse must not crash the function: Slack gets a plain 400.
      deps.logger.warn('request rejected', { error: error instanceof Error ? error.message : String(error) });
      return { statusCode: 400, body: '' };
    }
  };
  return { app, handler };
}

/**
 * One workspace: its fixed token (with a plain `token`, Bolt would ask Slack's auth.test who the
 * bot is on the first request of every instance, a round trip before each cold-start answer).
 * Many workspaces: the installation of the request's team, or of its org for an org-wide install;
 * none means the request is refused. InstallProvider's `authorize` also refreshes a rotating token.
 */
function authorizeFor(deps: BotDeps): Authorize<boolean> {
  const { installer, botToken } = deps;
  if (!installer) {
    if (!botToken) throw new Error('createSlackApp needs a bot token or an installer');
    return async () => ({ botToken });
  }
  const remembered = new Set<string>();
  return async (source) => {
    const result = await installer.authorize(source as never);
    const { teamId, enterpriseId, isEnterpriseInstall } = source;
    // The worker and the reporter know only a team: note which org's installation serves it.
    if (isEnterpriseInstall && teamId && enterpriseId && !remembered.has(teamId)) {
      await deps.store.installations.rememberServedBy(teamId, enterpriseId);
      remembered.add(teamId);
    }
    return result;
  };
}

/**
 * Slack may deliver one request twice (a retry after a slow answer, a replayed payload): the
 * stable id of the delivery is claimed once, and a repeat does nothing. Conditional writes keep
 * approvals exact anyway; this keeps a repeated "Boot" or "Create" from running twice.
 */
async function isFirstDelivery(deps: BotDeps, key: string): Promise<boolean> {
  return deps.store.deliveries.claimOnce(key);
}

/**
 * Help and malformed commands change nothing and need no storage, so they are answered even when
 * the claim cannot be made; everything else needs storage next anyway.
 */
async function isFirstCommandDelivery(
  deps: BotDeps,
  ctx: RequestContext,
  command: { trigger_id: string; text: string },
): Promise<boolean> {
  try {
    return await isFirstDelivery(deps, `command:${ctx.team}:${command.trigger_id}`);
  } catch (error) {
    if (!isStorageUnavailable(error)) throw error;
    const kind = parseCommand(command.text).kind;
    if (kind === 'help' || kind === 'error') return true;
    throw error;
  }
}

async function isFirstClick(deps: BotDeps, ctx: RequestContext, action: object) {
  const { action_ts: at, action_id: id } = action as { action_ts?: unknown; action_id?: unknown };
  if (typeof at !== 'string' || typeof id !== 'string') return true;
  try {
    return await isFirstDelivery(deps, `click:${ctx.team}:${ctx.user}:${id}:${at}`);
  } catch (error) {
    // Without the claim table nothing else works either; the listener reports that itself.
    deps.logger.error('delivery claim failed', { correlationId: ctx.correlationId, error });
    return true;
  }
}

/** Bolt's block_actions body, narrowed to what the listeners need. */
function actionContext(body: {
  team?: { id: string } | null;
  user: { id: string; team_id?: string };
  channel?: { id: string };
  response_url?: string;
  trigger_id?: string;
}): RequestContext | undefined {
  const team = body.team?.id ?? body.user.team_id;
  if (!team || !body.channel || !body.response_url) return undefined;
  return {
    team,
    user: body.user.id,
    channel: body.channel.id,
    responseUrl: body.response_url,
    triggerId: body.trigger_id,
    correlationId: randomUUID(),
  };
}

function botContext(deps: BotDeps, ctx: RequestContext, client: WebClient): BotCommandContext {
  return { deps, ctx, client };
}

async function answerCommand(
  deps: BotDeps,
  ctx: RequestContext,
  text: string,
  client: WebClient,
): Promise<Reply | undefined> {
  const form = FORM_FLAG.test(text)
    ? await answerWithForm(ctx, text.replace(FORM_FLAG, ' '), client)
    : undefined;
  if (form !== undefined) return form ?? undefined;
  if (/^\s*login\s+(?!-)\S/.test(text)) {
    return notice(
      ':lock: A token never goes into a command. Run `/cloud login` alone: it opens a private form for it. ' +
        'If you typed a real token, consider revoking it and creating a new one.',
    );
  }
  const breakGlass = extractBreakGlass(text);
  if (breakGlass.present && 'problem' in breakGlass) return notice(breakGlass.problem);
  const parsed: ParsedCommand = parseCommand(breakGlass.text);
  if (breakGlass.present && parsed.kind !== 'operation' && parsed.kind !== 'error') {
    return notice(
      '`--break-glass` goes with a command that needs approval, e.g. `/cloud volumes delete 12 --break-glass "why"`.',
    );
  }
  switch (parsed.kind) {
    case 'help': {
      // Fitted to the caller's token and this channel, unless they ask for everything.
      const fit = ALL_FLAG.test(text)
        ? undefined
        : await helpFitFor(deps.store, ctx.team, ctx.user, ctx.channel);
      return { ...renderHelp(helpFor(parsed.topic, undefined, fit)), visibility: 'ephemeral' };
    }
    case 'error':
      return { ...renderError(parsed, { referenceId: ctx.correlationId }), visibility: 'ephemeral' };
    case 'bot':
      return (await botCommands()).handleBotCommand(botContext(deps, ctx, client), parsed);
    case 'operation':
      return answerOperation(
        deps,
        ctx,
        client,
        {
          team: ctx.team,
          user: ctx.user,
          channel: ctx.channel,
          op: parsed.op,
          input: parsed.input,
          options: {
            all: parsed.options.all,
            page: parsed.options.page,
            pageSize: parsed.options.pageSize,
            json: parsed.options.json,
            filter: filterOf(parsed.options),
          },
        },
        false,
        breakGlass.present ? breakGlass.reason : undefined,
      );
  }
}

const FORM_FLAG = /(?:^|\s)--form(?=\s|$)/;
const ALL_FLAG = /(?:^|\s)--all(?=\s|$)/;

/**
 * `/cloud volumes create --form`: a modal with the operation's fields, prefilled with whatever the
 * rest of the command already says. `null` when the modal opened (nothing else to say).
 */
async function answerWithForm(ctx: RequestContext, text: string, client: WebClient): Promise<Reply | null> {
  const [groupName = '', actionName = ''] = text.trim().split(/\s+/);
  const group = registry.findGroup(groupName);
  const action = group.found ? registry.findAction(group.value, actionName) : undefined;
  if (!action?.found) {
    return notice(
      '`--form` goes with an action, e.g. `/cloud volumes create --form`. `/cloud help` lists them.',
    );
  }
  if (!ctx.triggerId) return notice('Forms open only from a slash command or a button.');
  const parsed = parseCommand(text);
  const known = parsed.kind === 'operation' ? parsed.input : {};
  await (await forms()).openOperationForm(client, ctx.triggerId, action.value, known, ctx.channel);
  return null;
}

function filterOf(options: {
  filter?: Readonly<Record<string, unknown>> | undefined;
  orderBy?: string | undefined;
  order?: string | undefined;
}): Readonly<Record<string, unknown>> | undefined {
  if (!options.filter && !options.orderBy) return undefined;
  return {
    ...options.filter,
    ...(options.orderBy ? { '+order_by': options.orderBy, '+order': options.order ?? 'asc' } : {}),
  };
}

/** A button or menu asked to run an operation: the payload is re-validated like typed input. */
async function answerRun(
  deps: BotDeps,
  ctx: RequestContext,
  client: WebClient,
  payload: (RunPayload & { options?: OperationRequest['options'] }) | undefined,
  replace: boolean,
): Promise<Reply | undefined> {
  const op = payload && findOperation(payload.o);
  if (!payload || !op) {
    return notice('That button is out of date. Run the command again.');
  }
  const parsed = op.request.safeParse(payload.i);
  if (!parsed.success) {
    // A button for an action that needs more input (Attach asks for the node): ask in a form.
    if (!ctx.triggerId) return notice('That button is out of date. Run the command again.');
    await (await forms()).openOperationForm(client, ctx.triggerId, op, payload.i, ctx.channel);
    return undefined;
  }
  return answerOperation(
    deps,
    ctx,
    client,
    {
      team: ctx.team,
      user: ctx.user,
      channel: ctx.channel,
      op,
      input: parsed.data as Record<string, unknown>,
      options: payload.options ?? {},
    },
    replace,
  );
}

function notice(text: string): Reply {
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }], visibility: 'ephemeral' };
}

/**
 * Runs inline when the answer can come within the budget; otherwise hands off. A POST is handed
 * off at once: abandoning it at the budget and running it again in the worker could create a
 * resource twice.
 */
export async function answerOperation(
  deps: BotDeps,
  ctx: RequestContext,
  client: WebClient,
  request: OperationRequest,
  replaceOriginal = false,
  breakGlassReason?: string,
): Promise<Reply> {
  const { op } = request;
  const guard = await channelGuard(deps.store, ctx.team, ctx.channel, op);
  if (guard.refusal) return notice(guard.refusal);
  if (breakGlassReason !== undefined) {
    if (!guard.approvalRequired) {
      return notice(
        '`--break-glass` is only for commands that need approval; this one runs without the flag.',
      );
    }
    return (await approvals()).runBreakGlass(deps, ctx, client, op, request.input, breakGlassReason);
  }
  if (guard.approvalRequired)
    return (await approvals()).requestApproval(deps, ctx, client, op, request.input);
  // A chart is drawn only in the worker: the rasteriser is not in this function's bundle.
  if (op.method === 'POST' || answersWithChart(op)) return handOff(deps, ctx, request, replaceOriginal);

  const budget = new AbortController();
  const timer = setTimeout(() => budget.abort(), deps.inlineBudgetMs);
  try {
    const { runOperation } = await runner();
    return await runOperation(deps, request, {
      signal: budget.signal,
      deadline: Date.now() + deps.inlineBudgetMs,
    });
  } catch (error) {
    // Out of time, or a change whose outcome is unknown: the worker finds out without the deadline
    // (only PUTs get here, and sending a PUT again is safe).
    if (
      budget.signal.aborted ||
      (error instanceof ApiError && error.code === 'timeout') ||
      isOutcomeInDoubt(op, error)
    ) {
      return handOff(deps, ctx, request, replaceOriginal);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

async function handOff(
  deps: BotDeps,
  ctx: RequestContext,
  request: OperationRequest,
  replaceOriginal: boolean,
): Promise<Reply> {
  const job: OperationJob = {
    kind: 'operation',
    correlationId: ctx.correlationId,
    team: ctx.team,
    user: ctx.user,
    channel: ctx.channel,
    ...(ctx.responseUrl ? { responseUrl: ctx.responseUrl } : {}),
    operationId: request.op.id,
    input: { ...request.input },
    options: {
      all: request.options.all ?? false,
      json: request.options.json ?? false,
      ...(request.options.page !== undefined && { page: request.options.page }),
      ...(request.options.pageSize !== undefined && { pageSize: request.options.pageSize }),
      ...(request.options.filter && { filter: { ...request.options.filter } }),
    },
    replaceOriginal,
  };
  await deps.handoff.dispatch(job);
  return {
    ...notice(`:hourglass_flowing_sand: Working on \`${request.op.group} ${request.op.action}\`…`),
    outcome: 'handed_off',
  };
}

/** Every listener's work goes through here: whatever is thrown becomes a reply, never a crash. */
async function safely(
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
    } else if (!(error instanceof ApiError)) {
      deps.logger.error('command failed', { correlationId: ctx.correlationId, operationId, error });
    }
    return {
      // Changes run in the worker or after approval, and an inline update only adds a best-effort
      // audit line after its call: storage trouble that reaches this point came before any change.
      ...renderError(error, { ...(operationId ? { operationId } : {}), referenceId, beforeAnyChange: true }),
      visibility: 'ephemeral',
      outcome: 'failed',
    };
  }
}

/** `volumes list`, `login`: the first two words, for metrics (never the arguments, which may be secret). */
function commandName(text: string): string {
  const words = text.trim().split(/\s+/).slice(0, 2);
  return words.filter((w) => /^[a-z][a-z0-9-]*$/.test(w)).join(' ') || 'help';
}

/** Replies to work started from a modal, which has no response_url. */
async function postReply(client: WebClient, ctx: RequestContext, reply: Reply): Promise<void> {
  const message = { channel: ctx.channel, text: reply.text, blocks: reply.blocks as never[] };
  if (reply.visibility === 'ephemeral') await client.chat.postEphemeral({ ...message, user: ctx.user });
  else await client.chat.postMessage(message);
}

function ackBody(reply: Reply) {
  return { response_type: reply.visibility, text: reply.text, blocks: reply.blocks } as never;
}

export function responseBody(reply: Reply, replaceOriginal: boolean) {
  return {
    response_type: reply.visibility,
    replace_original: replaceOriginal,
    text: reply.text,
    blocks: reply.blocks as never[],
  };
}
