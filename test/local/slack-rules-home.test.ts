import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { appSettingsFromManifest } from '../../infra/local/slack/app-settings.js';
import { SLACK_RULES } from '../../infra/local/slack/rules.js';
import {
  type SlackStandIn,
  type SlackStandInOptions,
  startSlackStandIn,
} from '../../infra/local/slack/server.js';
import { SlackWorkspace } from '../../infra/local/slack/workspace.js';
import { quietLogger } from '../support/slack-client.js';

/**
 * The `home-tab` rule of `infra/local/slack/rules.ts`, tested on the stand-in by itself:
 * `views.publish`, the Home tab setting, the view's limits, `hash`, the method's tier, and what
 * Slack sends when a person opens the tab and clicks on it. The bot's side: `test/e2e/home-tab.test.ts`.
 */

const START = Date.parse('2025-01-15T09:00:00Z');
const ALICE = 'U0ALICE';

let now = START;
let standIn: SlackStandIn | undefined;
let receiver: Server | undefined;

async function start(options: SlackStandInOptions = {}): Promise<SlackStandIn> {
  now = START;
  standIn = await startSlackStandIn({ now: () => now, ...options });
  return standIn;
}

afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  receiver = undefined;
});

function clientFor(slack: SlackStandIn): WebClient {
  return new WebClient(slack.botToken, {
    slackApiUrl: slack.apiUrl,
    retryConfig: { retries: 0 },
    logger: quietLogger,
    rejectRateLimitedCalls: true,
  });
}

async function refusalOf(call: Promise<unknown>): Promise<string> {
  const error: unknown = await call.then(
    () => {
      throw new Error('expected the call to be refused');
    },
    (thrown: unknown) => thrown,
  );
  const { data, code } = error as { data?: { error?: unknown }; code?: string };
  return code === 'slack_webapi_rate_limited_error' ? 'ratelimited' : String(data?.error);
}

const section = (text: string) => ({ type: 'section' as const, text: { type: 'mrkdwn' as const, text } });
const homeOf = (count: number) => ({
  type: 'home' as const,
  blocks: Array.from({ length: count }, (_, i) => section(`line ${i}`)),
});

