import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { SocketModeClient } from '@slack/socket-mode';
import { request, WebSocket } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type SlackStandIn,
  type SlackStandInOptions,
  startSlackStandIn,
} from '../../infra/local/slack/server.js';
import {
  ACK_DEADLINE_MS,
  DEFAULT_APP_TOKEN,
  DISCONNECT_GRACE_MS,
  type EnvelopeOutcome,
  STAND_IN_APP_ID,
} from '../../infra/local/slack/socket-mode.js';
import { SlackWorkspace } from '../../infra/local/slack/workspace.js';
import { quietLogger } from '../support/slack-client.js';

/**
 * The stand-in's Socket Mode by itself, one `describe` per rule of `rules.ts`: the app side is a
 * bare WebSocket here (undici's client), so every frame Slack sends is seen as sent. The clock is
 * controlled; deadlines and redeliveries happen when a test calls `sweep()`.
 */

const START = Date.parse('2025-01-15T09:00:00Z');
let now = START;
let standIn: SlackStandIn;
const sockets: AppSocket[] = [];

async function start(options: SlackStandInOptions = {}): Promise<SlackStandIn> {
  now = START;
  standIn = await startSlackStandIn({ now: () => now, socketModeSweepEveryMs: 0, ...options });
  return standIn;
}

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.close();
  await standIn?.close();
});

type Message = Record<string, unknown>;

/** The app's end of a Socket Mode connection: every message Slack sends, in order. */
class AppSocket {
  readonly #socket: WebSocket;
  readonly #received: Message[] = [];
  readonly #waiting: Array<(message: Message) => void> = [];
  readonly closed: Promise<unknown>;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as Message;
      const waiter = this.#waiting.shift();
      if (waiter) waiter(message);
      else this.#received.push(message);
    });
    this.closed = once(socket, 'close');
  }

  static async connect(url: string): Promise<AppSocket> {
    const socket = new AppSocket(new WebSocket(url));
    sockets.push(socket);
    await once(socket.#socket, 'open');
    return socket;
  }

  next(): Promise<Message> {
    const message = this.#received.shift();
    if (message) return Promise.resolve(message);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Messages that arrived and were not read yet. */
  get unread(): readonly Message[] {
    return this.#received;
  }

  acknowledge(envelopeId: unknown, payload?: Message): void {
    this.#socket.send(
      JSON.stringify(
        payload === undefined ? { envelope_id: envelopeId } : { envelope_id: envelopeId, payload },
      ),
    );
  }

  close(): void {
    if (this.#socket.readyState === WebSocket.OPEN) this.#socket.close(1000);
  }
}

async function connectionsOpen(authorization?: string, form?: Record<string, string>) {
  const response = await request(`${standIn.apiUrl}apps.connections.open`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: new URLSearchParams(form ?? {}).toString(),
  });
  return (await response.body.json()) as {
    ok: boolean;
    url?: string;
    error?: string;
    needed?: string;
    provided?: string;
  };
}

const opensCalled = () => standIn.store.calls().filter((call) => call.method === 'apps.connections.open');

/** The HTTP status a WebSocket opening handshake to `url` gets (101 when it is accepted). */
async function upgradeStatus(url: string): Promise<number> {
  const target = new URL(url.replace(/^ws/, 'http'));
  const ask = httpRequest(target, {
    headers: {
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      'sec-websocket-key': randomBytes(16).toString('base64'),
    },
  });
  ask.end();
  const [answer] = (await Promise.race([once(ask, 'response'), once(ask, 'upgrade')])) as [IncomingMessage];
  answer.socket.destroy();
  return answer.statusCode ?? 0;
}

/** `apps.connections.open` with the app-level token, then the WebSocket, past its `hello`. */
async function connectApp(): Promise<{ socket: AppSocket; hello: Message }> {
  const opened = await connectionsOpen(`Bearer ${standIn.socketMode.appToken}`);
  if (!opened.url) throw new Error(`apps.connections.open failed: ${opened.error}`);
  const socket = await AppSocket.connect(opened.url);
  return { socket, hello: await socket.next() };
}

const slashCommand = {
  command: '/cloud',
  text: 'help',
  user_id: 'U0ALICE',
  channel_id: 'C0OPS',
  team_id: 'T0LOCAL',
};

