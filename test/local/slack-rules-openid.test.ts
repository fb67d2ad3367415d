import { createHash, createPublicKey, verify } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ID_TOKEN_SECONDS, OPENID_PATHS, type OpenIdClient } from '../../infra/local/slack/openid.js';
import { type SlackStandIn, startSlackStandIn } from '../../infra/local/slack/server.js';
import { USER_TOKEN_RULES } from '../../infra/local/slack/user-tokens.js';
import { WEB_API_METHOD_NAMES } from '../../infra/local/slack/web-api.js';
import { signInWithSlack } from '../../infra/local/slack/workspace.js';

/**
 * Sign in with Slack on the stand-in by itself (rules `openid-*` of `infra/local/slack/rules.ts`),
 * over HTTP as an app and a person's browser use it: the discovery document and keys, the
 * authorize page, `openid.connect.token` and its id_token, `openid.connect.userInfo`, and what a
 * person's user token gets from the other methods. One stand-in for the file, on a clock the tests
 * move.
 */

const START = Date.parse('2026-12-01T09:00:00Z');
const ALICE = 'U0ALICE';
const REDIRECT = 'http://127.0.0.1:9/agents/oauth/callback';
const client: OpenIdClient = {
  clientId: 'local.agents',
  clientSecret: 'sign-in-s3cret',
  redirectUris: [REDIRECT, 'http://127.0.0.1:9/elsewhere'],
};

let clock = START;
let standIn: SlackStandIn;

beforeAll(async () => {
  standIn = await startSlackStandIn({ now: () => clock, openIdClient: client });
});

afterAll(async () => {
  await standIn.close();
});

afterEach(() => {
  clock = START;
  standIn.openId.register(client);
});

type Answer = { ok: boolean; error?: string } & Record<string, unknown>;

function authorizeUrl(params: Record<string, string> = {}): string {
  const url = new URL(OPENID_PATHS.authorize, standIn.url);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    scope: 'openid email profile',
    redirect_uri: REDIRECT,
    state: 'state-1',
    nonce: 'nonce-1',
    ...params,
  }).toString();
  return url.toString();
}

async function page(url: string): Promise<{ status: number; html: string; location: string | null }> {
  const response = await fetch(url, { redirect: 'manual' });
  return { status: response.status, html: await response.text(), location: response.headers.get('location') };
}

/** A code for Alice, through the page as her browser goes through it. */
async function codeFor(params: Record<string, string> = {}): Promise<string> {
  const { code } = await signInWithSlack(authorizeUrl(params));
  if (code === undefined) throw new Error('no code');
  return code;
}

async function callMethod(
  method: string,
  args: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${standIn.apiUrl}${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(args).toString(),
  });
  // Slack's Web API answers refusals with HTTP 200 and ok: false.
  expect(response.status).toBe(200);
  return (await response.json()) as Answer;
}

const exchange = (code: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}) =>
  callMethod(
    'openid.connect.token',
    {
      client_id: client.clientId,
      client_secret: client.clientSecret,
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      ...extra,
    },
    headers,
  );

const userInfo = (token: string) =>
  callMethod('openid.connect.userInfo', {}, { authorization: `Bearer ${token}` });

