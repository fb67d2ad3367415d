import { describe, expect, it } from 'vitest';
import { responseSchemaOf } from '../../../lib/api/operation.js';
import { getOperation, requireOperation } from '../../../lib/api/operations/index.js';
import { profileGrantsResultSchema, profileOperations } from '../../../lib/api/operations/profile.js';
import { issuesOf, publishedExample } from '../../support/openapi-examples.js';

describe('profile operations', () => {
  it('need no scope only for view and grants, which any token may call', () => {
    const anyToken = profileOperations.filter((op) => op.access === 'any-token').map((op) => op.id);
    expect(anyToken).toEqual(['profile.view', 'profile.grants']);
    expect(getOperation('profile.view').scopes).toEqual([]);
  });
  it('mark every DELETE and tfa-disable as needing approval', () => {
    const destructive = profileOperations.filter((op) => op.destructive).map((op) => op.id);
    expect(destructive).toEqual([
      'profile.apps-revoke',
      'profile.devices-revoke',
      'profile.phone-number-delete',
      'profile.sshkeys-delete',
      'profile.tfa-disable',
      'profile.tokens-delete',
    ]);
  });
  it('keep the new token, the 2FA secret and the scratch code for the requester only', () => {
    const sensitive = profileOperations.filter((op) => op.sensitive).map((op) => op.id);
    expect(sensitive).toEqual(['profile.tfa-enable', 'profile.tfa-confirm', 'profile.tokens-create']);
  });
  it('send no page parameters to the paged lists that declare none', () => {
    for (const id of ['profile.devices-list', 'profile.logins-list', 'profile.tokens-list']) {
      expect(requireOperation(id).paginated, id).toBe(true);
      expect(requireOperation(id).queryParams, id).toEqual([]);
    }
    expect(getOperation('profile.apps-list').queryParams).toEqual(['page', 'page_size']);
  });
  it('filter apps by label, created, expiry and tokens by label, created', () => {
    expect(getOperation('profile.apps-list').filterable).toEqual(['label', 'created', 'expiry']);
    expect(getOperation('profile.tokens-list').filterable).toEqual(['label', 'created']);
  });
});

describe('profile.update', () => {
  it('accepts the documented optional fields', () => {
    expect(
      issuesOf('profile.update', {
        email: 'ops@example.com',
        lish_auth_method: 'keys_only',
        ip_whitelist_enabled: false,
        authorized_keys: null,
        two_factor_auth: true,
      }),
    ).toEqual([]);
  });
  it('rejects enabling the deprecated ip_whitelist_enabled', () => {
    expect(issuesOf('profile.update', { ip_whitelist_enabled: true })).toEqual([
      'ip_whitelist_enabled: is deprecated and cannot be enabled',
    ]);
  });
  it('rejects a lish_auth_method outside the enum', () => {
    expect(issuesOf('profile.update', { lish_auth_method: 'everything' })).toEqual([
      'lish_auth_method: must be one of password_keys, keys_only, disabled',
    ]);
  });
  it('rejects an email that is not an address', () => {
    expect(issuesOf('profile.update', { email: 'ops' })).toEqual(['email: must be an e-mail address']);
  });
});

describe('profile.phone-number-add', () => {
  it('accepts a country code and a number', () => {
    expect(issuesOf('profile.phone-number-add', { iso_code: 'US', phone_number: '555-555-5555' })).toEqual(
      [],
    );
  });
  it('requires iso_code and phone_number', () => {
    expect(issuesOf('profile.phone-number-add', {})).toEqual([
      'iso_code: is required',
      'phone_number: is required',
    ]);
  });
  it('rejects an iso_code that is not two letters', () => {
    expect(issuesOf('profile.phone-number-add', { iso_code: 'USA', phone_number: '555-555-5555' })).toEqual([
      'iso_code: must be a two-letter ISO 3166 country code',
    ]);
  });
});

describe('profile.phone-number-verify', () => {
  it('accepts a code', () => {
    expect(issuesOf('profile.phone-number-verify', { otp_code: '123456' })).toEqual([]);
  });
  it('requires otp_code', () => {
    expect(issuesOf('profile.phone-number-verify', {})).toEqual(['otp_code: is required']);
  });
});

describe('profile.preferences-update', () => {
  it('accepts an arbitrary JSON object', () => {
    expect(issuesOf('profile.preferences-update', { theme: 'dark', columns: ['label', 'region'] })).toEqual(
      [],
    );
  });
  it('rejects preferences longer than 65,535 characters as JSON', () => {
    // {"k":"…"} adds 8 characters around the value.
    expect(issuesOf('profile.preferences-update', { k: 'x'.repeat(65_527) })).toEqual([]);
    expect(issuesOf('profile.preferences-update', { k: 'x'.repeat(65_528) })).toEqual([
      ': preferences must be at most 65,535 characters as JSON',
    ]);
  });
  it('rejects preferences that are not an object', () => {
    expect(issuesOf('profile.preferences-update', ['dark'])).toEqual([': preferences must be a JSON object']);
  });
});

