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
 * and `getLink` and `ChannelPolicyRepository.get` (the caller's items, below), checks the few
 * attributes help needs here, so the first answer of a cold start loads neither those repositories nor zod
 * (their item schemas). A malformed item is a `malformed_item` error, as the repositories say it.
 */
export interface HelpScope {
  /** The active link's scopes; undefined without a link or when its scopes are unknown. */
  readonly scopes?: readonly string[] | undefined;
  /** The channel's policy, if it has one: the classes it allows (all, when it does not limit them). */
  readonly channelPolicy?: { readonly allowedClasses?: readonly string[] | undefined } | undefined;
}

/**
 * The items a person's command in a channel reads first, as stored: their active profile, their
 * default profile's link and the channel's policy. The repositories parse them where they are used
 * (`TokenLinkRepository.getToken`, `ChannelPolicyRepository.get`), and help reads what it needs.
 */
export interface CallerItems {
  readonly activeProfile?: TableItem | undefined;
  readonly defaultLink?: TableItem | undefined;
  readonly channelPolicy?: TableItem | undefined;
}

/**
 * A read of the caller's items already on its way, sent with a command's delivery claim instead
 * of after the modules that parse them have loaded, and whose items they are: a reader uses it only
 * for the same team, user and channel. A failed read surfaces where it is awaited.
 */
export interface CallerRead {
  readonly team: string;
  readonly user: string;
  readonly channel: string;
  readonly items: Promise<CallerItems>;
}

export function readCaller(ctx: StoreContext, team: string, user: string, channel: string): CallerRead {
  const items = readCallerItems(ctx, team, user, channel);
  items.catch(() => undefined);
  return { team, user, channel, items };
}

/** The read's items when it is of this team, user and channel; undefined for any other. */
export function callerItemsOf(
  read: CallerRead | undefined,
  team: string,
  user: string | undefined,
  channel: string | undefined,
): Promise<CallerItems> | undefined {
  if (read?.team !== team) return undefined;
  if (user !== undefined && read.user !== user) return undefined;
  if (channel !== undefined && read.channel !== channel) return undefined;
  return read.items;
}

async function readCallerItems(ctx: StoreContext, team: string, user: string, channel: string) {
  const { active, policy, defaultLink } = callerKeys(team, user, channel);
  const found = await readItems(ctx, [active, policy, defaultLink]);
  return {
    activeProfile: found.get(itemKey(active)),
    defaultLink: found.get(itemKey(defaultLink)),
    channelPolicy: found.get(itemKey(policy)),
  } satisfies CallerItems;
}

function callerKeys(team: string, user: string, channel: string) {
  const userKey = keys.user(team, user);
  return {
    active: { pk: userKey, sk: keys.active },
    policy: { pk: keys.team(team), sk: keys.channelPolicy(channel) },
    defaultLink: { pk: userKey, sk: keys.link(DEFAULT_PROFILE) },
  };
}

export async function readHelpScope(
  ctx: StoreContext,
  team: string,
  user: string,
  channel: string,
  read?: CallerRead,
): Promise<HelpScope> {
  // Most people use the default profile: its link is read in the same request as the active
  // profile and the channel policy, so help waits for one read; another profile's link is read next.
  const first = await (callerItemsOf(read, team, user, channel) ?? readCallerItems(ctx, team, user, channel));
  const profile = first.activeProfile === undefined ? DEFAULT_PROFILE : activeProfileOf(first.activeProfile);
  const linkKey = { pk: keys.user(team, user), sk: keys.link(profile) };
  const link =
    profile === DEFAULT_PROFILE ? first.defaultLink : (await readItems(ctx, [linkKey])).get(itemKey(linkKey));
  return {
    scopes: link === undefined ? undefined : scopesOf(link, ctx.now()),
    channelPolicy: first.channelPolicy === undefined ? undefined : policyOf(first.channelPolicy),
  };
}

interface ItemKey {
  readonly pk: string;
  readonly sk: string;
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
