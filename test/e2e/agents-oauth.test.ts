import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Client,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import {
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
} from '@modelcontextprotocol/server';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLine } from '../../lib/slack/render/audit.js';
import { answerConsent, consentAt, openConsent, signInAgent } from '../support/agent-sign-in.js';
import { ALICE, CHANNEL, type E2E, startE2E } from '../support/e2e.js';

/**
 * An agent signs a person in through the bot's OAuth pages, over real HTTP against the local stack
 * and the Slack stand-in's Sign in with Slack, with no browser: discovery from the MCP endpoint's
 * 401, registration (DCR) or a client metadata document (CIMD), the authorization request, Slack's
 * sign-in, the consent page, the code, tokens, refresh, and calls to `/mcp` with them. The MCP
 * client package drives the agent's side where it can (DCR); the CIMD agent is driven by hand,
 * since the package takes only https metadata URLs and the local one is http://localhost.
 */

let e2e: E2E;
let mcpUrl: string;
let issuer: string;
const REDIRECT = 'http://localhost:45678/callback';

beforeAll(async () => {
  e2e = await startE2E();
  await e2e.login(ALICE, e2e.emulator.demoToken);
  mcpUrl = e2e.stack.mcpUrl;
  issuer = new URL(mcpUrl).origin;
});

afterAll(async () => {
  await e2e?.close();
});

/** An agent's OAuth state, kept in memory as an MCP client keeps it on disk. */
class MemoryAgent implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  #client: StoredOAuthClientInformation | undefined;
  #tokens: StoredOAuthTokens | undefined;
  #verifier = '';

  get redirectUrl(): string {
    return REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test Agent',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    return this.#client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.#client = info;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.#tokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
}

async function connect(agent: MemoryAgent): Promise<Client> {
  const client = new Client(
    { name: 'test-agent', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: agent }));
  return client;
}

/** The agent's whole first sign-in, as the MCP client package runs it: DCR, then the person's part. */
async function signedInAgent(answer: Parameters<typeof signInAgent>[1] = {}) {
  const agent = new MemoryAgent();
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: agent });
  const first = new Client(
    { name: 'test-agent', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
  if (!agent.authorizationUrl) throw new Error('the client did not start an authorization');
  const back = await signInAgent(agent.authorizationUrl.toString(), answer);
  const code = back.params.get('code');
  if (!code) throw new Error(`no code came back: ${back.location}`);
  await transport.finishAuth(code, back.params.get('iss') ?? undefined);
  return { agent, back, authorizationUrl: agent.authorizationUrl };
}

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { text?: string }[]).map((block) => block.text ?? '').join('\n');
}

async function postForm(url: string, fields: Record<string, string>) {
  const answer = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return {
    status: answer.statusCode,
    headers: answer.headers,
    json: (await answer.body.json()) as Record<string, unknown>,
  };
}

describe('discovery', () => {
  it('leads from the MCP endpoint’s 401 to the resource’s metadata and on to the authorization server’s', async () => {
    const denied = await request(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    await denied.body.text();
    expect(denied.statusCode).toBe(401);
    const challenge = String(denied.headers['www-authenticate']);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(getOAuthProtectedResourceMetadataUrl(new URL(mcpUrl)));

    const resource = (await (await request(metadataUrl ?? '')).body.json()) as Record<string, unknown>;
    expect(resource).toEqual({
      resource: mcpUrl,
      authorization_servers: [issuer],
      scopes_supported: ['cloud:read', 'cloud:change'],
      bearer_methods_supported: ['header'],
      resource_name: 'Cloud ChatOps',
    });
    const server = (await (
      await request(`${issuer}/.well-known/oauth-authorization-server`)
    ).body.json()) as Record<string, unknown>;
    expect(server).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
    });
    // The SDK's own resource document, for the same server: ours says as much, and how to send tokens.
    const sdk = buildOAuthProtectedResourceMetadata({
      oauthMetadata: server as never,
      resourceServerUrl: new URL(mcpUrl),
      scopesSupported: ['cloud:read', 'cloud:change'],
      resourceName: 'Cloud ChatOps',
    });
    expect(resource).toMatchObject(JSON.parse(JSON.stringify(sdk)));
  });
});

