import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type SlackStandIn,
  type SlackStandInOptions,
  startSlackStandIn,
} from '../../infra/local/slack/server.js';
import type { StoreChange } from '../../infra/local/slack/store.js';
import { DEFAULT_FILE_PROCESSING_MS } from '../../infra/local/slack/store.js';
import { quietLogger } from '../support/slack-client.js';

const START = Date.parse('2025-01-15T09:00:00Z');
const OPS = 'C0OPS';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';

/** The client logs Slack's `[ERROR]` explanations of refusals; the tests assert on them instead. */

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
const plain = (text: string) => ({ type: 'plain_text' as const, text });
const approveButton = {
  type: 'actions',
  elements: [
    { type: 'button', text: plain('Approve'), action_id: 'approve', value: 'req-1', style: 'primary' },
  ],
};
const loginModal = (title = 'Log in') => ({
  type: 'modal' as const,
  callback_id: 'login',
  title: plain(title),
  submit: plain('Save'),
  blocks: [
    { type: 'input', label: plain('Token'), element: { type: 'plain_text_input', action_id: 'token' } },
  ],
});

let now = START;
let standIn: SlackStandIn;

async function start(options: SlackStandInOptions = {}): Promise<void> {
  standIn = await startSlackStandIn({ now: () => now, ...options });
}

function clientFor(
  token: string | undefined,
  options: { readonly rejectRateLimitedCalls?: boolean } = {},
): WebClient {
  return new WebClient(token, {
    slackApiUrl: standIn.apiUrl,
    retryConfig: { retries: 0 },
    logger: quietLogger,
    ...options,
  });
}

/** The refusal a Web API call ends with: Slack's error code and the body beside it. */
async function refusalOf(call: Promise<unknown>): Promise<Record<string, unknown>> {
  const error: unknown = await call.then(
    () => {
      throw new Error('expected the call to be refused');
    },
    (thrown: unknown) => thrown,
  );
  expect(error).toMatchObject({ code: 'slack_webapi_platform_error' });
  return (error as { data: Record<string, unknown> }).data;
}

