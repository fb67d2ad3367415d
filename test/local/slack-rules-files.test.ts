import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebClient } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SLACK_RULES } from '../../infra/local/slack/rules.js';
import {
  type SlackStandIn,
  type SlackStandInOptions,
  startSlackStandIn,
} from '../../infra/local/slack/server.js';
import { DEFAULT_FILE_PROCESSING_MS, type StoredView } from '../../infra/local/slack/store.js';
import { SlackWorkspace } from '../../infra/local/slack/workspace.js';
import { BOT_SCOPES } from '../../lib/slack-kit/app-scopes.js';
import { quietLogger } from '../support/slack-client.js';

/** The stand-in's rules on uploads and on history, each tested by itself (see `rules.ts`). */

const OPS = 'C0OPS';
const GENERAL = 'C0GENERAL';
const ALICE = 'U0ALICE';
const PNG_BYTES = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x01]);

let now = Date.parse('2026-11-26T09:00:00Z');
let standIn: SlackStandIn;
let running: SlackStandIn | undefined;

/** A stand-in with these options, in place of the one running. */
async function start(options: SlackStandInOptions = {}): Promise<void> {
  await running?.close();
  standIn = await startSlackStandIn({ now: () => now, ...options });
  running = standIn;
}

function client(token = standIn.botToken): WebClient {
  return new WebClient(token, {
    slackApiUrl: standIn.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logger: quietLogger,
  });
}

async function refusal(call: Promise<unknown>): Promise<{ error?: string; errors?: string[] }> {
  try {
    await call;
  } catch (error) {
    return (error as { data?: { error?: string; errors?: string[] } }).data ?? { error: String(error) };
  }
  throw new Error('the call was accepted');
}

async function upload(channel?: string, comment?: string): Promise<string> {
  const web = client();
  const { upload_url, file_id } = await web.files.getUploadURLExternal({
    filename: 'chart.png',
    length: PNG_BYTES.length,
  });
  await fetch(upload_url ?? '', { method: 'POST', body: PNG_BYTES });
  const answer = await web.files.completeUploadExternal({
    files: [{ id: file_id ?? '', title: 'Chart' }],
    ...(channel === undefined ? {} : { channel_id: channel }),
    ...(comment === undefined ? {} : { initial_comment: comment }),
  });
  expect(answer.files).toEqual([{ id: file_id, title: 'Chart' }]);
  return file_id ?? '';
}

const imageOf = (slackFile: Record<string, string>) => [
  { type: 'image', slack_file: slackFile, alt_text: 'chart' },
];

beforeEach(async () => {
  now = Date.parse('2026-11-26T09:00:00Z');
  await start();
});

afterEach(async () => {
  await running?.close();
  running = undefined;
});

it('names each of these rules in SLACK_RULES', () => {
  const ids = SLACK_RULES.map((rule) => rule.id);
  expect(ids).toEqual(
    expect.arrayContaining(['async-file-shares', 'history-caps', 'file-input', 'file-downloads']),
  );
});

