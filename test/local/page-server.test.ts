import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CompletionData } from '../../infra/local/slack/page/commands.js';
import type { ActionResult } from '../../infra/local/slack/page/server.js';
import type { PageMessage, PageState } from '../../infra/local/slack/page/state.js';
import { type Sandbox, startSandbox } from '../../infra/local/start.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';

/**
 * The sandbox page's HTTP API, driven as the page drives it, through the demo scenario of
 * `npm start`: log in through the modal, list nodes and page forward, ask for a volume deletion
 * and approve it as someone else. Everything real: DynamoDB Local, the emulator, signed requests.
 */

const OPS = 'C0OPS';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';
const ADA = 'U0ADMIN';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ dynamoEndpoint: inject('dynamoEndpoint'), pagePort: 0, emulatorPort: 0 });
});

afterAll(async () => {
  await sandbox?.close();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${sandbox.pageUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, result: (await response.json()) as ActionResult };
}

/** `/cloud <text>` from the page, and whatever work the bot handed off. */
async function command(user: string, text: string): Promise<ActionResult> {
  const { result } = await post('/api/command', { user, channel: OPS, text: `/cloud ${text}` });
  await sandbox.stack.drain();
  return result;
}

async function click(user: string, message: PageMessage, target: { actionId: string; value?: string }) {
  const response = await post('/api/click', { user, channel: message.channel, ts: message.ts, ...target });
  await sandbox.stack.drain();
  return response;
}

async function state(user: string, channel = OPS): Promise<PageState> {
  const response = await fetch(`${sandbox.pageUrl}/api/state?user=${user}&channel=${channel}`);
  expect(response.status).toBe(200);
  return (await response.json()) as PageState;
}

interface ButtonElement {
  type: string;
  action_id: string;
  value?: string;
  text?: { text: string };
}

function buttonsOf(message: PageMessage): ButtonElement[] {
  return (message.blocks as Array<{ elements?: ButtonElement[]; accessory?: ButtonElement }>).flatMap(
    (block) =>
      [...(block.elements ?? []), ...(block.accessory ? [block.accessory] : [])].filter(
        (e) => e.type === 'button',
      ),
  );
}

function button(message: PageMessage, label: string | RegExp): ButtonElement {
  const found = buttonsOf(message).find((b) =>
    typeof label === 'string' ? b.text?.text === label : label.test(b.text?.text ?? ''),
  );
  if (!found) throw new Error(`no button ${String(label)} in ${message.text}`);
  return found;
}

function textOf(message: PageMessage | undefined): string {
  return message ? `${message.text}\n${JSON.stringify(message.blocks)}` : '';
}

async function lastMessage(user: string): Promise<PageMessage> {
  const message = (await state(user)).messages.at(-1);
  if (!message) throw new Error(`${user} sees no message`);
  return message;
}

describe('GET /', () => {
  it('serves the page under a policy that allows scripts from its own origin only, none inline or evaluated', async () => {
    const response = await fetch(sandbox.pageUrl);
    const html = await response.text();
    const policy = response.headers.get('content-security-policy') ?? '';
    const directives = policy.split(';').map((directive) => directive.trim());
    expect(directives.filter((directive) => directive.startsWith('script-src'))).toEqual([
      "script-src 'self'",
    ]);
    expect(directives).toContain("default-src 'none'");
    // The one script element loads the entry module; no code sits in the page itself.
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].map(
      ([, attributes, body]) => ({
        attributes,
        body,
      }),
    );
    expect(scripts).toEqual([{ attributes: ' type="module" src="/client/main.js"', body: '' }]);
    for (const testId of ['command-input', 'command-send', 'message-list', 'user-picker', 'channel-list']) {
      expect(html).toContain(`data-testid="${testId}"`);
    }
  });
});

describe('GET /client/*.js', () => {
  it('serves every module the page imports, from the entry module down, as JavaScript not to be sniffed', async () => {
    const served = new Set<string>();
    const pending = ['/client/main.js'];
    for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
      if (served.has(path)) continue;
      served.add(path);
      const response = await fetch(`${sandbox.pageUrl}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe('text/javascript; charset=utf-8');
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      for (const [, specifier] of (await response.text()).matchAll(/\bfrom '(\.\/[^']+)'/g)) {
        pending.push(new URL(specifier ?? '', `http://page${path}`).pathname);
      }
    }
    expect(served).toContain('/client/mrkdwn.js');
  });

  it('serves nothing else of the page folder', async () => {
    for (const path of ['/client/nothing.js', '/client/', '/client/main', '/html.ts', '/client-api.ts']) {
      expect((await fetch(`${sandbox.pageUrl}${path}`)).status, path).toBe(404);
    }
  });
});

