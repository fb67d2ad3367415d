import { randomUUID } from 'node:crypto';
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { ActionId, actionIdPattern, PAYLOAD_WIRE_KEYS } from '../../slack-kit/interaction-ids.js';
import type {
  ApprovalPayload,
  ExportPayload,
  PagePayload,
  RunPayload,
} from '../../slack-kit/interactions.js';
import { SLACK_LIMITS } from '../../slack-kit/limits.js';
import { notice, type Reply } from '../../slack-kit/reply.js';
import { approvalClickKeys, loadAhead, type ReadAhead } from '../../store/index.js';
import type { BotDeps, RequestContext } from '../context.js';
import { answerOperation, responseBody, safely } from '../dispatch.js';
import type { OperationRequest } from '../operation-runner.js';
import { isFirstClick } from './deliveries.js';

// Loaded on first use, so a cold start answers `/cloud help` without them: the payload schemas
// (zod), the operations table, approvals, login and forms.
const interactions = () => import('../../slack-kit/interactions.js');
const operations = () => import('../../api/operations/index.js');
const approvals = () => import('../approvals.js');
const botCommands = () => import('../bot-command-handlers.js');
const forms = () => import('../forms.js');
const homeActions = () => import('../home-actions.js');
const runbooks = () => import('../runbooks.js');

