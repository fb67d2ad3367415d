import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import type { AgentScope } from '../../lib/store/agent-grants.js';
import { lastCardWith } from '../support/cards.js';
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

/** The agent asks for `volumeId` to be deleted; the request's id, as the tool answers it. */
async function askToDelete(client: Client, volumeId: number): Promise<string> {
  const asked = await client.callTool({
    name: 'request_destructive_change',
    arguments: { operation: 'volumes.delete', arguments: { volumeId } },
  });
  if (asked.isError) throw new Error(`the request was refused: ${textOf(asked)}`);
  return (asked.structuredContent as { request_id: string }).request_id;
}

function lastCard(): StoredMessage {
  const card = lastCardWith(e2e.stack.standIn.store, CHANNEL, ActionId.approve);
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

  it("through the endpoint are the agent's last use, which the person then sees", async () => {
    const grant = await e2e.stack.store.agentGrants.create({
      team: team(),
      user: ALICE,
      clientId: 'https://agent.example.com/client.json',
      clientName: 'Used Agent',
      homeChannel: CHANNEL,
      scopes: ['cloud:read'],
    });
    const { accessToken } = await e2e.stack.store.agentGrants.issueTokens(grant, e2e.stack.mcpUrl);
    const client = await connect(accessToken);
    const result = await client.callTool({ name: 'read', arguments: { operation: 'volumes.list' } });
    expect(result.isError).toBeFalsy();
    // Written beside the call, and done before its answer came back.
    const used = await e2e.stack.store.agentGrants.get(team(), ALICE, grant.id);
    expect(used?.lastUsedAt).toBeInstanceOf(Date);
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

  it('whose answer was lost after the API acted read as done, as the card says, never as failed', async () => {
    const volume = e2e.emulator.control.createVolume({ label: 'agent-lost-answer' });
    const client = await connect(await agentToken());
    const request_id = await askToDelete(client, volume.id);
    e2e.emulator.control.injectFault({
      kind: 'status',
      status: 500,
      afterActing: true,
      operations: ['volumes.delete'],
      times: 1,
    });
    await e2e.stack.workspace.click(BOB, lastCard(), { actionId: ActionId.approve });
    await e2e.stack.drain();
    const status = await client.callTool({ name: 'get_request', arguments: { request_id } });
    expect(status.structuredContent).toMatchObject({ state: 'done' });
    expect(e2e.textOf(e2e.stack.standIn.store.lastMessage(CHANNEL))).not.toMatch(/failed/i);
    await client.close();
  });

  it('refused by a read-only home channel make no API call', async () => {
    const volume = e2e.emulator.control.createVolume({ label: 'agent-kept' });
    const client = await connect(await agentToken({ homeChannel: READ_ONLY_CHANNEL }));
    // The channel allows reads only: the change tools are not there to call.
    await expect(
      client.callTool({
        name: 'request_destructive_change',
        arguments: { operation: 'volumes.delete', arguments: { volumeId: volume.id } },
      }),
    ).rejects.toThrow(/request_destructive_change/);
    // Nor does the read tool run a change.
    const asRead = await client.callTool({
      name: 'read',
      arguments: { operation: 'volumes.delete', arguments: { volumeId: volume.id } },
    });
    expect(asRead.isError).toBe(true);
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId: volume.id })).toBe(0);
    expect(e2e.emulator.control.requestCount('volumes.view', { volumeId: volume.id })).toBe(0);
    await client.close();
  });

  it('cannot be approved by an agent: there is no tool for it, and its token is not a Slack signature', async () => {
    const volume = e2e.emulator.control.createVolume({ label: 'agent-self-approve' });
    const token = await agentToken();
    const client = await connect(token);
    await askToDelete(client, volume.id);
    const card = lastCard();
    await expect(
      client.callTool({ name: 'approve_request', arguments: { request_id: 'any' } }),
    ).rejects.toThrow(/approve_request/);
    const asOperation = await client.callTool({
      name: 'request_change',
      arguments: { operation: 'approvals.approve', arguments: {} },
    });
    expect(asOperation.isError).toBe(true);
    // The card's button posts to the Slack endpoint, which takes only Slack's signature.
    const click = await fetch(e2e.stack.botUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token}` },
      body: new URLSearchParams({
        payload: JSON.stringify({ type: 'block_actions', actions: [] }),
      }).toString(),
    });
    expect(click.status).toBe(401);
    expect(e2e.textOf(e2e.stack.standIn.store.findMessage(CHANNEL, card.ts) ?? card)).toContain(
      'Approval needed',
    );
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId: volume.id })).toBe(0);
    await client.close();
  });

  it("cannot be followed by another person's agent", async () => {
    const volume = e2e.emulator.control.createVolume({ label: 'agent-private' });
    const alice = await connect(await agentToken());
    const request_id = await askToDelete(alice, volume.id);
    const bob = await connect(await agentToken({ user: BOB }));
    const status = await bob.callTool({ name: 'get_request', arguments: { request_id } });
    expect(status.isError).toBe(true);
    await Promise.all([alice.close(), bob.close()]);
  });
});

describe('hostile arguments', () => {
  it('prototype keys pollute nothing and run nothing they name', async () => {
    const client = await connect(await agentToken());
    const args = JSON.parse(
      '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}, "volumeId": 1}',
    );
    const result = await client.callTool({
      name: 'read',
      arguments: { operation: 'volumes.view', arguments: args },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('constructor');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await client.close();
  });

  it('an operation name of odd unicode or great length is refused with a way forward', async () => {
    const client = await connect(await agentToken());
    const odd = await client.callTool({
      name: 'read',
      arguments: { operation: 'volumes\u202e.list\u0000' },
    });
    expect(odd.isError).toBe(true);
    expect(textOf(odd)).toContain('find_operations');
    const long = await client.callTool({ name: 'read', arguments: { operation: 'x'.repeat(50_000) } });
    expect(long.isError).toBe(true);
    await client.close();
  });

  it('a body over the size limit is refused before anything is parsed', async () => {
    const token = await agentToken();
    const response = await fetch(e2e.stack.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { pad: 'x'.repeat(5 * 1024 * 1024) },
      }),
    });
    expect(response.status).toBe(413);
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
