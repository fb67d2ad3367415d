import * as z from 'zod';
import {
  deleteExisting,
  isConditionFailure,
  isTransactionCanceled,
  parseItem,
  parseListedItem,
  readItem,
} from './items.js';
import { checkedProfile, DEFAULT_PROFILE, keys } from './keys.js';
import { profileKeys, type ReadAhead } from './read-ahead.js';
import { epochSeconds, type StoreContext } from './store-context.js';
import { teamMemberItem } from './team-data.js';
import { EnvelopeSchema, type TokenCipher } from './token-cipher.js';
import '../zod-settings.js';

/**
 * A Slack user's link to the cloud API: one personal access token per profile name, stored only
 * as an envelope (see `token-cipher.ts`). Nothing derived from the token is stored, not even a
 * prefix: the label, API username, scopes and expiry come from the API at login.
 */

export type TokenLinkStatus = 'active' | 'invalid';

export interface TokenLink {
  readonly team: string;
  readonly user: string;
  readonly profile: string;
  readonly label: string;
  readonly apiUsername: string;
  /** As the API reports them: space-separated, `*` for all access. */
  readonly scopes: string;
  /** When the token stops working; `null` when it does not expire. */
  readonly expiry: Date | null;
  /** `invalid` after the API answered 401 to it: the user has to log in again. */
  readonly status: TokenLinkStatus;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface NewTokenLink {
  readonly team: string;
  readonly user: string;
  readonly profile?: string;
  readonly token: string;
  readonly label: string;
  readonly apiUsername: string;
  readonly scopes: string;
  readonly expiry: Date | null;
}

/** The token to call the API with, decrypted for this call only. */
export type TokenLookup =
  | { readonly status: 'found'; readonly link: TokenLink; readonly token: string }
  | { readonly status: 'invalid'; readonly link: TokenLink }
  | { readonly status: 'missing'; readonly profile: string };

const TokenLinkItemSchema = z.object({
  kind: z.literal('token_link'),
  team_id: z.string(),
  user_id: z.string(),
  profile: z.string(),
  label: z.string(),
  api_username: z.string(),
  scopes: z.string(),
  token_expiry: z.iso.datetime().nullable(),
  status: z.enum(['active', 'invalid']),
  /** Removed when the link turns invalid: a token the API rejected is of no use to anyone. */
  token_ciphertext: EnvelopeSchema.optional(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
type TokenLinkItem = z.infer<typeof TokenLinkItemSchema>;

const ActiveProfileItemSchema = z.object({ kind: z.literal('active_profile'), profile: z.string() });

function activeProfileOf(raw: Record<string, unknown>): string {
  return parseItem(ActiveProfileItemSchema, raw, 'active profile').profile;
}

export class TokenLinkRepository {
  readonly #ctx: StoreContext;
  readonly #cipher: TokenCipher;

  constructor(ctx: StoreContext, cipher: TokenCipher) {
    this.#ctx = ctx;
    this.#cipher = cipher;
  }

  /**
   * Stores (or replaces) the token of a profile. With `activate` the profile becomes the active
   * one; without it, only the first profile linked does. The member item, the link and (with
   * `activate`) the active profile are one transaction: all written or none, and a workspace's
   * removal, which finds the user's partition through the member item, never misses a link.
   */
  async saveLink(input: NewTokenLink, options: { readonly activate?: boolean } = {}): Promise<TokenLink> {
    const profile = checkedProfile(input.profile ?? DEFAULT_PROFILE);
    const pk = keys.user(input.team, input.user);
    const now = this.#ctx.now().toISOString();
    const ciphertext = await this.#cipher.encrypt(input.token, { team: input.team, user: input.user });
    const item = {
      pk,
      sk: keys.link(profile),
      kind: 'token_link',
      team_id: input.team,
      user_id: input.user,
      profile,
      label: input.label,
      api_username: input.apiUsername,
      scopes: input.scopes,
      token_expiry: input.expiry?.toISOString() ?? null,
      status: 'active',
      token_ciphertext: ciphertext,
      created_at: now,
      updated_at: now,
      ...(input.expiry ? { expires_at: epochSeconds(input.expiry) } : {}),
    } satisfies TokenLinkItem & Record<string, unknown>;
    const { tableName } = this.#ctx;
    const active = { pk, sk: keys.active, kind: 'active_profile', profile, updated_at: now };
    await this.#ctx.table.transactWrite({
      TransactItems: [
        { Put: { TableName: tableName, Item: teamMemberItem(input.team, input.user) } },
        { Put: { TableName: tableName, Item: item } },
        ...(options.activate ? [{ Put: { TableName: tableName, Item: active } }] : []),
      ],
    });
    if (!options.activate) {
      try {
        await this.#ctx.table.put({
          TableName: tableName,
          Item: active,
          ConditionExpression: 'attribute_not_exists(pk)',
        });
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
    return this.#toLink(item);
  }

  /** The link of a profile, unless there is none or its token has expired. */
  async getLink(team: string, user: string, profile: string): Promise<TokenLink | undefined> {
    const item = await this.#getItem(team, user, profile);
    return item && this.#toLink(item);
  }

  /**
   * The token for a call: of `profile` when given, otherwise of the active profile (or `default`).
   * Throws `SecretDecryptionError` when the stored envelope is not this user's.
   */
  async getToken(team: string, user: string, profile?: string, read?: ReadAhead): Promise<TokenLookup> {
    const { name, item } =
      profile === undefined
        ? await this.#activeLinkItem(team, user, read)
        : { name: profile, item: await this.#getItem(team, user, profile) };
    if (item === undefined) return { status: 'missing', profile: name };
    const link = this.#toLink(item);
    if (item.status === 'invalid' || item.token_ciphertext === undefined) return { status: 'invalid', link };
    const token = await this.#cipher.decrypt(item.token_ciphertext, { team, user });
    return { status: 'found', link, token };
  }

  /** All unexpired links of a user, with the active profile name. */
  async listLinks(
    team: string,
    user: string,
  ): Promise<{ links: TokenLink[]; activeProfile: string | undefined }> {
    const result = await this.#ctx.table.query({
      TableName: this.#ctx.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.user(team, user) },
      ConsistentRead: true,
    });
    const links: TokenLink[] = [];
    let activeProfile: string | undefined;
    for (const raw of result.Items ?? []) {
      if (raw.sk === keys.active) {
        activeProfile = parseListedItem(ActiveProfileItemSchema, raw, 'active profile')?.profile;
      } else if (typeof raw.sk === 'string' && raw.sk.startsWith(keys.linkPrefix)) {
        const item = parseListedItem(TokenLinkItemSchema, raw, 'token link');
        if (item !== undefined && !this.#isExpired(item)) links.push(this.#toLink(item));
      }
    }
    return { links, activeProfile };
  }

  async getActiveProfile(team: string, user: string): Promise<string | undefined> {
    const item = await readItem(this.#ctx, profileKeys(team, user).active);
    return item && activeProfileOf(item);
  }

  /** Makes `profile` the active one; false when the user has no unexpired link of that name. */
  async setActiveProfile(team: string, user: string, profile: string): Promise<boolean> {
    const pk = keys.user(team, user);
    try {
      await this.#ctx.table.transactWrite({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: this.#ctx.tableName,
              Key: { pk, sk: keys.link(profile) },
              ConditionExpression:
                'attribute_exists(pk) AND (attribute_not_exists(expires_at) OR expires_at > :now)',
              ExpressionAttributeValues: { ':now': epochSeconds(this.#ctx.now()) },
            },
          },
          {
            Put: {
              TableName: this.#ctx.tableName,
              Item: {
                pk,
                sk: keys.active,
                kind: 'active_profile',
                profile,
                updated_at: this.#ctx.now().toISOString(),
              },
            },
          },
        ],
      });
      return true;
    } catch (error) {
      if (isTransactionCanceled(error)) return false;
      throw error;
    }
  }