describe('an agent that registers (DCR)', () => {
  it('signs the person in with Slack, gets tokens, and reads with the person’s token at /mcp', async () => {
    const { agent, back } = await signedInAgent({ channel: CHANNEL, access: 'change' });
    expect(back.status).toBe(302);
    expect(back.location.startsWith(`${REDIRECT}?`)).toBe(true);
    expect(back.params.get('iss')).toBe(issuer);
    expect(agent.tokens()).toMatchObject({ token_type: 'Bearer', scope: 'cloud:read cloud:change' });

    const volume = e2e.emulator.control.createVolume({ label: 'signed-in-agent-reads' });
    const client = await connect(agent);
    const result = await client.callTool({
      name: 'read',
      arguments: { operation: 'volumes.view', arguments: { volumeId: volume.id } },
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('signed-in-agent-reads');
    await client.close();

    const [grant] = await e2e.stack.store.agentGrants.listFor(e2e.stack.workspace.teamId, ALICE);
    expect(grant).toMatchObject({ clientName: 'Test Agent', homeChannel: CHANNEL });
    const { entries } = await e2e.stack.store.audit.list(e2e.stack.workspace.teamId, { limit: 50 });
    const signedIn = entries.find((entry) => entry.action === 'agents.sign_in');
    expect(signedIn).toMatchObject({ actor: ALICE, target: `channel ${CHANNEL}` });
    expect(signedIn && auditLine(signedIn)).toContain(`signed an agent in, acting from <#${CHANNEL}>`);
  });

  it('refreshes its tokens, and the old refresh token used again takes the grant away', async () => {
    const { agent } = await signedInAgent();
    const clientId = String(agent.clientInformation()?.client_id);
    const first = agent.tokens();
    const refreshed = await postForm(`${issuer}/oauth/token`, {
      grant_type: 'refresh_token',
      refresh_token: String(first?.refresh_token),
      client_id: clientId,
      resource: mcpUrl,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.headers['cache-control']).toBe('no-store');
    expect(refreshed.json.refresh_token).not.toBe(first?.refresh_token);
    const replayed = await postForm(`${issuer}/oauth/token`, {
      grant_type: 'refresh_token',
      refresh_token: String(first?.refresh_token),
      client_id: clientId,
    });
    expect(replayed).toMatchObject({ status: 400, json: { error: 'invalid_grant' } });
    const afterReplay = await postForm(`${issuer}/oauth/token`, {
      grant_type: 'refresh_token',
      refresh_token: String(refreshed.json.refresh_token),
      client_id: clientId,
    });
    expect(afterReplay.json.error).toBe('invalid_grant');
  });

  it('is told access_denied, with its state and the issuer, when the person denies it', async () => {
    const agent = new MemoryAgent();
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: agent });
    await expect(new Client({ name: 'a', version: '1' }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const url = agent.authorizationUrl?.toString() ?? '';
    const back = await signInAgent(url, { decision: 'deny' });
    expect(back.status).toBe(302);
    expect(back.params.get('error')).toBe('access_denied');
    expect(back.params.get('state')).toBe(new URL(url).searchParams.get('state'));
    expect(back.params.get('iss')).toBe(issuer);
    expect(back.params.get('code')).toBeNull();
  });
});

describe('a code', () => {
  /** An authorization request by hand, for a registered client, and its verifier. */
  async function handMadeRequest(options: { scope?: string } = {}) {
    const registered = await request(`${issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Hand Agent',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registered.statusCode).toBe(201);
    const { client_id: clientId } = (await registered.body.json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(`${issuer}/oauth/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'http://localhost:50123/callback',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: mcpUrl,
      state: 'st-1',
      ...(options.scope ? { scope: options.scope } : {}),
    }).toString();
    return { clientId, verifier, url: url.toString() };
  }

  const exchange = (clientId: string, code: string, verifier: string, extra: Record<string, string> = {}) =>
    postForm(`${issuer}/oauth/token`, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: 'http://localhost:50123/callback',
      resource: mcpUrl,
      ...extra,
    });

  it('comes back to the loopback redirect URI on the port the agent asked for, once', async () => {
    const { clientId, verifier, url } = await handMadeRequest();
    const back = await signInAgent(url, { access: 'read' });
    expect(back.location.startsWith('http://localhost:50123/callback?')).toBe(true);
    expect(back.params.get('state')).toBe('st-1');
    const tokens = await exchange(clientId, back.params.get('code') ?? '', verifier);
    expect(tokens).toMatchObject({
      status: 200,
      json: { token_type: 'Bearer', scope: 'cloud:read', expires_in: 3600 },
    });
  });

  it('used a second time is refused and takes away what it issued', async () => {
    const { clientId, verifier, url } = await handMadeRequest();
    const code = (await signInAgent(url)).params.get('code') ?? '';
    const first = await exchange(clientId, code, verifier);
    expect(first.status).toBe(200);
    expect(await exchange(clientId, code, verifier)).toMatchObject({
      status: 400,
      json: { error: 'invalid_grant' },
    });
    const call = await request(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${String(first.json.access_token)}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    await call.body.text();
    expect(call.statusCode).toBe(401);
  });

  it.each([
    ['another verifier', { code_verifier: randomBytes(32).toString('base64url') }, 'invalid_grant'],
    ['another redirect URI', { redirect_uri: 'http://localhost:50124/callback' }, 'invalid_grant'],
    ['another client', { client_id: 'https://agent.example.com/client.json' }, 'invalid_grant'],
    ['another resource', { resource: `${issuer}/other` }, 'invalid_target'],
  ])('is refused with %s, and stays good for the agent itself', async (_why, change, error) => {
    const { clientId, verifier, url } = await handMadeRequest();
    const code = (await signInAgent(url)).params.get('code') ?? '';
    const refused = await exchange(clientId, code, verifier, change);
    expect(refused).toMatchObject({ status: 400, json: { error } });
    expect(refused.headers['cache-control']).toBe('no-store');
    expect((await exchange(clientId, code, verifier)).status).toBe(200);
  });

  it('grants only reading when the agent asked for cloud:read alone', async () => {
    const { clientId, verifier, url } = await handMadeRequest({ scope: 'cloud:read' });
    const form = await openConsent(url);
    expect(form.html).not.toContain('value="change"');
    const refused = await answerConsent(form, { access: 'change' });
    expect(refused.status).toBe(400);
    const again = await handMadeRequest({ scope: 'cloud:read' });
    const back = await signInAgent(again.url, { access: 'read' });
    const tokens = await exchange(again.clientId, back.params.get('code') ?? '', again.verifier);
    expect(tokens.json.scope).toBe('cloud:read');
    expect(clientId).not.toBe(again.clientId);
    expect(verifier).not.toBe(again.verifier);
  });

  it('is revoked with its grant through the revocation endpoint', async () => {
    const { clientId, verifier, url } = await handMadeRequest();
    const tokens = await exchange(clientId, (await signInAgent(url)).params.get('code') ?? '', verifier);
    const revoked = await postForm(`${issuer}/oauth/revoke`, {
      token: String(tokens.json.refresh_token),
      client_id: clientId,
    });
    expect(revoked.status).toBe(200);
    const refresh = await postForm(`${issuer}/oauth/token`, {
      grant_type: 'refresh_token',
      refresh_token: String(tokens.json.refresh_token),
      client_id: clientId,
    });
    expect(refresh.json.error).toBe('invalid_grant');
  });
});

describe('an agent identified by its metadata document (CIMD)', () => {
  let server: Server;
  let clientId: string;
  beforeAll(async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          client_id: clientId,
          client_name: 'Metadata Agent',
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: 'none',
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    clientId = `http://localhost:${(server.address() as AddressInfo).port}/client.json`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is named on the consent page from its document, and gets a code only for a listed redirect URI', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL(`${issuer}/oauth/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'http://localhost:41000/callback',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: mcpUrl,
      state: 'cimd',
    }).toString();
    const form = await openConsent(url.toString());
    expect(form.html).toContain('Metadata Agent');
    expect(form.html).toContain('id="local-warning"');
    const back = await answerConsent(form);
    const tokens = await postForm(`${issuer}/oauth/token`, {
      grant_type: 'authorization_code',
      code: back.params.get('code') ?? '',
      code_verifier: verifier,
      client_id: clientId,
      resource: mcpUrl,
    });
    expect(tokens.status).toBe(200);
    const [grant] = (await e2e.stack.store.agentGrants.listFor(e2e.stack.workspace.teamId, ALICE)).filter(
      (g) => g.clientId === clientId,
    );
    expect(grant?.clientName).toBe('Metadata Agent');
  });
});

