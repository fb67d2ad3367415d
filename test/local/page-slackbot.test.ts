import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ClientSlackbotAnswer, ClientSlackbotTools } from '../../infra/local/slack/page/client-api.js';
import { MAX_ARGUMENTS_CHARS } from '../../infra/local/slack/page/slackbot-panel.js';
import { type Sandbox, startSandbox } from '../../infra/local/start.js';
import { SLACKBOT_GRANT_ID } from '../../lib/store/agent-grants.js';

/**
 * The sandbox page's Slackbot panel, on the page server's side: `POST /api/slackbot/tools` and
 * `POST /api/slackbot/call` make the signed calls Slackbot makes to the bot's `/mcp/slack` (the
 * bot checks the signature; a call it did not accept would answer nothing), as the person the
 * page acts as, and answer with the text and the blocks; the arguments typed in the page are
 * checked first, and the signing secret never leaves the page's server.
 */

const OPS = 'C0OPS';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';

let sandbox: Sandbox;
const team = () => sandbox.stack.workspace.teamId;

beforeAll(async () => {
  sandbox = await startSandbox({ dynamoEndpoint: inject('dynamoEndpoint'), pagePort: 0, emulatorPort: 0 });
  const login = await sandbox.stack.workspace.command(ALICE, OPS, 'login');
  expect(login.status).toBe(200);
  const view = sandbox.stack.standIn.store
    .views()
    .filter((v) => v.user === ALICE && !v.closed && v.view.type === 'modal')
    .at(-1);
  if (!view) throw new Error('no login modal for Alice');
  await sandbox.stack.workspace.submitView(ALICE, view, {
    profile: { profile_input: 'default' },
    token: { token_input: sandbox.emulator.demoToken },
  });
  await sandbox.stack.drain();
  // Alice lets her Slackbot act for her, asking for changes approved in #ops.
  expect((await sandbox.stack.workspace.command(ALICE, OPS, 'agents slackbot change')).status).toBe(200);
  await sandbox.stack.drain();
  expect(await sandbox.stack.store.agentGrants.get(team(), ALICE, SLACKBOT_GRANT_ID)).toMatchObject({
    homeChannel: OPS,
    scopes: ['cloud:read', 'cloud:change'],
  });
});

afterAll(async () => {
  await sandbox?.close();
});

