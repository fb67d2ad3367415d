import { randomUUID } from 'node:crypto';
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { helpFitFor } from '../../changes/guardrails.js';
import { catalog } from '../../commands/catalog.js';
import { topicHelp } from '../../commands/help-topics.js';
import { type FrontParse, namedCommand, parseFront } from '../../commands/parse/front.js';
import type { ParsedCommand } from '../../commands/parse/result.js';
import { type CommandOperation, SLASH_COMMAND } from '../../commands/registry.js';
import { recordCommand } from '../../observability/metrics.js';
import { notice, type Reply } from '../../slack-kit/reply.js';
import { callerKeys } from '../../store/index.js';
import type { BotDeps, RequestContext } from '../context.js';
import { ackBody, answerOperation, preloadInlineAnswer, safely } from '../dispatch.js';
import { renderHelp } from '../render/help.js';
import { isFirstCommandDelivery } from './deliveries.js';

// Loaded on first use, so a cold start answers `/cloud help` without them: the bot's own commands
// bring login and approvals, forms their field shapes; an operation's arguments, its help with
// flags and its form need the operations table and zod, which the command catalog stands in for
// until a command names an operation.
const botCommands = () => import('../bot-commands/index.js');
const aliases = () => import('../bot-commands/alias.js');
const errorReplies = () => import('../render/errors.js');
const forms = () => import('../forms.js');
const fullParser = () => import('../../commands/parse.js');
const operationHelp = () => import('../../commands/help.js');
const engineLookup = () => import('../engine-lookup.js');

/** `/cloud …`: answered in the ack when it can be, within the inline budget. */
export function registerCommands(app: App, deps: BotDeps): void {
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
    let name = 'unknown';
    const reply = await safely(deps, ctx, undefined, async () => {
      const front = parseFront(command.text, catalog);
      name = namedCommand(front);
      // Help changes nothing, so its reads (the caller's token, the channel's policy) go out with
      // the claim instead of after it: one storage round trip less before the answer.
      if (front.kind === 'help') {
        const [first, answer] = await Promise.all([
          isFirstCommandDelivery(deps, ctx, command),
          answerCommand(deps, ctx, front, command.text, client),
        ]);
        return first ? answer : undefined;
      }
      const claim = isFirstCommandDelivery(deps, ctx, command);
      // An operation's answer needs the full parser (the operations table and zod) and the runner
      // (the API client): on a cold start their loading takes longer than the claim's round trip,
      // so they load while the claim is in flight instead of after it. The caller's items, which
      // its guard and token lookup read first, are read meanwhile, and the token looked up from
      // them. A repeated delivery only loads modules it would have loaded anyway, and drops the
      // reads; a failed read surfaces where it is awaited.
      let operationCtx = ctx;
      if (front.kind === 'operation-args' || front.kind === 'engine-args') {
        preloadOperationAnswer();
        const callerRead = deps.store.readAhead(callerKeys(ctx.team, ctx.user, ctx.channel));
        const tokenLookup = deps.store.tokenLinks.getToken(ctx.team, ctx.user, undefined, callerRead);
        tokenLookup.catch(() => undefined);
        operationCtx = { ...ctx, callerRead, tokenLookup };
      }
      if (!(await claim)) return undefined;
      // A word that names no command may be an alias of this channel or workspace: its expansion
      // is answered exactly as if it had been typed.
      if (front.kind === 'error') {
        const viaAlias = await (await aliases()).answerAliasCall(
          deps,
          ctx,
          command.text,
          (expanded, text, viaAlias) => {
            name = namedCommand(expanded);
            return answerCommand(deps, { ...ctx, viaAlias }, expanded, text, client);
          },
        );
        if (viaAlias !== 'not-an-alias') return viaAlias;
      }
      return answerCommand(deps, operationCtx, front, command.text, client);
    });
    await ack(reply ? ackBody(reply) : undefined);
    if (deps.metrics) {
      const outcome = reply?.outcome ?? 'answered';
      recordCommand(deps.metrics, name, outcome, performance.now() - started);
    }
  });
}

async function answerCommand(
  deps: BotDeps,
  ctx: RequestContext,
  front: CatalogFront,
  text: string,
  client: WebClient,
): Promise<Reply | undefined> {
  // The catalog answers help, bot commands and unknown names; an operation's arguments need its
  // schema, which the full parser reads; `databases view 42` first needs the engine of 42.
  let parsed: ParsedCommand;
  if (front.kind === 'operation-args') parsed = (await fullParser()).parseCommand(text);
  else if (front.kind === 'engine-args') {
    const read = await (await engineLookup()).readForEngine(deps, ctx, front, text);
    if ('reply' in read) return read.reply;
    parsed = read.parsed;
  } else parsed = front;
  switch (parsed.kind) {
    case 'help': {
      // Fitted to the caller's token and this channel, unless they ask for everything.
      const fit = parsed.all ? undefined : await helpFitFor(deps.store, ctx.team, ctx.user, ctx.channel);
      const answer = topicHelp(parsed.topic, catalog, fit);
      const doc =
        'doc' in answer ? answer.doc : (await operationHelp()).helpFor(parsed.topic, undefined, fit);
      return { ...renderHelp(doc), visibility: 'ephemeral' };
    }
    case 'error':
      return {
        ...(await errorReplies()).renderError(parsed, { referenceId: ctx.correlationId }),
        visibility: 'ephemeral',
      };
    case 'bot':
      return (await botCommands()).handleBotCommand({ deps, ctx, client }, parsed);
    case 'form':
      return answerWithForm(ctx, parsed, client);
    case 'operation':
      return answerOperation(
        deps,
        ctx,
        client,
        {
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
        parsed.breakGlass,
        parsed.reason,
      );
  }
}

/**
 * Starts loading what answering an operation loads, without waiting for it. A failed load is not
 * reported here: the same import fails again where it is awaited, and `safely` answers it there.
 */
function preloadOperationAnswer(): void {
  fullParser().catch(() => undefined);
  preloadInlineAnswer();
}

/**
 * `/cloud volumes create --form`: a modal with the operation's fields, prefilled with whatever the
 * rest of the command already says. Nothing to say once the modal opened.
 */
async function answerWithForm(
  ctx: RequestContext,
  form: Extract<ParsedCommand, { kind: 'form' }>,
  client: WebClient,
): Promise<Reply | undefined> {
  if (!ctx.triggerId) return notice('Forms open only from a slash command or a button.');
  const again = `Run \`${SLASH_COMMAND} ${form.op.group} ${form.op.action} --form\` again.`;
  await (await forms()).openOperationForm(
    client,
    ctx.triggerId,
    form.op,
    form.input,
    ctx.channel,
    again,
    ctx.responseUrl,
  );
  return undefined;
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

type CatalogFront = FrontParse<CommandOperation>;
