import { describe, expect, it } from 'vitest';
import { cleanClientName } from '../../../../lib/agents/oauth/client-names.js';
import { checkRegistration } from '../../../../lib/agents/oauth/registration.js';

const CURSOR = {
  client_name: 'Cursor',
  redirect_uris: [
    'cursor://anysphere.cursor-mcp/oauth/callback',
    'https://www.cursor.com/agents/mcp/oauth/callback',
    'http://localhost:8787/callback',
  ],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
};

describe('Dynamic Client Registration requests', () => {
  it('takes a public client with its redirect URIs (Cursor’s own request)', () => {
    expect(checkRegistration(CURSOR)).toEqual({
      ok: true,
      registration: {
        clientName: 'Cursor',
        redirectUris: CURSOR.redirect_uris,
        grantTypes: ['authorization_code', 'refresh_token'],
      },
    });
  });

  it('makes a client that names no auth method a public one', () => {
    const { token_endpoint_auth_method: _, ...rest } = CURSOR;
    expect(checkRegistration(rest).ok).toBe(true);
  });

  it.each([
    [
      'a client secret method',
      { token_endpoint_auth_method: 'client_secret_basic' },
      'invalid_client_metadata',
    ],
    ['the implicit grant', { grant_types: ['implicit'] }, 'invalid_client_metadata'],
    ['client credentials', { grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
    ['a token response type', { response_types: ['token'] }, 'invalid_client_metadata'],
    ['an unknown scope', { scope: 'cloud:read admin' }, 'invalid_client_metadata'],
    ['no redirect URIs', { redirect_uris: [] }, 'invalid_redirect_uri'],
    [
      'an http redirect URI to a host',
      { redirect_uris: ['http://agent.example.com/cb'] },
      'invalid_redirect_uri',
    ],
    [
      'one bad URI among good ones',
      { redirect_uris: ['https://a.example/cb', 'https://a.example/#x'] },
      'invalid_redirect_uri',
    ],
    [
      'eleven redirect URIs',
      { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) },
      'invalid_redirect_uri',
    ],
    [
      'redirect URIs that are not strings',
      { redirect_uris: [{ uri: 'https://a.example' }] },
      'invalid_redirect_uri',
    ],
    ['a huge name', { client_name: 'x'.repeat(5000) }, 'invalid_client_metadata'],
  ])('refuses %s', (_why, change, error) => {
    expect(checkRegistration({ ...CURSOR, ...change })).toMatchObject({ ok: false, error });
  });

  it('refuses prototype keys at any depth, and changes nothing', () => {
    const hostile = JSON.parse('{"redirect_uris":["https://a.example/cb"],"__proto__":{"admin":true}}');
    expect(checkRegistration(hostile)).toMatchObject({ ok: false, error: 'invalid_client_metadata' });
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    const nested = JSON.parse(
      '{"redirect_uris":["https://a.example/cb"],"jwks":{"constructor":{"prototype":1}}}',
    );
    expect(checkRegistration(nested)).toMatchObject({ ok: false });
  });

  it.each([[null], [[]], ['text'], [42]])('refuses a body that is not an object (%j)', (body) => {
    expect(checkRegistration(body)).toMatchObject({ ok: false, error: 'invalid_client_metadata' });
  });
});

describe('agent names as people read them', () => {
  it('drops bidirectional overrides and zero-width characters that make one name read as another', () => {
    expect(cleanClientName('Claude\u202E edoC')).toBe('Claude edoC');
    expect(cleanClientName('Cur\u200Bsor')).toBe('Cursor');
  });

  it('folds white space and control characters, and cuts long names visibly', () => {
    expect(cleanClientName('  My\n\tAgent\u0000 ')).toBe('My Agent');
    expect(cleanClientName('a'.repeat(200))).toHaveLength(80);
    expect(cleanClientName('a'.repeat(200))?.endsWith('…')).toBe(true);
  });

  it('has no name left when nothing visible was given', () => {
    expect(cleanClientName('\u200B\u202E ')).toBeUndefined();
  });

  it('keeps other scripts and emoji', () => {
    expect(cleanClientName('エージェント 🤖')).toBe('エージェント 🤖');
  });
});