async function post(path: string, body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${sandbox.pageUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

async function tools(user: string): Promise<ClientSlackbotTools> {
  const { status, text } = await post('/api/slackbot/tools', { user });
  expect(status, text).toBe(200);
  return JSON.parse(text) as ClientSlackbotTools;
}

async function ask(user: string, tool: string, args: unknown): Promise<{ status: number; text: string }> {
  const answer = await post('/api/slackbot/call', {
    user,
    tool,
    arguments: typeof args === 'string' ? args : JSON.stringify(args),
  });
  await sandbox.stack.drain();
  return answer;
}

const cardsInOps = () =>
  sandbox.stack.standIn.store
    .messages(OPS)
    .filter((message) => !message.ephemeral && JSON.stringify(message.blocks).includes('through agent'));

describe('POST /api/slackbot/tools', () => {
  it("lists the tools the bot serves through the person's Slackbot, each with its arguments", async () => {
    const listed = await tools(ALICE);
    expect(listed.tools.map((tool) => tool.name)).toEqual([
      'find_operations',
      'read',
      'request_change',
      'request_destructive_change',
      'get_request',
    ]);
    const destructive = listed.tools.find((tool) => tool.name === 'request_destructive_change');
    expect(destructive).toMatchObject({ readOnly: false, destructive: true });
    expect(destructive?.arguments).toContainEqual(
      expect.objectContaining({ name: 'operation', type: 'string', required: true }),
    );
  });

  it('for someone whose Slackbot may not act for them, lists tools that say how to allow it', async () => {
    const listed = await tools(BOB);
    expect(listed.tools.length).toBeGreaterThan(0);
    for (const tool of listed.tools) expect(tool.description).toContain('/cloud agents slackbot');
  });

  it('refuses someone who is not of the workspace', async () => {
    const { status, text } = await post('/api/slackbot/tools', { user: 'U0NOBODY' });
    expect(status).toBe(404);
    expect(JSON.parse(text)).toMatchObject({
      ok: false,
      error: 'There is no user U0NOBODY in this workspace.',
    });
  });
});

describe('POST /api/slackbot/call', () => {
  it('asks for a deletion as the person, and answers with the text and the blocks; the card names Slackbot', async () => {
    const volume = sandbox.emulator.control.createVolume({ label: 'slackbot-page-doomed' });
    const before = cardsInOps().length;
    const { status, text } = await ask(ALICE, 'request_destructive_change', {
      operation: 'volumes.delete',
      arguments: { volumeId: volume.id },
    });
    expect(status, text).toBe(200);
    const answer = JSON.parse(text) as ClientSlackbotAnswer;
    expect(answer).toMatchObject({ ok: true, tool: 'request_destructive_change', isError: false });
    expect(answer.text).toContain('Requested: it needs');
    expect(answer.blocks).toEqual([expect.objectContaining({ type: 'section' })]);
    const cards = cardsInOps();
    expect(cards).toHaveLength(before + 1);
    expect(JSON.stringify(cards.at(-1)?.blocks)).toContain('through agent *Slackbot*');
    expect(sandbox.emulator.control.requestCount('volumes.delete', { volumeId: volume.id })).toBe(0);
  });

  it("answers with the tool's own refusal as an error the page shows", async () => {
    const { status, text } = await ask(BOB, 'read', { operation: 'volumes.list' });
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ ok: true, isError: true });
    expect(JSON.parse(text).text).toContain('/cloud agents slackbot');
  });

  it('says what the bot answered when asked for a tool it does not serve (there is no approving)', async () => {
    const { status, text } = await ask(ALICE, 'approve_request', { request_id: 'r-1' });
    expect(status).toBe(502);
    expect(JSON.parse(text)).toMatchObject({ ok: false });
    expect(JSON.parse(text).error).toMatch(/^The bot answered with an error \(-32602\)/);
  });

  it('never answers with the signing secret, whatever it answers', async () => {
    const answers = [
      await post('/api/slackbot/tools', { user: ALICE }),
      await ask(ALICE, 'find_operations', { query: 'volumes' }),
      await ask(ALICE, 'approve_request', {}),
      await ask(ALICE, 'read', '{not json'),
    ];
    for (const { text } of answers) expect(text).not.toContain(sandbox.stack.signingSecret);
  });
});

describe('arguments the page sends that Slackbot would not', () => {
  const deep = `${'{"a":'.repeat(20)}1${'}'.repeat(20)}`;
  it.each([
    ['not JSON', '{"operation": volumes.delete}', /^The arguments are not valid JSON: /],
    ['not an object', '["volumes.delete"]', /^The arguments must be one JSON object/],
    ['nested past 16 levels', deep, /^The arguments nest more than 16 levels deep\.$/],
    [
      'a prototype key',
      '{"operation":"volumes.list","arguments":{"__proto__":{"admin":true}}}',
      /^The arguments' field arguments\.__proto__ uses a reserved name/,
    ],
    [
      'longer than the page sends',
      JSON.stringify({ operation: 'volumes.list', reason: 'x'.repeat(MAX_ARGUMENTS_CHARS) }),
      /^The arguments are \d+ characters long; at most 16384 are sent\.$/,
    ],
  ])('are refused in words when %s, and nothing is asked', async (_case, typed, message) => {
    const before = cardsInOps().length;
    const { status, text } = await ask(ALICE, 'request_destructive_change', typed);
    expect(status).toBe(400);
    expect(JSON.parse(text).error).toMatch(message);
    expect(cardsInOps()).toHaveLength(before);
  });

  it('are refused when the tool name is not one', async () => {
    const { status, text } = await ask(ALICE, 'read; drop', {});
    expect(status).toBe(400);
    expect(JSON.parse(text).error).toContain('tool: must be a tool name');
  });

  it('are refused whole when the request is far larger than the page ever sends', async () => {
    const { status, text } = await post('/api/slackbot/call', {
      user: ALICE,
      tool: 'read',
      arguments: 'x'.repeat(300 * 1024),
    });
    expect(status).toBe(413);
    expect(JSON.parse(text)).toEqual({ ok: false, error: 'The request is too large.' });
  });
});
