import { randomUUID } from 'node:crypto';
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { extractBreakGlass } from '../../commands/break-glass.js';
import { catalog } from '../../commands/catalog.js';
import { topicHelp } from '../../commands/help-topics.js';
import { parseFront } from '../../commands/parse/front.js';
import type { ParsedCommand } from '../../commands/parse/result.js';
import { SLASH_COMMAND } from '../../commands/registry.js';
import { recordCommand } from '../../observability/metrics.js';
import type { BotDeps, RequestContext } from '../context.js';
import { ackBody, answerOperation, notice, preloadInlineAnswer, safely } from '../dispatch.js';
import { helpFitFor } from '../guardrails.js';
import { renderHelp } from '../render/help.js';
import type { Reply } from '../runner.js';
import { isFirstCommandDelivery } from './deliveries.js';

// Loaded on first use, so a cold start answers `/cloud help` without them: the bot's own commands
// bring login and approvals, forms their field shapes; an operation's arguments, its help with
// flags and its form need the operations table and zod, which the command catalog stands in for
// until a command names an operation.
const botCommands = () => import('../bot-commands.js');
const errorReplies = () => import('../render/errors.js');
const forms = () => import('../forms.js');
const fullParser = () => import('../../commands/parse.js');
const operationHelp = () => import('../../commands/help.js');
const operationRegistry = () => import('../../commands/operation-registry.js');

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
    const reply = await safely(deps, ctx, undefined, async () => {
      // Help changes nothing, so its reads (the caller's token, the channel's policy) go out with
      // the claim instead of after it: one storage round trip less before the answer.
      const front = parseFront(command.text, catalog).kind;
      if (front === 'help') {
        const [first, answer] = await Promise.all([
          isFirstCommandDelivery(deps, ctx, command),
          answerCommand(deps, ctx, command.text, client),
        ]);
        return first ? answer : undefined;
      }
      const claim = isFirstCommandDelivery(deps, ctx, command);
      // An operation's answer needs the full parser (the operations table and zod) and the runner
      // (the API client): on a cold start their loading takes longer than the claim's round trip,
      // so they load while the claim is in flight instead of after it. A repeated delivery only
      // loads modules it would have loaded anyway.
      if (front === 'operation-args') preloadOperationAnswer();
      return (await claim) ? answerCommand(deps, ctx, command.text, client) : undefined;
    });
    await ack(reply ? ackBody(reply) : undefined);
    if (deps.metrics) {
      const outcome = reply?.outcome ?? 'answered';
      recordCommand(deps.metrics, commandName(command.text), outcome, performance.now() - started);
    }
  });
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
  const parsed = await parseCommand(breakGlass.text);
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
        breakGlass.present ? breakGlass.reason : undefined,
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

/** The catalog answers help, bot commands and unknown names; an operation's arguments need its schema. */
async function parseCommand(text: string): Promise<ParsedCommand> {
  const front = parseFront(text, catalog);
  if (front.kind !== 'operation-args') return front;
  return (await fullParser()).parseCommand(text);
}

const FORM_FLAG = /(?:^|\s)--form(?=\s|$)/;
const ALL_FLAG = /(?:^|\s)--all(?=\s|$)/;

/**
 * `/cloud volumes create --form`: a modal with the operation's fields, prefilled with whatever the
 * rest of the command already says. `null` when the modal opened (nothing else to say).
 */
async function answerWithForm(ctx: RequestContext, text: string, client: WebClient): Promise<Reply | null> {
  const [{ registry }, { parseCommand }] = await Promise.all([operationRegistry(), fullParser()]);
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
  // The names matched the registry, so they are safe to show as typed.
  const again = `Run \`${SLASH_COMMAND} ${groupName} ${actionName} --form\` again.`;
  await (await forms()).openOperationForm(
    client,
    ctx.triggerId,
    action.value,
    known,
    ctx.channel,
    again,
    ctx.responseUrl,
  );
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

/** `volumes list`, `login`: the first two words, for metrics (never the arguments, which may be secret). */
function commandName(text: string): string {
  const words = text.trim().split(/\s+/).slice(0, 2);
  return words.filter((w) => /^[a-z][a-z0-9-]*$/.test(w)).join(' ') || 'help';
}
