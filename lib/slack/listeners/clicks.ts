import { randomUUID } from 'node:crypto';
import type { AllMiddlewareArgs, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type * as z from 'zod';
import type * as Interactions from '../../slack-kit/interactions.js';
import type { Reply } from '../../slack-kit/reply.js';
import type { BotDeps, RequestContext } from '../context.js';
import { responseBody, safely } from '../dispatch.js';
import { isFirstClick } from './deliveries.js';

// Loaded on first use, so a cold start answers `/cloud help` without them: the payload schemas (zod).
const interactions = () => import('../../slack-kit/interactions.js');

/**
 * How a button or menu is taken before and after what its listener does, the same for every one
 * (bolt-js's listener middleware, as one wrapper): the ack first, within Slack's 3 s; the request's
 * context, from the message or the Home tab the element is on; the element's kind; the claim of the
 * click's delivery, so a repeat does nothing; the element's value decoded by its schema; the safety
 * net (`safely`), which turns anything thrown into the reply; and the reply, to the clicker.
 */
export interface ClickWay<P, M> {
  /**
   * Where the element is; a message when absent. A message's click brings its channel and
   * `response_url`; a Home tab's has neither and is answered by direct message. A click from
   * anywhere else is dropped.
   */
  readonly from?: 'message' | 'home' | 'message or home';
  /** The element's kind, a button when absent; a click on another kind is dropped. */
  readonly element?: 'button' | 'overflow' | 'any';
  /** `false` where a repeated delivery may be answered again (nothing claims it). */
  readonly once?: false;
  /** The element value's schema: the listener gets the payload, or undefined when it does not parse. */
  readonly payload?: (schemas: typeof Interactions) => z.ZodType<P>;
  /**
   * What starts while the delivery's claim is in flight (module loads, a read ahead), for a click
   * whose answer would otherwise wait for them after the claim; its result goes to the listener.
   */
  readonly meanwhile?: (ctx: RequestContext, value: string | undefined) => M;
  /**
   * How a message's clicker is answered: as the reply says (in the channel or to them alone) when
   * absent, in place of the clicked message, or to them alone whatever the reply says.
   */
  readonly reply?: 'in place of the message' | 'to the clicker alone';
}

/** What a click listener is given: the request, and the element's value as sent and as decoded. */
export interface Click<P, M> {
  readonly ctx: RequestContext;
  readonly client: WebClient;
  /** A button's value, or the chosen option's of a menu. */
  readonly value: string | undefined;
  readonly payload: P | undefined;
  /** What `meanwhile` started, if the way starts anything. */
  readonly meanwhile: M | undefined;
}

/**
 * A Bolt action listener that takes the click `way` says and then answers it with `listen`, which
 * holds only the listener's own work. Nothing is awaited before the ack, and the listener's work
 * starts only once the click is claimed (and its value decoded). One wrapper rather than a chain of
 * Bolt middleware: the safety net and the reply come after the listener and need what it answers,
 * which Bolt's `next()` does not hand back.
 */
export function onClick<P extends object = never, M = undefined>(
  deps: BotDeps,
  way: ClickWay<P, M>,
  listen: (click: Click<P, M>) => Promise<Reply | undefined>,
): (args: SlackActionMiddlewareArgs & AllMiddlewareArgs) => Promise<void> {
  return async ({ ack, body, action, respond, client }) => {
    await ack();
    const ctx = clickContext(body, way.from ?? 'message');
    const element = elementValue(action, way.element ?? 'button');
    if (!ctx || !element) return;
    const claim = way.once === false ? undefined : isFirstClick(deps, ctx, action);
    const meanwhile = way.meanwhile?.(ctx, element.value);
    if (claim && !(await claim)) return;
    const payload = way.payload && (await decode(way.payload, element.value));
    const reply = await safely(deps, ctx, operationIdOf(payload), () =>
      listen({ ctx, client, value: element.value, payload, meanwhile }),
    );
    if (!reply || reply.shownElsewhere) return;
    if (!ctx.responseUrl) await tellDirectly(deps, client, ctx, reply);
    else if (way.reply === 'to the clicker alone')
      await respond({ ...responseBody(reply, false), response_type: 'ephemeral' });
    else await respond(responseBody(reply, way.reply === 'in place of the message'));
  };
}

async function decode<P>(
  schema: (schemas: typeof Interactions) => z.ZodType<P>,
  value: string | undefined,
): Promise<P | undefined> {
  const schemas = await interactions();
  return schemas.decodeActionValue(schema(schemas), value);
}

/** The operation a run, paging, menu or file button names, for the safety net's log and reply. */
function operationIdOf(payload: object | undefined): string | undefined {
  return payload && 'operationId' in payload && typeof payload.operationId === 'string'
    ? payload.operationId
    : undefined;
}

/** The clicked element's value, or undefined when the element is not of the kind the listener takes. */
function elementValue(
  action: SlackActionMiddlewareArgs['action'],
  element: NonNullable<ClickWay<never, unknown>['element']>,
): { readonly value: string | undefined } | undefined {
  switch (element) {
    case 'any':
      return { value: undefined };
    case 'button':
      return action.type === 'button' ? { value: action.value } : undefined;
    case 'overflow':
      return action.type === 'overflow' ? { value: action.selected_option.value } : undefined;
  }
}

function clickContext(
  body: SlackActionMiddlewareArgs['body'],
  from: NonNullable<ClickWay<never, unknown>['from']>,
): RequestContext | undefined {
  switch (from) {
    case 'message':
      return messageClickContext(body);
    case 'home':
      return homeClickContext(body);
    case 'message or home':
      return messageClickContext(body) ?? homeClickContext(body);
  }
}

/** Bolt's block_actions body, narrowed to what the listeners need. */
function messageClickContext(body: {
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

/**
 * A click on a view (the person's Home tab): Slack sends no channel and no `response_url`, so it
 * is answered in the person's direct messages with the app (posting to a user id opens them).
 * Run, paging, menu and file buttons are on messages only and need the message's channel: those
 * listeners take message clicks alone.
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
