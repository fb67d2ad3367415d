import { createHash } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APP_QR_LINK_SECONDS,
  APPROVAL_LINK_SECONDS,
  appQrLink,
  ENROLLMENT_LINK_SECONDS,
  passkeyApprovalLink,
  passkeyEnrollmentLink,
} from '../../../lib/passkeys/links.js';
import { appQrRequestPath, passkeyRequestPath, relyingPartyOf } from '../../../lib/passkeys/paths.js';
import type { Store } from '../../../lib/store/index.js';
import { isPasskeyLinkToken, PasskeyLinkStore } from '../../../lib/store/passkey-links.js';
import type { Table } from '../../../lib/store/table.js';
import { createTestTable, type TestTable } from '../../support/store.js';

let table: TestTable;
let links: PasskeyLinkStore;
beforeAll(async () => {
  table = await createTestTable();
  links = new PasskeyLinkStore(table.ctx);
});
afterAll(() => table.dispose());

const relyingParty = relyingPartyOf('https://chatops.example.com/prod/');
const ctx = () => ({
  store: { passkeyLinks: links } as unknown as Pick<Store, 'passkeyLinks'>,
  relyingParty,
});

function tokenOf(url: string): string {
  const path = passkeyRequestPath(new URL(url).pathname);
  if (!path) throw new Error(`not a passkey link: ${url}`);
  return path.token;
}

describe('minting links', () => {
  it('makes an enrollment link under the public URL, ten minutes long, bound to the person', async () => {
    const offer = await passkeyEnrollmentLink(ctx(), { teamId: 'T1', userId: 'U1' });
    expect(offer.url).toMatch(/^https:\/\/chatops\.example\.com\/prod\/passkey\/[A-Za-z0-9_-]{43}$/);
    expect(offer.validUntil.getTime() - table.clock.now().getTime()).toBe(ENROLLMENT_LINK_SECONDS * 1000);
    expect(await links.look(tokenOf(offer.url))).toMatchObject({
      status: 'valid',
      link: { team: 'T1', user: 'U1', purpose: { kind: 'enroll' } },
    });
  });

  it('makes an approval link bound to the person and the challenge, five minutes long', async () => {
    const offer = await passkeyApprovalLink(ctx(), { teamId: 'T1', userId: 'U1', challengeId: 'CH1' });
    expect(offer.validUntil.getTime() - table.clock.now().getTime()).toBe(APPROVAL_LINK_SECONDS * 1000);
    expect(await links.look(tokenOf(offer.url))).toMatchObject({
      status: 'valid',
      link: { team: 'T1', user: 'U1', purpose: { kind: 'approve', challengeId: 'CH1' } },
    });
  });

  it('stores only the SHA-256 of the token, never the token', async () => {
    const offer = await passkeyEnrollmentLink(ctx(), { teamId: 'T1', userId: 'U9' });
    const token = tokenOf(offer.url);
    const scanned = await table.client.send(new ScanCommand({ TableName: table.ctx.tableName }));
    const everything = JSON.stringify((scanned.Items ?? []).map((item) => unmarshall(item)));
    expect(everything).not.toContain(token);
    expect(everything).toContain(createHash('sha256').update(token).digest('base64url'));
  });

  it('makes a different token every time', async () => {
    const a = await passkeyEnrollmentLink(ctx(), { teamId: 'T1', userId: 'U1' });
    const b = await passkeyEnrollmentLink(ctx(), { teamId: 'T1', userId: 'U1' });
    expect(tokenOf(a.url)).not.toBe(tokenOf(b.url));
  });

  it('refuses ids that could reach into another key', async () => {
    await expect(passkeyEnrollmentLink(ctx(), { teamId: 'T1#USER#U2', userId: 'U1' })).rejects.toThrow(
      /Invalid team id/,
    );
  });
});

