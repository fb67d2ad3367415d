import { randomBytes } from 'node:crypto';
import type {
  Installation,
  InstallationQuery,
  InstallationStore,
  InstallURLOptions,
  StateStore,
} from '@slack/bolt';
import * as z from 'zod';
import { StoreError } from './errors.js';
import { getParsed, isConditionFailure, parseItem, updateReturning } from './items.js';
import { keys } from './keys.js';
import { epochSeconds, type StoreContext } from './store-context.js';
import { type CipherContext, EnvelopeSchema, type TokenCipher } from './token-cipher.js';
import '../zod-settings.js';

/**
 * Where the app is installed, per workspace (`TEAM#T / INSTALLATION`) or per Enterprise Grid org
 * for org-wide installs (`ENTERPRISE#E / INSTALLATION`), as Bolt's `InstallationStore`. The bot
 * token and its refresh token are sealed like users' API tokens, bound to the team (or org) they
 * belong to, so an envelope copied into another team's item does not open. Everything else of
 * Bolt's installation object is kept as it came, without its secrets.
 */

/** The cipher's owner part for installation secrets: no Slack user id looks like this. */
const BOT_TOKEN_OWNER = 'installation:bot';
const REFRESH_TOKEN_OWNER = 'installation:bot-refresh';

export type SlackInstallation = Installation<'v1' | 'v2', boolean>;