describe('socket-mode-open', () => {
  it('hands an app-level token with connections:write a WebSocket URL for the app', async () => {
    await start();
    const answer = await connectionsOpen(`Bearer ${DEFAULT_APP_TOKEN}`);
    expect(answer.ok).toBe(true);
    const url = new URL(answer.url ?? '');
    expect(url.protocol).toBe('ws:');
    expect(url.pathname).toBe('/link/');
    expect(url.searchParams.get('app_id')).toBe(STAND_IN_APP_ID);
    expect(url.searchParams.get('ticket')).toMatch(/\S{8,}/);
  });

  it('refuses a bot token with not_allowed_token_type', async () => {
    await start();
    expect(await connectionsOpen(`Bearer ${standIn.botToken}`)).toEqual({
      ok: false,
      error: 'not_allowed_token_type',
    });
  });

  it('refuses an app-level token Slack never issued with invalid_auth', async () => {
    await start();
    expect(await connectionsOpen('Bearer xapp-1-A0CLOUD-1-forged')).toEqual({
      ok: false,
      error: 'invalid_auth',
    });
  });

  it('refuses the token as a POST parameter: it must come in the Authorization header', async () => {
    await start();
    expect(await connectionsOpen(undefined, { token: DEFAULT_APP_TOKEN })).toEqual({
      ok: false,
      error: 'not_authed',
    });
  });

  it('refuses an app-level token without connections:write with missing_scope, naming it', async () => {
    await start({ appTokens: [{ token: 'xapp-1-A0CLOUD-2-reader', scopes: ['authorizations:read'] }] });
    expect(await connectionsOpen('Bearer xapp-1-A0CLOUD-2-reader')).toEqual({
      ok: false,
      error: 'missing_scope',
      needed: 'connections:write',
      provided: 'authorizations:read',
    });
  });

  it('opens one connection per URL: the app asks again for the next one', async () => {
    await start();
    const opened = await connectionsOpen(`Bearer ${DEFAULT_APP_TOKEN}`);
    const first = await AppSocket.connect(opened.url ?? '');
    expect((await first.next()).type).toBe('hello');
    const again = new WebSocket(opened.url ?? '');
    await once(again, 'error');
    expect(again.readyState).toBe(WebSocket.CLOSED);
    expect(await upgradeStatus(opened.url ?? '')).toBe(401);
    expect(standIn.socketMode.openConnections).toBe(1);
  });

  it('records the call without the token', async () => {
    await start();
    await connectionsOpen(`Bearer ${DEFAULT_APP_TOKEN}`);
    expect(opensCalled()).toMatchObject([{ ok: true, body: {} }]);
    expect(JSON.stringify(standIn.store.calls())).not.toContain(DEFAULT_APP_TOKEN);
  });
});

