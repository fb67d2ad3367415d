import { describe, expect, it } from 'vitest';
import { getOperation, operations } from '../../../../lib/api/operations/index.js';
import { renderOperationResult } from '../../../../lib/slack/render/result.js';
import {
  otpauthUri,
  renderDatabaseCredentials,
  renderNewToken,
  renderScratchCode,
  renderTwoFactorSecret,
} from '../../../../lib/slack/render/sensitive.js';
import { FULL_TOKEN, token } from './fixtures.js';
import { expectSendable, visibleText } from './message-checks.js';

describe('a new personal access token', () => {
  const created = { ...token, token: FULL_TOKEN };

  it('shows the full token once, with a warning, ephemeral-only', () => {
    const message = renderNewToken(created);
    expect(message.ephemeralOnly).toBe(true);
    expect(visibleText(message)).toContain(FULL_TOKEN);
    expect(visibleText(message)).toContain('this token will not be shown again');
    expectSendable(message);
  });

  it('is what tokens-create renders', () => {
    const message = renderOperationResult(
      getOperation('profile.tokens-create'),
      { label: 'cli-token' },
      created,
    );
    expect(message).toMatchObject({ ephemeralOnly: true });
    expect(visibleText(message)).toContain(FULL_TOKEN);
  });

  it('stays ephemeral-only with --json', () => {
    const message = renderOperationResult(getOperation('profile.tokens-create'), {}, created, { json: true });
    expect(message).toMatchObject({ ephemeralOnly: true });
    expect(visibleText(message)).toContain(FULL_TOKEN);
  });
});

describe('database credentials', () => {
  it('shows username and password to the requester only', () => {
    const message = renderOperationResult(
      getOperation('databases.mysql-creds-view'),
      { instanceId: 5 },
      { username: 'linroot', password: 's3cur3P@ssw0rd' },
    );
    expect(message).toMatchObject({ ephemeralOnly: true });
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Credentials of database 5' } });
    expect(visibleText(message)).toContain('`linroot`');
    expect(visibleText(message)).toContain('s3cur3P@ssw0rd');
    expectSendable(message);
  });

  it('escapes a password with mrkdwn characters but keeps it whole', () => {
    const message = renderDatabaseCredentials({ username: 'root', password: 'a<b>&c' });
    expect(visibleText(message)).toContain('a&lt;b&gt;&amp;c');
  });
});

describe('two-factor authentication', () => {
  it('builds the otpauth URI authenticator apps read', () => {
    expect(otpauthUri('JBSW Y3DP EHPK 3PXP', { account: 'exampleUser', issuer: 'Cloud Host' })).toBe(
      'otpauth://totp/Cloud%20Host:exampleUser?secret=JBSWY3DPEHPK3PXP&issuer=Cloud+Host',
    );
  });

  it('shows the secret and the URI, and how to confirm', () => {
    const message = renderTwoFactorSecret(
      { secret: 'JBSWY3DPEHPK3PXP', expiry: '2018-01-01T00:01:01' },
      { account: 'exampleUser' },
    );
    expect(message.ephemeralOnly).toBe(true);
    const text = visibleText(message);
    expect(text).toContain('JBSWY3DPEHPK3PXP');
    expect(text).toContain('otpauth://totp/Cloud:exampleUser?secret=JBSWY3DPEHPK3PXP&amp;issuer=Cloud');
    expect(text).toContain('`/cloud profile tfa-confirm --tfa-code &lt;code&gt;`');
    expect(text).toContain('2018-01-01 00:01 UTC');
    expectSendable(message);
  });

  it('shows the scratch code once', () => {
    const message = renderScratchCode({ scratch: 'reallylongscratchcode' });
    expect(message.ephemeralOnly).toBe(true);
    expect(visibleText(message)).toContain('reallylongscratchcode');
    expect(visibleText(message)).toContain('will not be shown again');
  });
});

describe('every sensitive result', () => {
  const samples: Record<string, unknown> = {
    'profile.tfa-enable': { secret: 'JBSWY3DPEHPK3PXP', expiry: '2018-01-01T00:01:01' },
    'profile.tfa-confirm': { scratch: 'reallylongscratchcode' },
    'profile.tokens-create': { ...token, token: FULL_TOKEN },
    'databases.mysql-creds-view': { username: 'linroot', password: 's3cur3P@ssw0rd' },
    'databases.postgresql-creds-view': { username: 'linroot', password: 's3cur3P@ssw0rd' },
  };

  it('comes back ephemeral-only and within limits, whatever the operation', () => {
    const sensitive = operations.filter((op) => op.sensitive);
    expect(sensitive.length).toBeGreaterThanOrEqual(Object.keys(samples).length);
    for (const op of sensitive) {
      const output = samples[op.id] ?? { id: 1, label: 'other', password: 'p4ss' };
      const message = renderOperationResult(op, { instanceId: 5 }, output);
      expect(message, op.id).toMatchObject({ ephemeralOnly: true });
      expectSendable(message);
    }
  });

  it('includes the image upload address, which lets anyone holding it write into the account', () => {
    const output = {
      upload_to: 'https://uploads.example.com/images/private-15?signature=abc',
      image: { id: 'private/15', label: 'my-appliance', status: 'pending_upload' },
    };
    const message = renderOperationResult(getOperation('images.upload'), {}, output);
    expect(message).toMatchObject({ ephemeralOnly: true });
    expect(visibleText(message)).toContain('Image `private/15` is waiting for its data');
    expectSendable(message);
  });
});