function postToResponseUrl(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

beforeEach(async () => {
  now = START;
  await start();
});

afterEach(async () => {
  await standIn.close();
});

describe('auth', () => {
  it('answers auth.test for the bot token with the bot identity', async () => {
    const result = await clientFor(standIn.botToken).auth.test();
    expect(result).toMatchObject({
      ok: true,
      user_id: 'U0CLOUDBOT',
      bot_id: 'B0CLOUDBOT',
      team_id: 'T0LOCAL',
    });
  });
  it('refuses a wrong token with invalid_auth and posts nothing', async () => {
    const data = await refusalOf(clientFor('xoxb-wrong').chat.postMessage({ channel: OPS, text: 'hi' }));
    expect(data.error).toBe('invalid_auth');
    expect(standIn.store.messages(OPS)).toEqual([]);
  });
  it('refuses a call without a token with not_authed, over HTTP 200 like Slack', async () => {
    const response = await fetch(`${standIn.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ channel: OPS, text: 'hi' }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: false, error: 'not_authed' });
  });
  it('answers an unknown method with unknown_method', async () => {
    const data = await refusalOf(
      clientFor(standIn.botToken).apiCall('chat.scheduleMessage', { channel: OPS }),
    );
    expect(data.error).toBe('unknown_method');
  });
});

describe('chat.postMessage', () => {
  it('records the message with its blocks, thread and author, and answers ts and channel', async () => {
    const client = clientFor(standIn.botToken);
    const parent = await client.chat.postMessage({
      channel: OPS,
      text: 'Volumes',
      blocks: [section('*data* 20 GB')],
    });
    const reply = await client.chat.postMessage({
      channel: OPS,
      text: 'Approved by ada',
      thread_ts: parent.ts ?? '',
    });

    expect(parent).toMatchObject({
      ok: true,
      channel: OPS,
      message: { text: 'Volumes', bot_id: 'B0CLOUDBOT' },
    });
    expect(standIn.store.messages(OPS)).toMatchObject([
      {
        ts: parent.ts,
        text: 'Volumes',
        blocks: [section('*data* 20 GB')],
        botId: 'B0CLOUDBOT',
        ephemeral: false,
      },
      { ts: reply.ts, text: 'Approved by ada', thread_ts: parent.ts },
    ]);
    expect(standIn.store.thread(OPS, parent.ts ?? '')).toHaveLength(2);
  });
  it('logs the call without the token', async () => {
    await clientFor(standIn.botToken).chat.postMessage({ channel: OPS, text: 'hi' });
    const [call] = standIn.store.callsTo('chat.postMessage');
    expect(call).toMatchObject({
      method: 'chat.postMessage',
      ok: true,
      at: START,
      body: { channel: OPS, text: 'hi' },
    });
    expect(JSON.stringify(call)).not.toContain(standIn.botToken);
  });
  it('refuses invalid blocks with invalid_blocks and Slack’s explanation, posting nothing', async () => {
    const data = await refusalOf(
      clientFor(standIn.botToken).chat.postMessage({
        channel: OPS,
        text: 'long',
        blocks: [section('x'.repeat(3001))],
      }),
    );
    expect(data).toMatchObject({
      error: 'invalid_blocks',
      errors: ['must be less than 3001 characters [json-pointer:/blocks/0/text/text]'],
    });
    expect(standIn.store.messages(OPS)).toEqual([]);
  });
  it('refuses an unknown block type', async () => {
    const data = await refusalOf(
      clientFor(standIn.botToken).apiCall('chat.postMessage', {
        channel: OPS,
        blocks: [{ type: 'table_row' }],
      }),
    );
    expect(data.errors).toEqual(['unsupported type: table_row [json-pointer:/blocks/0/type]']);
  });
  it('refuses blocks over about 13,000 characters in total with msg_blocks_too_long', async () => {
    const blocks = Array.from({ length: 5 }, () => section('y'.repeat(2900)));
    const data = await refusalOf(
      clientFor(standIn.botToken).chat.postMessage({ channel: OPS, text: 'x', blocks }),
    );
    expect(data.error).toBe('msg_blocks_too_long');
  });
  it('refuses a message without text or blocks with no_text', async () => {
    const data = await refusalOf(clientFor(standIn.botToken).apiCall('chat.postMessage', { channel: OPS }));
    expect(data.error).toBe('no_text');
  });
  it('accepts a JSON body, as the bot may send one', async () => {
    const response = await fetch(`${standIn.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        authorization: `Bearer ${standIn.botToken}`,
      },
      body: JSON.stringify({ channel: OPS, text: 'json', blocks: [section('json')] }),
    });
    expect(await response.json()).toMatchObject({ ok: true, channel: OPS });
    expect(standIn.store.lastMessage(OPS)?.blocks).toEqual([section('json')]);
  });
  it('answers channel_not_found for unseeded channels', async () => {
    const data = await refusalOf(
      clientFor(standIn.botToken).chat.postMessage({ channel: 'C0NOWHERE', text: 'hi' }),
    );
    expect(data.error).toBe('channel_not_found');
  });
});

describe('chat.postEphemeral', () => {
  it('shows the message only to its user', async () => {
    const result = await clientFor(standIn.botToken).chat.postEphemeral({
      channel: OPS,
      user: ALICE,
      text: 'Only you',
    });

    expect(result.message_ts).toBeTypeOf('string');
    expect(standIn.store.messages(OPS)).toEqual([]);
    expect(standIn.store.messages(OPS, { seenBy: BOB })).toEqual([]);
    expect(standIn.store.messages(OPS, { seenBy: ALICE })).toMatchObject([
      { text: 'Only you', ephemeral: true },
    ]);
    expect(standIn.store.ephemeralFor(ALICE)).toMatchObject([{ ts: result.message_ts, visibleTo: ALICE }]);
  });
});

