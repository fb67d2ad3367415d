import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { ActionId, actionIdPattern, PAYLOAD_WIRE_KEYS } from '../../slack-kit/interaction-ids.js';
import type { RunPayload } from '../../slack-kit/interactions.js';
import { SLACK_LIMITS } from '../../slack-kit/limits.js';
import { notice, type Reply } from '../../slack-kit/reply.js';
import { approvalClickKeys, loadAhead, type ReadAhead } from '../../store/index.js';
import type { BotDeps, RequestContext } from '../context.js';
import { answerOperation } from '../dispatch.js';
import type { OperationRequest } from '../operation-runner.js';
import { type Click, onClick } from './clicks.js';

// Loaded on first use, so a cold start answers `/cloud help` without them: the payload schemas
// (zod), the operations table, approvals, login and forms.
const interactions = () => import('../../slack-kit/interactions.js');
const operations = () => import('../../api/operations/index.js');
const approvals = () => import('../approval-answers.js');
const botCommands = () => import('../bot-commands/index.js');
const forms = () => import('../forms.js');
const homeActions = () => import('../home-actions.js');
const runbookCommand = () => import('../bot-commands/runbook.js');
const resourceCards = () => import('../resource-cards.js');
const reportsCommand = () => import('../bot-commands/reports.js');

/**
 * Buttons and menus: run an operation, page a listing, decide an approval, a Home's report and
 * agent buttons, log in. Each is taken
 * the same way (`onClick`: ack, context, first click, decode, safety net, reply); what follows is
 * each one's own work.
 */
export function registerActions(app: App, deps: BotDeps): void {
  // A run button and a menu's option both name an operation and its input.
  const run = ({ ctx, client, payload }: Click<RunPayload, undefined>) =>
    answerRun(deps, ctx, client, payload, false);
  app.action(actionIdPattern(ActionId.run), onClick(deps, { payload: (m) => m.RunPayloadSchema }, run));

  app.action(
    actionIdPattern(ActionId.page),
    onClick(
      deps,
      { payload: (m) => m.PagePayloadSchema, reply: 'in place of the message' },
      async ({ ctx, client, payload }) =>
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
    ),
  );

  app.action(
    actionIdPattern(ActionId.exportList),
    onClick(
      deps,
      { payload: (m) => m.ExportPayloadSchema, reply: 'to the clicker alone' },
      async ({ ctx, client, payload }) => {
        // The worker's answer must not take the list's place, which is what an answer through this
        // click's response_url does: it comes to the DM with the file, in place of the note waiting
        // there (see `handOff`), or as a message of its own.
        const { responseUrl: _listMessage, ...apart } = ctx;
        const reply = await answerRun(
          deps,
          apart,
          client,
          payload && { ...payload, options: { export: payload.format, filter: payload.filter } },
          false,
        );
        // No note in the DM (it would not open): this one stays, so it says where the file goes.
        return reply?.outcome === 'handed_off' && payload && reply.text.includes('Working on')
          ? notice(
              `:outbox_tray: Reading the whole list for a ${payload.format.toUpperCase()} file to your direct messages with the app…`,
            )
          : reply;
      },
    ),
  );

  app.action(
    actionIdPattern(ActionId.menu),
    onClick(deps, { element: 'overflow', payload: (m) => m.RunPayloadSchema }, run),
  );

  for (const [actionId, decision] of [
    [ActionId.approve, 'approve'],
    [ActionId.deny, 'deny'],
    [ActionId.cancel, 'cancel'],
  ] as const) {
    app.action(
      actionIdPattern(actionId),
      onClick(
        deps,
        {
          // The card's buttons, or the same buttons on the clicker's Home tab.
          from: 'message or home',
          payload: (m) => m.ApprovalPayloadSchema,
          meanwhile: (ctx, value) => {
            // On a cold start the payload's schema and the approvals module take longer to load
            // than the click's claim takes to answer: they load while it is in flight. A repeated
            // click only loads modules it would have loaded anyway; a failed load surfaces where it
            // is awaited.
            interactions().catch(() => undefined);
            approvals().catch(() => undefined);
            // Every decision ends in an audit entry.
            loadAhead(deps.store.audit);
            // The request and its policies are read while the claim is in flight too, in one batch
            // sent before the modules that parse them load: a read changes nothing, and a repeated
            // click drops it. The request's id is taken from the button here without its schema;
            // the decision uses the read only for the id the schema then accepts. A failed read
            // surfaces where it is awaited, inside the safety net.
            return approvalReadAhead(deps, ctx, value);
          },
          // What the clicker alone is told: a new ephemeral message, the card stays as it is; from
          // Home (no response_url) a direct message, while the Home itself is published again.
          reply: 'to the clicker alone',
        },
        async ({ ctx, client, payload, meanwhile: read }) =>
          payload
            ? (await approvals()).answerDecision(deps, client, ctx, payload.approvalId, decision, read)
            : notice('That button is out of date.'),
      ),
    );
  }

  app.action(
    ActionId.homeReport,
    onClick(deps, { from: 'home' }, async ({ ctx, client, value }) =>
      (await homeActions()).answerHomeReportButton(deps, ctx, client, value),
    ),
  );

  app.action(
    ActionId.homeAgent,
    // Slack asked the clicker to confirm before it sent the click (the button's confirm dialog).
    onClick(deps, { from: 'home' }, async ({ ctx, client, value }) =>
      (await homeActions()).answerHomeAgentButton(deps, ctx, client, value),
    ),
  );

  app.action(
    ActionId.runbookCancel,
    // Only the clicker is told; the run's message itself is updated as the run moves.
    onClick(deps, { reply: 'to the clicker alone' }, async ({ ctx, client, value }) =>
      (await runbookCommand()).cancelRunAs({ deps, ctx, client }, value ?? ''),
    ),
  );

  app.action(
    actionIdPattern(ActionId.alertSnooze),
    // Anyone in the alert's channel; the answer says in the channel who snoozed what until when.
    onClick(deps, { element: 'overflow' }, async ({ ctx, client, value }) =>
      (await reportsCommand()).answerSnoozeClick({ deps, ctx, client }, value),
    ),
  );

  app.action(
    ActionId.login,
    // Any element, and not claimed: the click only opens the login form, which stores nothing.
    onClick(deps, { from: 'message or home', element: 'any', once: false }, async ({ ctx, client }) =>
      (await botCommands()).handleBotCommand(
        { deps, ctx, client },
        { kind: 'bot', command: 'login', args: [], flags: {} },
      ),
    ),
  );
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
  // An ephemeral card cannot be updated (`chat.update` does not edit ephemeral messages), so its
  // buttons outlive the resource: a deleted one is said to be, and nothing runs.
  const cards = await resourceCards();
  const deletion = await cards.deletionOfTarget(deps, ctx.team, op, payload.input);
  if (deletion) return notice(cards.deletedResourceNotice(deletion));
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