const InstallationItemSchema = z.object({
  kind: z.literal('installation'),
  team_id: z.string().nullable(),
  enterprise_id: z.string().nullable(),
  is_enterprise_install: z.boolean(),
  /** Bolt's installation object with the bot's and user's tokens taken out. */
  details: z.record(z.string(), z.unknown()),
  bot_token_ciphertext: EnvelopeSchema.optional(),
  bot_refresh_token_ciphertext: EnvelopeSchema.optional(),
  installed_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
type InstallationItem = z.infer<typeof InstallationItemSchema>;

const ServedByItemSchema = z.object({ kind: z.literal('served_by'), enterprise_id: z.string() });

/** Thrown by `fetchInstallation` when nothing serves the query: the request is refused. */
export class InstallationNotFoundError extends Error {
  override readonly name = 'InstallationNotFoundError';
  constructor() {
    super('The app is not installed in this workspace.');
  }
}

/** Which item holds the installation of a query, and whose key seals its secrets. */
function ownerOf(query: {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
}): { pk: string; owner: string } | undefined {
  if (query.isEnterpriseInstall && query.enterpriseId) {
    return { pk: keys.enterprise(query.enterpriseId), owner: query.enterpriseId };
  }
  if (query.teamId) return { pk: keys.team(query.teamId), owner: query.teamId };
  return undefined;
}

export class InstallationRepository implements InstallationStore {
  readonly #ctx: StoreContext;
  readonly #cipher: TokenCipher;

  constructor(ctx: StoreContext, cipher: TokenCipher) {
    this.#ctx = ctx;
    this.#cipher = cipher;
  }

  async storeInstallation(installation: SlackInstallation): Promise<void> {
    const isEnterpriseInstall = installation.isEnterpriseInstall === true;
    const where = ownerOf({
      teamId: installation.team?.id,
      enterpriseId: installation.enterprise?.id,
      isEnterpriseInstall,
    });
    if (!where) throw new StoreError('invalid_key_part', 'An installation names neither a team nor an org.');
    const seal = (plain: string, owner: string) =>
      this.#cipher.encrypt(plain, { team: where.owner, user: owner });
    const { bot, user, ...rest } = installation;
    const now = this.#ctx.now().toISOString();
    const existing = await this.#item(where.pk);
    // The bot's token is the only one the app uses; a user token granted alongside is not kept.
    const details = {
      ...rest,
      user: { id: user.id, scopes: user.scopes },
      ...(bot
        ? { bot: { id: bot.id, userId: bot.userId, scopes: bot.scopes, expiresAt: bot.expiresAt } }
        : {}),
    };
    const item = {
      pk: where.pk,
      sk: keys.installation,
      kind: 'installation',
      team_id: installation.team?.id ?? null,
      enterprise_id: installation.enterprise?.id ?? null,
      is_enterprise_install: isEnterpriseInstall,
      details: JSON.parse(JSON.stringify(details)) as Record<string, unknown>,
      ...(bot ? { bot_token_ciphertext: await seal(bot.token, BOT_TOKEN_OWNER) } : {}),
      ...(bot?.refreshToken
        ? { bot_refresh_token_ciphertext: await seal(bot.refreshToken, REFRESH_TOKEN_OWNER) }
        : {}),
      installed_at: existing?.installed_at ?? now,
      updated_at: now,
    } satisfies InstallationItem & Record<string, unknown>;
    await this.#ctx.table.put({ TableName: this.#ctx.tableName, Item: item });
  }

  /**
   * The installation serving `query`: the workspace's own, or the org-wide one of its enterprise
   * (named by the query, or remembered for the team by `rememberServedBy`). Throws
   * `InstallationNotFoundError` when there is none.
   */
  async fetchInstallation(query: InstallationQuery<boolean>): Promise<SlackInstallation> {
    const found = await this.find(query);
    if (!found) throw new InstallationNotFoundError();
    return found;
  }

  /** As `fetchInstallation`, with `undefined` for "not installed". */
  async find(query: InstallationQuery<boolean>): Promise<SlackInstallation | undefined> {
    const direct = ownerOf(query);
    if (direct) {
      const item = await this.#item(direct.pk);
      if (item) return this.#toInstallation(item, direct.owner);
    }
    const enterprise = query.enterpriseId ?? (query.teamId ? await this.#servedBy(query.teamId) : undefined);
    if (!enterprise || (query.isEnterpriseInstall && query.enterpriseId)) return undefined;
    const item = await this.#item(keys.enterprise(enterprise));
    return item?.is_enterprise_install ? this.#toInstallation(item, enterprise) : undefined;
  }

  /** Deletes the installation `query` names; true when there was one. */
  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    await this.remove(query);
  }

  async remove(query: InstallationQuery<boolean>): Promise<boolean> {
    const where = ownerOf(query);
    if (!where) return false;
    const deleted = await this.#ctx.table.delete({
      TableName: this.#ctx.tableName,
      Key: { pk: where.pk, sk: keys.installation },
      ReturnValues: 'ALL_OLD',
    });
    return deleted.Attributes !== undefined;
  }

  /**
   * Notes that `team` is served by the org-wide installation of `enterprise`, so the worker and
   * the reporter, which know only a job's team, find its bot token.
   */
  async rememberServedBy(team: string, enterprise: string): Promise<void> {
    await this.#ctx.table.put({
      TableName: this.#ctx.tableName,
      Item: {
        pk: keys.team(team),
        sk: keys.servedByEnterprise,
        kind: 'served_by',
        enterprise_id: enterprise,
      },
    });
  }

  async #servedBy(team: string): Promise<string | undefined> {
    const item = await getParsed(
      this.#ctx,
      { pk: keys.team(team), sk: keys.servedByEnterprise },
      ServedByItemSchema,
      'served-by',
    );
    return item?.enterprise_id;
  }

  async #item(pk: string): Promise<InstallationItem | undefined> {
    const result = await this.#ctx.table.get({
      TableName: this.#ctx.tableName,
      Key: { pk, sk: keys.installation },
      ConsistentRead: true,
    });
    return result.Item === undefined
      ? undefined
      : parseItem(InstallationItemSchema, result.Item, 'installation');
  }

  async #toInstallation(item: InstallationItem, owner: string): Promise<SlackInstallation> {
    const open = (ciphertext: InstallationItem['bot_token_ciphertext'], user: string) => {
      const context: CipherContext = { team: owner, user };
      return ciphertext ? this.#cipher.decrypt(ciphertext, context) : Promise.resolve(undefined);
    };
    const [token, refreshToken] = await Promise.all([
      open(item.bot_token_ciphertext, BOT_TOKEN_OWNER),
      open(item.bot_refresh_token_ciphertext, REFRESH_TOKEN_OWNER),
    ]);
    const details = item.details as unknown as SlackInstallation;
    const bot = details.bot;
    return {
      ...details,
      user: { ...details.user, token: undefined },
      ...(bot && token
        ? { bot: { ...bot, token, ...(refreshToken === undefined ? {} : { refreshToken }) } }
        : {}),
    } as SlackInstallation;
  }
}

