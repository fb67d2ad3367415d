import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SLACK_RULES } from '../../infra/local/slack/rules.js';
import { type SlackStandIn, startSlackStandIn } from '../../infra/local/slack/server.js';
import { SlackWorkspace } from '../../infra/local/slack/workspace.js';

/**
 * Rule `in-channel-command-echo` of `infra/local/slack/rules.ts`, on the stand-in by itself: what
 * the channel sees of a slash command when the app answers it `in_channel`, at once or later.
 */

const START = Date.parse('2025-01-15T09:00:00Z');
const OPS = 'C0OPS';
const ALICE = 'U0ALICE';
const TYPED = '/cloud nodes reboot 1001';

let standIn: SlackStandIn | undefined;
let receiver: Server | undefined;

async function start(): Promise<SlackStandIn> {
  standIn = await startSlackStandIn({ now: () => START });
  return standIn;
}

afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  receiver = undefined;
});

function respond(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** A request URL that answers every slash command with `answer` as its HTTP 200 body. */
async function botAnswering(answer: unknown): Promise<string> {
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  return `http://127.0.0.1:${port}/slack/events`;
}

/** What everyone in the channel sees (no ephemeral message), as [who, text]. */
function channelView(slack: SlackStandIn): [string | undefined, string][] {
  return slack.store.messages(OPS).map((message) => [message.user, message.text]);
}

describe('in-channel-command-echo', () => {
  it('cites the slash-commands page: both messages shared, delayed responses without the command', () => {
    const rule = SLACK_RULES.find((row) => row.id === 'in-channel-command-echo');
    expect(rule?.source).toContain('https://api.slack.com/interactivity/slash-commands');
    expect(rule?.source).toContain('the initial message typed by the user will be shared in the channel');
    expect(rule?.source).toContain('delayed responses will not include the initial command');
  });

  it('shows the typed command to the channel, as the person, before an immediate in_channel answer', async () => {
    const slack = await start();
    const url = slack.responseUrlFor(OPS, ALICE, { command: TYPED });
    slack.acknowledge(url, { response_type: 'in_channel', text: 'Rebooting node 1001' });
    const bot = slack.store.seed.bot.userId;
    expect(channelView(slack)).toEqual([
      [ALICE, TYPED],
      [bot, 'Rebooting node 1001'],
    ]);
    expect(slack.store.messages(OPS)[0]).toMatchObject({ ephemeral: false, via: 'slash_command' });
  });

  it('shows the command alone for {"response_type": "in_channel"} with nothing else', async () => {
    const slack = await start();
    const url = slack.responseUrlFor(OPS, ALICE, { command: TYPED });
    expect(slack.acknowledge(url, { response_type: 'in_channel' })).toBeUndefined();
    expect(channelView(slack)).toEqual([[ALICE, TYPED]]);
  });

  it('shows the command to nobody when the immediate answer is ephemeral, or says nothing of visibility', async () => {
    const slack = await start();
    slack.acknowledge(slack.responseUrlFor(OPS, ALICE, { command: TYPED }), {
      response_type: 'ephemeral',
      text: 'Only you',
    });
    slack.acknowledge(slack.responseUrlFor(OPS, ALICE, { command: TYPED }), { text: 'Also only you' });
    expect(channelView(slack)).toEqual([]);
    const seen = slack.store.messages(OPS, { includeEphemeral: true }).map((message) => message.text);
    expect(seen).toEqual(['Only you', 'Also only you']);
  });

  it('does not show the command with a later in_channel post through the response_url', async () => {
    const slack = await start();
    const url = slack.responseUrlFor(OPS, ALICE, { command: TYPED });
    slack.acknowledge(url, { response_type: 'ephemeral', text: 'Working…' });
    expect((await respond(url, { response_type: 'in_channel', text: 'Node 1001 rebooted' })).status).toBe(
      200,
    );
    const bot = slack.store.seed.bot.userId;
    expect(channelView(slack)).toEqual([[bot, 'Node 1001 rebooted']]);
  });

  it('shows what the person typed after the command name when the app answers a real request in_channel', async () => {
    const slack = await start();
    const workspace = new SlackWorkspace({
      standIn: slack,
      botUrl: await botAnswering({ response_type: 'in_channel', text: 'On it' }),
      signingSecret: 'not-checked-by-this-bot',
    });
    await workspace.command(ALICE, OPS, 'nodes password 1001 --root-pass typed-here');
    expect(channelView(slack)[0]).toEqual([ALICE, '/cloud nodes password 1001 --root-pass typed-here']);
  });
});
