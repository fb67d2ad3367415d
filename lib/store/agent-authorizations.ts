import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import { AGENT_SCOPES, type AgentScope } from './agent-grants.js';
import { getParsed, isConditionFailure, updateIf } from './items.js';
import { keys } from './keys.js';
import { epochSeconds, type StoreContext } from './store-context.js';
import '../zod-settings.js';

/**
 * What the bot's OAuth pages for agents (`lib/agents/oauth/`) keep between requests: a sign-in in
 * progress (from the agent's authorization request, through Sign in with Slack, to the person's
 * consent) and the authorization codes a consent issues. Every secret here is 32 random bytes that
 * the table keeps only as a SHA-256, and every step is a conditional write on the state it read,
 * so a step replayed, raced or sent from another browser changes nothing.
 *
 * A sign-in is `started` when the agent's request checked out, `signed_in` once Slack said who the
 * person is, and `decided` once the person answered the consent page; it lasts ten minutes from the
 * start (RFC 6749 §10.12: the state must not outlive the flow). A code lasts two minutes and is
 * redeemed once (OAuth 2.1 §4.1.2, which allows at most ten).
 */

export const SIGN_IN_SECONDS = 10 * 60;
export const AUTHORIZATION_CODE_SECONDS = 120;

/** Most channels a consent page offers; a person in more picks from the first ones Slack lists. */
export const MAX_OFFERED_CHANNELS = 200;

/** What the agent asked for, as `/oauth/authorize` checked it. */
export interface AuthorizationRequest {
  readonly clientId: string;
  readonly clientName: string;
  readonly redirectUri: string;
  /** The PKCE challenge (S256, RFC 7636 §4.2): base64url of a SHA-256. */
  readonly codeChallenge: string;
  readonly resource: string;
  /** The scopes asked for (all of them when the request named none). */
  readonly scopes: readonly AgentScope[];
  /** The agent's `state`, handed back with the code. */
  readonly state?: string | undefined;
}

export interface OfferedChannel {
  readonly id: string;
  readonly name: string;
}

/** Who signed in with Slack, and the channels the consent page offered them. */
export interface SignedInPerson {
  readonly team: string;
  readonly user: string;
  readonly channels: readonly OfferedChannel[];
}

export interface PendingSignIn {
  readonly request: AuthorizationRequest;
  /** The nonce sent to Slack, which its id_token must carry back (OpenID Connect Core §3.1.2.1). */
  readonly nonce: string;
  readonly validUntil: Date;
  readonly person?: SignedInPerson | undefined;
}

/** Why a sign-in step does not go on: said to the person as "start again from your agent". */
export type SignInRefusal = 'unknown' | 'expired' | 'used' | 'other_browser';

export type SignInResult =
  | { readonly status: 'valid'; readonly signIn: PendingSignIn }
  | { readonly status: SignInRefusal };

export interface AuthorizationCode {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly resource: string;
  readonly grant: { readonly team: string; readonly user: string; readonly id: string };
  readonly validUntil: Date;
}

export type CodeResult =
  | { readonly status: 'valid'; readonly code: AuthorizationCode }
  | { readonly status: 'unknown' | 'expired' }
  /** Redeemed before: the grant it was issued for is the caller's to revoke (OAuth 2.1 §4.1.3). */
  | { readonly status: 'used'; readonly code: AuthorizationCode };

const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

function secretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

function sameHash(secret: string, hash: string): boolean {
  const given = Buffer.from(secretHash(secret));
  const kept = Buffer.from(hash);
  return given.length === kept.length && timingSafeEqual(given, kept);
}

const SignInItemSchema = z.object({
  kind: z.literal('agent_sign_in'),
  status: z.enum(['started', 'signed_in', 'decided']),
  client_id: z.string(),
  client_name: z.string(),
  redirect_uri: z.string(),
  code_challenge: z.string(),
  resource: z.string(),
  scopes: z.array(z.enum(AGENT_SCOPES)),
  state: z.string().optional(),
  nonce: z.string(),
  browser_hash: z.string(),
  valid_until_ms: z.number(),
  team_id: z.string().optional(),
  user_id: z.string().optional(),
  channels: z.array(z.object({ id: z.string(), name: z.string() })).optional(),
  consent_hash: z.string().optional(),
});
type SignInItem = z.infer<typeof SignInItemSchema>;

const CodeItemSchema = z.object({
  kind: z.literal('agent_code'),
  client_id: z.string(),
  redirect_uri: z.string(),
  code_challenge: z.string(),
  resource: z.string(),
  team_id: z.string(),
  user_id: z.string(),
  grant_id: z.string(),
  valid_until_ms: z.number(),
  used_at: z.iso.datetime().optional(),
});
type CodeItem = z.infer<typeof CodeItemSchema>;

