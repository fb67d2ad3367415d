import * as z from 'zod';
import { exchange } from '../../http-exchange.js';
import { checkIdToken, idTokenKeyId, type RsaJwk, type SlackIdentity } from './id-token.js';
import '../../zod-settings.js';

/**
 * Sign in with Slack (OpenID Connect; MCP-FACTS §5), as the bot's OAuth pages use it to learn who
 * is signing an agent in: the browser goes to Slack's authorize endpoint with `scope=openid`, a
 * `state` and a `nonce`; Slack sends it back with a code; the code is traded at
 * `openid.connect.token` (with the app's client id and secret) for an `id_token`, which is checked
 * against Slack's JWKS (`id-token.ts`).
 *
 * Every endpoint comes from Slack's discovery document (`<slack>/.well-known/openid-configuration`,
 * OpenID Connect Discovery 1.0 §4), read once per container: `https://slack.com` in AWS, the Slack
 * stand-in's origin locally (the origin of `SLACK_API_URL`). The keys are read once too, and again
 * when a token names a key not yet seen (Slack rotates them), at most once a minute.
 */

export interface SlackSignInSettings {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Where Slack sends the browser back: the bot's `/oauth/callback`. */
  readonly redirectUri: string;
  /** Slack's origin: `https://slack.com`, or the stand-in's. */
  readonly slackUrl: string;
  readonly now?: (() => Date) | undefined;
  readonly timeoutMs?: number | undefined;
}

export type SlackSignInFailure =
  /** Slack refused the code (`invalid_code`, `code_already_used`, …): the person starts again. */
  | { readonly failure: 'slack_refused'; readonly error: string }
  /** The id_token did not check out: never believed. */
  | { readonly failure: 'id_token_invalid'; readonly reason: string }
  /** Slack did not answer, or not as documented. */
  | { readonly failure: 'unreachable'; readonly reason: string };

export interface SlackSignIn {
  /** Where to send the browser: Slack's authorize endpoint for this sign-in. */
  authorizeUrl(input: { readonly state: string; readonly nonce: string }): Promise<string>;
  /** Trades Slack's code for the person it names, checked. */
  identify(code: string, nonce: string): Promise<SlackIdentity | SlackSignInFailure>;
}

const DiscoverySchema = z.object({
  issuer: z.string().min(1),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
  jwks_uri: z.url(),
});
type Discovery = z.infer<typeof DiscoverySchema>;

const JwksSchema = z.object({
  keys: z
    .array(
      z
        .object({
          kty: z.string(),
          kid: z.string().optional(),
          alg: z.string().optional(),
          use: z.string().optional(),
          n: z.string().optional(),
          e: z.string().optional(),
        })
        .loose(),
    )
    .max(20),
});

const TokenAnswerSchema = z.union([
  z.object({ ok: z.literal(true), id_token: z.string().min(1) }).loose(),
  z.object({ ok: z.literal(false), error: z.string() }).loose(),
]);

const CACHE_MS = 60 * 60_000;
const KEY_REFRESH_MS = 60_000;
const MAX_DOCUMENT_BYTES = 64 * 1024;

export class SlackSignInError extends Error {
  override readonly name = 'SlackSignInError';
}

export function createSlackSignIn(settings: SlackSignInSettings): SlackSignIn {
  const now = settings.now ?? (() => new Date());
  const timeoutMs = settings.timeoutMs ?? 5000;
  const origin = new URL(settings.slackUrl).origin;
  let discovery: { value: Discovery; until: number } | undefined;
  let jwks: { keys: readonly RsaJwk[]; until: number; fetchedAt: number } | undefined;

  async function getJson(url: string, init: { method: string; body?: string } = { method: 'GET' }) {
    const answer = await exchange({
      url: new URL(url),
      method: init.method,
      headers: {
        accept: 'application/json',
        ...(init.body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      body: init.body,
      service: 'Slack',
      connectTimeoutMs: timeoutMs,
      answerTimeoutMs: timeoutMs,
      maxAnswerBytes: MAX_DOCUMENT_BYTES,
    });
    if (answer.status !== 200) throw new SlackSignInError(`Slack answered HTTP ${answer.status}`);
    try {
      return JSON.parse(answer.body.toString('utf8')) as unknown;
    } catch {
      throw new SlackSignInError('Slack did not answer JSON');
    }
  }

  async function discover(): Promise<Discovery> {
    if (discovery && discovery.until > Date.now()) return discovery.value;
    const parsed = DiscoverySchema.safeParse(await getJson(`${origin}/.well-known/openid-configuration`));
    if (!parsed.success) throw new SlackSignInError('Slack’s discovery document is not as documented');
    discovery = { value: parsed.data, until: Date.now() + CACHE_MS };
    return parsed.data;
  }

  async function keysFor(kid: string | undefined): Promise<readonly RsaJwk[]> {
    const known = jwks && jwks.until > Date.now() ? jwks : undefined;
    const seen = known && (kid === undefined || known.keys.some((key) => key.kid === kid));
    if (known && (seen || Date.now() - known.fetchedAt < KEY_REFRESH_MS)) return known.keys;
    const parsed = JwksSchema.safeParse(await getJson((await discover()).jwks_uri));
    if (!parsed.success) throw new SlackSignInError('Slack’s keys are not as documented');
    jwks = { keys: parsed.data.keys, until: Date.now() + CACHE_MS, fetchedAt: Date.now() };
    return jwks.keys;
  }

  return {
    async authorizeUrl({ state, nonce }) {
      const url = new URL((await discover()).authorization_endpoint);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('scope', 'openid');
      url.searchParams.set('client_id', settings.clientId);
      url.searchParams.set('redirect_uri', settings.redirectUri);
      url.searchParams.set('state', state);
      url.searchParams.set('nonce', nonce);
      return url.toString();
    },

    async identify(code, nonce) {
      let idToken: string;
      let found: Discovery;
      try {
        found = await discover();
        const answer = TokenAnswerSchema.safeParse(
          await getJson(found.token_endpoint, {
            method: 'POST',
            body: new URLSearchParams({
              client_id: settings.clientId,
              client_secret: settings.clientSecret,
              code,
              redirect_uri: settings.redirectUri,
              grant_type: 'authorization_code',
            }).toString(),
          }),
        );
        if (!answer.success)
          return { failure: 'unreachable', reason: 'Slack’s token answer is not as documented' };
        if (!answer.data.ok)
          return { failure: 'slack_refused', error: String(answer.data.error).slice(0, 100) };
        idToken = answer.data.id_token;
      } catch (error) {
        return { failure: 'unreachable', reason: error instanceof Error ? error.message : 'no answer' };
      }
      let keys: readonly RsaJwk[];
      try {
        keys = await keysFor(idTokenKeyId(idToken));
      } catch (error) {
        return { failure: 'unreachable', reason: error instanceof Error ? error.message : 'no keys' };
      }
      const checked = checkIdToken(idToken, keys, {
        issuer: found.issuer,
        clientId: settings.clientId,
        nonce,
        now: now(),
      });
      return checked.ok ? checked.identity : { failure: 'id_token_invalid', reason: checked.reason };
    },
  };
}