/** Buttons and menus: run an operation, page a listing, decide an approval, log in. */
export function registerActions(app: App, deps: BotDeps): void {
  app.action(actionIdPattern(ActionId.run), async ({ ack, body, action, respond, client }) => {
    await ack();
    const ctx = actionContext(body);
    if (!ctx || action.type !== 'button' || !(await isFirstClick(deps, ctx, action))) return;
    const payload = await decodeRun(action.value);
    const reply = await safely(deps, ctx, payload?.operationId, () =>
      answerRun(deps, ctx, client, payload, false),
    );
    if (reply) await respond(responseBody(reply, false));
  });

  app.action(actionIdPattern(ActionId.page), async ({ ack, body, action, respond, client }) => {
    await ack();
    const ctx = actionContext(body);
    if (!ctx || action.type !== 'button' || !(await isFirstClick(deps, ctx, action))) return;
    const payload = await decodePage(action.value);
    const reply = await safely(deps, ctx, payload?.operationId, () =>
      answerRun(
        deps,
        ctx,
        client,
        payload && {
          ...payload,
          options: {
            page: payload.page,
            start: payload.start,
            previousStart: payload.previousStart,
            all: payload.compact === true,
            filter: payload.filter,
          },
        },
        true,
      ),
    );
    if (reply) await respond(responseBody(reply, true));
  });

  app.action(actionIdPattern(ActionId.exportList), async ({ ack, body, action, respond, client }) => {
    await ack();
    const ctx = actionContext(body);
    if (!ctx || action.type !== 'button' || !(await isFirstClick(deps, ctx, action))) return;
    const payload = await decodeExport(action.value);
    // The worker's answer must not take the list's place, which is what an answer through this
    // click's response_url does: it comes as a message of its own (or in the DM with the file).
    const { responseUrl: _listMessage, ...apart } = ctx;
    const reply = await safely(deps, ctx, payload?.operationId, () =>
      answerRun(
        deps,
        apart,
        client,
        payload && { ...payload, options: { export: payload.format, filter: payload.filter } },
        false,
      ),
    );
    if (!reply) return;
    const told =
      reply.outcome === 'handed_off' && payload
        ? notice(
            `:outbox_tray: Reading the whole list for a ${payload.format.toUpperCase()} file to your direct messages with the app…`,
          )
        : reply;
    await respond({ ...responseBody(told, false), response_type: 'ephemeral' });
  });

  app.action(actionIdPattern(ActionId.menu), async ({ ack, body, action, respond, client }) => {
    await ack();
    const ctx = actionContext(body);
    if (!ctx || action.type !== 'overflow' || !(await isFirstClick(deps, ctx, action))) return;
    const payload = await decodeRun(action.selected_option.value);
    const reply = await safely(deps, ctx, payload?.operationId, () =>
      answerRun(deps, ctx, client, payload, false),
    );
    if (reply) await respond(responseBody(reply, false));
  });

  for (const [actionId, decision] of [
    [ActionId.approve, 'approve'],
    [ActionId.deny, 'deny'],
    [ActionId.cancel, 'cancel'],
  ] as const) {
    app.action(actionIdPattern(actionId), async ({ ack, body, action, respond, client }) => {
      await ack();
      // The card's buttons, or the same buttons on the clicker's Home tab.
      const ctx = actionContext(body) ?? homeClickContext(body);
      if (!ctx || action.type !== 'button') return;
      const claim = isFirstClick(deps, ctx, action);
      // On a cold start the payload's schema and the approvals module take longer to load than
      // the click's claim takes to answer: they load while it is in flight. A repeated click only
      // loads modules it would have loaded anyway; a failed load surfaces where it is awaited.
      interactions().catch(() => undefined);
      approvals().catch(() => undefined);
      // Every decision ends in an audit entry.
      loadAhead(deps.store.audit);
      // The request and its policies are read while the claim is in flight too, in one batch
      // sent before the modules that parse them load: a read changes nothing, and a repeated click
      // drops it. The request's id is taken from the button here without its schema; the decision
      // uses the read only for the id the schema then accepts. A failed read surfaces where it is
      // awaited, inside `safely`.
      const read = approvalReadAhead(deps, ctx, action.value);
      const payload = decodeApproval(action.value);
      payload.catch(() => undefined);
      if (!(await claim)) return;
      const decoded = await payload;
      const reply = await safely(deps, ctx, undefined, async () =>
        decoded
          ? (await approvals()).decide(deps, client, ctx, decoded.approvalId, decision, read)
          : notice('That button is out of date.'),
      );
      // What the clicker alone is told: a new ephemeral message, the card stays as it is; from
      // Home (no response_url) a direct message, while the Home itself is published again.
      if (!reply) return;
      if (ctx.responseUrl) await respond({ ...responseBody(reply, false), response_type: 'ephemeral' });
      else await tellDirectly(deps, client, ctx, reply);
    });
  }

  app.action(ActionId.homeReport, async ({ ack, body, action, client }) => {
    await ack();
    const ctx = homeClickContext(body);
    if (!ctx || action.type !== 'button' || !(await isFirstClick(deps, ctx, action))) return;
    const reply = await safely(deps, ctx, undefined, async () =>
      (await homeActions()).answerHomeReportButton(deps, ctx, client, action.value),
    );
    if (reply) await tellDirectly(deps, client, ctx, reply);
  });

  app.action(ActionId.runbookCancel, async ({ ack, body, action, respond, client }) => {
    await ack();
    const ctx = actionContext(body);
    if (!ctx || action.type !== 'button' || !(await isFirstClick(deps, ctx, action))) return;
    const reply = await safely(deps, ctx, undefined, async () =>
      (await runbooks()).cancelRunAs({ deps, ctx, client }, action.value ?? ''),
    );
    // Only the clicker is told; the run's message itself is updated as the run moves.
    if (reply) await respond({ ...responseBody(reply, false), response_type: 'ephemeral' });
  });

  app.action(ActionId.login, async ({ ack, body, client, respond }) => {
    await ack();
    const ctx = actionContext(body) ?? homeClickContext(body);
    if (!ctx) return;
    const reply = await safely(deps, ctx, undefined, async () =>
      (await botCommands()).handleBotCommand(
        { deps, ctx, client },
        { kind: 'bot', command: 'login', args: [], flags: {} },
      ),
    );
    if (!reply) return;
    if (ctx.responseUrl) await respond(responseBody(reply, false));
    else await tellDirectly(deps, client, ctx, reply);
  });
}

async function decodeRun(value: string | undefined): Promise<RunPayload | undefined> {
  const { decodeActionValue, RunPayloadSchema } = await interactions();
  return decodeActionValue(RunPayloadSchema, value);
}

async function decodePage(value: string | undefined): Promise<PagePayload | undefined> {
  const { decodeActionValue, PagePayloadSchema } = await interactions();
  return decodeActionValue(PagePayloadSchema, value);
}