describe('async-file-shares', () => {
  it('answers the completion without shares or a message, and shares the file once processed', async () => {
    const id = await upload(OPS, 'Stats of today');
    expect(standIn.store.messages(OPS)).toEqual([]);
    const before = await client().files.info({ file: id });
    expect(before.file).toMatchObject({ mimetype: '', channels: [] });
    expect(before.file?.shares).toBeUndefined();

    now += DEFAULT_FILE_PROCESSING_MS;
    const [message] = standIn.store.messages(OPS);
    expect(message).toMatchObject({ text: 'Stats of today', via: 'files.completeUploadExternal' });
    const after = await client().files.info({ file: id });
    expect(after.file).toMatchObject({ mimetype: 'image/png', channels: [OPS] });
    expect(after.file?.shares).toEqual({ public: { [OPS]: [{ ts: message?.ts }] } });
  });

  it('takes the processing time it is given', async () => {
    await start({ fileProcessingMs: 2000 });
    await upload(OPS);
    now += 1999;
    expect(standIn.store.messages(OPS)).toEqual([]);
    now += 1;
    expect(standIn.store.messages(OPS)).toHaveLength(1);
  });

  it('refuses an image of a file not processed yet, and shows it once it is', async () => {
    const id = await upload(OPS);
    const post = () => client().chat.postMessage({ channel: OPS, text: 'chart', blocks: imageOf({ id }) });
    expect(await refusal(post())).toEqual(
      expect.objectContaining({
        error: 'invalid_blocks',
        errors: ['invalid slack file [json-pointer:/blocks/0/slack_file]'],
      }),
    );
    now += DEFAULT_FILE_PROCESSING_MS;
    expect((await post()).ok).toBe(true);
  });

  it('refuses an image of a file that does not exist, by id or by url', async () => {
    expect(
      (
        await refusal(
          client().chat.postMessage({ channel: OPS, text: 'x', blocks: imageOf({ id: 'F0NOSUCHFILE' }) }),
        )
      ).error,
    ).toBe('invalid_blocks');
    const url = `${standIn.url}/files/F0NOSUCHFILE/chart.png`;
    expect(
      (await refusal(client().chat.postMessage({ channel: OPS, text: 'x', blocks: imageOf({ url }) }))).error,
    ).toBe('invalid_blocks');
  });

  it('refuses an image of a file shared in another channel, by id or by url', async () => {
    const id = await upload(GENERAL);
    now += DEFAULT_FILE_PROCESSING_MS;
    const url = (await client().files.info({ file: id })).file?.url_private ?? '';
    for (const slackFile of [{ id }, { url }]) {
      const answer = await refusal(
        client().chat.postMessage({ channel: OPS, text: 'x', blocks: imageOf(slackFile) }),
      );
      expect(answer.error).toBe('invalid_blocks');
    }
    expect(
      (await client().chat.postMessage({ channel: GENERAL, text: 'x', blocks: imageOf({ url }) })).ok,
    ).toBe(true);
  });

  it('keeps a file uploaded to no channel private to the uploader: no message shows it, ephemeral or not', async () => {
    const id = await upload();
    now += DEFAULT_FILE_PROCESSING_MS;
    expect(standIn.store.file(id)?.channels).toEqual([]);
    expect(
      (await refusal(client().chat.postMessage({ channel: OPS, text: 'x', blocks: imageOf({ id }) }))).error,
    ).toBe('invalid_blocks');
    expect(
      (
        await refusal(
          client().chat.postEphemeral({ channel: OPS, user: ALICE, text: 'x', blocks: imageOf({ id }) }),
        )
      ).error,
    ).toBe('invalid_blocks');
    const response = await fetch(standIn.responseUrlFor(OPS, ALICE), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'x', blocks: imageOf({ id }) }),
    });
    expect(await response.json()).toMatchObject({ ok: false, error: 'invalid_blocks' });
    expect(standIn.store.ephemeralFor(ALICE, OPS)).toEqual([]);
  });

  it('opens the DM with one person, where a shared file then shows', async () => {
    const { channel } = await client().conversations.open({ users: ALICE });
    const dm = channel?.id ?? '';
    const id = await upload(dm, 'Your chart');
    now += DEFAULT_FILE_PROCESSING_MS;
    expect(standIn.store.messages(dm)).toMatchObject([{ text: 'Your chart' }]);
    expect(standIn.store.file(id)?.channels).toEqual([dm]);
  });
});

