import { createHash, randomBytes } from 'node:crypto';
import * as z from 'zod';
import { getParsed, isConditionFailure, listPrefixed, updateIf } from './items.js';
import { keys } from './keys.js';
import { callerKeys, type ReadAhead, readAhead } from './read-ahead.js';
import { epochSeconds, type StoreContext } from './store-context.js';
import { recordTeamMember } from './team-data.js';
import '../zod-settings.js';

/**
 * Agents a person let act for them: one grant per agent (an MCP client signed in through the bot's
 * OAuth pages, or Slackbot), naming the person, the agent, the channel whose guardrails and
 * approvers its changes go to (its home channel) and what it may do. Grants live in the person's
 * partition, so logging out, `/cloud agents revoke` and a workspace's removal take them away with
 * the rest of the person's items.
 *
 * Tokens: an access token (an hour) and a refresh token (30 days, rotated on every use: OAuth 2.1
 * §4.3.1 for public clients, MCP-FACTS §2). Each carries 32 random bytes, and the table keeps a
 * token only as a SHA-256, bound to its grant and to the resource it was issued for; an access
 * token also names where its grant is, so checking it takes one read. A token counts only while
 * its grant is there, so revoking the grant revokes every token issued under it at once.
 */

export const AGENT_SCOPES = ['cloud:read', 'cloud:change'] as const;
/** `cloud:read`: run reads. `cloud:change`: ask for changes (each still waits for people). */
export type AgentScope = (typeof AGENT_SCOPES)[number];

/** The grant id of a person's Slackbot (one per person; it signs in with Slack identity, no tokens). */
export const SLACKBOT_GRANT_ID = 'slackbot';

export const ACCESS_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_SECONDS = 30 * 86_400;
/** Last use is written at most this often, so a busy agent does not write on every call. */
const LAST_USED_RESOLUTION_MS = 5 * 60_000;

export interface AgentGrant {
  readonly id: string;
  readonly team: string;
  readonly user: string;
  /** The OAuth client id (a metadata document URL or a registered id), or `slackbot`. */
  readonly clientId: string;
  /** The agent's name as its client gives it; shown on cards and in the audit. */
  readonly clientName: string;
  readonly homeChannel: string;
  readonly scopes: readonly AgentScope[];
  readonly createdAt: Date;
  readonly lastUsedAt?: Date | undefined;
}

export interface NewAgentGrant {
  readonly team: string;
  readonly user: string;
  readonly clientId: string;
  readonly clientName: string;
  readonly homeChannel: string;
  readonly scopes: readonly AgentScope[];
  /** A fixed id (`SLACKBOT_GRANT_ID`) replaces the grant there; otherwise a new random id. */
  readonly id?: string;
}

export interface IssuedTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly expiresInSeconds: number;
  readonly scopes: readonly AgentScope[];
}

export interface VerifiedAgentToken {
  readonly grant: AgentGrant;
  readonly expiresAt: Date;
  /** The resource (the MCP endpoint's URL) the token was issued for. */
  readonly resource: string;
  readonly scopes: readonly AgentScope[];
  /**
   * The person's items and their home channel's policy (`callerKeys`), asked in the same batch as
   * the grant: what the agent's tools are fitted to and a call is guarded by. Absent for a token
   * issued before tokens named their grant's home channel.
   */
  readonly callerRead?: ReadAhead | undefined;
}

/** Why a token does not count: said to the agent only as "invalid token". */
export type TokenRefusal = 'unknown' | 'expired' | 'revoked' | 'wrong_resource' | 'reused' | 'wrong_client';

const GrantItemSchema = z.object({
  kind: z.literal('agent_grant'),
  grant_id: z.string(),
  team_id: z.string(),
  user_id: z.string(),
  client_id: z.string(),
  client_name: z.string(),
  home_channel: z.string(),
  scopes: z.array(z.enum(AGENT_SCOPES)),
  created_at: z.iso.datetime(),
  last_used_at: z.iso.datetime().optional(),
});
type GrantItem = z.infer<typeof GrantItemSchema>;