describe('GET /api/commands', () => {
  it('completes the groups and actions of the registry and the bot commands', async () => {
    const data = (await (await fetch(`${sandbox.pageUrl}/api/commands`)).json()) as CompletionData;
    expect(data.command).toBe('/cloud');
    const volumes = data.topics.find((topic) => topic.name === 'volumes');
    expect(volumes?.kind).toBe('group');
    expect(volumes?.actions.map((action) => action.name)).toEqual(expect.arrayContaining(['list', 'delete']));
    expect(volumes?.actions.find((action) => action.name === 'delete')?.usage).toMatch(
      /^\/cloud volumes delete </,
    );
    expect(data.topics.find((topic) => topic.name === 'login')?.kind).toBe('bot');
  });

  it("is fitted to the person and channel: a read-only channel's completion offers no deletes", async () => {
    const team = sandbox.stack.workspace.teamId;
    await sandbox.stack.store.channelPolicy.put(team, 'C0GENERAL', { allowedClasses: ['read'] }, ADA);
    try {
      const fitted = (await (
        await fetch(`${sandbox.pageUrl}/api/commands?user=${BOB}&channel=C0GENERAL`)
      ).json()) as CompletionData;
      const volumes = fitted.topics.find((topic) => topic.name === 'volumes');
      expect(volumes?.actions.map((action) => action.name)).toContain('list');
      expect(volumes?.actions.map((action) => action.name)).not.toContain('delete');
      const elsewhere = (await (
        await fetch(`${sandbox.pageUrl}/api/commands?user=${BOB}&channel=${OPS}`)
      ).json()) as CompletionData;
      expect(
        elsewhere.topics.find((topic) => topic.name === 'volumes')?.actions.map((a) => a.name),
      ).toContain('delete');
    } finally {
      await sandbox.stack.store.channelPolicy.clear(team, 'C0GENERAL');
    }
  });
});

describe('GET /api/state', () => {
  it('shows the seeded channels and people, and acts as Alice in #ops by default', async () => {
    const response = await fetch(`${sandbox.pageUrl}/api/state`);
    const seen = (await response.json()) as PageState;
    expect(seen.user).toBe(ALICE);
    expect(seen.channel.id).toBe(OPS);
    expect(seen.channels.map((channel) => channel.name)).toEqual(expect.arrayContaining(['general', 'ops']));
    expect(seen.users.filter((user) => !user.isBot).map((user) => user.id)).toEqual([ADA, ALICE, BOB]);
  });

  it('refuses an unknown user or channel instead of inventing one', async () => {
    expect((await fetch(`${sandbox.pageUrl}/api/state?user=U0NOBODY`)).status).toBe(404);
    expect((await fetch(`${sandbox.pageUrl}/api/state?user=${ALICE}&channel=C0NOWHERE`)).status).toBe(404);
    expect((await state(ALICE)).channels.some((channel) => channel.id === 'C0NOWHERE')).toBe(false);
  });
});

describe('channels the bot is not in', () => {
  const RANDOM = 'C0RANDOM';
  const LEADS = 'G0LEADS';

  it('seeds a public #random and a private #leads without the bot; #leads is shown to its members only', async () => {
    const names = (seen: PageState) => seen.channels.map((channel) => channel.name);
    expect(names(await state(ALICE))).toEqual(expect.arrayContaining(['random', 'leads']));
    expect(names(await state(BOB))).toContain('random');
    expect(names(await state(BOB))).not.toContain('leads');
    expect(sandbox.stack.standIn.store.channel(RANDOM)?.members).not.toContain('U0CLOUDBOT');
  });

  it('understands /invite @cloud: the bot joins the channel and Slack says so', async () => {
    const { result } = await post('/api/command', { user: ALICE, channel: LEADS, text: '/invite @cloud' });
    expect(result.ok).toBe(true);
    expect(sandbox.stack.standIn.store.channel(LEADS)?.members).toContain('U0CLOUDBOT');
    expect((await state(ALICE, LEADS)).messages.at(-1)?.text).toBe('<@U0CLOUDBOT> has joined the channel');

    await post('/api/command', { user: ALICE, channel: LEADS, text: '/invite @cloud' });
    const again = (await state(ALICE, LEADS)).messages.at(-1);
    expect(again?.text).toBe('<@U0CLOUDBOT> is already in this channel.');
  });
});

