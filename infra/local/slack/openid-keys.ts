import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

/**
 * The stand-in's key for Sign in with Slack's `id_token`s: an RSA key pair signing RS256 JWTs,
 * the one algorithm Slack's discovery document lists (`id_token_signing_alg_values_supported`),
 * and its public half as the JWKS Slack serves at `/openid/connect/keys`
 * (MCP-FACTS.md §5; RFC 7515 for the JWS, RFC 7517 for the JWK Set).
 *
 * Each stand-in makes its own pair, the first time an id_token or the JWKS is asked for: a
 * 2048-bit pair takes 100–200 ms to make, which most stand-ins (never asked) should not pay.
 */

/** A public key as the JWKS lists it. */
export interface PublicJwk {
  readonly kty: 'RSA';
  readonly n: string;
  readonly e: string;
  readonly kid: string;
  readonly alg: 'RS256';
  readonly use: 'sig';
}

export interface JsonWebKeySet {
  readonly keys: readonly PublicJwk[];
}

interface KeyPair {
  readonly privateKey: KeyObject;
  readonly jwk: PublicJwk;
}

export class OpenIdSigningKey {
  /** The key id in each token's header and in the JWKS, so a verifier picks the right key. */
  readonly kid = randomBytes(8).toString('hex');
  #pair: KeyPair | undefined;

  jwks(): JsonWebKeySet {
    return { keys: [this.#keyPair().jwk] };
  }

  /** A compact JWS (`header.payload.signature`) of `claims`, signed RS256 (RFC 7515 §7.1). */
  sign(claims: Readonly<Record<string, unknown>>): string {
    const header = { alg: 'RS256', typ: 'JWT', kid: this.kid };
    const input = `${base64UrlJson(header)}.${base64UrlJson(claims)}`;
    const signature = sign('sha256', Buffer.from(input), this.#keyPair().privateKey);
    return `${input}.${signature.toString('base64url')}`;
  }

  #keyPair(): KeyPair {
    if (this.#pair) return this.#pair;
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const { n, e } = publicKey.export({ format: 'jwk' });
    if (typeof n !== 'string' || typeof e !== 'string') throw new Error('RSA public key without n or e');
    this.#pair = { privateKey, jwk: { kty: 'RSA', n, e, kid: this.kid, alg: 'RS256', use: 'sig' } };
    return this.#pair;
  }
}

/**
 * The id_token's `at_hash`: the left half of the SHA-256 of the access token, base64url
 * (OpenID Connect Core 1.0 §3.1.3.6; SHA-256 because the token is signed RS256).
 */
export function accessTokenHash(accessToken: string): string {
  const digest = createHash('sha256').update(accessToken, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

function base64UrlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}
