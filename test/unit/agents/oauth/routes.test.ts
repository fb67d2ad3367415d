import { createHash, randomBytes } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type LocalLambdaServer, serveLambdas } from '../../../../infra/local/lambda-adapter.js';
import { type SlackStandIn, startSlackStandIn } from '../../../../infra/local/slack/server.js';
import { oauthRoutes } from '../../../../lib/agents/oauth/routes.js';
import type { SlackSignIn } from '../../../../lib/agents/oauth/slack-sign-in.js';
import { createLogger } from '../../../../lib/observability/logger.js';
import { createSlackWebClient } from '../../../../lib/slack-kit/web-client.js';
import { createStore, type Store } from '../../../../lib/store/index.js';
import { LocalKeyTokenCipher } from '../../../../lib/store/token-cipher.js';
import { answerConsent, type ConsentForm, consentAt } from '../../../support/agent-sign-in.js';
import { createTestTable, type TestTable } from '../../../support/store.js';

/**
 * The OAuth routes over real HTTP (the local API Gateway adapter) on DynamoDB Local, with Slack's
 * sign-in played by the test: who Slack says the person is, or that it would not say. The bot's
 * client is the Slack stand-in's, so the channels offered and checked are Slack's answers.
 */

let table: TestTable;
let store: Store;
let slack: SlackStandIn;
let server: LocalLambdaServer;
let base: string;
const REDIRECT = 'http://localhost:45678/callback';
/** Slack's answer for each code the test hands out. */
const identities = new Map<string, Awaited<ReturnType<SlackSignIn['identify']>>>();
let botInstalledIn = new Set(['T0LOCAL']);
let routes: ReturnType<typeof oauthRoutes> = {};

beforeAll(async () => {
  table = await createTestTable();
  store = createStore(table.ctx, new LocalKeyTokenCipher(randomBytes(32)));
  slack = await startSlackStandIn();
  const bot = createSlackWebClient(slack.botToken, slack.apiUrl);
  server = await serveLambdas({
    '/oauth/*': (event) => (routes[event.rawPath] ?? (async () => ({ statusCode: 404 })))(event),
    '/unset/*': (event) => (routes[event.rawPath] ?? (async () => ({ statusCode: 404 })))(event),
  });
  base = server.url.replace('//127.0.0.1:', '//localhost:');
  routes = {
    ...oauthRoutes({
      store,
      publicUrl: base,
      logger: createLogger('test'),
      clientMetadata: { allowLoopbackHttp: false },
      workspaces: { botIn: async (team) => (botInstalledIn.has(team) ? bot : undefined) },
      slackSignIn: {
        authorizeUrl: async ({ state }) => `https://slack.example/authorize?state=${state}`,
        identify: async (code) => identities.get(code) ?? { failure: 'slack_refused', error: 'invalid_code' },
      },
    }),
    // A bot whose Slack app has no client id and secret configured, under /unset.
    ...oauthRoutes({
      store,
      publicUrl: `${base}/unset`,
      logger: createLogger('test'),
      clientMetadata: { allowLoopbackHttp: false },
      workspaces: { botIn: async () => undefined },
      slackSignIn: undefined,
    }),
  };
});

afterAll(async () => {
  await server?.close();
  await slack?.close();
  await table?.dispose();
});

beforeEach(() => {
  botInstalledIn = new Set(['T0LOCAL']);
  slack.store.reset();
});

async function registered(name = 'Unit Agent'): Promise<string> {
  const answer = await request(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: [REDIRECT] }),
  });
  return ((await answer.body.json()) as { client_id: string }).client_id;
}

/** Starts a sign-in and comes back from "Slack" with `identity`: the consent page, or what stopped it. */
async function backFromSlack(
  identity: Awaited<ReturnType<SlackSignIn['identify']>>,
  options: { clientName?: string } = {},
): Promise<ConsentForm> {
  const clientId = await registered(options.clientName);
  const start = await request(
    `${base}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: createHash('sha256').update('v'.repeat(43)).digest('base64url'),
      code_challenge_method: 'S256',
      resource: `${base}/mcp`,
      state: 'agent-state',
    })}`,
  );
  await start.body.text();
  const state = new URL(String(start.headers.location)).searchParams.get('state') ?? '';
  const cookie = String(start.headers['set-cookie']).split(';')[0] ?? '';
  const code = randomBytes(8).toString('hex');
  identities.set(code, identity);
  return consentAt(`${base}/oauth/callback?${new URLSearchParams({ state, code })}`, cookie);
}