describe('the demo scenario through the page API', () => {
  it('opens the login modal only for the person who typed /cloud login, and links the demo token', async () => {
    expect((await command(ALICE, 'login')).ok).toBe(true);
    const view = (await state(ALICE)).view;
    expect(view?.title).toBe('Link your API token');
    expect(JSON.stringify(view?.blocks)).toContain('token_input');
    expect((await state(BOB)).view).toBeUndefined();

    const { result } = await post('/api/view', {
      user: ALICE,
      viewId: view?.id,
      values: { profile: { profile_input: 'default' }, token: { token_input: sandbox.emulator.demoToken } },
    });
    await sandbox.stack.drain();
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(result.errors).toBeUndefined();
    expect((await state(ALICE)).view).toBeUndefined();
    expect(textOf(await lastMessage(ALICE))).toContain('Linked as');
  });

  it('lists nodes and pages forward with Next, replacing the list', async () => {
    await command(ALICE, 'nodes list --page-size 25');
    const first = await lastMessage(ALICE);
    expect(textOf(first)).toContain('page 1 of 2');
    const { status, result } = await click(ALICE, first, {
      actionId: ActionId.page,
      value: button(first, /Next/).value ?? '',
    });
    expect(status).toBe(200);
    expect(result.ok).toBe(true);
    const after = (await state(ALICE)).messages;
    expect(after.map((message) => message.ts)).toContain(first.ts);
    expect(textOf(after.find((message) => message.ts === first.ts))).toContain('page 2 of 2');
  });

  it("deletes a volume after Bob approves Alice's request, and it is gone from the list", async () => {
    await command(ALICE, 'volumes list');
    const listed = textOf(await lastMessage(ALICE));
    const volumeId = Number(/`(\d+)`[^`]*?not attached/.exec(listed)?.[1]);
    expect(Number.isInteger(volumeId)).toBe(true);

    expect((await command(ALICE, `volumes delete ${volumeId}`)).ok).toBe(true);
    const card = (await state(BOB)).messages
      .filter((m) => JSON.stringify(m.blocks).includes(ActionId.approve))
      .at(-1);
    if (!card) throw new Error('Bob sees no approval card');
    expect(card.ephemeral).toBe(false);
    expect(sandbox.emulator.control.volumeExists(volumeId)).toBe(true);

    const approve = button(card, 'Approve');
    const { result } = await click(BOB, card, { actionId: approve.action_id, value: approve.value ?? '' });
    expect(result.ok).toBe(true);
    expect(sandbox.emulator.control.volumeExists(volumeId)).toBe(false);
    await command(ALICE, 'volumes list');
    expect(textOf(await lastMessage(ALICE))).not.toContain(`\`${volumeId}\``);
  });

  it("keeps Alice's ephemeral answers from Bob, and marks them as ephemeral for her", async () => {
    await command(ALICE, 'whoami');
    const alices = (await state(ALICE)).messages.filter((message) => message.ephemeral);
    expect(alices.length).toBeGreaterThan(0);
    const bobs = (await state(BOB)).messages.map((message) => message.ts);
    for (const message of alices) expect(bobs).not.toContain(message.ts);
  });

  it('folds thread replies under the approval card', async () => {
    const cards = (await state(BOB)).messages.filter((m) => textOf(m).includes('approved'));
    expect(cards.some((card) => card.replies.length > 0)).toBe(true);
    const topLevel = (await state(BOB)).messages;
    const replies = topLevel.flatMap((message) => message.replies.map((reply) => reply.ts));
    expect(topLevel.map((message) => message.ts).filter((ts) => replies.includes(ts))).toEqual([]);
  });
});

describe('refusals the page reports in words', () => {
  it('modal field errors come back by block id and the modal stays open', async () => {
    await command(BOB, 'login');
    const view = (await state(BOB)).view;
    const { result } = await post('/api/view', {
      user: BOB,
      viewId: view?.id,
      values: { profile: { profile_input: 'default' }, token: { token_input: 'short' } },
    });
    expect(result.ok).toBe(true);
    expect(result.errors?.token).toMatch(/token/i);
    expect((await state(BOB)).view?.id).toBe(view?.id);
    const closed = await post('/api/view/close', { user: BOB, viewId: view?.id });
    expect(closed.status).toBe(200);
    expect((await state(BOB)).view).toBeUndefined();
  });

  it("another person cannot submit or click someone else's modal or ephemeral message", async () => {
    await command(ALICE, 'login');
    const view = (await state(ALICE)).view;
    const submit = await post('/api/view', { user: BOB, viewId: view?.id, values: {} });
    expect(submit.status).toBe(404);
    await post('/api/view/close', { user: ALICE, viewId: view?.id });

    await command(ALICE, 'nodes list --page-size 25');
    const list = await lastMessage(ALICE);
    expect(list.ephemeral).toBe(true);
    const next = button(list, /Next/);
    const { status, result } = await click(BOB, list, { actionId: next.action_id, value: next.value ?? '' });
    expect(status).toBe(404);
    expect(result.error).toMatch(/not visible to you/);
  });

  it('a button that is no longer in the message is a conflict, not a crash', async () => {
    const list = await lastMessage(ALICE);
    const { status, result } = await click(ALICE, list, { actionId: 'op:nonexistent' });
    expect(status).toBe(409);
    expect(result.error).toMatch(/no longer in the message/);
  });

  it('other slash commands and plain text are refused with a hint', async () => {
    const other = await post('/api/command', { user: ALICE, channel: OPS, text: '/giphy cats' });
    expect(other.status).toBe(400);
    expect(other.result.error).toBe('Only /cloud is installed in this workspace, not /giphy.');
    const plain = await post('/api/command', { user: ALICE, channel: OPS, text: 'hello' });
    expect(plain.result.error).toMatch(/Type a slash command/);
  });

  it.each([
    ['an over-long command', `/cloud volumes list --label ${'x'.repeat(40_001 - 28)}`],
    ['odd unicode (emoji count two characters each)', `/cloud x${'😀'.repeat(19_997)}`],
    ['a command with prototype keys', `/cloud volumes list --__proto__ ${'x'.repeat(40_001 - 32)}`],
  ])(
    "%s over Slack's 40,000 characters is refused in plain words, naming its length and the most it can be",
    async (_what, text) => {
      expect(text.length).toBeGreaterThan(40_000);
      const before = sandbox.stack.standIn.store.messages(OPS).length;
      const { status, result } = await post('/api/command', { user: ALICE, channel: OPS, text });
      expect(status).toBe(400);
      expect(result.error).toBe(
        `That command is ${text.length.toLocaleString('en-US')} characters; the most it can be is 40,000. Shorten it and send it again.`,
      );
      expect(sandbox.stack.standIn.store.messages(OPS)).toHaveLength(before);
    },
  );

  it("takes a command up to Slack's 40,000 characters", async () => {
    const text = `/cloud volumes list --label ${'x'.repeat(40_000 - 28)}`;
    expect(text.length).toBe(40_000);
    expect((await post('/api/command', { user: ALICE, channel: OPS, text })).status).toBe(200);
  });

  it('refuses requests from another site, including by DNS rebinding, and bodies that are not JSON', async () => {
    const crossSite = await post(
      '/api/command',
      { user: ALICE, channel: OPS, text: '/cloud help' },
      { origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    const form = await fetch(`${sandbox.pageUrl}/api/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'user=U0ALICE&channel=C0OPS&text=%2Fcloud+help',
    });
    expect(form.status).toBe(415);
    const rebound = await request(`${sandbox.pageUrl}/api/state?user=${ALICE}`, {
      headers: { host: `attacker.example:${new URL(sandbox.pageUrl).port}` },
    });
    expect(rebound.statusCode).toBe(421);
    expect(await rebound.body.text()).not.toContain(ALICE);
    const invalid = await post('/api/click', { user: ALICE, channel: OPS });
    expect(invalid.status).toBe(400);
    expect(invalid.result.error).toMatch(/ts/);
  });
});

describe('GET /events', () => {
  it('announces changes with the channel only, never message content', async () => {
    const controller = new AbortController();
    const response = await fetch(`${sandbox.pageUrl}/events`, { signal: controller.signal });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body?.getReader();
    if (!reader) throw new Error('no event stream');
    const decoder = new TextDecoder();
    let received = '';
    const sent = command(ALICE, 'whoami');
    while (!received.includes('event: change')) {
      const chunk = await reader.read();
      if (chunk.done) break;
      received += decoder.decode(chunk.value);
    }
    await sent;
    controller.abort();
    const changes = [...received.matchAll(/event: change\ndata: (.*)\n/g)].map((match) =>
      JSON.parse(match[1] ?? '{}'),
    );
    expect(changes[0]).toEqual({ kind: 'message_added', channel: OPS });
    for (const change of changes) expect(Object.keys(change).sort()).toEqual(['channel', 'kind']);
  });
});

describe('what a person types, escaped as Slack escapes it (should_escape)', () => {
  it('sets approvers from the help’s own example, `--approvers @alice,@bob --approver-group @oncall`', async () => {
    await command(ADA, 'approvals policy --approvers @alice,@bob --approver-group @oncall');
    const answer = textOf(await lastMessage(ADA));
    expect(answer).toContain('Approval policy updated');
    expect(answer).toContain(`<@${ALICE}>`);
    expect(answer).toContain(`<@${BOB}>`);
    expect(answer).toContain('<!subteam^S0ONCALL>');
    await command(ADA, 'approvals policy --approvers none --approver-group none');
    expect(textOf(await lastMessage(ADA))).toContain('anyone in the workspace');
  });

  it('leaves a name Slack does not know as typed, so the bot says it is no mention', async () => {
    await command(ADA, 'approvals policy --approvers @nobody');
    expect(textOf(await lastMessage(ADA))).toContain('Name people as mentions');
  });
});
