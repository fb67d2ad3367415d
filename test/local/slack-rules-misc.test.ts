import { readFileSync } from 'node:fs';
import { type Logger, LogLevel, WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { appSettingsFromManifest } from '../../infra/local/slack/app-settings.js';
import { SLACK_RULES } from '../../infra/local/slack/rules.js';
import {
  type SlackStandIn,
  type SlackStandInOptions,
  startSlackStandIn,
} from '../../infra/local/slack/server.js';

/**
 * Rules of `infra/local/slack/rules.ts`, each tested on the stand-in by itself: one `describe`
 * per rule id. The bot's side of each rule is tested with the bot (see the tests named there).
 */

const START = Date.parse('2025-01-15T09:00:00Z');
const OPS = 'C0OPS';
const ALICE = 'U0ALICE';

const quietLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};

let now = START;
let standIn: SlackStandIn | undefined;

async function start(options: SlackStandInOptions = {}): Promise<SlackStandIn> {
  now = START;
  standIn = await startSlackStandIn({ now: () => now, ...options });
  return standIn;
}

afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

function clientFor(slack: SlackStandIn): WebClient {
  return new WebClient(slack.botToken, {
    slackApiUrl: slack.apiUrl,
    retryConfig: { retries: 0 },
    logger: quietLogger,
    rejectRateLimitedCalls: true,
  });
}

/** The Slack error code a refused Web API call ends with. */
async function refusalOf(call: Promise<unknown>): Promise<string> {
  const error: unknown = await call.then(
    () => {
      throw new Error('expected the call to be refused');
    },
    (thrown: unknown) => thrown,
  );
  return String((error as { data?: { error?: unknown } }).data?.error);
}

function ruleOf(id: string) {
  const rule = SLACK_RULES.find((row) => row.id === id);
  if (!rule) throw new Error(`no rule ${id}`);
  return rule;
}

describe('messages-tab', () => {
  it('cites chat.postMessage and the App Home docs', () => {
    expect(ruleOf('messages-tab').source).toContain('messages_tab_disabled');
  });

  it("opens the app's DM when the Messages tab is on: a post to a user id lands in D<user>", async () => {
    const slack = await start({ app: { messagesTab: true } });
    const posted = await clientFor(slack).chat.postMessage({ channel: ALICE, text: 'hello' });
    expect(posted.channel).toBe(`D${ALICE}`);
    expect(slack.store.lastMessage(`D${ALICE}`)?.text).toBe('hello');
  });

  it('answers messages_tab_disabled with the tab off, to the user id and to the DM channel, and posts nothing', async () => {
    const slack = await start({ app: { messagesTab: false } });
    const client = clientFor(slack);
    expect(await refusalOf(client.chat.postMessage({ channel: ALICE, text: 'hello' }))).toBe(
      'messages_tab_disabled',
    );
    expect(await refusalOf(client.chat.postMessage({ channel: `D${ALICE}`, text: 'hello' }))).toBe(
      'messages_tab_disabled',
    );
    expect(slack.store.messages(`D${ALICE}`)).toEqual([]);
    expect((await client.chat.postMessage({ channel: OPS, text: 'channels are not affected' })).ok).toBe(
      true,
    );
  });

  it('takes the setting from the app manifest, which enables the tab', async () => {
    expect(appSettingsFromManifest('features:\n  bot_user:\n    display_name: x\n').messagesTab).toBe(false);
    const manifest = readFileSync('infra/slack-app-manifest.yml', 'utf8');
    expect(appSettingsFromManifest(manifest).messagesTab).toBe(true);
    const slack = await start();
    expect(slack.settings.messagesTab).toBe(true);
  });

  it('follows a change of the setting while running', async () => {
    const slack = await start();
    slack.settings.messagesTab = false;
    expect(await refusalOf(clientFor(slack).chat.postMessage({ channel: ALICE, text: 'x' }))).toBe(
      'messages_tab_disabled',
    );
  });
});

describe('trigger-id', () => {
  const plain = (text: string) => ({ type: 'plain_text' as const, text });
  const modal = {
    type: 'modal' as const,
    title: plain('Log in'),
    blocks: [{ type: 'section', text: plain('x') }],
  };

  it('opens one view with a trigger it issued, within three seconds', async () => {
    const slack = await start();
    const trigger = slack.triggerIdFor(ALICE);
    now += 2_900;
    expect((await clientFor(slack).views.open({ trigger_id: trigger, view: modal })).ok).toBe(true);
  });

  it('answers exchanged_trigger_id for a trigger used once already', async () => {
    const slack = await start();
    const client = clientFor(slack);
    const trigger = slack.triggerIdFor(ALICE);
    await client.views.open({ trigger_id: trigger, view: modal });
    expect(await refusalOf(client.views.open({ trigger_id: trigger, view: modal }))).toBe(
      'exchanged_trigger_id',
    );
    expect(await refusalOf(client.views.push({ trigger_id: trigger, view: modal }))).toBe(
      'exchanged_trigger_id',
    );
  });

  it('answers expired_trigger_id four seconds after the interaction', async () => {
    const slack = await start();
    const trigger = slack.triggerIdFor(ALICE);
    now += 4_000;
    expect(await refusalOf(clientFor(slack).views.open({ trigger_id: trigger, view: modal }))).toBe(
      'expired_trigger_id',
    );
    expect(slack.store.views()).toEqual([]);
  });

  it('answers invalid_trigger_id for an id it never issued', async () => {
    const slack = await start();
    const madeUp = '398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    expect(await refusalOf(clientFor(slack).views.open({ trigger_id: madeUp, view: modal }))).toBe(
      'invalid_trigger_id',
    );
  });
});
