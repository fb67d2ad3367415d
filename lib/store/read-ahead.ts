import { setTimeout as sleepFor } from 'node:timers/promises';
import { sdkBackoffMs } from '../aws/backoff.js';
import { sendUntilProcessed } from './batch-rounds.js';
import { StoreError } from './errors.js';
import { DEFAULT_PROFILE, keys } from './keys.js';
import type { StoreContext } from './store-context.js';
import type { ItemKey, ReadAhead, TableItem } from './table.js';

export type { ItemKey, ReadAhead } from './table.js';

/**
 * What `/cloud help` is fitted to: the scopes of the caller's active token and the operation
 * classes the channel allows. It reads the same items as `TokenLinkRepository.getActiveProfile`
 * and `getLink` and `ChannelPolicyRepository.get` (the caller's items, below) and checks the few
 * attributes help needs here, so the first answer of a cold start loads neither those
 * repositories nor zod (their item schemas). A malformed item is a `malformed_item` error, as the
 * repositories say it.
 */
export interface HelpScope {
  /** The active link's scopes; undefined without a link or when its scopes are unknown. */
  readonly scopes?: readonly string[] | undefined;
  /** The channel's policy, if it has one: the classes it allows (all, when it does not limit them). */
  readonly channelPolicy?: { readonly allowedClasses?: readonly string[] | undefined } | undefined;
}

/** Sends one batch read of `itemKeys` now, for the repositories to take their items from (`ReadAhead`). */
export function readAhead(ctx: StoreContext, itemKeys: readonly ItemKey[]): ReadAhead {
  const asked = new Set(itemKeys.map(itemKey));
  const found = readItems(ctx, itemKeys);
  found.catch(() => undefined);
  return {
    itemAt: (key) => (asked.has(itemKey(key)) ? found.then((items) => items.get(itemKey(key))) : undefined),
  };
}

/** A person's active profile and their default profile's link, which most people use. */
export function profileKeys(team: string, user: string) {
  const userKey = keys.user(team, user);
  return {
    active: { pk: userKey, sk: keys.active },
    defaultLink: { pk: userKey, sk: keys.link(DEFAULT_PROFILE) },
  } satisfies Record<string, ItemKey>;
}

/** What a person's command in a channel reads first: their profile's items and the channel's policy. */
export function callerKeys(team: string, user: string, channel: string): ItemKey[] {
  const { active, defaultLink } = profileKeys(team, user);
  return [active, channelPolicyKey(team, channel), defaultLink];
}

function channelPolicyKey(team: string, channel: string): ItemKey {
  return { pk: keys.team(team), sk: keys.channelPolicy(channel) };
}

/**
 * What a click on an approval card reads first: the request, the workspace's approval policy, and
 * the policy of the channel the card is in (the request's, unless the click came from a Home).
 */
export function approvalClickKeys(team: string, approvalId: string, channel: string | undefined): ItemKey[] {
  return [
    { pk: keys.team(team), sk: keys.approval(approvalId) },
    { pk: keys.team(team), sk: keys.policy },
    ...(channel ? [channelPolicyKey(team, channel)] : []),
  ];
}

/** The items at `itemKeys`: from `read` where it asked for them, the rest in one batch read now. */
async function itemsAt(
  ctx: StoreContext,
  itemKeys: readonly ItemKey[],
  read: ReadAhead | undefined,
): Promise<(TableItem | undefined)[]> {
  const ahead = itemKeys.map((key) => read?.itemAt(key));
  const missing = itemKeys.filter((_, i) => ahead[i] === undefined);
  const fresh = missing.length > 0 ? readItems(ctx, missing) : undefined;
  return Promise.all(itemKeys.map(async (key, i) => ahead[i] ?? (await fresh)?.get(itemKey(key))));
}

export async function readHelpScope(
  ctx: StoreContext,
  team: string,
  user: string,
  channel: string,
  read?: ReadAhead,
): Promise<HelpScope> {
  // Most people use the default profile: its link is read in the same request as the active
  // profile and the channel policy, so help waits for one read; another profile's link is read next.
  const [activeItem, policyItem, defaultLinkItem] = await itemsAt(ctx, callerKeys(team, user, channel), read);
  const profile = activeItem === undefined ? DEFAULT_PROFILE : activeProfileOf(activeItem);
  const linkKey = { pk: keys.user(team, user), sk: keys.link(profile) };
  const link =
    profile === DEFAULT_PROFILE ? defaultLinkItem : (await readItems(ctx, [linkKey])).get(itemKey(linkKey));
  return {
    scopes: link === undefined ? undefined : scopesOf(link, ctx.now()),
    channelPolicy: policyItem === undefined ? undefined : policyOf(policyItem),
  };
}

/** DynamoDB may leave keys of a batch unprocessed under load: they are asked again, twice at most. */
const READ_RESENDS = 2;

/** The items at `itemKeys` that exist, by `itemKey`, in one BatchGetItem (more only for keys left unprocessed). */
async function readItems(ctx: StoreContext, itemKeys: readonly ItemKey[]): Promise<Map<string, TableItem>> {
  const found = new Map<string, TableItem>();
  await sendUntilProcessed<object>(
    itemKeys,
    async (undone) => {
      const { Responses, UnprocessedKeys } = await ctx.table.batchGet({
        RequestItems: {
          [ctx.tableName]: {
            Keys: [...undone],
            ConsistentRead: true,
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