describe('chat.update and chat.delete', () => {
  it('replaces the text and blocks of a message in place', async () => {
    const client = clientFor(standIn.botToken);
    const posted = await client.chat.postMessage({ channel: OPS, text: 'Pending', blocks: [approveButton] });
    now += 5000;
    const updated = await client.chat.update({
      channel: OPS,
      ts: posted.ts ?? '',
      text: 'Approved',
      blocks: [section('Approved by ada')],
    });

    expect(updated).toMatchObject({ ok: true, ts: posted.ts, text: 'Approved' });
    expect(standIn.store.messages(OPS)).toMatchObject([
      { ts: posted.ts, text: 'Approved', blocks: [section('Approved by ada')], updatedAt: START + 5000 },
    ]);
  });
  it('keeps the blocks when only the text changes', async () => {
    const client = clientFor(standIn.botToken);
    const posted = await client.chat.postMessage({ channel: OPS, text: 'Pending', blocks: [approveButton] });
    await client.chat.update({ channel: OPS, ts: posted.ts ?? '', text: 'Still pending' });
    expect(standIn.store.lastMessage(OPS)).toMatchObject({ text: 'Still pending', blocks: [approveButton] });
  });
  it('answers message_not_found for an unknown ts', async () => {
    const data = await refusalOf(
      clientFor(standIn.botToken).chat.update({ channel: OPS, ts: '1.000001', text: 'x' }),
    );
    expect(data.error).toBe('message_not_found');
  });
  it('deletes a message', async () => {
    const client = clientFor(standIn.botToken);
    const posted = await client.chat.postMessage({ channel: OPS, text: 'Working…' });
    await client.chat.delete({ channel: OPS, ts: posted.ts ?? '' });
    expect(standIn.store.messages(OPS)).toEqual([]);
  });
});

describe('views', () => {
  it('opens a modal with a trigger and records it under the id it answers', async () => {
    const trigger = standIn.triggerIdFor(ALICE);
    const result = await clientFor(standIn.botToken).views.open({ trigger_id: trigger, view: loginModal() });

    const id = result.view?.id ?? '';
    expect(result.view).toMatchObject({
      type: 'modal',
      callback_id: 'login',
      root_view_id: id,
      state: { values: {} },
    });
    expect(standIn.store.view(id)).toMatchObject({
      user: ALICE,
      closed: false,
      view: { title: plain('Log in') },
    });
  });
  it('updates a modal by view_id and keeps its history', async () => {
    const client = clientFor(standIn.botToken);
    const opened = await client.views.open({ trigger_id: standIn.triggerIdFor(ALICE), view: loginModal() });
    const id = opened.view?.id ?? '';
    await client.views.update({ view_id: id, view: loginModal('Token saved') });

    const stored = standIn.store.view(id);
    expect(stored?.view.title).toEqual(plain('Token saved'));
    expect(stored?.history.map((revision) => revision.method)).toEqual(['views.open', 'views.update']);
  });
  it('updates a modal by the external_id the bot gave it', async () => {
    const client = clientFor(standIn.botToken);
    const opened = await client.views.open({
      trigger_id: standIn.triggerIdFor(ALICE),
      view: { ...loginModal(), external_id: 'login-U0ALICE' },
    });
    const updated = await client.views.update({
      external_id: 'login-U0ALICE',
      view: loginModal('Checking token…'),
    });
    expect(updated.view).toMatchObject({ id: opened.view?.id, title: plain('Checking token…') });
  });
  it('refuses an update with a stale hash with hash_conflict', async () => {
    const client = clientFor(standIn.botToken);
    const opened = await client.views.open({ trigger_id: standIn.triggerIdFor(ALICE), view: loginModal() });
    await client.views.update({ view_id: opened.view?.id ?? '', view: loginModal('Second') });
    const data = await refusalOf(
      client.views.update({
        view_id: opened.view?.id ?? '',
        hash: opened.view?.hash ?? '',
        view: loginModal('Third'),
      }),
    );
    expect(data.error).toBe('hash_conflict');
  });
  it('refuses views.open without a trigger with invalid_arguments', async () => {
    const data = await refusalOf(clientFor(standIn.botToken).apiCall('views.open', { view: loginModal() }));
    expect(data.error).toBe('invalid_arguments');
  });
  it('refuses a trigger used twice, and one older than three seconds', async () => {
    const client = clientFor(standIn.botToken);
    const used = standIn.triggerIdFor(ALICE);
    await client.views.open({ trigger_id: used, view: loginModal() });
    expect((await refusalOf(client.views.open({ trigger_id: used, view: loginModal() }))).error).toBe(
      'exchanged_trigger_id',
    );

    const late = standIn.triggerIdFor(BOB);
    now += 3001;
    expect((await refusalOf(client.views.open({ trigger_id: late, view: loginModal() }))).error).toBe(
      'expired_trigger_id',
    );
  });
  it('refuses a modal title over 24 characters with invalid_arguments and Slack’s explanation', async () => {
    const data = await refusalOf(
      clientFor(standIn.botToken).views.open({
        trigger_id: standIn.triggerIdFor(ALICE),
        view: loginModal('x'.repeat(25)),
      }),
    );
    expect(data).toMatchObject({
      error: 'invalid_arguments',
      response_metadata: {
        messages: ['[ERROR] must be less than 25 characters [json-pointer:/view/title/text]'],
      },
    });
  });
  it('pushes views onto the modal up to a stack of three', async () => {
    const client = clientFor(standIn.botToken);
    const opened = await client.views.open({ trigger_id: standIn.triggerIdFor(ALICE), view: loginModal() });
    const rootId = opened.view?.id ?? '';
    const pushed = await client.views.push({
      trigger_id: standIn.triggerIdFor(ALICE, { viewId: rootId }),
      view: loginModal('Step 2'),
    });
    await client.views.push({
      trigger_id: standIn.triggerIdFor(ALICE, { viewId: rootId }),
      view: loginModal('Step 3'),
    });

    expect(pushed.view).toMatchObject({ root_view_id: rootId, previous_view_id: rootId });
    const data = await refusalOf(
      client.views.push({
        trigger_id: standIn.triggerIdFor(ALICE, { viewId: rootId }),
        view: loginModal('Step 4'),
      }),
    );
    expect(data.error).toBe('push_limit_reached');
  });
});