describe('socket-mode-envelopes', () => {
  it('says hello with the number of connections, debug info and the app id', async () => {
    await start();
    const { hello } = await connectApp();
    expect(hello).toMatchObject({
      type: 'hello',
      num_connections: 1,
      connection_info: { app_id: STAND_IN_APP_ID },
      debug_info: { host: expect.any(String), approximate_connection_time: expect.any(Number) },
    });
    const second = await connectApp();
    expect(second.hello.num_connections).toBe(2);
  });

  it('sends a slash command as a slash_commands envelope whose acknowledgement carries the answer', async () => {
    await start();
    const { socket } = await connectApp();
    const outcome = standIn.socketMode.deliver('slash_commands', slashCommand);
    const envelope = await socket.next();
    expect(envelope).toEqual({
      envelope_id: expect.any(String),
      type: 'slash_commands',
      payload: slashCommand,
      accepts_response_payload: true,
    });
    socket.acknowledge(envelope.envelope_id, { text: 'Here is help' });
    expect(await outcome).toEqual({
      acknowledged: true,
      envelopeId: envelope.envelope_id,
      payload: { text: 'Here is help' },
      attempts: 1,
    });
  });

  it('sends a button click as an interactive envelope that takes no response payload', async () => {
    await start();
    const { socket } = await connectApp();
    const click = { type: 'block_actions', actions: [{ action_id: 'approve' }] };
    const outcome = standIn.socketMode.deliver('interactive', click);
    const envelope = await socket.next();
    expect(envelope).toMatchObject({ type: 'interactive', payload: click, accepts_response_payload: false });
    socket.acknowledge(envelope.envelope_id, { text: 'ignored by Slack' });
    expect(await outcome).toMatchObject({ acknowledged: true, payload: undefined });
  });

  it('sends a modal submission as an interactive envelope whose acknowledgement can answer it', async () => {
    await start();
    const { socket } = await connectApp();
    const outcome = standIn.socketMode.deliver('interactive', {
      type: 'view_submission',
      view: { id: 'V1' },
    });
    const envelope = await socket.next();
    expect(envelope).toMatchObject({ type: 'interactive', accepts_response_payload: true });
    const errors = { response_action: 'errors', errors: { token: 'Not a token' } };
    socket.acknowledge(envelope.envelope_id, errors);
    expect(await outcome).toMatchObject({ acknowledged: true, payload: errors });
  });

  it('sends an event as an events_api envelope, first delivery retry_attempt 0', async () => {
    await start();
    const { socket } = await connectApp();
    const event = { type: 'event_callback', event_id: 'Ev1', event: { type: 'app_uninstalled' } };
    const outcome = standIn.socketMode.deliver('events_api', event);
    const envelope = await socket.next();
    expect(envelope).toEqual({
      envelope_id: expect.any(String),
      type: 'events_api',
      payload: event,
      accepts_response_payload: false,
      retry_attempt: 0,
      retry_reason: '',
    });
    socket.acknowledge(envelope.envelope_id);
    expect(await outcome).toMatchObject({ acknowledged: true, attempts: 1 });
  });

  it('redelivers an unacknowledged event at once, after a minute and after five minutes, then gives up', async () => {
    await start();
    const { socket } = await connectApp();
    const outcome = standIn.socketMode.deliver('events_api', { type: 'event_callback', event_id: 'Ev2' });
    const first = await socket.next();
    const attempts: Message[] = [first];
    const retryAfter = async (waitMs: number) => {
      now += waitMs - 1;
      standIn.socketMode.sweep();
      expect(socket.unread).toEqual([]);
      now += 1;
      standIn.socketMode.sweep();
      attempts.push(await socket.next());
    };
    await retryAfter(ACK_DEADLINE_MS);
    await retryAfter(ACK_DEADLINE_MS + 60_000);
    await retryAfter(ACK_DEADLINE_MS + 300_000);
    expect(attempts.map((a) => [a.envelope_id, a.retry_attempt, a.retry_reason])).toEqual([
      [first.envelope_id, 0, ''],
      [first.envelope_id, 1, 'timeout'],
      [first.envelope_id, 2, 'timeout'],
      [first.envelope_id, 3, 'timeout'],
    ]);
    now += ACK_DEADLINE_MS;
    standIn.socketMode.sweep();
    expect(await outcome).toMatchObject({ acknowledged: false, reason: 'timeout', attempts: 4 });
  });

  it('takes an acknowledgement of a retry as the end of the event', async () => {
    await start();
    const { socket } = await connectApp();
    const outcome = standIn.socketMode.deliver('events_api', { type: 'event_callback', event_id: 'Ev3' });
    await socket.next();
    now += ACK_DEADLINE_MS;
    standIn.socketMode.sweep();
    const retry = await socket.next();
    socket.acknowledge(retry.envelope_id);
    expect(await outcome).toMatchObject({ acknowledged: true, attempts: 2 });
  });

  it('never redelivers a slash command: unacknowledged in 3 s, the person sees an error', async () => {
    await start();
    const { socket } = await connectApp();
    let settled: EnvelopeOutcome | undefined;
    const outcome = standIn.socketMode.deliver('slash_commands', slashCommand).then((o) => {
      settled = o;
      return o;
    });
    await socket.next();
    now += ACK_DEADLINE_MS - 1;
    standIn.socketMode.sweep();
    await Promise.resolve();
    expect(settled).toBeUndefined();
    now += 1;
    standIn.socketMode.sweep();
    expect(await outcome).toMatchObject({ acknowledged: false, reason: 'timeout', attempts: 1 });
    now += 600_000;
    standIn.socketMode.sweep();
    expect(socket.unread).toEqual([]);
  });

  it('counts an acknowledgement only on the connection the envelope went out on', async () => {
    await start();
    const older = await connectApp();
    const newer = await connectApp();
    const outcome = standIn.socketMode.deliver('slash_commands', slashCommand);
    const envelope = await newer.socket.next();
    older.socket.acknowledge(envelope.envelope_id, { text: 'from the wrong connection' });
    newer.socket.acknowledge(envelope.envelope_id, { text: 'from the right one' });
    expect(await outcome).toMatchObject({ acknowledged: true, payload: { text: 'from the right one' } });
    expect(older.socket.unread).toEqual([]);
  });

  it('cannot deliver a command to an app with no connection', async () => {
    await start();
    expect(await standIn.socketMode.deliver('slash_commands', slashCommand)).toMatchObject({
      acknowledged: false,
      reason: 'no_connection',
    });
  });

  it('ignores what is not an acknowledgement', async () => {
    await start();
    const { socket } = await connectApp();
    const outcome = standIn.socketMode.deliver('slash_commands', slashCommand);
    const envelope = await socket.next();
    socket.acknowledge('not-an-envelope-we-sent', { text: 'no' });
    (socket as unknown as { acknowledge: (id: unknown) => void }).acknowledge(42);
    socket.acknowledge(envelope.envelope_id, { text: 'yes' });
    expect(await outcome).toMatchObject({ acknowledged: true, payload: { text: 'yes' } });
  });

  it('carries a workspace’s command, click and answer the same as over HTTP', async () => {
    await start();
    const { socket } = await connectApp();
    const workspace = new SlackWorkspace({ standIn, socketMode: true });
    const delivery = workspace.command('U0ALICE', 'C0OPS', 'help');
    const envelope = await socket.next();
    expect(envelope.payload).toMatchObject({
      command: '/cloud',
      text: 'help',
      user_id: 'U0ALICE',
      channel_id: 'C0OPS',
      response_url: expect.stringContaining('/response/'),
      trigger_id: expect.any(String),
    });
    socket.acknowledge(envelope.envelope_id, { text: 'Commands you can run here' });
    const answered = await delivery;
    expect(answered.status).toBe(200);
    expect(answered.message?.text).toBe('Commands you can run here');
    expect(standIn.store.messages('C0OPS', { seenBy: 'U0ALICE' }).at(-1)?.text).toBe(
      'Commands you can run here',
    );
  });
});

