import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { AnyOperation } from '../api/operation.js';
import { SLASH_COMMAND } from '../commands/registry.js';
import { commandNameOf } from '../commands/usage.js';
import { contextBlock, mrkdwnFallback, sectionBlock } from '../slack-kit/blocks.js';
import { rateLimitedFor, slackErrorOf } from '../slack-kit/slack-refusals.js';
import { capitalize, codeSpan, slackDate, userMention } from '../slack-kit/text.js';
import type { ResourceCard, ResourceDeletion } from '../store/index.js';
import { isResourcePath } from '../store/resource-cards.js';
import type { RunnerDeps } from './operation-runner.js';
import { routeOf, viewOperationOf } from './render/related-operations.js';
import { kindOfRoute } from './render/resource-kinds.js';

/**
 * A resource's cards follow the changes made to it through the bot. A card (one node, volume or
 * database with its buttons) posted where the bot knows its message (a status watch, a change's
 * answer that took the place of its working note) is remembered for a day; after a change that
 * touched the resource runs (at once, in the worker, or approved, whoever asked, from Slack or an
 * agent), each of its cards is updated: a deleted resource's card says so and loses its buttons;
 * otherwise the resource is read again with the token of the person who changed it and the card
 * shows it as it now is, or, when that read fails, says it changed and how to view it again.
 *
 * An ephemeral card cannot be updated: `chat.update` does not edit ephemeral messages
 * (SLACK-FACTS, "`response_url` and ephemeral messages"). Its buttons stay, and a click on one
 * after the resource was deleted through the bot is answered with who deleted it and when
 * (`deletedResourceNotice`), before anything runs.
 *
 * Following is after the change's answer and never fails it: a card someone deleted
 * (`message_not_found`), one Slack will not edit, or a rate limit is logged and the card left.
 */

interface CardMessage {
  readonly text: string;
  readonly blocks: readonly KnownBlock[];
}

export interface CardDeps extends RunnerDeps {
  readonly slack: WebClient;
}

/** A change that ran through the bot, as the cards it touched are told. */
export interface ResourceChange {
  readonly team: string;
  /** Who asked for it: the resource is read again with their token. */
  readonly user: string;
  readonly op: AnyOperation;
  readonly input: Readonly<Record<string, unknown>>;
  /** Messages this change posted itself (its answer, its status watch): they show it already. */
  readonly except?: readonly string[];
}

/** `/volumes/{volumeId}` with `{volumeId: 12}` → `/volumes/12`; undefined when a value is missing. */
function filledPath(op: AnyOperation, input: Readonly<Record<string, unknown>>): string | undefined {
  let complete = true;
  const path = op.path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const value = input[name];
    if (typeof value !== 'number' && typeof value !== 'string') complete = false;
    return String(value);
  });
  return complete && isResourcePath(path) ? path : undefined;
}

/**
 * The item a path is about: its longest prefix that ends on an id and has a view
 * (`/node/instances/42/shutdown` → `/node/instances/42`), read on the operation's path template.
 */
function itemPathOf(
  template: string,
  path: string,
): { readonly path: string; readonly view: AnyOperation } | undefined {
  const segments = path.split('/').filter(Boolean);
  const templates = template.split('/').filter(Boolean);
  for (let length = segments.length; length > 0; length--) {
    if (!/^\{\w+\}$/.test(templates[length - 1] ?? '')) continue;
    const view = viewOperationOf(routeOf(`/${templates.slice(0, length).join('/')}`));
    if (view) return { path: `/${segments.slice(0, length).join('/')}`, view };
  }
  return undefined;
}

/**
 * The resource a card shows: the item an operation read or answered with (a created resource's new
 * id included), or undefined when the answer is not one resource.
 */