describe('what the person sees before anything is sent to an agent', () => {
  const authorize = (params: Record<string, string>) =>
    request(`${issuer}/oauth/authorize?${new URLSearchParams(params)}`);

  it.each([
    ['an unknown client', { client_id: 'cbc_unknownunknownunknownunknown1234', redirect_uri: REDIRECT }],
    [
      'a client id of a private address',
      { client_id: 'https://10.0.0.1/client.json', redirect_uri: REDIRECT },
    ],
    ['no client id', { redirect_uri: REDIRECT }],
  ])('shows %s on a page and redirects nowhere', async (_why, params) => {
    const answer = await authorize({ response_type: 'code', ...params });
    const html = await answer.body.text();
    expect(answer.statusCode).toBe(400);
    expect(answer.headers.location).toBeUndefined();
    expect(answer.headers['content-security-policy']).toContain("default-src 'none'");
    expect(html).toContain('Cannot sign in this agent');
  });

  it('shows a redirect URI the agent did not register on a page, never redirecting to it', async () => {
    const registered = await request(`${issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT] }),
    });
    const { client_id } = (await registered.body.json()) as { client_id: string };
    const answer = await authorize({
      response_type: 'code',
      client_id,
      redirect_uri: 'https://evil.example/cb',
    });
    await answer.body.text();
    expect(answer.statusCode).toBe(400);
    expect(answer.headers.location).toBeUndefined();
  });

  it.each([
    ['no PKCE', { code_challenge: undefined }, 'invalid_request'],
    ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['another resource', { resource: 'https://other.example/mcp' }, 'invalid_target'],
    ['no resource', { resource: undefined }, 'invalid_request'],
    ['an unknown scope', { scope: 'cloud:admin' }, 'invalid_scope'],
    ['the token response type', { response_type: 'token' }, 'unsupported_response_type'],
  ])('sends %s back to the agent once its redirect URI is trusted', async (_why, change, error) => {
    const registered = await request(`${issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT] }),
    });
    const { client_id } = (await registered.body.json()) as { client_id: string };
    const params: Record<string, string | undefined> = {
      response_type: 'code',
      client_id,
      redirect_uri: REDIRECT,
      code_challenge: createHash('sha256').update('v'.repeat(43)).digest('base64url'),
      code_challenge_method: 'S256',
      resource: mcpUrl,
      state: 'keep-me',
      ...change,
    };
    const answer = await authorize(
      Object.fromEntries(
        Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined),
      ),
    );
    await answer.body.text();
    expect(answer.statusCode).toBe(302);
    const back = new URL(String(answer.headers.location));
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('error')).toBe(error);
    expect(back.searchParams.get('state')).toBe('keep-me');
    expect(back.searchParams.get('iss')).toBe(issuer);
  });

  it('refuses a parameter given twice, and a huge query, on a page', async () => {
    const twice = await request(`${issuer}/oauth/authorize?client_id=a&client_id=b`);
    expect(twice.statusCode).toBe(400);
    expect(await twice.body.text()).toContain('more than once');
    const huge = await request(`${issuer}/oauth/authorize?client_id=${'a'.repeat(10_000)}`);
    await huge.body.text();
    expect(huge.statusCode).toBe(400);
  });

  it('stops a sign-in whose Slack redirect arrives in another browser (no cookie)', async () => {
    const registered = await request(`${issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT] }),
    });
    const { client_id } = (await registered.body.json()) as { client_id: string };
    const url = `${issuer}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id,
      redirect_uri: REDIRECT,
      code_challenge: createHash('sha256').update('w'.repeat(43)).digest('base64url'),
      code_challenge_method: 'S256',
      resource: mcpUrl,
    })}`;
    const form = await openConsent(url);
    // Replaying Slack's redirect in a browser without the cookie: the code is not even traded.
    const { signInWithSlack } = await import('../../infra/local/slack/workspace.js');
    const start = await request(url);
    await start.body.text();
    const slack = await signInWithSlack(String(start.headers.location));
    const stranger = await consentAt(slack.url, '');
    expect(stranger.status).toBe(400);
    expect(stranger.html).toContain('another browser');
    // And the consent form answered without the cookie does nothing.
    const forged = await answerConsent(form, { cookie: '' });
    expect(forged.status).toBe(400);
    expect(forged.location).toBe('');
    expect((await answerConsent(form)).status).toBe(302);
  });

  it('refuses a consent form whose secret is not the page’s own, and a second answer', async () => {
    const agent = new MemoryAgent();
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: agent });
    await expect(new Client({ name: 'a', version: '1' }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const form = await openConsent(agent.authorizationUrl?.toString() ?? '');
    expect(
      (await answerConsent(form, { fields: { consent: randomBytes(32).toString('base64url') } })).status,
    ).toBe(400);
    expect((await answerConsent(form, { fields: { channel: 'C0NOTOFFERED' } })).status).toBe(400);
    expect((await answerConsent(form)).status).toBe(302);
    expect((await answerConsent(form)).status).toBe(400);
  });
});