describe('directory', () => {
  it('answers users.info for a seeded user', async () => {
    const result = await clientFor(standIn.botToken).users.info({ user: 'U0ADMIN' });
    expect(result.user).toMatchObject({
      id: 'U0ADMIN',
      name: 'ada',
      real_name: 'Ada Admin',
      is_admin: true,
      is_owner: true,
      tz: 'UTC',
      tz_offset: 0,
    });
  });
  it('answers user_not_found for an unknown user', async () => {
    const data = await refusalOf(clientFor(standIn.botToken).users.info({ user: 'U0NOBODY' }));
    expect(data.error).toBe('user_not_found');
  });
  it('serves configured users and usergroups', async () => {
    await standIn.close();
    await start({
      seed: {
        team: { id: 'T1', name: 'Acme', domain: 'acme' },
        bot: { userId: 'U1BOT', botId: 'B1BOT', name: 'ops-bot' },
        users: [
          {
            id: 'U1CAROL',
            name: 'carol',
            real_name: 'Carol',
            is_admin: false,
            is_owner: false,
            is_bot: false,
            tz: 'Europe/Paris',
            tz_offset: 3600,
          },
        ],
        channels: [],
        usergroups: { S1DBA: ['U1CAROL'] },
      },
    });
    const client = clientFor(standIn.botToken);
    expect((await client.users.info({ user: 'U1CAROL' })).user?.tz).toBe('Europe/Paris');
    expect((await client.usergroups.users.list({ usergroup: 'S1DBA' })).users).toEqual(['U1CAROL']);
  });
  it('answers usergroups.users.list and conversations.info', async () => {
    const client = clientFor(standIn.botToken);
    expect((await client.usergroups.users.list({ usergroup: 'S0ONCALL' })).users).toEqual(['U0ADMIN', ALICE]);
    expect((await client.conversations.info({ channel: OPS })).channel).toMatchObject({
      id: OPS,
      name: 'ops',
    });
  });
});