export function cardResourceOf(
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  output: unknown,
): string | undefined {
  if (op.paginated) return undefined;
  const path = filledPath(op, input);
  if (path === undefined) return undefined;
  const id = typeof output === 'object' && output !== null ? (output as { id?: unknown }).id : undefined;
  if (op.method === 'POST' && (typeof id === 'number' || typeof id === 'string')) {
    const created = itemPathOf(`${op.path}/{id}`, `${path}/${id}`);
    if (created?.path === `${path}/${id}` && isResourcePath(created.path)) return created.path;
  }
  return itemPathOf(op.path, path)?.path;
}

/** The resource a change touched, and whether it deleted it. */
export function changedResourceOf(
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
): { readonly resource: string; readonly view: AnyOperation; readonly deleted: boolean } | undefined {
  if (op.method === 'GET') return undefined;
  const path = filledPath(op, input);
  const item = path === undefined ? undefined : itemPathOf(op.path, path);
  if (!path || !item) return undefined;
  return { resource: item.path, view: item.view, deleted: op.method === 'DELETE' && item.path === path };
}

/** Remembers a card the bot posted; a failure is logged, never thrown (the card is only not followed). */
export async function rememberResourceCard(
  deps: Pick<RunnerDeps, 'store' | 'logger'>,
  card: { readonly team: string; readonly channel: string; readonly ts: string; readonly resource: string },
): Promise<void> {
  try {
    await deps.store.resourceCards.remember(card.team, card.resource, card.channel, card.ts);
  } catch (error) {
    deps.logger.warn('resource card not remembered', { resource: card.resource, error });
  }
}

/**
 * Updates every remembered card of the resource `change` touched. Never throws: the change
 * has been answered already.
 */
export async function followResourceCards(deps: CardDeps, change: ResourceChange): Promise<void> {
  const changed = changedResourceOf(change.op, change.input);
  if (!changed) return;
  try {
    const repository = deps.store.resourceCards;
    if (changed.deleted) {
      // Marked first: a re-render racing this one finds the mark and leaves the card deleted.
      await repository.markDeleted(change.team, changed.resource, change.user);
    }
    const cards = await repository.cardsOf(change.team, changed.resource);
    for (const card of cards) {
      if (change.except?.includes(card.ts)) continue;
      if (changed.deleted) {
        const deletion = { resource: changed.resource, by: change.user, at: deps.store.now() };
        await showDeleted(deps, change.team, card, deletion);
        continue;
      }
      await showChanged(deps, change, card, changed.view);
    }
  } catch (error) {
    deps.logger.warn('resource cards not followed', { resource: changed.resource, error });
  }
}

async function showDeleted(deps: CardDeps, team: string, card: ResourceCard, deletion: ResourceDeletion) {
  await updateCard(deps, team, card, deletedCard(deletion));
  // A deleted resource's card is final: it is not followed any further.
  await deps.store.resourceCards.forget(team, card).catch(() => undefined);
}

async function showChanged(deps: CardDeps, change: ResourceChange, card: ResourceCard, view: AnyOperation) {
  const viewInput = inputOfView(view, card.resource);
  const when = slackDate(deps.store.now(), 'at');
  const line = `:arrows_counterclockwise: Updated ${when} after ${userMention(change.user)} ran ${codeSpan(commandNameOf(change.op))}.`;
  let message: CardMessage;
  try {
    // Loaded here: remembering a card (the reporter's status watches) does not need the runner.
    const { answerOperation } = await import('./operation-runner.js');
    const read = await answerOperation(
      deps,
      {
        team: change.team,
        user: change.user,
        channel: card.channel,
        op: view,
        input: viewInput,
        options: {},
      },
      {},
    );
    message = { text: read.text, blocks: [...read.blocks, contextBlock(line)] };
  } catch {
    message = changedCard(change, view, viewInput, when);
  }
  const repository = deps.store.resourceCards;
  // A delete that finished while this read ran has the last word.
  const before = await repository.deletionOf(change.team, card.resource);
  if (before) return showDeleted(deps, change.team, card, before);
  await updateCard(deps, change.team, card, message);
  const after = await repository.deletionOf(change.team, card.resource);
  if (after) await showDeleted(deps, change.team, card, after);
}

