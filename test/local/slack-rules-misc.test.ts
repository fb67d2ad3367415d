import { readFileSync } from 'node:fs';
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { appSettingsFromManifest } from '../../infra/local/slack/app-settings.js';
import { SLACK_RULES } from '../../infra/local/slack/rules.js';
import {
  type SlackStandIn,
  type SlackStandInOptions,
  startSlackStandIn,
} from '../../infra/local/slack/server.js';
import { quietLogger } from '../support/slack-client.js';

/**
 * Rules of `infra/local/slack/rules.ts`, each tested on the stand-in by itself: one `describe`
 * per rule id. The bot's side of each rule is tested with the bot (see the tests named there).
 */

const START = Date.parse('2025-01-15T09:00:00Z');
const OPS = 'C0OPS';
const ALICE = 'U0ALICE';

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

describe('rate-limit-tiers', () => {
  /** One raw call, to see Slack's status and Retry-After as they come. */
  async function call(slack: SlackStandIn, method: string, args: Record<string, string>) {
    const response = await fetch(`${slack.apiUrl}${method}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${slack.botToken}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(args).toString(),
    });
    const body = (await response.json()) as { ok: boolean; error?: string };
    return { status: response.status, retryAfter: response.headers.get('retry-after'), ...body };
  }

  it('gives every method the bot calls a documented tier, except the special chat.postMessage and the history methods', async () => {
    const { METHOD_TIERS } = await import('../../infra/local/slack/rate-limit.js');
    expect(METHOD_TIERS['usergroups.users.list']).toBe(2);
    expect(METHOD_TIERS['views.open']).toBe(4);
    expect(METHOD_TIERS['chat.update']).toBe(3);
    expect(METHOD_TIERS['users.info']).toBe(4);
    expect(Object.hasOwn(METHOD_TIERS, 'chat.postMessage')).toBe(false);
    expect(Object.hasOwn(METHOD_TIERS, 'conversations.history')).toBe(false);
  });

  it('is off unless asked for', async () => {
    const slack = await start();
    for (let i = 0; i < 25; i++) {
      expect((await call(slack, 'usergroups.users.list', { usergroup: 'S0ONCALL' })).ok).toBe(true);
    }
  });

  it('answers the 21st Tier 2 call of a minute with 429 and Retry-After, and lets it through once that has passed', async () => {
    const slack = await start({ methodTiers: true });
    for (let i = 0; i < 20; i++) {
      expect((await call(slack, 'usergroups.users.list', { usergroup: 'S0ONCALL' })).ok).toBe(true);
    }
    const limited = await call(slack, 'usergroups.users.list', { usergroup: 'S0ONCALL' });
    expect(limited).toMatchObject({ status: 429, ok: false, error: 'ratelimited', retryAfter: '3' });
    // Other methods have their own allowance.
    expect((await call(slack, 'users.info', { user: ALICE })).ok).toBe(true);
    now += 3_000;
    expect((await call(slack, 'usergroups.users.list', { usergroup: 'S0ONCALL' })).ok).toBe(true);
  });

  it('lets a test make chosen methods answer 429, for a number of calls or until stopped', async () => {
    const slack = await start();
    slack.injectRateLimit({ methods: ['views.open', 'chat.update'], retryAfterSeconds: 9, times: 1 });
    const client = new WebClient(slack.botToken, {
      slackApiUrl: slack.apiUrl,
      retryConfig: { retries: 0 },
      logger: quietLogger,
      rejectRateLimitedCalls: true,
    });
    const plain = (text: string) => ({ type: 'plain_text' as const, text });
    const view = {
      type: 'modal' as const,
      title: plain('x'),
      blocks: [{ type: 'section', text: plain('x') }],
    };
    await expect(client.views.open({ trigger_id: slack.triggerIdFor(ALICE), view })).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 9,
    });
    expect((await client.views.open({ trigger_id: slack.triggerIdFor(ALICE), view })).ok).toBe(true);
    expect((await call(slack, 'chat.postMessage', { channel: OPS, text: 'not chosen' })).ok).toBe(true);
    slack.injectRateLimit({ methods: ['chat.postMessage'], retryAfterSeconds: 2 });
    expect(await call(slack, 'chat.postMessage', { channel: OPS, text: 'x' })).toMatchObject({
      status: 429,
      retryAfter: '2',
    });
    expect(await call(slack, 'chat.postMessage', { channel: OPS, text: 'x' })).toMatchObject({ status: 429 });
    slack.injectRateLimit(undefined);
    expect((await call(slack, 'chat.postMessage', { channel: OPS, text: 'x' })).ok).toBe(true);
  });
});

describe('ephemeral-response-url', () => {
  function respond(url: string, body: unknown): Promise<Response> {
    return fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  it("does not replace a slash command's first ephemeral reply: replace_original posts a new ephemeral message", async () => {
    const slack = await start();
    const url = slack.responseUrlFor(OPS, ALICE);
    slack.acknowledge(url, { text: 'Working…' });
    expect((await respond(url, { text: 'Done', replace_original: true })).status).toBe(200);
    expect(slack.store.ephemeralFor(ALICE, OPS).map((m) => m.text)).toEqual(['Working…', 'Done']);
  });

  it("does nothing for delete_original on a slash command's response_url", async () => {
    const slack = await start();
    const url = slack.responseUrlFor(OPS, ALICE);
    slack.acknowledge(url, { text: 'Working…' });
    await respond(url, { text: 'Later reply' });
    expect((await respond(url, { delete_original: true })).status).toBe(200);
    expect(slack.store.ephemeralFor(ALICE, OPS).map((m) => m.text)).toEqual(['Working…', 'Later reply']);
  });

  it('replaces and deletes the message a click came from, as documented for interactive messages', async () => {
    const slack = await start();
    const client = clientFor(slack);
    const card = await client.chat.postMessage({ channel: OPS, text: 'Approve?' });
    const url = slack.responseUrlFor(OPS, ALICE, { triggeredBy: { messageTs: card.ts ?? '' } });
    await respond(url, { text: 'Approved', replace_original: true });
    expect(slack.store.messages(OPS).map((m) => [m.ts, m.text])).toEqual([[card.ts, 'Approved']]);
    await respond(url, { delete_original: true });
    expect(slack.store.messages(OPS)).toEqual([]);
  });
});

describe('escaping', () => {
  it('escapes people, channels, groups, special mentions and links that Slack knows, and &, <, >', async () => {
    const slack = await start();
    const { escapeCommandText } = await import('../../infra/local/slack/escaping.js');
    expect(escapeCommandText('approvals policy --approvers @alice,@bob', slack.store)).toBe(
      'approvals policy --approvers <@U0ALICE|alice>,<@U0BOB|bob>',
    );
    expect(escapeCommandText('reports add issues #ops', slack.store)).toBe('reports add issues <#C0OPS|ops>');
    expect(escapeCommandText('--approver-group @oncall', slack.store)).toBe(
      '--approver-group <!subteam^S0ONCALL|@oncall>',
    );
    expect(escapeCommandText('@here see https://example.com/a?b=1', slack.store)).toBe(
      '<!here> see <https://example.com/a?b=1>',
    );
    expect(escapeCommandText('a <b> & c', slack.store)).toBe('a &lt;b&gt; &amp; c');
  });

  it('leaves names it does not know, and addresses that are not mentions, as typed', async () => {
    const slack = await start();
    const { escapeCommandText } = await import('../../infra/local/slack/escaping.js');
    expect(escapeCommandText('@nobody #nowhere ops@example.com', slack.store)).toBe(
      '@nobody #nowhere ops@example.com',
    );
  });
});

describe('free-plan-usergroups', () => {
  it('lists a user group on a Standard plan (the default)', async () => {
    const slack = await start();
    expect((await clientFor(slack).usergroups.users.list({ usergroup: 'S0ONCALL' })).users).toEqual([
      'U0ADMIN',
      ALICE,
    ]);
  });

  it('answers plan_upgrade_required on the free plan, set at start or while running', async () => {
    const free = await start({ app: { plan: 'free' } });
    expect(await refusalOf(clientFor(free).usergroups.users.list({ usergroup: 'S0ONCALL' }))).toBe(
      'plan_upgrade_required',
    );
    await free.close();
    const slack = await start();
    slack.settings.plan = 'free';
    expect(await refusalOf(clientFor(slack).usergroups.users.list({ usergroup: 'S0ONCALL' }))).toBe(
      'plan_upgrade_required',
    );
  });
});

describe('token-rotation', () => {
  const app = {
    clientId: 'local.client',
    clientSecret: 'secret',
    redirectUri: 'http://127.0.0.1:9/redirect',
  };

  async function installed(slack: SlackStandIn) {
    const redirect = slack.oauth.decide(
      new URLSearchParams({ client_id: app.clientId, team: 'T0SECOND', decision: 'allow' }),
    );
    if (redirect.kind !== 'redirect') throw new Error('not allowed');
    const code = new URL(redirect.location).searchParams.get('code') ?? '';
    return slack.oauth.access({ client_id: app.clientId, client_secret: app.clientSecret, code });
  }

  const refresh = (slack: SlackStandIn, token: unknown) =>
    slack.oauth.access({
      client_id: app.clientId,
      client_secret: app.clientSecret,
      grant_type: 'refresh_token',
      refresh_token: token,
    });

  it('issues bot tokens that expire after 12 hours', async () => {
    const { ROTATING_TOKEN_SECONDS } = await import('../../infra/local/slack/oauth.js');
    const slack = await start({ oauthApp: { ...app, tokenExpiresInSeconds: ROTATING_TOKEN_SECONDS } });
    const first = await installed(slack);
    expect(first).toMatchObject({ ok: true, expires_in: 43_200 });
    const token = String(first.access_token);
    now += (43_200 - 1) * 1000;
    expect(slack.oauth.stateOf(token)).toBe('valid');
    now += 1000;
    expect(slack.oauth.stateOf(token)).toBe('expired');
    const client = new WebClient(token, {
      slackApiUrl: slack.apiUrl,
      retryConfig: { retries: 0 },
      logger: quietLogger,
    });
    expect(await refusalOf(client.auth.test())).toBe('token_expired');
  });

  it('takes each refresh token once: the same one again answers invalid_refresh_token; the new one works', async () => {
    const slack = await start({ oauthApp: { ...app, tokenExpiresInSeconds: 43_200 } });
    const first = await installed(slack);
    const renewed = refresh(slack, first.refresh_token);
    expect(renewed).toMatchObject({ ok: true, token_type: 'bot' });
    expect(renewed.refresh_token).not.toBe(first.refresh_token);
    expect(refresh(slack, first.refresh_token)).toEqual({ ok: false, error: 'invalid_refresh_token' });
    expect(refresh(slack, renewed.refresh_token)).toMatchObject({ ok: true });
  });
});

describe('user-conversations', () => {
  const ids = (answer: { channels?: { id?: string }[] }) =>
    (answer.channels ?? []).map((channel) => channel.id);

  it("lists the bot's own channels by default, public ones only unless asked", async () => {
    const slack = await start();
    slack.store.createChannel({
      id: 'G0SECRET',
      name: 'secret',
      is_private: true,
      members: [ALICE, 'U0CLOUDBOT'],
    });
    slack.store.createChannel({ id: 'C0QUIET', name: 'quiet', members: [ALICE] });
    const client = clientFor(slack);
    expect(ids(await client.users.conversations({}))).toEqual(['C0GENERAL', OPS]);
    expect(ids(await client.users.conversations({ types: 'public_channel,private_channel' }))).toEqual([
      'C0GENERAL',
      OPS,
      'G0SECRET',
    ]);
  });

  it("lists a person's channels with user, a private one only where the bot is too", async () => {
    const slack = await start();
    slack.store.createChannel({
      id: 'G0SHARED',
      name: 'shared',
      is_private: true,
      members: [ALICE, 'U0CLOUDBOT'],
    });
    slack.store.createChannel({ id: 'G0HIDDEN', name: 'hidden', is_private: true, members: [ALICE] });
    slack.store.createChannel({ id: 'C0QUIET', name: 'quiet', members: [ALICE] });
    slack.store.removeMember(OPS, ALICE);
    const answer = await clientFor(slack).users.conversations({
      user: ALICE,
      types: 'public_channel,private_channel',
    });
    expect(ids(answer)).toEqual(['C0GENERAL', 'G0SHARED', 'C0QUIET']);
  });

  it('leaves out archived channels with exclude_archived, and the other workspace’s channels', async () => {
    const slack = await start();
    slack.store.archiveChannel('C0GENERAL');
    const client = clientFor(slack);
    expect(ids(await client.users.conversations({ user: ALICE }))).toEqual(['C0GENERAL', OPS]);
    expect(ids(await client.users.conversations({ user: ALICE, exclude_archived: true }))).toEqual([OPS]);
  });

  it('pages by an opaque cursor, empty on the last page', async () => {
    const slack = await start();
    const client = clientFor(slack);
    const first = await client.users.conversations({ limit: 1 });
    expect(ids(first)).toEqual(['C0GENERAL']);
    const second = await client.users.conversations({
      limit: 1,
      cursor: first.response_metadata?.next_cursor ?? '',
    });
    expect(ids(second)).toEqual([OPS]);
    expect(second.response_metadata?.next_cursor).toBe('');
    expect(await refusalOf(client.users.conversations({ cursor: 'bm90IGEgbnVtYmVy' }))).toBe(
      'invalid_cursor',
    );
  });

  it('needs the read scope of each type asked for, and refuses unknown types and limits', async () => {
    const slack = await start({ botScopes: ['channels:read'] });
    const client = clientFor(slack);
    expect(await refusalOf(client.users.conversations({ types: 'private_channel' }))).toBe('missing_scope');
    expect(await refusalOf(client.users.conversations({ types: 'shared_channel' }))).toBe('invalid_types');
    expect(await refusalOf(client.users.conversations({ limit: 1000 }))).toBe('invalid_limit');
    expect(await refusalOf(client.users.conversations({ user: 'U0NOBODY' }))).toBe('user_not_found');
  });
});
