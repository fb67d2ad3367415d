import { createPublicKey, type JsonWebKey, verify } from 'node:crypto';

/**
 * Checks a Sign in with Slack `id_token` (MCP-FACTS §5; OpenID Connect Core 1.0 §3.1.3.7): a JWT
 * signed RS256 (the one algorithm Slack's discovery document lists) by a key of Slack's JWKS, whose
 * `iss` is Slack's issuer, whose `aud` is this app's client id, unexpired, and carrying the nonce
 * this sign-in sent. Only then are its team and user believed. Node's own crypto verifies the
 * signature; no JWT library decides anything here.
 */

export interface IdTokenExpectations {
  readonly issuer: string;
  readonly clientId: string;
  readonly nonce: string;
  readonly now: Date;
}

export interface SlackIdentity {
  readonly team: string;
  readonly user: string;
}

export type IdTokenCheck =
  | { readonly ok: true; readonly identity: SlackIdentity }
  | { readonly ok: false; readonly reason: string };

/** An RSA public key as a JWKS lists it (RFC 7517 §4, RFC 7518 §6.3.1). */
export interface RsaJwk {
  readonly kty: string;
  readonly kid?: string | undefined;
  readonly alg?: string | undefined;
  readonly use?: string | undefined;
  readonly n?: string | undefined;
  readonly e?: string | undefined;
}

export const MAX_ID_TOKEN_LENGTH = 16 * 1024;
/** Clocks differ a little between Slack and a Lambda; a minute covers it (OIDC Core §3.1.3.7). */
const CLOCK_LEEWAY_SECONDS = 60;
const SLACK_ID = /^[A-Z0-9]{2,32}$/;
const TEAM_CLAIM = 'https://slack.com/team_id';
const USER_CLAIM = 'https://slack.com/user_id';

function decodeJson(part: string): Record<string, unknown> | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(part)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The token's header `kid`, to pick the key (undefined when there is none or it is malformed). */
export function idTokenKeyId(idToken: string): string | undefined {
  const header = decodeJson(idToken.split('.')[0] ?? '');
  return typeof header?.kid === 'string' ? header.kid : undefined;
}

export function checkIdToken(
  idToken: string,
  keys: readonly RsaJwk[],
  expected: IdTokenExpectations,
): IdTokenCheck {
  if (idToken.length > MAX_ID_TOKEN_LENGTH) return { ok: false, reason: 'too long' };
  const parts = idToken.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'not a signed JWT' };
  const [headerPart = '', payloadPart = '', signaturePart = ''] = parts;
  const header = decodeJson(headerPart);
  const claims = decodeJson(payloadPart);
  if (!header || !claims || !/^[A-Za-z0-9_-]+$/.test(signaturePart))
    return { ok: false, reason: 'not a signed JWT' };
  // Never the algorithm the token names for itself unless it is the one expected (RFC 8725 §3.1).
  if (header.alg !== 'RS256') return { ok: false, reason: 'not signed with RS256' };
  const kid = typeof header.kid === 'string' ? header.kid : undefined;
  const candidates = keys.filter(
    (key) =>
      key.kty === 'RSA' &&
      (key.alg === undefined || key.alg === 'RS256') &&
      (key.use === undefined || key.use === 'sig') &&
      (kid === undefined ? keys.length === 1 : key.kid === kid),
  );
  const key = candidates[0];
  if (!key?.n || !key.e) return { ok: false, reason: 'signed by a key Slack does not list' };
  let signed: boolean;
  try {
    const publicKey = createPublicKey({
      key: { kty: 'RSA', n: key.n, e: key.e } as JsonWebKey,
      format: 'jwk',
    });
    signed = verify(
      'sha256',
      Buffer.from(`${headerPart}.${payloadPart}`),
      publicKey,
      Buffer.from(signaturePart, 'base64url'),
    );
  } catch {
    signed = false;
  }
  if (!signed) return { ok: false, reason: 'its signature does not verify' };
  if (claims.iss !== expected.issuer) return { ok: false, reason: 'issued by someone else' };
  const audience = claims.aud;
  const audiences = Array.isArray(audience) ? audience : [audience];
  if (!audiences.includes(expected.clientId)) return { ok: false, reason: 'meant for another app' };
  if (audiences.length > 1 && claims.azp !== expected.clientId)
    return { ok: false, reason: 'meant for another app' };
  const now = expected.now.getTime() / 1000;
  if (typeof claims.exp !== 'number' || claims.exp + CLOCK_LEEWAY_SECONDS <= now)
    return { ok: false, reason: 'expired' };
  if (typeof claims.iat === 'number' && claims.iat - CLOCK_LEEWAY_SECONDS > now)
    return { ok: false, reason: 'issued in the future' };
  if (typeof claims.nonce !== 'string' || claims.nonce !== expected.nonce)
    return { ok: false, reason: 'not for this sign-in (nonce)' };
  const team = claims[TEAM_CLAIM];
  const user = claims[USER_CLAIM];
  if (typeof team !== 'string' || typeof user !== 'string' || !SLACK_ID.test(team) || !SLACK_ID.test(user))
    return { ok: false, reason: 'names no Slack team and user' };
  if (claims.sub !== undefined && claims.sub !== user) return { ok: false, reason: 'names two users' };
  return { ok: true, identity: { team, user } };
}