describe('using links', () => {
  async function approvalToken(): Promise<string> {
    return tokenOf(
      (await passkeyApprovalLink(ctx(), { teamId: 'T1', userId: 'U1', challengeId: 'CH2' })).url,
    );
  }

  it('uses a link once, with the challenge of the ceremony it began', async () => {
    const token = await approvalToken();
    expect(await links.beginCeremony(token, 'challenge-a')).toMatchObject({ status: 'valid' });
    // Asking for options again replaces the challenge: only the latest can be answered.
    await links.beginCeremony(token, 'challenge-b');
    expect(await links.use(token)).toMatchObject({
      status: 'valid',
      link: { user: 'U1', ceremonyChallenge: 'challenge-b', purpose: { challengeId: 'CH2' } },
    });
    expect(await links.use(token)).toEqual({ status: 'used' });
    expect(await links.beginCeremony(token, 'challenge-c')).toEqual({ status: 'used' });
    expect(await links.look(token)).toEqual({ status: 'used' });
  });

  it('lets only one of two racing uses through', async () => {
    const token = await approvalToken();
    await links.beginCeremony(token, 'challenge');
    const results = await Promise.all([links.use(token), links.use(token), links.use(token)]);
    expect(results.filter((r) => r.status === 'valid')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'used')).toHaveLength(2);
  });

  it('is not used before a ceremony began', async () => {
    const token = await approvalToken();
    expect(await links.use(token)).toEqual({ status: 'unknown' });
    expect(await links.look(token)).toMatchObject({ status: 'valid' });
  });

  it('refuses a link from the moment it expires, for every step', async () => {
    const token = await approvalToken();
    await links.beginCeremony(token, 'challenge');
    table.clock.advance(APPROVAL_LINK_SECONDS * 1000 - 1);
    expect(await links.look(token)).toMatchObject({ status: 'valid' });
    table.clock.advance(1);
    expect(await links.look(token)).toEqual({ status: 'expired' });
    expect(await links.beginCeremony(token, 'other')).toEqual({ status: 'expired' });
    expect(await links.use(token)).toEqual({ status: 'expired' });
  });

  it.each([
    ['', 'empty'],
    ['a'.repeat(42), 'too short'],
    ['a'.repeat(44), 'too long'],
    [`${'a'.repeat(42)}=`, 'padded'],
    [`${'a'.repeat(40)}../`, 'a path'],
  ])('answers "unknown" for a malformed token (%j, %s) without reading the table', async (token) => {
    expect(isPasskeyLinkToken(token)).toBe(false);
    expect(await links.look(token)).toEqual({ status: 'unknown' });
    expect(await links.use(token)).toEqual({ status: 'unknown' });
  });

  it('answers "unknown" for a well-formed token that was never issued', async () => {
    const token = 'A'.repeat(43);
    expect(await links.look(token)).toEqual({ status: 'unknown' });
    expect(await links.beginCeremony(token, 'challenge')).toEqual({ status: 'unknown' });
  });
});

