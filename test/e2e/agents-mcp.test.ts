import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import type { AgentScope } from '../../lib/store/agent-grants.js';
import { ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';

/**
 * An agent over MCP, with the official client package, against the local stack as `npm start`
 * wires it: the person's token, the home channel's guardrails, the approval card in Slack, and the
 * outcome the agent reads afterwards.
 */

let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;
const READ_ONLY_CHANNEL = 'C0GENERAL';

beforeAll(async () => {
  e2e = await startE2E();
  await e2e.login(ALICE, e2e.emulator.demoToken);
  await e2e.stack.store.channelPolicy.put(team(), READ_ONLY_CHANNEL, { allowedClasses: ['read'] }, BOB);
});

afterAll(async () => {
  await e2e?.close();
});

/** An agent signed in for `user` with `homeChannel`, as the OAuth pages would leave it. */
async function agentToken(
  options: { user?: string; homeChannel?: string; scopes?: AgentScope[]; resource?: string } = {},
): Promise<string> {
  const grant = await e2e.stack.store.agentGrants.create({
    team: team(),
    user: options.user ?? ALICE,
    clientId: 'https://agent.example.com/client.json',
    clientName: 'Test Agent',
    homeChannel: options.homeChannel ?? CHANNEL,
    scopes: options.scopes ?? ['cloud:read', 'cloud:change'],
  });
  const issued = await e2e.stack.store.agentGrants.issueTokens(grant, options.resource ?? e2e.stack.mcpUrl);
  return issued.accessToken;
}

async function connect(token: string): Promise<Client> {
  const client = new Client(
    { name: 'test-agent', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(e2e.stack.mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

function textOf(result: { content?: unknown }): string {
  const content = (result.content ?? []) as { type: string; text?: string }[];
  return content.map((block) => block.text ?? '').join('\n');
}

function lastCard(): StoredMessage {
  const card = e2e.stack.standIn.store
    .messages(CHANNEL)
    .filter((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(ActionId.approve))
    .at(-1);
  if (!card) throw new Error('no approval card');
  return card;
}

describe('tools/list', () => {
  it('offers a few tools, with reads marked read-only and only the destructive one destructive', async () => {
    const client = await connect(await agentToken());
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(byName).sort()).toEqual([
      'find_operations',
      'get_request',
      'read',
      'request_change',
      'request_destructive_change',
    ]);
    expect(byName.read?.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get_request?.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.request_change?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.request_destructive_change?.annotations).toMatchObject({ destructiveHint: true });
    expect(JSON.stringify(tools).length).toBeLessThan(8_000);
    await client.close();
  });

  it('in a read-only home channel, offers no tool that asks for changes', async () => {
    const client = await connect(await agentToken({ homeChannel: READ_ONLY_CHANNEL }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['find_operations', 'get_request', 'read']);
    await client.close();
  });
});

describe('reads', () => {
  it("run with the person's own token and answer the API's data", async () => {
    const volume = e2e.emulator.control.createVolume({ label: 'agent-read-me' });
    const client = await connect(await agentToken());
    const result = await client.callTool({
      name: 'read',
      arguments: { operation: 'volumes.view', arguments: { volumeId: volume.id } },
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('agent-read-me');
    const entries = (await e2e.stack.store.audit.list(team(), { limit: 5 })).entries;
    expect(entries.find((entry) => entry.action === 'volumes.view')).toMatchObject({
      actor: ALICE,
      viaAgent: 'Test Agent',
      result: 'succeeded',
    });
    await client.close();
  });

  it('find_operations answers operations with their input schemas', async () => {
    const client = await connect(await agentToken());
    const result = await client.callTool({ name: 'find_operations', arguments: { query: 'attach volume' } });
    const found = (result.structuredContent as { operations: { name: string; input_schema: unknown }[] })
      .operations;
    const attach = found.find((op) => op.name === 'volumes.attach');
    expect(attach?.input_schema).toMatchObject({ required: expect.arrayContaining(['volumeId', 'node_id']) });
    await client.close();
  });
});

describe('changes', () => {
  it('post the approval card naming the agent; another person approves; get_request shows it done', async () => {
    const volume = e2e.emulator.control.createVolume({ label: 'agent-doomed' });
    const client = await connect(await agentToken());
    const asked = await client.callTool({
      name: 'request_destructive_change',
      arguments: { operation: 'volumes.delete', arguments: { volumeId: volume.id }, reason: 'cleanup' },
    });
    expect(asked.isError).toBeFalsy();
    const request = asked.structuredContent as { request_id: string; state: string };
    expect(request.state).toBe('waiting_for_approval');
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId: volume.id })).toBe(0);

    const card = lastCard();
    expect(e2e.textOf(card)).toContain('through agent *Test Agent*');
    await e2e.stack.workspace.click(BOB, card, { actionId: ActionId.approve });
    await e2e.stack.drain();

    const status = await client.callTool({
      name: 'get_request',
      arguments: { request_id: request.request_id },
    });
    expect(status.structuredContent).toMatchObject({ state: 'done', approvers: [BOB] });
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId: volume.id })).toBe(1);
    await client.close();
  });

  it('refused by a read-only home channel make no API call', async () => {
    const volume = e2e.emulator.control.createVolume({ label: 'agent-kept' });
    const client = await connect(await agentToken({ homeChannel: READ_ONLY_CHANNEL }));
    const asked = await client.callTool({
      name: 'read',
      arguments: { operation: 'volumes.delete', arguments: { volumeId: volume.id } },
    });
    expect(asked.isError).toBe(true);
    expect(textOf(asked)).toContain('request_destructive_change');
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId: volume.id })).toBe(0);
    expect(e2e.emulator.control.requestCount('volumes.view', { volumeId: volume.id })).toBe(0);
    await client.close();
  });

  it("cannot be followed by another person's agent", async () => {
    const volume = e2e.emulator.control.createVolume({ label: 'agent-private' });
    const alice = await connect(await agentToken());
    const asked = await alice.callTool({
      name: 'request_destructive_change',
      arguments: { operation: 'volumes.delete', arguments: { volumeId: volume.id } },
    });
    const { request_id } = asked.structuredContent as { request_id: string };
    const bob = await connect(await agentToken({ user: BOB }));
    const status = await bob.callTool({ name: 'get_request', arguments: { request_id } });
    expect(status.isError).toBe(true);
    await Promise.all([alice.close(), bob.close()]);
  });
});

describe('authorization', () => {
  async function post(headers: Record<string, string>): Promise<Response> {
    return fetch(e2e.stack.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
  }

  it('without a token answers 401 pointing at the protected resource metadata', async () => {
    const response = await post({});
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('resource_metadata="http://localhost:');
    expect(response.headers.get('www-authenticate')).toContain('/.well-known/oauth-protected-resource/mcp"');
  });

  it('refuses a token issued for another resource', async () => {
    const token = await agentToken({ resource: 'https://elsewhere.example.com/mcp' });
    const response = await post({ authorization: `Bearer ${token}` });
    expect(response.status).toBe(401);
  });

  it('answers a change without the change scope with 403 insufficient_scope naming the scopes', async () => {
    const token = await agentToken({ scopes: ['cloud:read'] });
    const response = await fetch(e2e.stack.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'request_change',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'request_change',
          arguments: { operation: 'volumes.update', arguments: { volumeId: 1, label: 'x' } },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(response.status).toBe(403);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="cloud:read cloud:change"');
  });

  it('answers GET with 405: there is no stream to open', async () => {
    const response = await fetch(e2e.stack.mcpUrl);
    expect(response.status).toBe(405);
  });
});