describe('history-caps', () => {
  function chatter(channel: string, count: number): void {
    for (let i = 0; i < count; i++) {
      standIn.store.addMessage({
        channel,
        user: ALICE,
        text: `m${i}`,
        blocks: [],
        ephemeral: false,
        via: 'chat.postMessage',
      });
    }
  }

  it('gives a distributed install at most 15 messages a call, 15 by default', async () => {
    await start({ botTokenInstall: 'distributed' });
    chatter(OPS, 40);
    const asked = await client().conversations.history({ channel: OPS, limit: 200 });
    expect(asked.messages).toHaveLength(15);
    expect(asked.has_more).toBe(true);
    now += 60_000;
    expect((await client().conversations.history({ channel: OPS })).messages).toHaveLength(15);
  });

  it('allows a distributed install one call a minute per workspace, then answers 429 with Retry-After', async () => {
    await start({ botTokenInstall: 'distributed' });
    await client().conversations.history({ channel: OPS });
    now += 20_000;
    const refused = await client()
      .conversations.history({ channel: GENERAL })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'slack_webapi_rate_limited_error', retryAfter: 40 });
    now += 40_000;
    expect((await client().conversations.history({ channel: GENERAL })).ok).toBe(true);
  });

  it('treats a workspace installed through "Add to Slack" as distributed', async () => {
    const app = { clientId: 'c1', clientSecret: 's1', redirectUri: 'http://127.0.0.1/cb' };
    await start({ oauthApp: app });
    const form = new URLSearchParams({
      client_id: app.clientId,
      scope: 'channels:history',
      redirect_uri: app.redirectUri,
      team: standIn.store.seed.team.id,
      decision: 'allow',
    });
    const answer = standIn.oauth.decide(form);
    if (answer.kind !== 'redirect') throw new Error('not installed');
    const code = new URL(answer.location).searchParams.get('code');
    const issued = standIn.oauth.access({ client_id: app.clientId, client_secret: app.clientSecret, code });
    const token = String(issued.access_token);
    chatter(OPS, 20);
    expect((await client(token).conversations.history({ channel: OPS, limit: 100 })).messages).toHaveLength(
      15,
    );
    const refused = await client(token)
      .conversations.history({ channel: OPS })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'slack_webapi_rate_limited_error' });
  });

  it('keeps Tier 3 for an internal install: up to 999 messages, default 100, no per-minute cap', async () => {
    chatter(OPS, 150);
    expect((await client().conversations.history({ channel: OPS })).messages).toHaveLength(100);
    expect((await client().conversations.history({ channel: OPS, limit: 150 })).messages).toHaveLength(150);
  });
});

describe('file-downloads', () => {
  const get = (url: string, token?: string) =>
    fetch(url, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });

  async function sharedFileUrl(): Promise<string> {
    const id = await upload(OPS);
    now += DEFAULT_FILE_PROCESSING_MS;
    return (await client().files.info({ file: id })).file?.url_private ?? '';
  }

  it("serves the bytes to the bot token of the file's workspace with files:read, at url_private and url_private_download", async () => {
    const id = await upload(OPS);
    now += DEFAULT_FILE_PROCESSING_MS;
    const { file } = await client().files.info({ file: id });
    for (const url of [file?.url_private, file?.url_private_download]) {
      const answer = await get(url ?? '', standIn.botToken);
      expect(answer.status).toBe(200);
      expect(Buffer.from(await answer.arrayBuffer()).equals(PNG_BYTES)).toBe(true);
    }
    expect(standIn.store.callsTo('url_private').map((call) => call.ok)).toEqual([true, true]);
  });

  it("answers Slack's sign-in page (200, HTML), never the file, without a token or with an unknown one", async () => {
    const url = await sharedFileUrl();
    for (const token of [undefined, 'xoxb-nobody-issued-this']) {
      const answer = await get(url, token);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toContain('text/html');
      expect(await answer.text()).toContain('Sign in');
    }
    expect(standIn.store.callsTo('url_private').map((call) => call.error)).toEqual([
      'sign_in_page',
      'sign_in_page',
    ]);
  });

  it('answers the sign-in page to a bot token without files:read', async () => {
    await start({ botScopes: BOT_SCOPES.filter((scope) => scope !== 'files:read') });
    const answer = await get(await sharedFileUrl(), standIn.botToken);
    expect(answer.headers.get('content-type')).toContain('text/html');
  });

  it('answers the sign-in page to the bot of another workspace', async () => {
    standIn.store.putFile({
      id: 'F0ELSEWHERE1',
      name: 'theirs.txt',
      declaredLength: 5,
      bytes: Buffer.from('other'),
      completedAt: now,
      processedAt: now,
      channels: [],
      team: 'T0ELSEWHERE',
    });
    const answer = await get(`${standIn.url}/files/F0ELSEWHERE1/theirs.txt`, standIn.botToken);
    expect(answer.headers.get('content-type')).toContain('text/html');
    expect(await answer.text()).not.toContain('other');
  });

  it('answers 404 for a file that does not exist, and what failFileDownloads says while it lasts', async () => {
    const url = await sharedFileUrl();
    expect((await get(`${standIn.url}/files/F0NOSUCHFILE/chart.png`, standIn.botToken)).status).toBe(404);
    standIn.failFileDownloads({ status: 500, times: 1 });
    expect((await get(url, standIn.botToken)).status).toBe(500);
    expect((await get(url, standIn.botToken)).status).toBe(200);
  });
});

