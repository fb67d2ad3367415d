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
  const read = async (pk: string, sk: string, attributes: readonly string[]) => {
    const names = Object.fromEntries(attributes.map((name, i) => [`#a${i}`, name]));
    const { Item } = await ctx.table.get({
      TableName: ctx.tableName,
      Key: { pk, sk },
      ConsistentRead: true,
      ProjectionExpression: Object.keys(names).join(', '),
      ExpressionAttributeNames: names,
    });
    return Item;
  };
  const userKey = keys.user(team, user);
  const readLink = (profile: string) => read(userKey, keys.link(profile), ['kind', 'scopes', 'token_expiry']);
  // Most people use the default profile: its link is read alongside the active profile instead of
  // after it, so help waits for one round of reads, not two; another profile's link is read next.
  const [active, policyItem, defaultLink] = await Promise.all([
    read(userKey, keys.active, ['kind', 'profile']),
    read(keys.team(team), keys.channelPolicy(channel), ['kind', 'policy']),
    readLink(DEFAULT_PROFILE),
  ]);
  const profile = active === undefined ? DEFAULT_PROFILE : activeProfileOf(active);
  const link = profile === DEFAULT_PROFILE ? defaultLink : await readLink(profile);
  return {
    scopes: link === undefined ? undefined : scopesOf(link, ctx.now()),
    channelPolicy: policyItem === undefined ? undefined : policyOf(policyItem),
  };
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
