import { setTimeout as sleepFor } from 'node:timers/promises';
import { sdkBackoffMs } from '../aws/backoff.js';
import { sendUntilProcessed } from './batch-rounds.js';
import { StoreError } from './errors.js';
import { DEFAULT_PROFILE, keys } from './keys.js';
import type { StoreContext } from './store-context.js';
import type { TableItem } from './table.js';

/**
 * What `/cloud help` is fitted to: the scopes of the caller's active token and the operation
 * classes the channel allows. It reads the same items as `TokenLinkRepository.getActiveProfile`
 * and `getLink` and `ChannelPolicyRepository.get`, projected to the few attributes help needs and
 * checked here, so the first answer of a cold start loads neither those repositories nor zod
 * (their item schemas). A malformed item is a `malformed_item` error, as the repositories say it.
 */
export interface HelpScope {
  /** The active link's scopes; undefined without a link or when its scopes are unknown. */
  readonly scopes?: readonly string[] | undefined;
  /** The channel's policy, if it has one: the classes it allows (all, when it does not limit them). */
  readonly channelPolicy?: { readonly allowedClasses?: readonly string[] | undefined } | undefined;
}

export async function readHelpScope(
  ctx: StoreContext,
  team: string,
  user: string,
  channel: string,
): Promise<HelpScope> {
  const userKey = keys.user(team, user);
  const active = { pk: userKey, sk: keys.active };
  const policy = { pk: keys.team(team), sk: keys.channelPolicy(channel) };
  const linkOf = (profile: string) => ({ pk: userKey, sk: keys.link(profile) });
  // Most people use the default profile: its link is read in the same request as the active
  // profile and the channel policy, so help waits for one read; another profile's link is read next.
  const first = await readItems(ctx, [active, policy, linkOf(DEFAULT_PROFILE)]);
  const activeItem = first.get(itemKey(active));
  const profile = activeItem === undefined ? DEFAULT_PROFILE : activeProfileOf(activeItem);
  const link =
    profile === DEFAULT_PROFILE
      ? first.get(itemKey(linkOf(DEFAULT_PROFILE)))
      : (await readItems(ctx, [linkOf(profile)])).get(itemKey(linkOf(profile)));
  const policyItem = first.get(itemKey(policy));
  return {
    scopes: link === undefined ? undefined : scopesOf(link, ctx.now()),
    channelPolicy: policyItem === undefined ? undefined : policyOf(policyItem),
  };
}

interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

/** What help reads of the three kinds of item: one projection, as a batch read takes one a table. */
const ATTRIBUTES = ['pk', 'sk', 'kind', 'profile', 'policy', 'scopes', 'token_expiry'] as const;
/** DynamoDB may leave keys of a batch unprocessed under load: they are asked again, twice at most. */
const READ_RESENDS = 2;

/** The items at `itemKeys` that exist, by `itemKey`, in one BatchGetItem (more only for keys left unprocessed). */
async function readItems(ctx: StoreContext, itemKeys: readonly ItemKey[]): Promise<Map<string, TableItem>> {
  const names = Object.fromEntries(ATTRIBUTES.map((name, i) => [`#a${i}`, name]));
  const found = new Map<string, TableItem>();
  await sendUntilProcessed<object>(
    itemKeys,
    async (undone) => {
      const { Responses, UnprocessedKeys } = await ctx.table.batchGet({
        RequestItems: {
          [ctx.tableName]: {
            Keys: [...undone],
            ConsistentRead: true,
            ProjectionExpression: Object.keys(names).join(', '),
            ExpressionAttributeNames: names,
          },
        },
      });
      for (const item of Responses[ctx.tableName] ?? []) {
        const { pk, sk } = item;
        if (typeof pk === 'string' && typeof sk === 'string') found.set(itemKey({ pk, sk }), item);
      }
      return UnprocessedKeys?.[ctx.tableName]?.Keys ?? [];
    },
    {
      resends: READ_RESENDS,
      delayMs: (resend) => sdkBackoffMs(resend - 1, true),
      sleep: (ms) => sleepFor(ms),
      undone: () => 'DynamoDB left part of a read undone.',
    },
  );
  return found;
}

function itemKey(key: ItemKey): string {
  return `${key.pk}\u0000${key.sk}`;
}

function activeProfileOf(item: TableItem): string {
  if (item.kind !== 'active_profile' || typeof item.profile !== 'string') throw malformed('active profile');
  return item.profile;
}

function scopesOf(item: TableItem, now: Date): readonly string[] | undefined {
  const { kind, scopes, token_expiry: expiry } = item;
  if (
    kind !== 'token_link' ||
    typeof scopes !== 'string' ||
    !(expiry === null || typeof expiry === 'string')
  ) {
    throw malformed('token link');
  }
  // Expired links are deleted by TTL only eventually; until then they count as absent.
  if (expiry !== null && Date.parse(expiry) <= now.getTime()) return undefined;
  if (scopes === 'unknown') return undefined;
  return scopes.split(/[\s,]+/).filter((scope) => scope !== '');
}

function policyOf(item: TableItem): NonNullable<HelpScope['channelPolicy']> {
  const policy = item.policy;
  if (item.kind !== 'channel_policy' || typeof policy !== 'object' || policy === null) {
    throw malformed('channel policy');
  }
  const allowed = (policy as { allowedClasses?: unknown }).allowedClasses;
  if (allowed === undefined) return {};
  if (!Array.isArray(allowed) || !allowed.every((name) => typeof name === 'string')) {
    throw malformed('channel policy');
  }
  return { allowedClasses: allowed };
}

function malformed(kind: string): StoreError {
  return new StoreError('malformed_item', `A stored ${kind} item is malformed.`);
}
