import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkIdToken, type RsaJwk } from '../../../../lib/agents/oauth/id-token.js';

/** A key pair as Slack's JWKS would list it, and id_tokens signed with it (RFC 7515). */
function signer(kid: string) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const { n, e } = publicKey.export({ format: 'jwk' });
  const jwk: RsaJwk = { kty: 'RSA', kid, alg: 'RS256', use: 'sig', n, e };
  return {
    jwk,
    token: (claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
      jwt(privateKey, claims, { alg: 'RS256', typ: 'JWT', kid, ...header }),
  };
}

function jwt(key: KeyObject, claims: Record<string, unknown>, header: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part(header)}.${part(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

const slack = signer('slack-key-1');
const other = signer('slack-key-1');
const NOW = new Date('2030-01-15T09:00:00Z');
const at = (offsetSeconds: number) => Math.floor(NOW.getTime() / 1000) + offsetSeconds;
const EXPECTED = { issuer: 'https://slack.com', clientId: '123.456', nonce: 'n-0S6_WzA2Mj', now: NOW };
const CLAIMS = {
  iss: 'https://slack.com',
  sub: 'U0ALICE',
  aud: '123.456',
  exp: at(300),
  iat: at(0),
  nonce: 'n-0S6_WzA2Mj',
  'https://slack.com/user_id': 'U0ALICE',
  'https://slack.com/team_id': 'T0TEAM',
};

describe('a Sign in with Slack id_token', () => {
  it('names the team and user when it checks out', () => {
    expect(checkIdToken(slack.token(CLAIMS), [slack.jwk], EXPECTED)).toEqual({
      ok: true,
      identity: { team: 'T0TEAM', user: 'U0ALICE' },
    });
  });

  it.each([
    ['signed by another key under Slack’s key id', () => other.token(CLAIMS)],
    ['with a key id Slack does not list', () => slack.token(CLAIMS, { kid: 'unknown' })],
    [
      'unsigned (alg none)',
      () => `${slack.token(CLAIMS, { alg: 'none' }).split('.').slice(0, 2).join('.')}.`,
    ],
    ['claiming HS256', () => slack.token(CLAIMS, { alg: 'HS256' })],
    ['from another issuer', () => slack.token({ ...CLAIMS, iss: 'https://evil.example' })],
    ['for another app', () => slack.token({ ...CLAIMS, aud: '999.999' })],
    [
      'for several apps, this one not the authorized party',
      () => slack.token({ ...CLAIMS, aud: ['123.456', '999.999'] }),
    ],
    ['expired', () => slack.token({ ...CLAIMS, exp: at(-120) })],
    ['issued in the future', () => slack.token({ ...CLAIMS, iat: at(600) })],
    ['for another sign-in (nonce)', () => slack.token({ ...CLAIMS, nonce: 'replayed' })],
    ['without a nonce', () => slack.token({ ...CLAIMS, nonce: undefined })],
    ['naming no team', () => slack.token({ ...CLAIMS, 'https://slack.com/team_id': undefined })],
    ['naming a malformed user', () => slack.token({ ...CLAIMS, 'https://slack.com/user_id': '../U0' })],
    ['whose sub is someone else', () => slack.token({ ...CLAIMS, sub: 'U0MALLORY' })],
    ['that is not a JWT', () => 'not.a.jwt'],
    ['that is huge', () => `${'a'.repeat(20_000)}.b.c`],
  ])('is refused when %s', (_why, make) => {
    expect(checkIdToken(make(), [slack.jwk], EXPECTED).ok).toBe(false);
  });

  it('is refused when its payload was changed after signing', () => {
    const [header, , signature] = slack.token(CLAIMS).split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...CLAIMS, 'https://slack.com/user_id': 'U0ADMIN', sub: 'U0ADMIN' }),
    ).toString('base64url');
    expect(checkIdToken(`${header}.${forged}.${signature}`, [slack.jwk], EXPECTED).ok).toBe(false);
  });

  it('takes a minute of clock difference', () => {
    expect(checkIdToken(slack.token({ ...CLAIMS, exp: at(-30) }), [slack.jwk], EXPECTED).ok).toBe(true);
  });
});