const TokenItemSchema = z.object({
  kind: z.literal('agent_token'),
  token_kind: z.enum(['access', 'refresh']),
  team_id: z.string(),
  user_id: z.string(),
  grant_id: z.string(),
  client_id: z.string(),
  resource: z.string(),
  scopes: z.array(z.enum(AGENT_SCOPES)),
  /** The grant's home channel when the token was issued, so its items are read with the grant. */
  home_channel: z.string().optional(),
  valid_until_ms: z.number(),
  used_at: z.iso.datetime().optional(),
});
type TokenItem = z.infer<typeof TokenItemSchema>;

/** A prefix says what a token is to people and secret scanners; the secret is 32 random bytes. */
const ACCESS_PREFIX = 'cbat_';
const REFRESH_PREFIX = 'cbrt_';
/** A refresh token, and an access token issued before access tokens named their grant. */
const TOKEN_PATTERN = /^cb(at|rt)_[A-Za-z0-9_-]{43}$/;
/**
 * An access token names where its grant and its person's items are (team, user, grant id, home
 * channel, each a key part) before its secret, so one batch reads its item, its grant and what a
 * call reads first. The names only say where to look: the token counts only if the item stored
 * under the hash of the whole token names the same grant, person and channel.
 */
const ACCESS_TOKEN_PATTERN =
  /^cbat_([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{1,64})\.[A-Za-z0-9_-]{43}$/;

interface TokenNames {
  readonly team: string;
  readonly user: string;
  readonly grantId: string;
  readonly channel: string;
}

function secret(): string {
  return randomBytes(32).toString('base64url');
}

function accessTokenFor(grant: AgentGrant): string {
  return `${ACCESS_PREFIX}${[grant.team, grant.user, grant.id, grant.homeChannel, secret()].join('.')}`;
}

function namesOf(token: string): TokenNames | undefined {
  const match = ACCESS_TOKEN_PATTERN.exec(token);
  if (!match) return undefined;
  const [, team = '', user = '', grantId = '', channel = ''] = match;
  return { team, user, grantId, channel };
}

function tokenKey(token: string) {
  return { pk: keys.agentToken(tokenHash(token)), sk: 'TOKEN' };
}

function grantKey(team: string, user: string, id: string) {
  return { pk: keys.user(team, user), sk: keys.agentGrant(id) };
}

function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

export class AgentGrantRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  async create(input: NewAgentGrant): Promise<AgentGrant> {
    const id = input.id ?? randomBytes(16).toString('base64url');
    const item: GrantItem & { pk: string; sk: string } = {
      ...grantKey(input.team, input.user, id),
      kind: 'agent_grant',
      grant_id: id,
      team_id: input.team,
      user_id: input.user,
      client_id: input.clientId,
      client_name: input.clientName,
      home_channel: input.homeChannel,
      scopes: [...input.scopes],
      created_at: this.#ctx.now().toISOString(),
    };
    await recordTeamMember(this.#ctx, input.team, input.user);
    await this.#ctx.table.put({ TableName: this.#ctx.tableName, Item: item });
    return grantOf(item);
  }

  async get(team: string, user: string, id: string, read?: ReadAhead): Promise<AgentGrant | undefined> {
    const item = await getParsed(this.#ctx, grantKey(team, user, id), GrantItemSchema, 'agent grant', read);
    return item && grantOf(item);
  }

  /** The person's agents, oldest first. */
  async listFor(team: string, user: string): Promise<AgentGrant[]> {
    const items = await listPrefixed(
      this.#ctx,
      { pk: keys.user(team, user), prefix: keys.agentGrantPrefix },
      GrantItemSchema,
      'agent grant',
    );
    return items.map(grantOf).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  /** Takes the grant away, and with it every token issued under it; true when it was there. */
  async revoke(team: string, user: string, id: string): Promise<boolean> {
    const result = await this.#ctx.table.delete({
      TableName: this.#ctx.tableName,
      Key: grantKey(team, user, id),
      ReturnValues: 'ALL_OLD',
    });
    return result.Attributes !== undefined;
  }

  /** Every agent of the person (logout); how many there were. */
  async revokeAllFor(team: string, user: string): Promise<number> {
    const grants = await this.listFor(team, user);
    await Promise.all(grants.map((grant) => this.revoke(team, user, grant.id)));
    return grants.length;
  }

  /** A new access and refresh token for `grant`, bound to `resource`. */
  async issueTokens(grant: AgentGrant, resource: string): Promise<IssuedTokens> {
    const accessToken = accessTokenFor(grant);
    const refreshToken = `${REFRESH_PREFIX}${secret()}`;
    await Promise.all([
      this.#putToken(accessToken, 'access', grant, resource, ACCESS_TOKEN_SECONDS),
      this.#putToken(refreshToken, 'refresh', grant, resource, REFRESH_TOKEN_SECONDS),
    ]);
    return { accessToken, refreshToken, expiresInSeconds: ACCESS_TOKEN_SECONDS, scopes: grant.scopes };
  }

  /**
   * The grant behind an access token, if the token counts for `resource` now. Its last use is not
   * written here: `noteUse` writes it beside the call the token was for.
   */
  async verifyAccessToken(
    token: string,
    resource: string,
  ): Promise<VerifiedAgentToken | { readonly refused: TokenRefusal }> {
    // One round trip for the token, its grant and what the call reads first, where the token names
    // them; otherwise the token's item says where they are, and they are read next.
    const names = namesOf(token);
    const named =
      names &&
      readAhead(this.#ctx, [
        tokenKey(token),
        grantKey(names.team, names.user, names.grantId),
        ...callerKeys(names.team, names.user, names.channel),
      ]);
    const found = await this.#tokenItem(token, 'access', named);
    if (!found || (names && !namesItem(names, found))) return { refused: 'unknown' };
    if (found.valid_until_ms <= this.#ctx.now().getTime()) return { refused: 'expired' };
    if (found.resource !== resource) return { refused: 'wrong_resource' };
    const { team_id: team, user_id: user, home_channel: channel } = found;
    const read =
      named ??
      (channel === undefined
        ? undefined
        : readAhead(this.#ctx, [grantKey(team, user, found.grant_id), ...callerKeys(team, user, channel)]));
    const grant = await this.get(team, user, found.grant_id, read);
    if (!grant || grant.clientId !== found.client_id) return { refused: 'revoked' };
    return {
      grant,
      expiresAt: new Date(found.valid_until_ms),
      resource: found.resource,
      scopes: found.scopes,
      // The caller's items were read for the channel the token names; a grant moved since reads its own.
      ...(read && grant.homeChannel === channel ? { callerRead: read } : {}),
    };
  }

  /**
   * Writes that the agent was used now, at most every five minutes. It never fails: last use is
   * for people to read, and a call does not fail for want of it.
   */
  async noteUse(grant: AgentGrant): Promise<void> {
    const now = this.#ctx.now();
    if (grant.lastUsedAt && now.getTime() - grant.lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
    await this.#ctx.table
      .update({
        TableName: this.#ctx.tableName,
        Key: grantKey(grant.team, grant.user, grant.id),
        UpdateExpression: 'SET last_used_at = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':now': now.toISOString() },
      })
      .catch(() => undefined);
  }

  /**
   * Uses a refresh token once: a new pair for the same grant. A refresh token that was already
   * used means it leaked or was replayed (OAuth 2.1 §4.3.1): the grant goes, so neither party
   * keeps access through it, and the person signs the agent in again.
   */
  async refresh(
    token: string,
    clientId: string,
    resource: string | undefined,
  ): Promise<IssuedTokens | { readonly refused: TokenRefusal }> {
    const item = await this.#tokenItem(token, 'refresh');
    if (!item) return { refused: 'unknown' };
    // Another client holding this token learns nothing and spends nothing.
    if (item.client_id !== clientId) return { refused: 'wrong_client' };
    const spent = await updateIf(this.#ctx, tokenKey(token), {
      UpdateExpression: 'SET used_at = :now',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(used_at)',
      ExpressionAttributeValues: { ':now': this.#ctx.now().toISOString() },
    });
    if (!spent) {
      await this.revoke(item.team_id, item.user_id, item.grant_id);
      return { refused: 'reused' };
    }
    if (item.valid_until_ms <= this.#ctx.now().getTime()) return { refused: 'expired' };
    if (resource !== undefined && resource !== item.resource) return { refused: 'wrong_resource' };
    const grant = await this.get(item.team_id, item.user_id, item.grant_id);
    if (!grant || grant.clientId !== item.client_id) return { refused: 'revoked' };
    return this.issueTokens(grant, item.resource);
  }

  /**
   * Revocation (RFC 7009): the grant behind an access or refresh token `clientId` holds goes, and
   * with it every token issued under it (§2.1 lets revoking either take the whole grant). A token
   * unknown, expired or held by another client revokes nothing; the caller answers the same.
   */
  async revokeByToken(token: string, clientId: string): Promise<boolean> {
    const item = await this.#tokenItem(token, token.startsWith(REFRESH_PREFIX) ? 'refresh' : 'access');
    if (!item || item.client_id !== clientId) return false;
    return this.revoke(item.team_id, item.user_id, item.grant_id);
  }

  async #tokenItem(
    token: string,
    kind: TokenItem['token_kind'],
    read?: ReadAhead,
  ): Promise<TokenItem | undefined> {
    if (!TOKEN_PATTERN.test(token) && !ACCESS_TOKEN_PATTERN.test(token)) return undefined;
    const item = await getParsed(this.#ctx, tokenKey(token), TokenItemSchema, 'agent token', read);
    return item?.token_kind === kind ? item : undefined;
  }

  async #putToken(
    token: string,
    kind: TokenItem['token_kind'],
    grant: AgentGrant,
    resource: string,
    lifetimeSeconds: number,
  ): Promise<void> {
    const validUntil = this.#ctx.now().getTime() + lifetimeSeconds * 1000;
    const item: TokenItem & Record<string, unknown> = {
      ...tokenKey(token),
      kind: 'agent_token',
      token_kind: kind,
      team_id: grant.team,
      user_id: grant.user,
      grant_id: grant.id,
      client_id: grant.clientId,
      resource,
      scopes: [...grant.scopes],
      home_channel: grant.homeChannel,
      valid_until_ms: validUntil,
      // TTL removes it a day after it stops counting.
      expires_at: epochSeconds(new Date(validUntil)) + 86_400,
    };
    try {
      await this.#ctx.table.put({
        TableName: this.#ctx.tableName,
        Item: item,
        ConditionExpression: 'attribute_not_exists(pk)',
      });
    } catch (error) {
      // 32 random bytes: an item already under the hash is this put's own first attempt.
      if (!isConditionFailure(error)) throw error;
    }
  }
}

/** Whether the token's item is the one its names point at: the same person, grant and channel. */
function namesItem(names: TokenNames, item: TokenItem): boolean {
  return (
    item.team_id === names.team &&
    item.user_id === names.user &&
    item.grant_id === names.grantId &&
    item.home_channel === names.channel
  );
}

function grantOf(item: GrantItem): AgentGrant {
  return {
    id: item.grant_id,
    team: item.team_id,
    user: item.user_id,
    clientId: item.client_id,
    clientName: item.client_name,
    homeChannel: item.home_channel,
    scopes: item.scopes,
    createdAt: new Date(item.created_at),
    ...(item.last_used_at ? { lastUsedAt: new Date(item.last_used_at) } : {}),
  };
}