/** How long an "Add to Slack" link stays good: Bolt's own cookie lasts as long. */
export const OAUTH_STATE_SECONDS = 10 * 60;

const OAuthStateItemSchema = z.object({
  kind: z.literal('oauth_state'),
  install_options: z.record(z.string(), z.unknown()),
  expires_at: z.number(),
});

/** Why a state was refused, for the failure page and the logs (never the state itself). */
export class OAuthStateError extends Error {
  override readonly name = 'OAuthStateError';
  /** Bolt's code for a bad state, so its callback failure handling treats it as one. */
  readonly code = 'slack_oauth_invalid_state';
  constructor(readonly reason: 'unknown_or_used' | 'expired') {
    super(reason === 'expired' ? 'The install link has expired.' : 'The install link is not valid.');
  }
}

/**
 * Bolt's `StateStore` in the table: each state is a random value stored with its install options
 * and used (then deleted) by one verification, so a replayed redirect (or a state this app never
 * issued) is refused. Bolt's cookie ties the state to the browser that started the flow.
 */
export class OAuthStateStore implements StateStore {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  async generateStateParam(installOptions: InstallURLOptions): Promise<string> {
    const state = randomBytes(24).toString('base64url');
    try {
      await this.#ctx.table.put({
        TableName: this.#ctx.tableName,
        Item: {
          pk: keys.oauthState(state),
          sk: 'STATE',
          kind: 'oauth_state',
          install_options: JSON.parse(JSON.stringify(installOptions)) as Record<string, unknown>,
          expires_at: epochSeconds(this.#ctx.now()) + OAUTH_STATE_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
    } catch (error) {
      // The state is 24 random bytes, so an item already under its key is this put's own first
      // attempt: it landed, its answer was lost, and the client sent it again. The state stands.
      if (!isConditionFailure(error)) throw error;
    }
    return state;
  }

  /** The install options the state was issued with; throws `OAuthStateError` otherwise. */
  async verifyStateParam(_now: Date, state: string): Promise<InstallURLOptions> {
    let pk: string;
    try {
      pk = keys.oauthState(state);
    } catch {
      throw new OAuthStateError('unknown_or_used');
    }
    // Used by one conditional write, then deleted. The write is named (`updateReturning`): one
    // whose answer was lost, and which the table client sent again, is this verification's use,
    // not a replay's, so the install goes on instead of failing as "already used".
    const use = await updateReturning(
      this.#ctx,
      { pk, sk: 'STATE' },
      {
        UpdateExpression: 'SET used = :true',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(used)',
        ExpressionAttributeValues: { ':true': true },
      },
    );
    if (!use.ok) throw new OAuthStateError('unknown_or_used');
    // Marked used, it cannot be used again: TTL removes it if this delete does not.
    await this.#ctx.table
      .delete({ TableName: this.#ctx.tableName, Key: { pk, sk: 'STATE' } })
      .catch(() => undefined);
    const item = parseItem(OAuthStateItemSchema, use.item, 'OAuth state');
    // TTL removes expired states only eventually; until then they are refused here.
    if (item.expires_at <= epochSeconds(this.#ctx.now())) throw new OAuthStateError('expired');
    return item.install_options as unknown as InstallURLOptions;
  }
}