async function decodeExport(value: string | undefined): Promise<ExportPayload | undefined> {
  const { decodeActionValue, ExportPayloadSchema } = await interactions();
  return decodeActionValue(ExportPayloadSchema, value);
}

/**
 * The batch read of an approval click (the request, the workspace's approval policy and the card
 * channel's policy), sent at once; none when the button's value names no request id of the right
 * shape. Read from the button's JSON without its schema, which loads later: the id only picks a key
 * in the clicker's own workspace, and is checked by the schema before anything is decided.
 */
function approvalReadAhead(
  deps: BotDeps,
  ctx: RequestContext,
  value: string | undefined,
): ReadAhead | undefined {
  if (value === undefined || value.length > SLACK_LIMITS.buttonValue) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    const id = (parsed as Record<string, unknown> | null)?.[PAYLOAD_WIRE_KEYS.approvalId];
    if (typeof id !== 'string') return undefined;
    // A card's click names the card's channel; a Home's has none (its `channel` is the clicker).
    return deps.store.readAhead(approvalClickKeys(ctx.team, id, ctx.responseUrl ? ctx.channel : undefined));
  } catch {
    // Not JSON, or not an id `keys.approval` accepts: the decision reads for itself, and the
    // schema says what was wrong with the button.
    return undefined;
  }
}

async function decodeApproval(value: string | undefined): Promise<ApprovalPayload | undefined> {
  const { decodeActionValue, ApprovalPayloadSchema } = await interactions();
  return decodeActionValue(ApprovalPayloadSchema, value);
}

/**
 * A click on a view (the person's Home tab): Slack sends no channel and no `response_url`, so it
 * is answered in the person's direct messages with the app (posting to a user id opens them).
 * Run, paging, menu and file buttons are on messages only and need the message's channel: those
 * listeners take message clicks alone (`actionContext`).
 */
function homeClickContext(body: {
  team?: { id: string } | null;
  user: { id: string; team_id?: string };
  container?: { type?: string };
  trigger_id?: string;
}): RequestContext | undefined {
  const team = body.team?.id ?? body.user.team_id;
  if (!team || body.container?.type !== 'view') return undefined;
  return {
    team,
    user: body.user.id,
    channel: body.user.id,
    triggerId: body.trigger_id,
    correlationId: randomUUID(),
  };
}

/** What a Home click's clicker is told, by direct message; a message Slack refuses is only logged. */
async function tellDirectly(
  deps: BotDeps,
  client: WebClient,
  ctx: RequestContext,
  reply: Reply,
): Promise<void> {
  try {
    await client.chat.postMessage({ channel: ctx.user, text: reply.text, blocks: [...reply.blocks] });
  } catch (error) {
    deps.logger.warn('answer to a Home click not sent', {
      correlationId: ctx.correlationId,
      error: error instanceof Error ? error.message : String(error),
    });
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

/** A button or menu asked to run an operation: the payload is re-validated like typed input. */
async function answerRun(
  deps: BotDeps,
  ctx: RequestContext,
  client: WebClient,
  payload: (RunPayload & { options?: OperationRequest['options'] }) | undefined,
  replace: boolean,
): Promise<Reply | undefined> {
  const op = payload && (await operations()).findOperation(payload.operationId);
  // A paging or file button names a list; one naming anything else was not made by the bot.
  if (!payload || !op || (payload.options !== undefined && !op.paginated)) {
    return notice('That button is out of date. Run the command again.');
  }
  const parsed = op.request.safeParse(payload.input);
  if (!parsed.success) {
    // A button for an action that needs more input (Attach asks for the node): ask in a form.
    if (!ctx.triggerId) return notice('That button is out of date. Run the command again.');
    const again = 'Click the button again.';
    await (await forms()).openOperationForm(client, ctx.triggerId, op, payload.input, ctx.channel, again);
    return undefined;
  }
  const input = parsed.data as Record<string, unknown>;
  return answerOperation(deps, ctx, client, { op, input, options: payload.options ?? {} }, replace);
}
