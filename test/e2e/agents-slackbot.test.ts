import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackSignature } from '../../lib/slack-kit/signing.js';
import { SLACKBOT_GRANT_ID } from '../../lib/store/agent-grants.js';
import { ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';

/**
 * Slackbot as an MCP client with Slack identity auth: every call signed with the app's signing
 * secret, the person named in `params._meta.slack`. Slackbot opens with `initialize` (2025 era).
 */

let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;
const slackbotUrl = () => `${e2e.stack.mcpUrl}/slack`;

beforeAll(async () => {
  e2e = await startE2E();
  await e2e.login(ALICE, e2e.emulator.demoToken);
  await e2e.stack.store.agentGrants.create({
    id: SLACKBOT_GRANT_ID,
    team: team(),
    user: ALICE,
    clientId: 'slackbot',
    clientName: 'Slackbot',
    homeChannel: CHANNEL,
    scopes: ['cloud:read', 'cloud:change'],
  });
});

afterAll(async () => {
  await e2e?.close();
});

/** A fetch that signs each body as Slack does (at `at`, or now), and remembers what it sent. */
function slackSigned(sent: { body: string; headers: Record<string, string> }[], at?: number): typeof fetch {
  return async (input, init) => {
    const body = typeof init?.body === 'string' ? init.body : '';
    const timestamp = at ?? Math.floor(Date.now() / 1000);
    const headers = new Headers(init?.headers);
    headers.set('x-slack-request-timestamp', String(timestamp));
    headers.set('x-slack-signature', slackSignature(e2e.stack.signingSecret, timestamp, body));
    sent.push({ body, headers: Object.fromEntries(headers) });
    return fetch(input, { ...init, headers });
  };
}

async function slackbot(
  sent: { body: string; headers: Record<string, string> }[] = [],
  at?: number,
): Promise<Client> {
  const client = new Client({ name: 'Slackbot', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(slackbotUrl()), { fetch: slackSigned(sent, at) }),
  );
  return client;
}

const as = (user: string) => ({ slack: { user_id: user, team_id: team() } });

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { text?: string }[]).map((block) => block.text ?? '').join('\n');
}

describe('a signed Slackbot call', () => {
  it('reads with the named person’s token, and says so in Block Kit', async () => {
    const volume = e2e.emulator.control.createVolume({ label: 'slackbot-sees-me' });
    const client = await slackbot();
    const result = await client.callTool({
      name: 'read',
      arguments: { operation: 'volumes.view', arguments: { volumeId: volume.id } },
      _meta: as(ALICE),
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('slackbot-sees-me');
    await client.close();
  });

  it('asks for a change with the card in the Slackbot’s home channel, and answers with blocks', async () => {
    const volume = e2e.emulator.control.createVolume({ label: 'slackbot-doomed' });
    const client = await slackbot();
    const result = await client.callTool({
      name: 'request_destructive_change',
      arguments: { operation: 'volumes.delete', arguments: { volumeId: volume.id } },
      _meta: as(ALICE),
    });
    expect(result.isError).toBeFalsy();
    expect(result._meta).toMatchObject({ slack: { blocks: [{ type: 'section' }] } });
    const card = e2e.stack.standIn.store.lastMessage(CHANNEL);
    expect(e2e.textOf(card)).toContain('through agent *Slackbot*');
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId: volume.id })).toBe(0);
    await client.close();
  });

  it('for someone whose Slackbot may not act for them, says how to allow it and runs nothing', async () => {
    const client = await slackbot();
    const result = await client.callTool({
      name: 'read',
      arguments: { operation: 'volumes.list' },
      _meta: as(BOB),
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('/cloud agents slackbot');
    await client.close();
  });
});

describe('Slackbot connections opened in the same second', () => {
  it('are each served: their initialize, the same bytes signed alike, names nobody and is no replay', async () => {
    const second = Math.floor(Date.now() / 1000);
    const sent: { body: string; headers: Record<string, string> }[] = [];
    const first = await slackbot(sent, second);
    const next = await slackbot(sent, second);
    const opened = sent.filter((request) => request.body.includes('"initialize"'));
    expect(opened).toHaveLength(2);
    expect(opened[0]?.headers['x-slack-signature']).toBe(opened[1]?.headers['x-slack-signature']);
    const result = await next.callTool({
      name: 'read',
      arguments: { operation: 'volumes.list' },
      _meta: as(ALICE),
    });
    expect(result.isError).toBeFalsy();
    await first.close();
    await next.close();
  });
});

describe('a Slackbot call that Slack did not sign as it is', () => {
  function toolsCall(id: number): string {
    return JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'read', arguments: { operation: 'volumes.list' }, _meta: as(ALICE) },
    });
  }

  function post(body: string, headers: Record<string, string>): Promise<Response> {
    return fetch(slackbotUrl(), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        ...headers,
      },
      body,
    });
  }

  function signed(body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
    return {
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature(e2e.stack.signingSecret, timestamp, body),
    };
  }

  it('is refused when replayed: a signature is good once', async () => {
    const body = toolsCall(41);
    const headers = signed(body);
    const first = await post(body, headers);
    expect(first.status).toBe(200);
    await first.text();
    const again = await post(body, headers);
    expect(again.status).toBe(401);
  });

  it('is refused when its body was altered after signing', async () => {
    const body = toolsCall(42);
    const headers = signed(body);
    const altered = body.replace(ALICE, BOB);
    const response = await post(altered, headers);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: -32600 } });
  });

  it('is refused when signed more than five minutes ago', async () => {
    const body = toolsCall(43);
    const response = await post(body, signed(body, Math.floor(Date.now() / 1000) - 301));
    expect(response.status).toBe(401);
  });

  it('is refused without a signature, or with another secret', async () => {
    const body = toolsCall(44);
    expect((await post(body, {})).status).toBe(401);
    const timestamp = Math.floor(Date.now() / 1000);
    const forged = {
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature('not-the-secret', timestamp, body),
    };
    expect((await post(body, forged)).status).toBe(401);
  });
});