const ALICE = { team: 'T0LOCAL', user: 'U0ALICE' };
const grantsOf = (user = 'U0ALICE') => store.agentGrants.listFor('T0LOCAL', user);

describe('the Slack side of a sign-in', () => {
  it("tells the person agents cannot sign in while the Slack app's client id and secret are not set", async () => {
    const answer = await request(`${base}/unset/oauth/authorize?client_id=cbc_x&response_type=code`);
    expect(answer.statusCode).toBe(503);
    expect(answer.headers.location).toBeUndefined();
    expect(await answer.body.text()).toContain('not set up for Sign in with Slack');
  });

  it('tells a person whose workspace does not have the bot, and grants nothing', async () => {
    const page = await backFromSlack({ team: 'T0ELSEWHERE', user: 'U0CAROL' });
    expect(page.status).toBe(403);
    expect(page.html).toContain('not installed in the Slack workspace you signed in with');
    expect(page.action).toBe('');
  });

  it('stops when Slack’s id_token does not check out', async () => {
    const page = await backFromSlack({
      failure: 'id_token_invalid',
      reason: 'its signature does not verify',
    });
    expect(page.status).toBe(400);
    expect(page.html).toContain('Slack did not confirm who you are');
    expect(page.html).not.toContain('signature');
  });

  it('says to come back in a minute when Slack cannot be reached', async () => {
    const page = await backFromSlack({ failure: 'unreachable', reason: 'no answer' });
    expect(page.status).toBe(503);
  });
});