describe('socket-mode-disconnect', () => {
  for (const reason of ['warning', 'refresh_requested'] as const) {
    it(`${reason}: says so, sends nothing more there, and closes the connection after the grace period`, async () => {
      await start();
      const old = await connectApp();
      standIn.socketMode.disconnect(reason);
      expect(await old.socket.next()).toMatchObject({
        type: 'disconnect',
        reason,
        debug_info: { host: expect.any(String) },
      });
      const fresh = await connectApp();
      const outcome = standIn.socketMode.deliver('slash_commands', slashCommand);
      const envelope = await fresh.socket.next();
      fresh.socket.acknowledge(envelope.envelope_id);
      await outcome;
      expect(old.socket.unread).toEqual([]);
      now += DISCONNECT_GRACE_MS;
      standIn.socketMode.sweep();
      await old.socket.closed;
      expect(standIn.socketMode.openConnections).toBe(1);
    });
  }

  it('link_disabled: closes the connection at once and tells a new one the same', async () => {
    await start();
    const { socket } = await connectApp();
    standIn.socketMode.disconnect('link_disabled');
    expect(await socket.next()).toMatchObject({ type: 'disconnect', reason: 'link_disabled' });
    await socket.closed;
    const opened = await connectionsOpen(`Bearer ${DEFAULT_APP_TOKEN}`);
    const next = await AppSocket.connect(opened.url ?? '');
    expect(await next.next()).toMatchObject({ type: 'disconnect', reason: 'link_disabled' });
    await next.closed;
    expect(await standIn.socketMode.deliver('slash_commands', slashCommand)).toMatchObject({
      acknowledged: false,
      reason: 'no_connection',
    });
  });

  it("brings Slack's own client back through a fresh apps.connections.open", async () => {
    await start({ socketModeSweepEveryMs: 1_000 });
    const client = new SocketModeClient({
      appToken: standIn.socketMode.appToken,
      clientOptions: { slackApiUrl: standIn.apiUrl },
      logger: quietLogger,
    });
    client.on('slash_commands', async ({ ack }: { ack: (response?: Message) => Promise<void> }) => {
      await ack({ text: 'still here' });
    });
    try {
      await client.start();
      expect(opensCalled()).toHaveLength(1);
      const reconnected = standIn.socketMode.nextConnection();
      standIn.socketMode.disconnect('refresh_requested');
      await reconnected;
      expect(opensCalled()).toHaveLength(2);
      const outcome = await standIn.socketMode.deliver('slash_commands', slashCommand);
      expect(outcome).toMatchObject({ acknowledged: true, payload: { text: 'still here' } });
    } finally {
      await client.disconnect();
    }
  });
});