/** The id_token's claims, once its RS256 signature checks out against the stand-in's JWKS. */
async function verifiedClaims(idToken: string): Promise<Record<string, unknown>> {
  const [header = '', payload = '', signature = ''] = idToken.split('.');
  const { alg, kid } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<
    string,
    string
  >;
  expect(alg).toBe('RS256');
  const jwks = (await (await fetch(new URL(OPENID_PATHS.keys, standIn.url))).json()) as {
    keys: Array<{ kid: string } & Record<string, string>>;
  };
  const jwk = jwks.keys.find((key) => key.kid === kid);
  if (!jwk) throw new Error(`no key ${kid} in the JWKS`);
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  const valid = verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    key,
    Buffer.from(signature, 'base64url'),
  );
  expect(valid).toBe(true);
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** A PKCE pair (RFC 7636 appendix B's verifier and its S256 challenge). */
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

describe('openid-discovery', () => {
  it("serves Slack's discovery document with the stand-in's base URL as issuer and its own endpoints", async () => {
    const response = await fetch(new URL(OPENID_PATHS.discovery, standIn.url));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      issuer: standIn.url,
      authorization_endpoint: `${standIn.url}/openid/connect/authorize`,
      token_endpoint: `${standIn.apiUrl}openid.connect.token`,
      userinfo_endpoint: `${standIn.apiUrl}openid.connect.userInfo`,
      jwks_uri: `${standIn.url}/openid/connect/keys`,
      scopes_supported: ['openid', 'profile', 'email'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      claims_supported: ['sub', 'auth_time', 'iss'],
      claims_parameter_supported: false,
      request_parameter_supported: false,
      request_uri_parameter_supported: true,
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    });
  });

  it('serves one RSA signing key as a JWKS, public parts only', async () => {
    const response = await fetch(new URL(OPENID_PATHS.keys, standIn.url));
    const { keys } = (await response.json()) as { keys: Array<Record<string, string>> };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', e: 'AQAB' });
    expect(keys[0]?.kid).toMatch(/^[0-9a-f]{16}$/);
    expect(Object.keys(keys[0] ?? {}).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
  });
});

describe('openid-authorize', () => {
  it("opens a page where a person of the workspace picks who they are, bots left out, the request in the form's hidden fields", async () => {
    const { status, html } = await page(authorizeUrl());
    expect(status).toBe(200);
    expect(html).toContain('<form method="post" action="/openid/connect/authorize">');
    expect(html).toContain('<select name="user"');
    for (const person of ['U0ADMIN', 'U0ALICE', 'U0BOB'])
      expect(html).toContain(`<option value="${person}">`);
    expect(html).not.toContain('value="U0CLOUDBOT"');
    expect(html).toContain('<input type="hidden" name="nonce" value="nonce-1">');
    expect(html).toMatch(/<button class="button primary" type="submit" name="decision" value="allow">Allow</);
    expect(html).toMatch(/<button class="button" type="submit" name="decision" value="deny">Cancel</);
  });

  it('sends the browser back to redirect_uri with a code and the state when the person allows', async () => {
    const redirect = await signInWithSlack(authorizeUrl());
    expect(redirect.url.startsWith(`${REDIRECT}?`)).toBe(true);
    expect(redirect.code).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(redirect.state).toBe('state-1');
    expect(redirect.error).toBeUndefined();
  });

  it('sends the browser back with error=access_denied and the state, and no code, when the person cancels', async () => {
    const redirect = await signInWithSlack(authorizeUrl(), { decision: 'deny' });
    expect(redirect).toEqual({
      url: `${REDIRECT}?error=access_denied&state=state-1`,
      error: 'access_denied',
      state: 'state-1',
    });
  });

  it("sends a request without redirect_uri back to the app's first Redirect URL", async () => {
    const url = new URL(authorizeUrl());
    url.searchParams.delete('redirect_uri');
    const redirect = await signInWithSlack(url.toString());
    expect(new URL(redirect.url).origin + new URL(redirect.url).pathname).toBe(REDIRECT);
  });

  it.each([
    ['a scope without openid', { scope: 'email profile' }, 'scope must include openid'],
    ['a scope Sign in with Slack does not have', { scope: 'openid chat:write' }, 'Unknown scope chat:write'],
    ['an unknown client_id', { client_id: 'someone.else' }, 'Unknown client_id'],
    ['a redirect_uri the app does not list', { redirect_uri: 'https://evil.example/cb' }, 'Redirect URLs'],
    ['another response_type', { response_type: 'token' }, 'response_type must be code'],
    ['a challenge without a method (plain)', { code_challenge: CHALLENGE }, 'must be S256'],
    ['a plain challenge', { code_challenge: CHALLENGE, code_challenge_method: 'plain' }, 'must be S256'],
    ['a challenge that is no SHA-256', { code_challenge: 'short', code_challenge_method: 'S256' }, '43'],
  ])('answers %s with a page and no redirect', async (_case, params, words) => {
    const { status, html, location } = await page(authorizeUrl(params));
    expect(status).toBe(400);
    expect(location).toBeNull();
    expect(html).toContain(words);
  });

  it('refuses a parameter given twice, on the page and in the form', async () => {
    const twice = `${authorizeUrl()}&state=other`;
    expect((await page(twice)).status).toBe(400);
    const form = new URLSearchParams(new URL(twice).search);
    form.set('user', ALICE);
    form.set('decision', 'allow');
    const response = await fetch(new URL(OPENID_PATHS.authorize, standIn.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `${form.toString()}&nonce=again`,
      redirect: 'manual',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
  });

  it('denies a form that names someone who is not a person of the workspace', async () => {
    await expect(signInWithSlack(authorizeUrl(), { user: 'U0CLOUDBOT' })).rejects.toThrow('does not offer');
    const form = new URLSearchParams(new URL(authorizeUrl()).search);
    form.set('user', 'U0CLOUDBOT');
    form.set('decision', 'allow');
    const response = await fetch(new URL(OPENID_PATHS.authorize, standIn.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      redirect: 'manual',
    });
    expect(new URL(response.headers.get('location') ?? '').searchParams.get('error')).toBe('access_denied');
  });

  it('escapes what the request names instead of echoing it as markup', async () => {
    const { html } = await page(authorizeUrl({ state: '"><script>x</script>', nonce: '<b>n</b>' }));
    expect(html).not.toContain('<script>x');
    expect(html).not.toContain('<b>n');
  });
});

describe('openid-token', () => {
  it('trades a code for a Bearer user token and an RS256 id_token whose claims name the person, the app and the nonce', async () => {
    const code = await codeFor();
    clock += 5_000;
    const answer = await exchange(code);
    expect(answer).toMatchObject({ ok: true, token_type: 'Bearer' });
    expect(Object.keys(answer).sort()).toEqual(['access_token', 'id_token', 'ok', 'token_type']);
    const accessToken = String(answer.access_token);
    expect(accessToken).toMatch(/^xoxp-T0LOCAL-[0-9a-f]{32}$/);
    const claims = await verifiedClaims(String(answer.id_token));
    const issuedAt = Math.floor(clock / 1000);
    expect(claims).toEqual({
      iss: standIn.url,
      sub: ALICE,
      aud: client.clientId,
      exp: issuedAt + ID_TOKEN_SECONDS,
      iat: issuedAt,
      auth_time: Math.floor(START / 1000),
      nonce: 'nonce-1',
      at_hash: createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url'),
      'https://slack.com/team_id': 'T0LOCAL',
      'https://slack.com/user_id': ALICE,
      email: 'alice@local.example',
      email_verified: true,
      name: 'Alice Operator',
      given_name: 'Alice',
      family_name: 'Operator',
      locale: 'en-US',
      'https://slack.com/team_image_default': true,
    });
  });

  it('puts only the claims the scopes allow in the id_token, and no nonce when none was sent', async () => {
    const url = new URL(authorizeUrl({ scope: 'openid' }));
    url.searchParams.delete('nonce');
    const { code = '' } = await signInWithSlack(url.toString());
    const claims = await verifiedClaims(String((await exchange(code)).id_token));
    expect(Object.keys(claims).sort()).toEqual([
      'at_hash',
      'aud',
      'auth_time',
      'exp',
      'https://slack.com/team_id',
      'https://slack.com/user_id',
      'iat',
      'iss',
      'sub',
    ]);
  });

  it('takes the client credentials in a Basic header (client_secret_basic) as well as in the body', async () => {
    const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
    const code = await codeFor();
    const answer = await callMethod(
      'openid.connect.token',
      { code, redirect_uri: REDIRECT },
      { authorization: `Basic ${basic}` },
    );
    expect(answer).toMatchObject({ ok: true, token_type: 'Bearer' });
  });

  it('takes a code once: the second exchange answers invalid_code', async () => {
    const code = await codeFor();
    expect((await exchange(code)).ok).toBe(true);
    expect(await exchange(code)).toEqual({ ok: false, error: 'invalid_code' });
  });

  it("refuses a code ten minutes after it was issued, on the stand-in's clock", async () => {
    const fresh = await codeFor();
    const stale = await codeFor();
    clock += 10 * 60 * 1000 - 1;
    expect((await exchange(fresh)).ok).toBe(true);
    clock += 1;
    expect(await exchange(stale)).toEqual({ ok: false, error: 'invalid_code' });
  });

  it('answers bad_client_secret to a wrong secret, and the code still works with the right one', async () => {
    const code = await codeFor();
    expect(await exchange(code, { client_secret: 'guessed' })).toEqual({
      ok: false,
      error: 'bad_client_secret',
    });
    expect((await exchange(code)).ok).toBe(true);
  });

  it('answers invalid_client_id to another client, and to both authentication methods at once invalid_arguments', async () => {
    const code = await codeFor();
    expect(await exchange(code, { client_id: 'someone.else' })).toEqual({
      ok: false,
      error: 'invalid_client_id',
    });
    const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
    expect(await exchange(code, {}, { authorization: `Basic ${basic}` })).toEqual({
      ok: false,
      error: 'invalid_arguments',
    });
  });

  it('answers bad_redirect_uri when the exchange names another redirect_uri, or none after the request named one', async () => {
    expect(await exchange(await codeFor(), { redirect_uri: 'http://127.0.0.1:9/elsewhere' })).toEqual({
      ok: false,
      error: 'bad_redirect_uri',
    });
    const code = await codeFor();
    const { redirect_uri: _omitted, ...withoutRedirect } = {
      client_id: client.clientId,
      client_secret: client.clientSecret,
      code,
      redirect_uri: REDIRECT,
    };
    expect(await callMethod('openid.connect.token', withoutRedirect)).toEqual({
      ok: false,
      error: 'bad_redirect_uri',
    });
  });

  it('trades a code asked for with an S256 challenge only with its verifier', async () => {
    const pkce = { code_challenge: CHALLENGE, code_challenge_method: 'S256' };
    expect((await exchange(await codeFor(pkce), { code_verifier: VERIFIER })).ok).toBe(true);
    const wrong = `${VERIFIER.slice(0, -1)}A`;
    expect(await exchange(await codeFor(pkce), { code_verifier: wrong })).toEqual({
      ok: false,
      error: 'invalid_code',
    });
    expect(await exchange(await codeFor(pkce))).toEqual({ ok: false, error: 'invalid_code' });
  });

  it('refuses a verifier for a code asked for without a challenge, so PKCE cannot be stripped on the way', async () => {
    expect(await exchange(await codeFor(), { code_verifier: VERIFIER })).toEqual({
      ok: false,
      error: 'invalid_code',
    });
  });

  it('answers invalid_grant_type to a grant type other than authorization_code and refresh_token', async () => {
    expect(await exchange(await codeFor(), { grant_type: 'password' })).toEqual({
      ok: false,
      error: 'invalid_grant_type',
    });
  });

  it('with token rotation, issues expiring tokens renewed by single-use refresh tokens', async () => {
    standIn.openId.register({ ...client, tokenExpiresInSeconds: 43_200 });
    const first = await exchange(await codeFor());
    expect(first).toMatchObject({ ok: true, token_type: 'Bearer', expires_in: 43_200 });
    expect(String(first.access_token)).toMatch(/^xoxe\.xoxp-1-/);
    const refresh = { grant_type: 'refresh_token', refresh_token: String(first.refresh_token) };
    const renewed = await callMethod('openid.connect.token', {
      client_id: client.clientId,
      client_secret: client.clientSecret,
      ...refresh,
    });
    expect(renewed).toMatchObject({ ok: true, expires_in: 43_200 });
    expect((await verifiedClaims(String(renewed.id_token))).nonce).toBeUndefined();
    const again = await callMethod('openid.connect.token', {
      client_id: client.clientId,
      client_secret: client.clientSecret,
      ...refresh,
    });
    expect(again).toEqual({ ok: false, error: 'invalid_refresh_token' });
    clock += 43_200 * 1000;
    expect(await userInfo(String(renewed.access_token))).toEqual({ ok: false, error: 'token_expired' });
  });

  it('records the exchange without its code, secret or tokens', async () => {
    const code = await codeFor();
    await exchange(code);
    const call = standIn.store.calls().findLast((entry) => entry.method === 'openid.connect.token');
    expect(call).toMatchObject({ ok: true, body: { grant_type: 'authorization_code' } });
    expect(JSON.stringify(call)).not.toContain(code);
    expect(JSON.stringify(call)).not.toContain(client.clientSecret);
  });
});

describe('openid-user-info', () => {
  it("answers the person of a user token: ids, the workspace's name and domain, email and name", async () => {
    const { access_token } = await exchange(await codeFor());
    expect(await userInfo(String(access_token))).toEqual({
      ok: true,
      sub: ALICE,
      'https://slack.com/user_id': ALICE,
      'https://slack.com/team_id': 'T0LOCAL',
      'https://slack.com/team_name': 'Local workspace',
      'https://slack.com/team_domain': 'local',
      email: 'alice@local.example',
      email_verified: true,
      name: 'Alice Operator',
      given_name: 'Alice',
      family_name: 'Operator',
      locale: 'en-US',
      'https://slack.com/team_image_default': true,
    });
  });

  it('answers invalid_auth to a token it never issued, not_authed to none, not_allowed_token_type to the bot token', async () => {
    expect(await userInfo('xoxp-T0LOCAL-forged')).toEqual({ ok: false, error: 'invalid_auth' });
    expect(await callMethod('openid.connect.userInfo', {})).toEqual({ ok: false, error: 'not_authed' });
    expect(await userInfo(standIn.botToken)).toEqual({ ok: false, error: 'not_allowed_token_type' });
  });
});

describe('openid-user-token', () => {
  it('answers auth.test with the person, not the bot', async () => {
    const { access_token } = await exchange(await codeFor());
    const answer = await callMethod('auth.test', {}, { authorization: `Bearer ${String(access_token)}` });
    expect(answer).toMatchObject({ ok: true, user_id: ALICE, user: 'alice', team_id: 'T0LOCAL' });
    expect(answer.bot_id).toBeUndefined();
  });

  it('refuses bot methods: missing_scope with the user scope needed where user tokens are taken, else not_allowed_token_type', async () => {
    const { access_token } = await exchange(await codeFor());
    const bearer = { authorization: `Bearer ${String(access_token)}` };
    expect(await callMethod('chat.postMessage', { channel: 'C0OPS', text: 'hi' }, bearer)).toEqual({
      ok: false,
      error: 'missing_scope',
      needed: 'chat:write',
      provided: 'openid,email,profile',
    });
    expect(await callMethod('views.publish', { user_id: ALICE, view: '{}' }, bearer)).toEqual({
      ok: false,
      error: 'not_allowed_token_type',
    });
    expect(standIn.store.messages('C0OPS')).toEqual([]);
  });

  it('has a row for every Web API method the stand-in serves', () => {
    expect(Object.keys(USER_TOKEN_RULES).sort()).toEqual([...WEB_API_METHOD_NAMES].sort());
  });
});
