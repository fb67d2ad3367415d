import { describe, expect, it } from 'vitest';
import { enrollmentUri, newCodeSecret } from '../../../lib/changes/step-up.js';
import type { PasskeyLinkContext } from '../../../lib/passkeys/links.js';
import { relyingPartyOf } from '../../../lib/passkeys/paths.js';
import { enrollmentReply } from '../../../lib/slack/step-up-factors.js';
import type { Store } from '../../../lib/store/index.js';

/**
 * The reply to an authenticator app's enrollment, for its person alone: the key to type, and where
 * the bot has a public URL a one-time link to its QR code that holds no key. The link's store
 * failing leaves the key shown: the enrollment has started.
 */

const SECRET = newCodeSecret();
const STARTED = {
  kind: 'app_started',
  secret: SECRET,
  uri: enrollmentUri(SECRET, 'U0DAN@T0QR'),
  team: 'T0QR',
  user: 'U0DAN',
} as const;
const TOKEN = 'Q'.repeat(43);
const relyingParty = relyingPartyOf('https://chatops.example.com/prod');

function linksWith(issue: Store['passkeyLinks']['issue']): PasskeyLinkContext {
  return { store: { passkeyLinks: { issue } } as unknown as Pick<Store, 'passkeyLinks'>, relyingParty };
}

describe('the authenticator app enrollment reply', () => {
  it('links its person to the QR page with a link of their own that holds no key', async () => {
    const issued: unknown[] = [];
    const reply = await enrollmentReply(
      STARTED,
      linksWith(async (input) => {
        issued.push(input);
        return { token: TOKEN, validUntil: new Date(Date.UTC(2030, 0, 15, 9, 5)) };
      }),
    );
    expect(reply.visibility).toBe('ephemeral');
    const text = JSON.stringify(reply.blocks);
    expect(text).toContain(`<https://chatops.example.com/prod/authenticator/${TOKEN}|show the QR code>`);
    expect(text).toContain(SECRET);
    expect(issued).toEqual([
      { team: 'T0QR', user: 'U0DAN', purpose: { kind: 'app_qr' }, lifetimeSeconds: 300 },
    ]);
  });

  it('still shows the key, without a QR link, when the link could not be stored', async () => {
    const reply = await enrollmentReply(
      STARTED,
      linksWith(async () => {
        throw new Error('ProvisionedThroughputExceededException');
      }),
    );
    const text = JSON.stringify(reply.blocks);
    expect(text).toContain(SECRET);
    expect(text).not.toContain('/authenticator/');
    expect(text).toContain('/cloud mfa confirm 123456');
  });

  it('shows the key and no QR link where the bot has no public URL', async () => {
    const text = JSON.stringify((await enrollmentReply(STARTED, undefined)).blocks);
    expect(text).toContain(SECRET);
    expect(text).not.toContain('QR code');
  });
});