/** The view's input from the resource's path: its ids, in path order. */
function inputOfView(view: AnyOperation, resource: string): Record<string, string | number> {
  const values = resource.split('/').filter(Boolean);
  const templates = view.path.split('/').filter(Boolean);
  const input: Record<string, string | number> = {};
  templates.forEach((segment, index) => {
    const name = /^\{(\w+)\}$/.exec(segment)?.[1];
    const value = values[index];
    if (name && value !== undefined) input[name] = /^\d+$/.test(value) ? Number(value) : value;
  });
  return input;
}

function nounOf(resource: string): string {
  return kindOfRoute(routeOf(resource.replace(/\/[^/]+$/, '/{}'))).kind.noun;
}

/** A deleted resource's card: what it was, who deleted it and when, and no buttons. */
export function deletedCard(deletion: ResourceDeletion): CardMessage {
  const id = deletion.resource.split('/').at(-1) ?? '';
  const said = `:wastebasket: ${capitalize(nounOf(deletion.resource))} ${codeSpan(id)} was deleted by ${userMention(deletion.by)} ${slackDate(deletion.at, 'at')}. This card no longer shows it.`;
  return { text: mrkdwnFallback(said), blocks: [sectionBlock(said)] };
}

/** What a click on a deleted resource's button is told instead of running. */
export function deletedResourceNotice(deletion: ResourceDeletion): string {
  const id = deletion.resource.split('/').at(-1) ?? '';
  return `:wastebasket: ${capitalize(nounOf(deletion.resource))} ${codeSpan(id)} was deleted by ${userMention(deletion.by)} ${slackDate(deletion.at, 'at')}, so nothing was run. That card is out of date.`;
}

/**
 * Who deleted the resource a button would act on, when the bot deleted it within the last day: an
 * ephemeral card cannot be updated, so its click is answered instead. Undefined when not, or when
 * the mark cannot be read (the click then runs and the API answers for the resource).
 */
export async function deletionOfTarget(
  deps: Pick<RunnerDeps, 'store' | 'logger'>,
  team: string,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
): Promise<ResourceDeletion | undefined> {
  const resource = changedResourceOf(op, input)?.resource ?? cardResourceOf(op, input, undefined);
  if (!resource) return undefined;
  try {
    return await deps.store.resourceCards.deletionOf(team, resource);
  } catch (error) {
    deps.logger.warn('resource deletion not read', { resource, error });
    return undefined;
  }
}

/** A card whose resource could not be read again: it says it changed, and how to see it now. */
function changedCard(
  change: ResourceChange,
  view: AnyOperation,
  viewInput: Record<string, string | number>,
  when: string,
): CardMessage {
  const ids = view.pathParams.map((name) => ` ${String(viewInput[name])}`).join('');
  const said = `:warning: This card is out of date: ${userMention(change.user)} ran ${codeSpan(commandNameOf(change.op))} on it ${when}. View it again with ${codeSpan(`${SLASH_COMMAND} ${commandNameOf(view)}${ids}`)}.`;
  return { text: mrkdwnFallback(said), blocks: [sectionBlock(said)] };
}

/** One card's update; Slack's refusals are logged (a deleted card is forgotten), never thrown. */
async function updateCard(
  deps: CardDeps,
  team: string,
  card: ResourceCard,
  message: CardMessage,
): Promise<void> {
  try {
    await deps.slack.chat.update({
      channel: card.channel,
      ts: card.ts,
      text: message.text,
      blocks: [...message.blocks],
    });
  } catch (error) {
    const refusal = slackErrorOf(error);
    deps.logger.warn('resource card not updated', {
      channel: card.channel,
      ts: card.ts,
      refusal,
      retryAfter: rateLimitedFor(error),
    });
    // Someone deleted the card, or Slack will never let it be edited: nothing to follow there.
    if (refusal === 'message_not_found' || refusal === 'cant_update_message') {
      await deps.store.resourceCards.forget(team, card).catch(() => undefined);
    }
  }
}