/** A bot's request URL that keeps what Slack sent it and answers 200. */
async function recordingBot(): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      bodies.push(body);
      response.end('');
    });
  });
  await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/slack/events`, bodies };
}

describe('home-tab', () => {
  it('cites views.publish, the view limits, the manifest setting and the event', () => {
    const rule = SLACK_RULES.find((row) => row.id === 'home-tab');
    expect(rule?.source).toContain('https://api.slack.com/methods/views.publish');
    expect(rule?.source).toContain('not_enabled');
    expect(rule?.source).toContain('home_tab_enabled');
    expect(rule?.source).toContain('https://api.slack.com/events/app_home_opened');
  });

  it('publishes one Home per person: a second publish replaces it under the same id with a new hash', async () => {
    const slack = await start();
    const client = clientFor(slack);
    const first = await client.views.publish({ user_id: ALICE, view: homeOf(1) });
    now += 1_000;
    const second = await client.views.publish({ user_id: ALICE, view: homeOf(2) });
    expect(second.view?.id).toBe(first.view?.id);
    expect(second.view?.hash).not.toBe(first.view?.hash);
    const stored = slack.store.homeView(slack.store.seed.team.id, ALICE);
    expect(stored?.view.blocks).toHaveLength(2);
    expect(stored?.history.map((h) => h.method)).toEqual(['views.publish', 'views.publish']);
  });

  it('answers not_enabled without the Home tab, and takes the setting from the manifest, which enables it', async () => {
    expect(appSettingsFromManifest('features:\n  app_home:\n    home_tab_enabled: false\n').homeTab).toBe(
      false,
    );
    const on = await start();
    expect(on.settings.homeTab).toBe(true);
    await on.close();
    const slack = await start({ app: { homeTab: false } });
    expect(await refusalOf(clientFor(slack).views.publish({ user_id: ALICE, view: homeOf(1) }))).toBe(
      'not_enabled',
    );
    expect(slack.store.homeView(slack.store.seed.team.id, ALICE)).toBeUndefined();
  });

  it('takes 100 blocks and refuses 101 with invalid_arguments, publishing nothing', async () => {
    const slack = await start();
    const client = clientFor(slack);
    expect((await client.views.publish({ user_id: ALICE, view: homeOf(100) })).ok).toBe(true);
    expect(await refusalOf(client.views.publish({ user_id: ALICE, view: homeOf(101) }))).toBe(
      'invalid_arguments',
    );
    expect(slack.store.homeView(slack.store.seed.team.id, ALICE)?.view.blocks).toHaveLength(100);
  });

  it('refuses a modal, an unknown user and a stale hash', async () => {
    const slack = await start();
    const client = clientFor(slack);
    const modal = { type: 'modal', title: { type: 'plain_text', text: 'x' }, blocks: [section('x')] };
    // biome-ignore lint/suspicious/noExplicitAny: a view Slack refuses, sent as a client would.
    expect(await refusalOf(client.views.publish({ user_id: ALICE, view: modal as any }))).toBe(
      'invalid_arguments',
    );
    expect(await refusalOf(client.views.publish({ user_id: 'U0NOBODY', view: homeOf(1) }))).toBe(
      'invalid_arguments',
    );
    const first = await client.views.publish({ user_id: ALICE, view: homeOf(1) });
    await client.views.publish({ user_id: ALICE, view: homeOf(2) });
    expect(
      await refusalOf(
        client.views.publish({ user_id: ALICE, view: homeOf(3), hash: String(first.view?.hash) }),
      ),
    ).toBe('hash_conflict');
  });

  it('is Tier 4: the 101st publish of a minute answers 429', async () => {
    const slack = await start({ methodTiers: true });
    const client = clientFor(slack);
    for (let i = 0; i < 100; i++) await client.views.publish({ user_id: ALICE, view: homeOf(1) });
    expect(await refusalOf(client.views.publish({ user_id: ALICE, view: homeOf(1) }))).toBe('ratelimited');
  });

  it('sends app_home_opened with the published view, and a Home click with container view and no channel or response_url', async () => {
    const slack = await start();
    const bot = await recordingBot();
    const workspace = new SlackWorkspace({
      standIn: slack,
      botUrl: bot.url,
      signingSecret: 'not-checked-by-the-recorder',
    });
    await workspace.openHome(ALICE);
    const firstOpen = JSON.parse(bot.bodies[0] ?? '{}') as { event: Record<string, unknown> };
    expect(firstOpen.event).toMatchObject({ type: 'app_home_opened', user: ALICE, tab: 'home' });
    expect(firstOpen.event.view).toBeUndefined();

    const button = {
      type: 'button' as const,
      action_id: 'x:go',
      text: { type: 'plain_text' as const, text: 'Go' },
      value: 'v',
    };
    await clientFor(slack).views.publish({
      user_id: ALICE,
      view: { type: 'home', blocks: [{ type: 'actions', elements: [button] }] },
    });
    await workspace.openHome(ALICE);
    const secondOpen = JSON.parse(bot.bodies[1] ?? '{}') as { event: { view?: { type?: string } } };
    expect(secondOpen.event.view?.type).toBe('home');

    const home = slack.store.homeView(slack.store.seed.team.id, ALICE);
    if (!home) throw new Error('no Home');
    await workspace.clickInView(ALICE, home, { actionId: 'x:go' });
    const click = JSON.parse(new URLSearchParams(bot.bodies[2] ?? '').get('payload') ?? '{}') as Record<
      string,
      unknown
    >;
    expect(click).toMatchObject({ type: 'block_actions', container: { type: 'view', view_id: home.id } });
    expect(click.channel).toBeUndefined();
    expect(click.response_url).toBeUndefined();
    expect((click.view as { id?: string }).id).toBe(home.id);
  });
});
