import * as z from 'zod';
import { StoreError } from './errors.js';
import { parseListedItem } from './items.js';
import { keys } from './keys.js';
import { epochSeconds, type StoreContext } from './store-context.js';
import '../zod-settings.js';

/**
 * Where the bot posted a resource's card (a message showing one node, volume, database with its
 * buttons), so that a later change through the bot can update it instead of leaving it stale.
 * Keyed by the team and the resource's item path (`/volumes/123`), one item per message: a card is
 * remembered for a day, and a resource keeps its newest few. A deleted resource leaves a mark (who
 * deleted it and when) for as long, so a card that could not be updated, or a click on an
 * ephemeral one, is answered with what happened.
 */

/** How long a card is followed, and a deletion remembered. */
export const RESOURCE_CARD_TTL_SECONDS = 24 * 3600;
/** Cards followed per resource: the newest; older ones are forgotten (and left as they are). */
export const RESOURCE_CARDS_PER_RESOURCE = 5;

/**
 * An item path as the operations table fills it: `/`-separated segments of letters, digits, dots,
 * dashes and underscores (ids are numbers or slugs such as `g6-standard-2` or `private/12`'s parts).
 */
const RESOURCE_PATTERN = /^(\/[A-Za-z0-9_.-]{1,64}){1,8}$/;
const TS_PATTERN = /^\d{1,12}\.\d{1,9}$/;

export interface ResourceCard {
  readonly resource: string;
  readonly channel: string;
  readonly ts: string;
  readonly postedAt: Date;
}

export interface ResourceDeletion {
  readonly resource: string;
  readonly by: string;
  readonly at: Date;
}

const CardItemSchema = z.object({
  kind: z.literal('resource_card'),
  resource: z.string(),
  channel_id: z.string(),
  message_ts: z.string(),
  posted_at: z.iso.datetime(),
});

const DeletionItemSchema = z.object({
  kind: z.literal('resource_deleted'),
  resource: z.string(),
  by: z.string(),
  at: z.iso.datetime(),
});

export function isResourcePath(resource: string): boolean {
  return RESOURCE_PATTERN.test(resource);
}

function checkedResource(resource: string): string {
  if (!isResourcePath(resource)) throw new StoreError('invalid_key_part', 'Invalid resource path.');
  return resource;
}

const cardPrefix = (resource: string) => `CARD#${checkedResource(resource)}#`;
const deletionKey = (team: string, resource: string) => ({
  pk: keys.team(team),
  sk: `CARDGONE#${checkedResource(resource)}`,
});

export class ResourceCardRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Remembers a card; the resource's oldest beyond the bound are forgotten. */
  async remember(team: string, resource: string, channel: string, ts: string): Promise<void> {
    if (!TS_PATTERN.test(ts)) throw new StoreError('invalid_key_part', 'Invalid message ts.');
    const now = this.#ctx.now();
    await this.#ctx.table.put({
      TableName: this.#ctx.tableName,
      Item: {
        pk: keys.team(team),
        sk: `${cardPrefix(resource)}${ts}`,
        kind: 'resource_card',
        resource,
        channel_id: channel,
        message_ts: ts,
        posted_at: now.toISOString(),
        expires_at: epochSeconds(now) + RESOURCE_CARD_TTL_SECONDS,
      },
    });
    const cards = await this.cardsOf(team, resource);
    const older = cards.slice(0, Math.max(0, cards.length - RESOURCE_CARDS_PER_RESOURCE));
    await Promise.all(older.map((card) => this.forget(team, card)));
  }

  /** The resource's cards still followed, oldest first. */
  async cardsOf(team: string, resource: string): Promise<ResourceCard[]> {
    const now = epochSeconds(this.#ctx.now());
    const page = await this.#ctx.table.query({
      TableName: this.#ctx.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.team(team), ':prefix': cardPrefix(resource) },
      ConsistentRead: true,
    });
    const cards: ResourceCard[] = [];
    for (const raw of page.Items ?? []) {
      // DynamoDB removes expired items some time after they expire.
      if (typeof raw.expires_at === 'number' && raw.expires_at <= now) continue;
      const item = parseListedItem(CardItemSchema, raw, 'resource card');
      if (!item) continue;
      cards.push({
        resource: item.resource,
        channel: item.channel_id,
        ts: item.message_ts,
        postedAt: new Date(item.posted_at),
      });
    }
    return cards.sort((a, b) => a.postedAt.getTime() - b.postedAt.getTime() || a.ts.localeCompare(b.ts));
  }

  async forget(team: string, card: Pick<ResourceCard, 'resource' | 'ts'>): Promise<void> {
    await this.#ctx.table.delete({
      TableName: this.#ctx.tableName,
      Key: { pk: keys.team(team), sk: `${cardPrefix(card.resource)}${card.ts}` },
    });
  }

  /** Notes that a change through the bot deleted the resource (before its cards are told). */
  async markDeleted(team: string, resource: string, by: string): Promise<void> {
    const now = this.#ctx.now();
    await this.#ctx.table.put({
      TableName: this.#ctx.tableName,
      Item: {
        ...deletionKey(team, resource),
        kind: 'resource_deleted',
        resource,
        by,
        at: now.toISOString(),
        expires_at: epochSeconds(now) + RESOURCE_CARD_TTL_SECONDS,
      },
    });
  }

  /** Who deleted the resource through the bot and when, within the last day. */
  async deletionOf(team: string, resource: string): Promise<ResourceDeletion | undefined> {
    const answer = await this.#ctx.table.get({
      TableName: this.#ctx.tableName,
      Key: deletionKey(team, resource),
      ConsistentRead: true,
    });
    const raw = answer.Item;
    if (!raw) return undefined;
    if (typeof raw.expires_at === 'number' && raw.expires_at <= epochSeconds(this.#ctx.now()))
      return undefined;
    const item = parseListedItem(DeletionItemSchema, raw, 'resource deletion');
    return item && { resource: item.resource, by: item.by, at: new Date(item.at) };
  }
}