describe('files upload flow', () => {
  const chart = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe, 0x80]);

  it('files.uploadV2 stores the bytes and posts a file message in the channel once processed', async () => {
    await clientFor(standIn.botToken).files.uploadV2({
      channel_id: OPS,
      file: chart,
      filename: 'cpu.png',
      title: 'CPU, last 24 hours',
      initial_comment: 'Stats for node 34',
    });
    expect(standIn.store.lastMessage(OPS)).toBeUndefined();
    now += DEFAULT_FILE_PROCESSING_MS;

    const message = standIn.store.lastMessage(OPS);
    expect(message).toMatchObject({ text: 'Stats for node 34', via: 'files.completeUploadExternal' });
    const [file] = message?.files ?? [];
    expect(file).toMatchObject({ name: 'cpu.png', title: 'CPU, last 24 hours', channels: [OPS] });
    expect(file?.bytes?.equals(chart)).toBe(true);
  });
  it('serves the uploaded bytes back from the file URL to the bot token (rule file-downloads)', async () => {
    const result = await clientFor(standIn.botToken).files.uploadV2({
      channel_id: OPS,
      file: chart,
      filename: 'a.png',
    });
    // uploadV2 answers with one files.completeUploadExternal result per destination.
    const { files: completions } = result as unknown as { files: Array<{ files: Array<{ id: string }> }> };
    const info = await clientFor(standIn.botToken).files.info({ file: completions[0]?.files[0]?.id ?? '' });
    const response = await fetch(info.file?.url_private ?? '', {
      headers: { authorization: `Bearer ${standIn.botToken}` },
    });
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await response.arrayBuffer()).equals(chart)).toBe(true);
  });
  it('accepts raw bytes PUT to the upload URL', async () => {
    const client = clientFor(standIn.botToken);
    const { upload_url, file_id } = await client.files.getUploadURLExternal({
      filename: 'log.txt',
      length: 5,
    });
    await fetch(upload_url ?? '', { method: 'PUT', body: 'hello' });
    await client.files.completeUploadExternal({ files: [{ id: file_id ?? '' }], channel_id: OPS });
    expect(standIn.store.file(file_id ?? '')?.bytes?.toString()).toBe('hello');
  });
  it('refuses to complete a file whose bytes never arrived', async () => {
    const client = clientFor(standIn.botToken);
    const { file_id } = await client.files.getUploadURLExternal({ filename: 'x.png', length: 3 });
    const data = await refusalOf(
      client.files.completeUploadExternal({ files: [{ id: file_id ?? '' }], channel_id: OPS }),
    );
    expect(data.error).toBe('file_not_found');
  });
});