describe('the consent page', () => {
  it('offers only channels the person and the bot are both in', async () => {
    slack.store.createChannel({ id: 'C0ALICEONLY', name: 'alice-only', members: ['U0ALICE'] });
    slack.store.createChannel({
      id: 'G0SHARED',
      name: 'shared',
      is_private: true,
      members: ['U0ALICE', 'U0CLOUDBOT'],
    });
    slack.store.createChannel({
      id: 'G0BOBS',
      name: 'bobs',
      is_private: true,
      members: ['U0BOB', 'U0CLOUDBOT'],
    });
    const page = await backFromSlack(ALICE);
    expect(page.channels).toEqual(['C0GENERAL', 'C0OPS', 'G0SHARED']);
    expect(page.html).toContain('Alice Operator');
  });

  it('escapes the agent’s name, warns of a redirect to this computer, and may not be framed', async () => {
    const page = await backFromSlack(ALICE, { clientName: '<img src=x onerror=alert(1)>' });
    expect(page.html).not.toContain('<img');
    expect(page.html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(page.html).toContain('id="local-warning"');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['content-security-policy']).toContain("form-action 'self' http://localhost:45678");
    expect(page.headers['x-frame-options']).toBe('DENY');
  });

  it('lets a person who shares no channel with the bot only deny', async () => {
    slack.store.kickBot('C0GENERAL');
    slack.store.kickBot('C0OPS');
    const page = await backFromSlack(ALICE);
    expect(page.channels).toEqual([]);
    expect(page.html).not.toContain('value="allow"');
    const denied = await answerConsent(page, { decision: 'deny' });
    expect(denied.params.get('error')).toBe('access_denied');
    expect(denied.params.get('state')).toBe('agent-state');
  });

  it('refuses a channel the bot was removed from meanwhile, and stays usable for another', async () => {
    slack.store.createChannel({
      id: 'G0TEAM',
      name: 'team',
      is_private: true,
      members: ['U0BOB', 'U0CLOUDBOT'],
    });
    const page = await backFromSlack({ team: 'T0LOCAL', user: 'U0BOB' });
    expect(page.channels).toContain('G0TEAM');
    slack.store.kickBot('G0TEAM');
    const refused = await answerConsent(page, { channel: 'G0TEAM' });
    expect(refused.status).toBe(409);
    expect(await grantsOf('U0BOB')).toEqual([]);
    const allowed = await answerConsent(page, { channel: 'C0GENERAL' });
    expect(allowed.status).toBe(302);
    expect((await grantsOf('U0BOB')).map((grant) => grant.homeChannel)).toEqual(['C0GENERAL']);
  });

  it.each([
    ['odd unicode for the channel', { channel: 'C0OPS\u202E' }],
    ['an access level it never offered', { access: 'admin' }],
    ['no decision', { decision: '' }],
    ['a huge field', { channel: 'C'.repeat(9000) }],
  ])('refuses a form with %s, granting nothing', async (_why, fields) => {
    const page = await backFromSlack({ team: 'T0LOCAL', user: 'U0ADMIN' });
    const before = (await grantsOf('U0ADMIN')).length;
    const answer = await answerConsent(page, { fields });
    expect(answer.status).toBe(400);
    expect(answer.location).toBe('');
    expect(await grantsOf('U0ADMIN')).toHaveLength(before);
  });

  it('ignores fields named like prototype keys (RFC 6749 §3.1: unknown parameters are ignored), polluting nothing', async () => {
    const page = await backFromSlack({ team: 'T0LOCAL', user: 'U0ADMIN' });
    const fields = Object.fromEntries([
      ['__proto__', 'x'],
      ['constructor[prototype][polluted]', '1'],
    ]);
    const answer = await answerConsent(page, { fields });
    expect(answer.status).toBe(302);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('the JSON endpoints', () => {
  const post = async (path: string, body: string, headers: Record<string, string>) => {
    const answer = await request(`${base}${path}`, { method: 'POST', headers, body });
    return {
      status: answer.statusCode,
      headers: answer.headers,
      json: (await answer.body.json()) as Record<string, unknown>,
    };
  };
  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  it.each([
    ['no grant type', 'client_id=https%3A%2F%2Fa.example%2Fc.json', 400, 'invalid_request'],
    [
      'an unknown grant type',
      'grant_type=password&client_id=https%3A%2F%2Fa.example%2Fc.json',
      400,
      'unsupported_grant_type',
    ],
    [
      'a repeated parameter',
      'grant_type=refresh_token&grant_type=refresh_token&client_id=x',
      400,
      'invalid_request',
    ],
    ['a client secret', 'grant_type=refresh_token&client_id=x&client_secret=s', 401, 'invalid_client'],
    [
      'an unregistered client',
      'grant_type=refresh_token&client_id=cbc_nobody&refresh_token=r',
      401,
      'invalid_client',
    ],
    [
      'a forged refresh token',
      'grant_type=refresh_token&client_id=https%3A%2F%2Fa.example%2Fc.json&refresh_token=cbrt_forged',
      400,
      'invalid_grant',
    ],
    [
      'a forged code',
      'grant_type=authorization_code&client_id=https%3A%2F%2Fa.example%2Fc.json&code=__proto__&code_verifier=' +
        'a'.repeat(43),
      400,
      'invalid_grant',
    ],
  ])('the token endpoint answers %s per RFC 6749 §5.2', async (_why, body, status, error) => {
    const answer = await post('/oauth/token', body, form);
    expect(answer.status).toBe(status);
    expect(answer.json.error).toBe(error);
    expect(answer.headers['cache-control']).toBe('no-store');
  });

  it('the token endpoint takes only a form body', async () => {
    const answer = await post('/oauth/token', JSON.stringify({ grant_type: 'refresh_token' }), {
      'content-type': 'application/json',
    });
    expect(answer).toMatchObject({ status: 400, json: { error: 'invalid_request' } });
  });

  it.each([
    ['JSON with a prototype key', '{"redirect_uris":["https://a.example/cb"],"__proto__":{"x":1}}'],
    ['a body that is not JSON', '{"redirect_uris":'],
    [
      'a body over 16 KiB',
      JSON.stringify({ redirect_uris: ['https://a.example/cb'], pad: 'x'.repeat(17_000) }),
    ],
  ])('registration refuses %s with invalid_client_metadata', async (_why, body) => {
    const answer = await post('/oauth/register', body, { 'content-type': 'application/json' });
    expect(answer).toMatchObject({ status: 400, json: { error: 'invalid_client_metadata' } });
  });

  it('revocation answers 200 for a token it does not know, telling nothing', async () => {
    const answer = await post('/oauth/revoke', 'token=cbat_nothing&client_id=cbc_x', form);
    expect(answer).toMatchObject({ status: 200, json: {} });
  });

  it('answers a wrong method with 405 and what is allowed', async () => {
    const answer = await request(`${base}/oauth/token`);
    await answer.body.text();
    expect(answer.statusCode).toBe(405);
    expect(answer.headers.allow).toBe('POST');
  });
});