  /**
   * After the API answered 401: the link stays (so `whoami` can say what happened) but its
   * ciphertext goes. False when there is no such link.
   */
  async markInvalid(team: string, user: string, profile: string): Promise<boolean> {
    try {
      await this.#ctx.table.update({
        TableName: this.#ctx.tableName,
        Key: { pk: keys.user(team, user), sk: keys.link(profile) },
        UpdateExpression: 'SET #status = :invalid, updated_at = :now REMOVE token_ciphertext',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':invalid': 'invalid', ':now': this.#ctx.now().toISOString() },
      });
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Logout: deletes the link (and the active-profile pointer if it named it). False when there was none. */
  async deleteLink(team: string, user: string, profile: string): Promise<boolean> {
    const pk = keys.user(team, user);
    const deleted = await deleteExisting(this.#ctx, { pk, sk: keys.link(profile) });
    try {
      await this.#ctx.table.delete({
        TableName: this.#ctx.tableName,
        Key: { pk, sk: keys.active },
        ConditionExpression: 'profile = :profile',
        ExpressionAttributeValues: { ':profile': profile },
      });
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    return deleted;
  }

  /**
   * The active profile's link item. Most people use the default profile: its link is read alongside
   * the active profile instead of after it, one storage round trip less before a command's API
   * call; another profile's link is read next, and the default's read then counts for nothing.
   */
  async #activeLinkItem(
    team: string,
    user: string,
    read: ReadAhead | undefined,
  ): Promise<{ name: string; item: TokenLinkItem | undefined }> {
    // Either item may come from the caller's items read earlier (`Store.readAhead`).
    const { active: activeKey, defaultLink: defaultLinkKey } = profileKeys(team, user);
    const [active, defaultLink] = await Promise.allSettled([
      readItem(this.#ctx, activeKey, read),
      readItem(this.#ctx, defaultLinkKey, read),
    ]);
    if (active.status === 'rejected') throw active.reason;
    const name = active.value === undefined ? DEFAULT_PROFILE : activeProfileOf(active.value);
    if (name !== DEFAULT_PROFILE) return { name, item: await this.#getItem(team, user, name) };
    if (defaultLink.status === 'rejected') throw defaultLink.reason;
    return { name, item: defaultLink.value && this.#usableLink(defaultLink.value) };
  }

  async #getItem(team: string, user: string, profile: string): Promise<TokenLinkItem | undefined> {
    const item = await readItem(this.#ctx, { pk: keys.user(team, user), sk: keys.link(profile) });
    return item && this.#usableLink(item);
  }

  /** The stored link parsed; undefined once expired, since TTL deletes expired links only eventually. */
  #usableLink(raw: Record<string, unknown>): TokenLinkItem | undefined {
    const item = parseItem(TokenLinkItemSchema, raw, 'token link');
    return this.#isExpired(item) ? undefined : item;
  }

  #isExpired(item: TokenLinkItem): boolean {
    return item.token_expiry !== null && Date.parse(item.token_expiry) <= this.#ctx.now().getTime();
  }

  #toLink(item: TokenLinkItem): TokenLink {
    return {
      team: item.team_id,
      user: item.user_id,
      profile: item.profile,
      label: item.label,
      apiUsername: item.api_username,
      scopes: item.scopes,
      expiry: item.token_expiry === null ? null : new Date(item.token_expiry),
      status: item.status,
      createdAt: new Date(item.created_at),
      updatedAt: new Date(item.updated_at),
    };
  }
}