describe('file-input', () => {
  /** A bot that takes every submission and keeps its payload. */
  async function capturingBot(): Promise<{
    url: string;
    payloads: Record<string, unknown>[];
    close(): void;
  }> {
    const payloads: Record<string, unknown>[] = [];
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      request.on('end', () => {
        payloads.push(
          JSON.parse(new URLSearchParams(body).get('payload') ?? '{}') as Record<string, unknown>,
        );
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/`, payloads, close: () => server.close() };
  }

  function modalWithFileInput(element: Record<string, unknown>): StoredView {
    const view = {
      type: 'modal',
      title: { type: 'plain_text', text: 'Upload' },
      submit: { type: 'plain_text', text: 'Send' },
      blocks: [{ type: 'input', block_id: 'doc', label: { type: 'plain_text', text: 'File' }, element }],
    };
    return { id: 'V0UPLOAD', view } as unknown as StoredView;
  }

  it('sends the uploaded file in the submission as Slack describes files, stored in the workspace and shared nowhere', async () => {
    const bot = await capturingBot();
    try {
      const workspace = new SlackWorkspace({ standIn, botUrl: bot.url, signingSecret: 'unchecked' });
      const view = modalWithFileInput({
        type: 'file_input',
        action_id: 'file',
        filetypes: ['yaml'],
        max_files: 1,
      });
      const bytes = Buffer.from('settings: 1\n');
      await workspace.submitView(ALICE, view, { doc: { file: { files: [{ name: 'team.yaml', bytes }] } } });
      type Submitted = { view: { state: { values: Record<string, Record<string, unknown>> } } };
      const state = (bot.payloads[0] as Submitted).view.state.values;
      const value = state.doc?.file as { type: string; files: Record<string, unknown>[] };
      expect(value.type).toBe('file_input');
      expect(value.files).toHaveLength(1);
      const [file] = value.files;
      expect(file).toMatchObject({ name: 'team.yaml', size: bytes.length, user: ALICE, channels: [] });
      expect(String(file?.url_private)).toMatch(/\/files\/F[A-Z0-9]+\/team\.yaml$/);
      expect(String(file?.url_private_download)).toContain('/download/');
      expect(standIn.store.file(String(file?.id))?.bytes?.equals(bytes)).toBe(true);
    } finally {
      bot.close();
    }
  });

  it('lets a person upload neither more files than max_files, nor a type filetypes leaves out, nor one over 10 MB', async () => {
    const workspace = new SlackWorkspace({
      standIn,
      botUrl: 'http://127.0.0.1:9/',
      signingSecret: 'unchecked',
    });
    const view = modalWithFileInput({
      type: 'file_input',
      action_id: 'file',
      filetypes: ['yaml'],
      max_files: 1,
    });
    const small = Buffer.from('a: 1');
    const submit = (files: { name: string; bytes: Buffer }[]) =>
      workspace.submitView(ALICE, view, { doc: { file: { files } } });
    await expect(
      submit([
        { name: 'a.yaml', bytes: small },
        { name: 'b.yaml', bytes: small },
      ]),
    ).rejects.toThrow('at most 1');
    await expect(submit([{ name: 'a.exe', bytes: small }])).rejects.toThrow('yaml');
    await expect(submit([{ name: 'a.yaml', bytes: Buffer.alloc(10 * 1024 * 1024 + 1) }])).rejects.toThrow(
      '10 MB',
    );
    expect(standIn.store.files()).toEqual([]);
  });
});