describe('response_url', () => {
  it('posts ephemerally to the user by default and in the channel when asked', async () => {
    const url = standIn.responseUrlFor(OPS, ALICE);
    await postToResponseUrl(url, { text: 'Working…' });
    await postToResponseUrl(url, { text: 'Done', response_type: 'in_channel' });

    expect(standIn.store.messages(OPS)).toMatchObject([{ text: 'Done', ephemeral: false }]);
    expect(standIn.store.ephemeralFor(ALICE, OPS)).toMatchObject([{ text: 'Working…', visibleTo: ALICE }]);
  });
  it('is good for five posts; the sixth is refused with 404', async () => {
    const url = standIn.responseUrlFor(OPS, ALICE);
    const statuses: number[] = [];
    for (let use = 1; use <= 6; use += 1) {
      statuses.push((await postToResponseUrl(url, { text: `update ${use}` })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 404]);
    expect(standIn.store.ephemeralFor(ALICE)).toHaveLength(5);
    expect(standIn.store.callsTo('response_url').at(-1)).toMatchObject({ ok: false, error: 'used_up' });
  });
  it('still works just before thirty minutes and has expired after', async () => {
    const url = standIn.responseUrlFor(OPS, ALICE);
    now = START + 30 * 60 * 1000 - 1000;
    expect((await postToResponseUrl(url, { text: 'late but fine' })).status).toBe(200);
    now = START + 30 * 60 * 1000 + 1;
    const expired = await postToResponseUrl(url, { text: 'too late' });
    expect(expired.status).toBe(404);
    expect(await expired.json()).toEqual({ ok: false, error: 'expired_url' });
  });
  it('replaces the message the click came from with replace_original', async () => {
    const posted = await clientFor(standIn.botToken).chat.postMessage({
      channel: OPS,
      text: 'Delete volume 12?',
      blocks: [approveButton],
    });
    const url = standIn.responseUrlFor(OPS, ALICE, { triggeredBy: { messageTs: posted.ts ?? '' } });
    const response = await postToResponseUrl(url, { replace_original: true, text: 'Approved by alice' });

    expect(response.status).toBe(200);
    expect(standIn.store.messages(OPS, { includeEphemeral: true })).toMatchObject([
      { ts: posted.ts, text: 'Approved by alice', blocks: [], ephemeral: false },
    ]);
  });
  it("posts a new message for replace_original on a slash command's response_url (it has no message to replace)", async () => {
    const url = standIn.responseUrlFor(OPS, ALICE);
    await postToResponseUrl(url, { text: 'Working…' });
    await postToResponseUrl(url, { text: 'Volumes: 3', replace_original: true });
    expect(standIn.store.ephemeralFor(ALICE)).toMatchObject([{ text: 'Working…' }, { text: 'Volumes: 3' }]);
  });
  it('deletes the original message with delete_original', async () => {
    const posted = await clientFor(standIn.botToken).chat.postMessage({ channel: OPS, text: 'Pick one' });
    const url = standIn.responseUrlFor(OPS, ALICE, { triggeredBy: { messageTs: posted.ts ?? '' } });
    expect((await postToResponseUrl(url, { delete_original: true })).status).toBe(200);
    expect(standIn.store.messages(OPS)).toEqual([]);
  });
  it('refuses invalid blocks like the Web API does', async () => {
    const response = await postToResponseUrl(standIn.responseUrlFor(OPS, ALICE), {
      blocks: [{ type: 'header', text: plain('h'.repeat(151)) }],
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      ok: false,
      error: 'invalid_blocks',
      errors: ['must be less than 151 characters [json-pointer:/blocks/0/text/text]'],
    });
  });
});

describe('per-channel rate limit on chat.postMessage', () => {
  beforeEach(async () => {
    await standIn.close();
    await start({ rateLimit: { perSecond: 1, burst: 2 } });
  });

  it('allows the burst, then answers 429 with Retry-After and ratelimited', async () => {
    const client = clientFor(standIn.botToken, { rejectRateLimitedCalls: true });
    await client.chat.postMessage({ channel: OPS, text: '1' });
    await client.chat.postMessage({ channel: OPS, text: '2' });
    await expect(client.chat.postMessage({ channel: OPS, text: '3' })).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 1,
    });

    const raw = await fetch(`${standIn.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${standIn.botToken}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ channel: OPS, text: '4' }),
    });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('1');
    expect(await raw.json()).toEqual({ ok: false, error: 'ratelimited' });
    expect(standIn.store.messages(OPS).map((message) => message.text)).toEqual(['1', '2']);
  });
  it('limits each channel on its own and refills with time', async () => {
    const client = clientFor(standIn.botToken, { rejectRateLimitedCalls: true });
    for (const text of ['1', '2']) await client.chat.postMessage({ channel: OPS, text });
    await client.chat.postMessage({ channel: 'C0GENERAL', text: 'elsewhere' });
    now += 1000;
    await client.chat.postMessage({ channel: OPS, text: '3' });

    expect(standIn.store.posts(OPS)).toEqual([
      { channel: OPS, at: START, accepted: true },
      { channel: OPS, at: START, accepted: true },
      { channel: OPS, at: START + 1000, accepted: true },
    ]);
  });
});

describe('store', () => {
  it('tells subscribers about each change, for the page', async () => {
    const changes: StoreChange['kind'][] = [];
    standIn.store.on('change', (change) => changes.push(change.kind));
    await clientFor(standIn.botToken).chat.postMessage({ channel: OPS, text: 'hi' });
    standIn.store.reset();
    expect(changes).toEqual(['message_added', 'call', 'reset']);
    expect(standIn.store.messages(OPS)).toEqual([]);
  });
});
