import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Proof Key for Code Exchange, S256 only (RFC 7636; OAuth 2.1 §4.1.1 requires it of every client,
 * and MCP-FACTS §2 of every MCP client): the authorization request carries
 * `BASE64URL(SHA256(code_verifier))`, the token request the verifier itself.
 */

/** RFC 7636 §4.1: 43 to 128 of the unreserved characters. */
const VERIFIER_PATTERN = /^[A-Za-z0-9._~-]{43,128}$/;
/** A SHA-256 in base64url without padding is 43 characters (RFC 7636 §4.2). */
const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function isCodeChallenge(value: string): boolean {
  return CHALLENGE_PATTERN.test(value);
}

export function isCodeVerifier(value: string): boolean {
  return VERIFIER_PATTERN.test(value);
}

/** Whether `verifier` is the one `challenge` was made from. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!isCodeVerifier(verifier) || !isCodeChallenge(challenge)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