describe('profile.security-questions-answer', () => {
  const answer = (question_id: number, response: string) => ({ question_id, response });

  it('accepts three answers to different questions', () => {
    expect(
      issuesOf('profile.security-questions-answer', {
        security_questions: [answer(1, 'Gotham'), answer(2, 'Rex'), answer(3, 'Blue')],
      }),
    ).toEqual([]);
  });
  it('requires security_questions', () => {
    expect(issuesOf('profile.security-questions-answer', {})).toEqual(['security_questions: is required']);
  });
  it('rejects fewer or more than three answers', () => {
    expect(
      issuesOf('profile.security-questions-answer', { security_questions: [answer(1, 'a'), answer(2, 'b')] }),
    ).toEqual(['security_questions: must answer exactly three questions']);
    expect(
      issuesOf('profile.security-questions-answer', {
        security_questions: [answer(1, 'a'), answer(2, 'b'), answer(3, 'c'), answer(4, 'd')],
      }),
    ).toEqual(['security_questions: must answer exactly three questions']);
  });
  it('rejects the same question answered twice', () => {
    expect(
      issuesOf('profile.security-questions-answer', {
        security_questions: [answer(1, 'a'), answer(2, 'b'), answer(1, 'c')],
      }),
    ).toEqual(['security_questions.2.question_id: repeats a question already answered']);
  });
});

describe('profile.sshkeys-create and sshkeys-update', () => {
  it('accepts a label of 64 characters and a key', () => {
    expect(
      issuesOf('profile.sshkeys-create', { label: 'x'.repeat(64), ssh_key: 'ssh-ed25519 AAAA me@laptop' }),
    ).toEqual([]);
  });
  it('rejects a label longer than 64 characters', () => {
    expect(
      issuesOf('profile.sshkeys-create', { label: 'x'.repeat(65), ssh_key: 'ssh-ed25519 AAAA' }),
    ).toEqual(['label: is 65 characters; the most it can be is 64']);
    expect(issuesOf('profile.sshkeys-update', { sshKeyId: 42, label: 'x'.repeat(65) })).toEqual([
      'label: is 65 characters; the most it can be is 64',
    ]);
  });
  it('rejects changing the key itself', () => {
    expect(issuesOf('profile.sshkeys-update', { sshKeyId: 42, ssh_key: 'ssh-rsa AAAA' })).toHaveLength(1);
  });
});

describe('profile.tfa-confirm', () => {
  it('accepts a code', () => {
    expect(issuesOf('profile.tfa-confirm', { tfa_code: '213456' })).toEqual([]);
  });
  it('requires tfa_code', () => {
    expect(issuesOf('profile.tfa-confirm', {})).toEqual(['tfa_code: is required']);
  });
});

describe('profile.tokens-create', () => {
  it('accepts a label, scopes and an ISO date-time expiry', () => {
    expect(
      issuesOf('profile.tokens-create', {
        label: 'ci',
        scopes: 'nodes:read_only account:read_write',
        expiry: '2027-01-01T00:00:00',
      }),
    ).toEqual([]);
    expect(
      issuesOf('profile.tokens-create', { label: 'ci', scopes: '*', expiry: '2027-01-01T00:00:00Z' }),
    ).toEqual([]);
  });
  it('rejects a label outside 1..100 characters', () => {
    expect(issuesOf('profile.tokens-create', { label: '' })).toEqual(['label: must be 1 to 100 characters']);
    expect(issuesOf('profile.tokens-create', { label: 'x'.repeat(101) })).toEqual([
      'label: is 101 characters; the most it can be is 100',
    ]);
  });
  it('rejects an expiry that is not a date-time', () => {
    expect(issuesOf('profile.tokens-create', { label: 'ci', expiry: 'next year' })).toEqual([
      'expiry: must be a date-time such as 2027-01-01T00:00:00',
    ]);
  });
  it('rejects scopes not of the form area:read_only or area:read_write', () => {
    expect(issuesOf('profile.tokens-create', { label: 'ci', scopes: 'nodes:write' })).toEqual([
      'scopes: must be * or scopes such as nodes:read_only separated by spaces',
    ]);
  });
});

describe('profile.tokens-update and tokens-delete', () => {
  it('rejects a label outside 1..100 characters', () => {
    expect(issuesOf('profile.tokens-update', { tokenId: 123, label: 'x'.repeat(101) })).toEqual([
      'label: is 101 characters; the most it can be is 100',
    ]);
  });
  it('rejects a token id that is not a whole number', () => {
    expect(issuesOf('profile.tokens-delete', { tokenId: 'abc' })).toEqual([
      'tokenId: must be a whole number',
    ]);
  });
});

describe('profile responses', () => {
  it.each([
    'profile.view',
    'profile.update',
    'profile.apps-list',
    'profile.apps-view',
    'profile.devices-list',
    'profile.devices-view',
    'profile.grants',
    'profile.logins-list',
    'profile.logins-view',
    'profile.preferences-view',
    'profile.preferences-update',
    'profile.security-questions-list',
    'profile.security-questions-answer',
    'profile.sshkeys-list',
    'profile.sshkeys-create',
    'profile.sshkeys-view',
    'profile.sshkeys-update',
    'profile.tfa-enable',
    'profile.tfa-confirm',
    'profile.tokens-list',
    'profile.tokens-create',
    'profile.tokens-view',
    'profile.tokens-update',
  ])('%s accepts the published example', (id) => {
    const op = requireOperation(id);
    const example = publishedExample(op);
    expect(example).toBeDefined();
    const result = responseSchemaOf(op).safeParse(example);
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it('grants accepts the empty result of an unrestricted user (204, no body)', () => {
    expect(profileGrantsResultSchema().safeParse({}).success).toBe(true);
  });
  it('grants rejects a body without global rather than reading it as "no grants"', () => {
    expect(
      profileGrantsResultSchema().safeParse({ node: [{ id: 1, label: 'web', permissions: 'read_only' }] })
        .success,
    ).toBe(false);
  });
});