export class AgentAuthorizationStore {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /**
   * Starts a sign-in for a checked authorization request. `id` goes to Slack as its `state` and
   * comes back on the callback; `browserSecret` goes to the browser alone (a cookie), so only the
   * browser that started the sign-in can go on with it.
   */
  async start(
    request: AuthorizationRequest,
  ): Promise<{ id: string; browserSecret: string; nonce: string; validUntil: Date }> {
    const id = newSecret();
    const browserSecret = newSecret();
    const nonce = newSecret();
    const validUntil = new Date(this.#ctx.now().getTime() + SIGN_IN_SECONDS * 1000);
    const item = {
      pk: keys.agentSignIn(secretHash(id)),
      sk: 'SIGN_IN',
      kind: 'agent_sign_in',
      status: 'started',
      client_id: request.clientId,
      client_name: request.clientName,
      redirect_uri: request.redirectUri,
      code_challenge: request.codeChallenge,
      resource: request.resource,
      scopes: [...request.scopes],
      ...(request.state === undefined ? {} : { state: request.state }),
      nonce,
      browser_hash: secretHash(browserSecret),
      valid_until_ms: validUntil.getTime(),
      // TTL removes it a day later: until then a late visit reads "expired", not "unknown".
      expires_at: epochSeconds(validUntil) + 86_400,
    } satisfies SignInItem & Record<string, unknown>;
    await this.#putOnce(item);
    return { id, browserSecret, nonce, validUntil };
  }

  /** The sign-in `id` names, if `browserSecret` is the one its browser was given. Changes nothing. */
  async look(id: string, browserSecret: string): Promise<SignInResult> {
    const item = await this.#signInItem(id);
    if (!item) return { status: 'unknown' };
    return this.#judge(item, browserSecret);
  }

  /**
   * Slack said who the person is: the sign-in moves from `started` to `signed_in`, once. Answers
   * the consent page's secret, which only the page holds.
   */
  async signIn(
    id: string,
    browserSecret: string,
    person: SignedInPerson,
  ): Promise<SignInResult & { readonly consentSecret?: string }> {
    const looked = await this.look(id, browserSecret);
    if (looked.status !== 'valid') return looked;
    if (looked.signIn.person) return { status: 'used' };
    const consentSecret = newSecret();
    const written = await updateIf(this.#ctx, this.#signInKey(id), {
      UpdateExpression:
        'SET #status = :signedIn, team_id = :team, user_id = :user, channels = :channels, consent_hash = :consent',
      ConditionExpression: '#status = :started AND browser_hash = :browser AND valid_until_ms > :nowMs',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':signedIn': 'signed_in',
        ':started': 'started',
        ':team': person.team,
        ':user': person.user,
        ':channels': person.channels.slice(0, MAX_OFFERED_CHANNELS).map(({ id, name }) => ({ id, name })),
        ':consent': secretHash(consentSecret),
        ':browser': secretHash(browserSecret),
        ':nowMs': this.#ctx.now().getTime(),
      },
    });
    if (!written) return this.#refusalNow(id, browserSecret);
    const after = await this.look(id, browserSecret);
    return after.status === 'valid' ? { ...after, consentSecret } : after;
  }

  /**
   * The person answered the consent page: the sign-in is decided, once, when the page's secret
   * and the browser's are the ones it was given. Answers what was asked and who answered.
   */
  async decide(id: string, browserSecret: string, consentSecret: string): Promise<SignInResult> {
    const looked = await this.look(id, browserSecret);
    if (looked.status !== 'valid') return looked;
    const item = await this.#signInItem(id);
    if (
      !item?.consent_hash ||
      !SECRET_PATTERN.test(consentSecret) ||
      !sameHash(consentSecret, item.consent_hash)
    )
      return { status: 'unknown' };
    const written = await updateIf(this.#ctx, this.#signInKey(id), {
      UpdateExpression: 'SET #status = :decided',
      ConditionExpression:
        '#status = :signedIn AND browser_hash = :browser AND consent_hash = :consent AND valid_until_ms > :nowMs',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':decided': 'decided',
        ':signedIn': 'signed_in',
        ':browser': secretHash(browserSecret),
        ':consent': secretHash(consentSecret),
        ':nowMs': this.#ctx.now().getTime(),
      },
    });
    if (!written) return this.#refusalNow(id, browserSecret);
    return looked;
  }

  /** A new single-use code for a grant the person just made. */
  async issueCode(input: Omit<AuthorizationCode, 'validUntil'>): Promise<{ code: string; validUntil: Date }> {
    keys.user(input.grant.team, input.grant.user);
    const code = newSecret();
    const validUntil = new Date(this.#ctx.now().getTime() + AUTHORIZATION_CODE_SECONDS * 1000);
    const item = {
      pk: keys.agentCode(secretHash(code)),
      sk: 'CODE',
      kind: 'agent_code',
      client_id: input.clientId,
      redirect_uri: input.redirectUri,
      code_challenge: input.codeChallenge,
      resource: input.resource,
      team_id: input.grant.team,
      user_id: input.grant.user,
      grant_id: input.grant.id,
      valid_until_ms: validUntil.getTime(),
      expires_at: epochSeconds(validUntil) + 86_400,
    } satisfies CodeItem & Record<string, unknown>;
    await this.#putOnce(item);
    return { code, validUntil };
  }

  /** What a code was issued for, without redeeming it. */
  async lookCode(code: string): Promise<CodeResult> {
    const item = await this.#codeItem(code);
    if (!item) return { status: 'unknown' };
    return this.#judgeCode(item);
  }

  /**
   * Redeems a code, once: the first call answers `valid`, every later one `used` (with what it
   * was issued for, so the caller can revoke it).
   */
  async redeemCode(code: string): Promise<CodeResult> {
    const item = await this.#codeItem(code);
    if (!item) return { status: 'unknown' };
    const judged = this.#judgeCode(item);
    if (judged.status !== 'valid') return judged;
    const spent = await updateIf(
      this.#ctx,
      { pk: keys.agentCode(secretHash(code)), sk: 'CODE' },
      {
        UpdateExpression: 'SET used_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(used_at)',
        ExpressionAttributeValues: { ':now': this.#ctx.now().toISOString() },
      },
    );
    return spent ? judged : { status: 'used', code: judged.code };
  }

  #signInKey(id: string) {
    return { pk: keys.agentSignIn(secretHash(id)), sk: 'SIGN_IN' };
  }

  async #signInItem(id: string): Promise<SignInItem | undefined> {
    if (!SECRET_PATTERN.test(id)) return undefined;
    return getParsed(this.#ctx, this.#signInKey(id), SignInItemSchema, 'agent sign-in');
  }

  async #codeItem(code: string): Promise<CodeItem | undefined> {
    if (!SECRET_PATTERN.test(code)) return undefined;
    return getParsed(
      this.#ctx,
      { pk: keys.agentCode(secretHash(code)), sk: 'CODE' },
      CodeItemSchema,
      'agent authorization code',
    );
  }

  /** After a refused condition: why, read afresh (another step or the clock got there first). */
  async #refusalNow(id: string, browserSecret: string): Promise<{ status: SignInRefusal }> {
    const now = await this.look(id, browserSecret);
    return now.status === 'valid' ? { status: 'used' } : now;
  }

  #judge(item: SignInItem, browserSecret: string): SignInResult {
    if (!SECRET_PATTERN.test(browserSecret) || !sameHash(browserSecret, item.browser_hash))
      return { status: 'other_browser' };
    if (item.status === 'decided') return { status: 'used' };
    if (item.valid_until_ms <= this.#ctx.now().getTime()) return { status: 'expired' };
    const person =
      item.status === 'signed_in' && item.team_id !== undefined && item.user_id !== undefined
        ? { team: item.team_id, user: item.user_id, channels: item.channels ?? [] }
        : undefined;
    return {
      status: 'valid',
      signIn: {
        request: {
          clientId: item.client_id,
          clientName: item.client_name,
          redirectUri: item.redirect_uri,
          codeChallenge: item.code_challenge,
          resource: item.resource,
          scopes: item.scopes,
          ...(item.state === undefined ? {} : { state: item.state }),
        },
        nonce: item.nonce,
        validUntil: new Date(item.valid_until_ms),
        ...(person ? { person } : {}),
      },
    };
  }

  #judgeCode(item: CodeItem): CodeResult {
    const code: AuthorizationCode = {
      clientId: item.client_id,
      redirectUri: item.redirect_uri,
      codeChallenge: item.code_challenge,
      resource: item.resource,
      grant: { team: item.team_id, user: item.user_id, id: item.grant_id },
      validUntil: new Date(item.valid_until_ms),
    };
    if (item.used_at !== undefined) return { status: 'used', code };
    if (item.valid_until_ms <= this.#ctx.now().getTime()) return { status: 'expired' };
    return { status: 'valid', code };
  }

  async #putOnce(item: Record<string, unknown> & { pk: string; sk: string }): Promise<void> {
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
