import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isCodeChallenge, verifierMatches } from '../../../../lib/agents/oauth/pkce.js';

const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

describe('PKCE (S256)', () => {
  // RFC 7636 Appendix B.
  it('accepts the RFC 7636 example verifier for its challenge', () => {
    expect(
      verifierMatches(
        'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
        'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      ),
    ).toBe(true);
  });

  it('refuses another verifier', () => {
    const verifier = 'a'.repeat(43);
    expect(verifierMatches('b'.repeat(43), challengeOf(verifier))).toBe(false);
  });

  it('refuses the challenge itself sent as the verifier (the "plain" method)', () => {
    const challenge = challengeOf('c'.repeat(64));
    expect(verifierMatches(challenge, challenge)).toBe(false);
  });

  it.each([
    ['too short', 'a'.repeat(42)],
    ['too long', 'a'.repeat(129)],
    ['a character outside the unreserved set', `${'a'.repeat(42)}+`],
    ['odd unicode', `${'a'.repeat(42)}é`],
  ])('refuses a verifier %s, even when its hash matches', (_why, verifier) => {
    expect(verifierMatches(verifier, challengeOf(verifier))).toBe(false);
  });

  it('takes a challenge only as 43 base64url characters', () => {
    expect(isCodeChallenge(challengeOf('x'))).toBe(true);
    expect(isCodeChallenge(`${challengeOf('x')}=`)).toBe(false);
    expect(isCodeChallenge('__proto__')).toBe(false);
  });
});
