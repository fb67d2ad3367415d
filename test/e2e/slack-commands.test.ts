import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { operations, requireOperation } from '../../lib/api/operations/index.js';
import { actionNamesOf } from '../../lib/commands/registry.js';
import { commandNameOf } from '../../lib/commands/usage.js';
import { signedHeaders } from '../../lib/slack-kit/signing.js';
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

describe('list paging', () => {
  type Button = { action_id?: string; value?: string; text?: { text?: string } };
  const buttonsOf = (message: StoredMessage | undefined): Button[] =>
    (JSON.parse(JSON.stringify(message?.blocks ?? [])) as { elements?: Button[] }[]).flatMap(
      (b) => b.elements ?? [],
    );
  const nextOf = (message: StoredMessage | undefined) =>
    buttonsOf(message).find((el) => /next/i.test(el.text?.text ?? ''));
  /** Node ids a message shows: seeded nodes are 1001 upwards. */
  const nodeIds = (message: StoredMessage | undefined) =>
    [...JSON.stringify(message?.blocks ?? []).matchAll(/`(10\d\d)`/g)].map((m) => Number(m[1]));
  const allNodeIds = Array.from({ length: 30 }, (_, i) => 1001 + i);

  async function clickNext(message: StoredMessage, value?: string) {
    const next = nextOf(message);
    if (!next?.action_id || next.value === undefined) throw new Error('no Next button');
    // A forged value is clicked as if it were in the message: Slack sends what the message holds.
    const shown: StoredMessage =
      value === undefined
        ? message
        : {
            ...message,
            blocks: JSON.parse(
              JSON.stringify(message.blocks).replace(JSON.stringify(next.value), JSON.stringify(value)),
            ),
          };
    const click = await e2e.stack.workspace.click(ALICE, shown, {
      actionId: next.action_id,
      value: value ?? next.value,
    });
    expect(click.status).toBe(200);
    await e2e.stack.drain();
    return e2e.stack.standIn.store.findMessage(CHANNEL, message.ts);
  }

  it('regression: /cloud nodes list then Next shows all 30 nodes, each once, on pages the header counts', async () => {
    const first = await e2e.command(ALICE, 'nodes list');
    const firstText = e2e.textOf(first.message);
    expect(firstText).toContain('Nodes — page 1 of 2 (30)');
    expect(firstText).not.toContain('--page-size');
    const message = first.message;
    if (!message) throw new Error('no list message');
    const firstIds = nodeIds(message);
    expect(firstIds.length).toBeGreaterThan(1);
    expect(firstIds.length).toBeLessThan(30);

    const second = await clickNext(message);
    expect(e2e.textOf(second)).toContain('Nodes — page 2 of 2 (30)');
    expect(nextOf(second)).toBeUndefined();
    expect([...firstIds, ...nodeIds(second)]).toEqual(allNodeIds);
  });

  it('--page 2 is the page Next showed as page 2, and --page 3 says the list has 2 pages', async () => {
    const first = await e2e.command(ALICE, 'nodes list');
    const firstIds = nodeIds(first.message);
    const second = await e2e.command(ALICE, 'nodes list --page 2');
    expect(e2e.textOf(second.message)).toContain('page 2 of 2');
    expect(nodeIds(second.message)).toEqual(allNodeIds.slice(firstIds.length));
    const third = await e2e.command(ALICE, 'nodes list --page 3');
    expect(e2e.textOf(third.message)).toContain('past the end of the list: it has 2 pages');
  });

  it('a page past the end of a nested list names the command as help writes it', async () => {
    const op = requireOperation('nodes.configs-list');
    const reply = await e2e.command(ALICE, `nodes configs-list ${allNodeIds[0]} --page 40`);
    const text = e2e.textOf(reply.message);
    expect(text).toContain('past the end of the list');
    expect(text).toContain(`Run \`/cloud ${commandNameOf(op)} ${allNodeIds[0]}\` for the first page.`);
    expect(text).not.toContain('configs-list');
  });

  it('--all lists all 30 nodes in one message, one a line', async () => {
    const all = await e2e.command(ALICE, 'nodes list --all');
    expect(e2e.textOf(all.message)).toContain('Nodes — all 30');
    expect(nodeIds(all.message)).toEqual(allNodeIds);
    expect(nextOf(all.message)).toBeUndefined();
  });

  it.each([
    ['CSV', /^id,label,/, (text: string) => text.trim().split('\r\n').length - 1],
    ['JSON', /^\[/, (text: string) => (JSON.parse(text) as unknown[]).length],
  ] as const)(
    "--all offers the whole list as a %s file, sent to the person's DM",
    async (format, start, count) => {
      const all = await e2e.command(ALICE, 'nodes list --all');
      if (!all.message) throw new Error('no list message');
      const button = buttonsOf(all.message).find((b) => b.text?.text?.startsWith(format));
      if (!button?.action_id || button.value === undefined) throw new Error(`no ${format} button`);
      const { store } = e2e.stack.standIn;
      const before = store.files().length;
      const click = await e2e.stack.workspace.click(ALICE, all.message, {
        actionId: button.action_id,
        value: button.value,
      });
      expect(click.status).toBe(200);
      await e2e.stack.drain();
      // The list stays; the outcome comes as messages of their own.
      expect(e2e.stack.standIn.store.findMessage(CHANNEL, all.message.ts)?.blocks).toEqual(
        all.message.blocks,
      );
      // The channel is told where the file goes; the DM's working note is replaced by how it went.
      const told = e2e.seen(ALICE).map((m) => e2e.textOf(m));
      expect(
        told.some((t) =>
          t.includes(`The whole list goes to your direct messages with the app as a ${format} file`),
        ),
      ).toBe(true);
      expect(told.some((t) => t.includes('Reading the whole list'))).toBe(false);
      const inDm = store.messages(`D${ALICE}`).map((m) => e2e.textOf(m));
      expect(
        inDm.some((t) => t.includes(`30 of 30 as ${format} are on their way to your direct messages`)),
      ).toBe(true);
      expect(inDm.some((t) => t.includes('Reading the whole list'))).toBe(false);
      const file = store.files().at(-1);
      expect(store.files()).toHaveLength(before + 1);
      const text = file?.bytes?.toString('utf8') ?? '';
      expect(text).toMatch(start);
      expect(count(text)).toBe(30);
      for (const id of allNodeIds) expect(text).toContain(String(id));
      // Shared in Alice's DM with the app once Slack has processed it, nowhere else.
      expect(file?.pendingShare?.channels ?? file?.channels).toEqual([`D${ALICE}`]);
    },
  );

  it('--json --page 2 is still the API page', async () => {
    const json = await e2e.command(ALICE, 'nodes list --json --page 2 --page-size 25');
    expect(e2e.textOf(json.message)).toContain('\\"page\\": 2');
  });

  it.each([
    [
      'a position that is not where a page starts',
      { o: 'nodes.list', i: {}, p: 2, k: 5, b: 0 },
      'out of date',
    ],
    ['a page number the position cannot have', { o: 'nodes.list', i: {}, p: 9, k: 3 }, 'out of date'],
    ['a position past the end', { o: 'nodes.list', i: {}, p: 40, k: 900 }, 'past the end'],
    ['a negative position', { o: 'nodes.list', i: {}, p: 1, k: -1 }, 'out of date'],
    [
      'an operation that is not a list',
      { o: 'volumes.delete', i: { volumeId: 2001 }, p: 2, k: 20 },
      'out of date',
    ],
    ['an operation that does not exist', { o: 'nodes.nope', i: {}, p: 2 }, 'out of date'],
  ])('a forged Next button with %s is refused, with no change made', async (_case, payload, answer) => {
    const first = await e2e.command(ALICE, 'nodes list');
    if (!first.message) throw new Error('no list message');
    const before = e2e.emulator.control.requestCount('volumes.delete');
    const after = await clickNext(first.message, JSON.stringify(payload));
    expect(e2e.textOf(after)).toContain(answer);
    expect(e2e.emulator.control.requestCount('volumes.delete')).toBe(before);
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
    const { first, again } = await deliverTwice('volumes list', e2e.stack.standIn.triggerIdFor(ALICE));
    expect(first.status).toBe(200);
    expect(JSON.stringify(first.body)).toContain('Volumes');
    expect(again.status).toBe(200);
    expect(again.body).toBe('');
    expect(apiCalls() - before).toBe(1);
  });

  it('answers help delivered twice once, although its reads go out alongside the claim', async () => {
    const { first, again } = await deliverTwice('help', e2e.stack.standIn.triggerIdFor(ALICE));
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
