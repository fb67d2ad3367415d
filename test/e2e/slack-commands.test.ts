import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../lib/api/operations/index.js';
import { actionNamesOf } from '../../lib/commands/registry.js';
import { signedHeaders } from '../../lib/slack/signing.js';
import { ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';

/**
 * The Slack surface end to end: signed slash commands and clicks through the API Gateway adapter,
 * the emulator and DynamoDB Local behind, answers read from the Slack stand-in.
 */

let e2e: E2E;
/** API answers in the order the emulator sent them, next to the acks the tests record. */
const events: string[] = [];

beforeAll(async () => {
  e2e = await startE2E({
    emulator: { onRequest: ({ operationId }) => events.push(`api answered ${operationId}`) },
  });
  await e2e.login(ALICE, e2e.emulator.demoToken);
});

afterAll(async () => {
  await e2e?.close();
});

function apiCalls(): number {
  return e2e.emulator.control.requestCount();
}

describe('a command of every group', () => {
  it.each([
    ['profile view', 'demo'],
    ['managed issues-list', 'Managed issues'],
    // An action split by spaces, as people type it, is the hyphenated action.
    ['managed issues list', 'Managed issues'],
    ['databases mysql list', 'details: `/cloud databases mysql view'],
    ['databases list', 'Databases'],
    ['volumes list', 'Volumes'],
    ['images list', 'Images'],
    ['nodes list', 'Nodes'],
  ])('/cloud %s answers from the API', async (text, expected) => {
    const before = apiCalls();
    const delivery = await e2e.command(ALICE, text);
    expect(delivery.status).toBe(200);
    expect(apiCalls()).toBeGreaterThan(before);
    expect(e2e.textOf(delivery.message)).toContain(expected);
    expect(delivery.message?.ephemeral).toBe(true);
  });
});

describe('help', () => {
  it('answers help for every action of the registry', async () => {
    const failures: string[] = [];
    for (const op of operations) {
      const delivery = await e2e.stack.workspace.command(ALICE, CHANNEL, `help ${op.group} ${op.action}`);
      const text = e2e.textOf(delivery.message);
      if (delivery.status !== 200 || !text.includes(actionNamesOf(op)[0] ?? op.action)) failures.push(op.id);
    }
    expect(failures).toEqual([]);
  });

  it('suggests the closest action for a typo, with no API call', async () => {
    const before = apiCalls();
    const delivery = await e2e.command(ALICE, 'volumes atach 12 --node-id 3');
    expect(e2e.textOf(delivery.message)).toContain('attach');
    expect(apiCalls()).toBe(before);
  });
});

describe('bad input is answered with usage and no API call', () => {
  it.each([
    ['an unknown group', 'buckets list', 'buckets'],
    ['a missing argument', 'volumes attach --node-id 3', 'volumeId'],
    ['a wrong type', 'volumes view twelve', 'whole number'],
    ['a rule violation', 'volumes create --label data', 'region'],
    ['an unknown flag', 'volumes list --colour red', 'colour'],
  ])('%s', async (_kind, text, mentioned) => {
    const before = apiCalls();
    const delivery = await e2e.command(ALICE, text);
    expect(delivery.status).toBe(200);
    expect(delivery.message?.ephemeral).toBe(true);
    expect(e2e.textOf(delivery.message)).toContain(mentioned);
    expect(apiCalls()).toBe(before);
  });
});

describe('login, whoami, logout', () => {
  it('a command without login asks to log in and calls no API', async () => {
    const before = apiCalls();
    const delivery = await e2e.command(BOB, 'nodes list');
    expect(e2e.textOf(delivery.message)).toContain('/cloud login');
    expect(apiCalls()).toBe(before);
  });

  it('login → command → logout', async () => {
    const login = await e2e.login(BOB, e2e.emulator.demoToken, 'bobs');
    expect(login.status).toBe(200);
    expect(e2e.textOf(e2e.lastSeen(BOB))).toContain('Linked as');

    const whoami = await e2e.command(BOB, 'whoami');
    expect(e2e.textOf(whoami.message)).toContain('bobs');
    // Learned from the API at login: the account name and the token's scopes.
    expect(e2e.textOf(whoami.message)).toContain('*demo*');
    expect(e2e.textOf(whoami.message)).toContain('scopes `*`');

    const listed = await e2e.command(BOB, 'volumes list');
    expect(e2e.textOf(listed.message)).toContain('Volumes');

    const logout = await e2e.command(BOB, 'logout');
    expect(e2e.textOf(logout.message)).toContain('Unlinked');
    const after = await e2e.command(BOB, 'volumes list');
    expect(e2e.textOf(after.message)).toContain('/cloud login');
  });

  it('a token the API rejects is refused in the modal and not stored', async () => {
    const delivery = await e2e.login(BOB, 'not-a-real-token-0123456789');
    expect(delivery.body).toMatchObject({ response_action: 'errors' });
    expect(JSON.stringify(delivery.body)).not.toContain('not-a-real-token');
    const links = await e2e.stack.store.tokenLinks.listLinks(e2e.stack.workspace.teamId, BOB);
    expect(links.links).toEqual([]);
  });
});

describe('API refusals', () => {
  it('a revoked token marks the link invalid and says to log in again', async () => {
    const { token } = e2e.emulator.control.createToken('demo', { scopes: '*' });
    await e2e.login(BOB, token);
    e2e.emulator.control.revokeToken(token);
    const delivery = await e2e.command(BOB, 'nodes list');
    expect(e2e.textOf(delivery.message)).toMatch(/log ?in/i);
    const lookup = await e2e.stack.store.tokenLinks.getToken(e2e.stack.workspace.teamId, BOB);
    expect(lookup.status).toBe('invalid');
  });

  it('a restricted user is refused by the API with the reason', async () => {
    const user = e2e.emulator.control.createUser({ username: 'restricted-bob', restricted: true });
    const { token } = e2e.emulator.control.createToken(user.username, { scopes: '*' });
    await e2e.login(BOB, token);
    const delivery = await e2e.command(BOB, 'managed issues-list');
    const text = e2e.textOf(delivery.message);
    expect(text).toMatch(/restricted|unrestricted|not allowed|permission/i);
  });

  it('a token without the scope is told which scope is missing', async () => {
    const { token } = e2e.emulator.control.createToken('demo', { scopes: 'nodes:read_only' });
    await e2e.login(BOB, token);
    const delivery = await e2e.command(BOB, 'volumes list');
    expect(e2e.textOf(delivery.message)).toContain('volumes:read_only');
  });
});

describe('the deadline', () => {
  // The API answers later than Slack waits for an ack, so an ack that waited for it would be too late
  // whatever the machine: ordering, not a stopwatch, shows the ack did not wait (durations: bench).
  it('a slow API gets its ack before the API answers, and the result through response_url', async () => {
    e2e.emulator.control.setLatency(4000, ['volumes.list']);
    try {
      events.length = 0;
      const listsBefore = e2e.emulator.control.requestCount('volumes.list');
      const delivery = await e2e.stack.workspace.command(ALICE, CHANNEL, 'volumes list');
      events.push('ack');
      expect(delivery.status).toBe(200);
      expect(e2e.textOf(delivery.message)).toContain('Working on');
      // The call was made and was still in flight when the ack came back.
      expect(e2e.emulator.control.requestCount('volumes.list')).toBeGreaterThan(listsBefore);
      await e2e.stack.drain();
      const result = e2e.lastSeen(ALICE);
      expect(result.via).toBe('response_url');
      expect(e2e.textOf(result)).toContain('Volumes');
      const ack = events.indexOf('ack');
      expect(events.slice(0, ack), events.join(', ')).not.toContain('api answered volumes.list');
      expect(events.slice(ack + 1), events.join(', ')).toContain('api answered volumes.list');
    } finally {
      e2e.emulator.control.setLatency(0);
    }
  });
});

describe('signatures', () => {
  const body = new URLSearchParams({
    team_id: 'T0LOCAL',
    channel_id: CHANNEL,
    user_id: ALICE,
    command: '/cloud',
    text: 'volumes list',
    response_url: 'http://127.0.0.1:9/response/x',
    trigger_id: 'x',
  }).toString();

  it('rejects a tampered body and runs nothing', async () => {
    const before = apiCalls();
    const headers = signedHeaders(e2e.stack.signingSecret, body);
    const delivery = await e2e.stack.workspace.deliverRaw(body.replace('volumes', 'nodes'), headers);
    expect(delivery.status).toBe(401);
    expect(apiCalls()).toBe(before);
  });

  it('rejects a stale timestamp and runs nothing', async () => {
    const before = apiCalls();
    const headers = signedHeaders(e2e.stack.signingSecret, body, Math.floor(Date.now() / 1000) - 600);
    const delivery = await e2e.stack.workspace.deliverRaw(body, headers);
    expect(delivery.status).toBe(401);
    expect(apiCalls()).toBe(before);
  });

  it('rejects a wrong secret', async () => {
    const delivery = await e2e.stack.workspace.deliverRaw(body, signedHeaders('not-the-secret', body));
    expect(delivery.status).toBe(401);
  });

  it('answers a malformed body with 400, not a crash', async () => {
    const raw = 'payload=%7Bnot-json';
    const delivery = await e2e.stack.workspace.deliverRaw(raw, signedHeaders(e2e.stack.signingSecret, raw));
    expect(delivery.status).toBe(400);
  });
});

describe('sensitive output', () => {
  it('a new token is shown only to the person who asked, never in the channel', async () => {
    const delivery = await e2e.command(
      ALICE,
      'profile tokens-create --label from-slack --scopes nodes:read_only',
    );
    await e2e.stack.drain();
    const tokens = e2e.emulator.control.tokensCreatedSince(0);
    const created = tokens.at(-1);
    expect(created).toBeDefined();
    const publicText = e2e.stack.standIn.store
      .messages(CHANNEL)
      .map((m) => e2e.textOf(m))
      .join('\n');
    expect(publicText).not.toContain(created ?? 'missing');
    const mine = e2e.stack.standIn.store.ephemeralFor(ALICE, CHANNEL).map((m) => e2e.textOf(m));
    expect(mine.some((text) => text.includes(created ?? 'missing'))).toBe(true);
    expect(delivery.status).toBe(200);
  });
});

describe('buttons', () => {
  it('pages forward through a list with the Next button', async () => {
    const first = await e2e.command(ALICE, 'nodes list --page-size 25');
    expect(e2e.textOf(first.message)).toContain('page 1 of');
    const message = first.message;
    if (!message) throw new Error('no list message');
    const next = JSON.parse(JSON.stringify(message.blocks))
      .flatMap(
        (b: { elements?: { action_id?: string; value?: string; text?: { text?: string } }[] }) =>
          b.elements ?? [],
      )
      .find((el: { text?: { text?: string } }) => /next/i.test(el.text?.text ?? ''));
    expect(next).toBeDefined();
    const click = await e2e.stack.workspace.click(ALICE, message, {
      actionId: next.action_id,
      value: next.value,
    });
    expect(click.status).toBe(200);
    await e2e.stack.drain();
    const updated = e2e.stack.standIn.store.findMessage(CHANNEL, message.ts);
    expect(e2e.textOf(updated)).toContain('page 2 of');
  });
});

describe('redelivery', () => {
  /** The same signed slash command (same trigger id) delivered twice, as Slack retries it. */
  async function deliverTwice(text: string, triggerId: string) {
    const body = new URLSearchParams({
      team_id: e2e.stack.workspace.teamId,
      channel_id: CHANNEL,
      user_id: ALICE,
      command: '/cloud',
      text,
      response_url: e2e.stack.standIn.responseUrlFor(CHANNEL, ALICE),
      trigger_id: triggerId,
    }).toString();
    const first = await e2e.stack.workspace.deliverRaw(body, signedHeaders(e2e.stack.signingSecret, body));
    const again = await e2e.stack.workspace.deliverRaw(body, signedHeaders(e2e.stack.signingSecret, body));
    return { first, again };
  }

  it('runs a slash command delivered twice only once', async () => {
    const before = apiCalls();
    const { first, again } = await deliverTwice('volumes list', 'trigger-redelivered-1');
    expect(first.status).toBe(200);
    expect(JSON.stringify(first.body)).toContain('Volumes');
    expect(again.status).toBe(200);
    expect(again.body).toBe('');
    expect(apiCalls() - before).toBe(1);
  });

  it('answers help delivered twice once, although its reads go out alongside the claim', async () => {
    const { first, again } = await deliverTwice('help', 'trigger-redelivered-help');
    expect(first.status).toBe(200);
    expect(JSON.stringify(first.body)).toContain('volumes');
    expect(again.status).toBe(200);
    expect(again.body).toBe('');
  });
});

describe('a token typed into the command', () => {
  it('is refused with advice and never echoed or stored', async () => {
    const delivery = await e2e.command(BOB, 'login demo-token-typed-in-the-open-0123456789');
    const text = e2e.textOf(delivery.message);
    expect(text).toContain('private form');
    expect(text).not.toContain('demo-token-typed');
    const links = await e2e.stack.store.tokenLinks.listLinks(e2e.stack.workspace.teamId, BOB);
    expect(links.links.some((l) => l.label.includes('typed'))).toBe(false);
  });
});

describe('cold starts', () => {
  it('answer without asking Slack who the bot is (no auth.test round trip)', () => {
    expect(e2e.stack.standIn.store.callsTo('auth.test')).toEqual([]);
  });
});