describe('links to the authenticator app’s QR page', () => {
  async function qrToken(user = 'U1'): Promise<string> {
    const offer = await appQrLink(ctx(), { teamId: 'T1', userId: user });
    const path = appQrRequestPath(new URL(offer.url).pathname);
    if (!path) throw new Error(`not a QR link: ${offer.url}`);
    return path.token;
  }

  it('makes a QR link under the public URL, five minutes long, bound to the person', async () => {
    const offer = await appQrLink(ctx(), { teamId: 'T1', userId: 'U7' });
    expect(offer.url).toMatch(/^https:\/\/chatops\.example\.com\/prod\/authenticator\/[A-Za-z0-9_-]{43}$/);
    expect(offer.validUntil.getTime() - table.clock.now().getTime()).toBe(APP_QR_LINK_SECONDS * 1000);
    expect(await links.look(await qrToken('U7'))).toMatchObject({
      status: 'valid',
      link: { team: 'T1', user: 'U7', purpose: { kind: 'app_qr' } },
    });
  });

  it('uses a QR link once, without a ceremony; later uses are refused as used', async () => {
    const token = await qrToken();
    expect(await links.useAppQr(token)).toMatchObject({ status: 'valid', link: { user: 'U1' } });
    expect(await links.useAppQr(token)).toEqual({ status: 'used' });
    expect(await links.look(token)).toEqual({ status: 'used' });
  });

  it('lets only one of three racing QR uses through', async () => {
    const token = await qrToken();
    const results = await Promise.all([links.useAppQr(token), links.useAppQr(token), links.useAppQr(token)]);
    expect(results.filter((r) => r.status === 'valid')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'used')).toHaveLength(2);
  });

  it('refuses a QR link from the moment it expires', async () => {
    const token = await qrToken();
    table.clock.advance(APP_QR_LINK_SECONDS * 1000);
    expect(await links.useAppQr(token)).toEqual({ status: 'expired' });
  });

  it('does not use a passkey link as a QR link: unknown, and left unused for its own page', async () => {
    const token = tokenOf((await passkeyEnrollmentLink(ctx(), { teamId: 'T1', userId: 'U1' })).url);
    expect(await links.useAppQr(token)).toEqual({ status: 'unknown' });
    expect(await links.look(token)).toMatchObject({ status: 'valid', link: { purpose: { kind: 'enroll' } } });
  });
});

describe('a write that landed but whose answer was lost', () => {
  /** Each write is sent twice, as a client does after a lost answer; the caller sees the second. */
  function resendingTable(table: Table): Table {
    return {
      ...table,
      get: (input) => table.get(input),
      put: async (input) => {
        await table.put(input);
        return table.put(input);
      },
      update: async (input) => {
        await table.update(input);
        return table.update(input);
      },
    };
  }

  it('issues, begins and uses a link as if the first attempt had answered', async () => {
    const resending = new PasskeyLinkStore({ ...table.ctx, table: resendingTable(table.ctx.table) });
    const { token } = await resending.issue({
      team: 'T1',
      user: 'U1',
      purpose: { kind: 'approve', challengeId: 'CH3' },
      lifetimeSeconds: 60,
    });
    expect(await resending.beginCeremony(token, 'challenge-r')).toMatchObject({ status: 'valid' });
    expect(await resending.use(token)).toMatchObject({
      status: 'valid',
      link: { ceremonyChallenge: 'challenge-r', purpose: { challengeId: 'CH3' } },
    });
    // Another use is still refused: the use id tells this call's write from any other.
    expect(await resending.use(token)).toEqual({ status: 'used' });
  });
});

describe('passkey and QR page paths', () => {
  it.each([
    ['/passkey/abc', { token: 'abc', step: 'page' }],
    ['/prod/passkey/abc/options', { token: 'abc', step: 'options' }],
    ['/passkey/abc/verify', { token: 'abc', step: 'verify' }],
  ])('reads %s', (path, expected) => {
    expect(passkeyRequestPath(path)).toEqual(expected);
  });

  it.each(['/passkey', '/passkey/', '/passkey/abc/other', '/slack/events', '/passkeys/abc'])(
    'is not a passkey path: %s',
    (path) => {
      expect(passkeyRequestPath(path)).toBeUndefined();
    },
  );

  it.each([
    ['/authenticator/abc', { token: 'abc' }],
    ['/prod/authenticator/abc', { token: 'abc' }],
  ])('reads the QR page path %s', (path, expected) => {
    expect(appQrRequestPath(path)).toEqual(expected);
    expect(passkeyRequestPath(path)).toBeUndefined();
  });

  it.each(['/authenticator', '/authenticator/', '/authenticator/abc/options', '/passkey/abc'])(
    'is not a QR page path: %s',
    (path) => {
      expect(appQrRequestPath(path)).toBeUndefined();
    },
  );
});
