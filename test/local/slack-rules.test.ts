import { afterEach, describe, expect, it } from 'vitest';
import {
  type SlackStandIn,
  type SlackStandInOptions,
  startSlackStandIn,
} from '../../infra/local/slack/server.js';
import { BOT_SCOPES } from '../../lib/slack-kit/app-scopes.js';

/**
 * The stand-in by itself against each rule of `infra/local/slack/rules.ts` (one `describe` per
 * rule id): what a real workspace answers, called over HTTP as the bot calls it.
 */

const START = Date.parse('2025-01-15T09:00:00Z');
const ALICE = 'U0ALICE';
const BOT = 'U0CLOUDBOT';
/** Seeded with the bot as a member. */
const OPS = 'C0OPS';

let standIn: SlackStandIn | undefined;

async function start(options: SlackStandInOptions = {}): Promise<SlackStandIn> {
  standIn = await startSlackStandIn({ now: () => START, ...options });
  return standIn;
}

afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

type Answer = { ok: boolean; error?: string } & Record<string, unknown>;

async function call(
  slack: SlackStandIn,
  method: string,
  args: Record<string, unknown>,
  token = slack.botToken,
): Promise<Answer> {
  const response = await fetch(`${slack.apiUrl}${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${token}` },
    body: JSON.stringify(args),
  });
  return (await response.json()) as Answer;
}

const post = (slack: SlackStandIn, channel: string) =>
  call(slack, 'chat.postMessage', { channel, text: 'hello' });

describe('membership', () => {
  it('answers channel_not_found for a channel nobody created', async () => {
    const slack = await start();
    expect((await post(slack, 'C0NOWHERE')).error).toBe('channel_not_found');
    expect((await call(slack, 'conversations.info', { channel: 'C0NOWHERE' })).error).toBe(
      'channel_not_found',
    );
  });

  it('answers not_in_channel for a public channel the bot is not in, and posts once it is invited', async () => {
    const slack = await start();
    const random = slack.store.createChannel({ id: 'C0RANDOM', name: 'random' });

    expect((await post(slack, random.id)).error).toBe('not_in_channel');
    expect(slack.store.messages(random.id)).toHaveLength(0);
    expect((await call(slack, 'conversations.history', { channel: random.id })).error).toBe('not_in_channel');

    slack.store.inviteBot(random.id);
    expect(await post(slack, random.id)).toMatchObject({ ok: true, channel: random.id });
  });

  it('lets a token with chat:write.public post to a public channel it is not in, and nothing more', async () => {
    const slack = await start({ botScopes: [...BOT_SCOPES, 'chat:write.public'] });
    const random = slack.store.createChannel({ id: 'C0RANDOM', name: 'random' });

    const posted = await post(slack, random.id);
    expect(posted.ok).toBe(true);
    expect(
      (await call(slack, 'chat.update', { channel: random.id, ts: posted.ts, text: 'changed' })).error,
    ).toBe('not_in_channel');
    expect(
      (await call(slack, 'chat.postEphemeral', { channel: random.id, user: ALICE, text: 'psst' })).error,
    ).toBe('not_in_channel');
  });

  it('answers channel_not_found for a private channel the bot is not in, even to conversations.info', async () => {
    const slack = await start({ botScopes: [...BOT_SCOPES, 'chat:write.public'] });
    const secret = slack.store.createChannel({ id: 'G0SECRET', name: 'secret', is_private: true });

    expect((await post(slack, secret.id)).error).toBe('channel_not_found');
    expect((await call(slack, 'conversations.info', { channel: secret.id })).error).toBe('channel_not_found');
    slack.store.inviteBot(secret.id);
    expect((await post(slack, secret.id)).ok).toBe(true);
  });

  it('refuses chat.update once the bot was removed from the channel', async () => {
    const slack = await start();
    const posted = await post(slack, OPS);
    slack.store.kickBot(OPS);
    expect((await call(slack, 'chat.update', { channel: OPS, ts: posted.ts, text: 'x' })).error).toBe(
      'not_in_channel',
    );
  });

  it('shows an ephemeral message only to a user in the channel', async () => {
    const slack = await start();
    const team = slack.store.createChannel({ id: 'C0TEAM', name: 'team', members: [BOT] });
    expect(
      (await call(slack, 'chat.postEphemeral', { channel: team.id, user: ALICE, text: 'psst' })).error,
    ).toBe('user_not_in_channel');
    slack.store.addMember(team.id, ALICE);
    expect(
      (await call(slack, 'chat.postEphemeral', { channel: team.id, user: ALICE, text: 'psst' })).ok,
    ).toBe(true);
  });

  it('reports is_member truthfully and needs channels:read for a public channel', async () => {
    const slack = await start();
    const random = slack.store.createChannel({ id: 'C0RANDOM', name: 'random' });
    expect(await call(slack, 'conversations.info', { channel: random.id })).toMatchObject({
      ok: true,
      channel: { id: random.id, is_member: false, is_archived: false, is_private: false },
    });
    expect(await call(slack, 'conversations.info', { channel: OPS })).toMatchObject({
      channel: { is_member: true },
    });
    await slack.close();

    const withoutRead = await start({ botScopes: BOT_SCOPES.filter((scope) => scope !== 'channels:read') });
    expect(await call(withoutRead, 'conversations.info', { channel: OPS })).toMatchObject({
      ok: false,
      error: 'missing_scope',
      needed: 'channels:read',
    });
  });
});

describe('archived', () => {
  it('answers is_archived to posts, updates and uploads, and reports it in conversations.info', async () => {
    const slack = await start();
    const posted = await post(slack, OPS);
    slack.store.archiveChannel(OPS);

    expect((await post(slack, OPS)).error).toBe('is_archived');
    expect((await call(slack, 'chat.update', { channel: OPS, ts: posted.ts, text: 'x' })).error).toBe(
      'is_archived',
    );
    expect((await call(slack, 'chat.postEphemeral', { channel: OPS, user: ALICE, text: 'psst' })).error).toBe(
      'is_archived',
    );
    const upload = await call(slack, 'files.getUploadURLExternal', { filename: 'a.txt', length: 1 });
    await fetch(String(upload.upload_url), { method: 'POST', body: 'a' });
    expect(
      (
        await call(slack, 'files.completeUploadExternal', {
          files: [{ id: upload.file_id }],
          channel_id: OPS,
        })
      ).error,
    ).toBe('is_archived');
    expect(await call(slack, 'conversations.info', { channel: OPS })).toMatchObject({
      channel: { is_archived: true, is_member: true },
    });
    expect((await call(slack, 'conversations.history', { channel: OPS })).ok).toBe(true);

    slack.store.unarchiveChannel(OPS);
    expect((await post(slack, OPS)).ok).toBe(true);
  });

  it('keeps a private archived channel the bot is not in hidden', async () => {
    const slack = await start();
    const secret = slack.store.createChannel({ id: 'G0SECRET', name: 'secret', is_private: true });
    slack.store.archiveChannel(secret.id);
    expect((await post(slack, secret.id)).error).toBe('channel_not_found');
  });
});

describe('join', () => {
  it('joins a public channel with channels:join, and Slack shows that it joined', async () => {
    const slack = await start();
    const random = slack.store.createChannel({ id: 'C0RANDOM', name: 'random' });

    const joined = await call(slack, 'conversations.join', { channel: random.id });
    expect(joined).toMatchObject({ ok: true, channel: { id: random.id, is_member: true } });
    expect(slack.store.lastMessage(random.id)?.text).toBe(`<@${BOT}> has joined the channel`);
    expect((await post(slack, random.id)).ok).toBe(true);

    expect(await call(slack, 'conversations.join', { channel: random.id })).toMatchObject({
      ok: true,
      warning: 'already_in_channel',
    });
  });

  it('answers missing_scope without channels:join', async () => {
    const slack = await start({ botScopes: BOT_SCOPES.filter((scope) => scope !== 'channels:join') });
    slack.store.createChannel({ id: 'C0RANDOM', name: 'random' });
    expect(await call(slack, 'conversations.join', { channel: 'C0RANDOM' })).toMatchObject({
      ok: false,
      error: 'missing_scope',
      needed: 'channels:join',
    });
    expect(slack.store.channel('C0RANDOM')?.members).not.toContain(BOT);
  });

  it('answers method_not_supported_for_channel_type for a private channel and is_archived for an archived one', async () => {
    const slack = await start();
    const secret = slack.store.createChannel({
      id: 'G0SECRET',
      name: 'secret',
      is_private: true,
      members: [ALICE, BOT],
    });
    expect((await call(slack, 'conversations.join', { channel: secret.id })).error).toBe(
      'method_not_supported_for_channel_type',
    );
    const old = slack.store.createChannel({ id: 'C0OLD', name: 'old' });
    slack.store.archiveChannel(old.id);
    expect((await call(slack, 'conversations.join', { channel: old.id })).error).toBe('is_archived');
    expect(slack.store.channel(old.id)?.members).not.toContain(BOT);
  });

  it('gives a token issued by "Add to Slack" the scopes its authorize request asked for', async () => {
    const slack = await start({
      oauthApp: { clientId: 'c1', clientSecret: 's1', redirectUri: 'http://localhost/back' },
    });
    slack.store.createChannel({ id: 'C0RANDOM', name: 'random' });
    const tokenWith = async (scope: string) => {
      const decided = slack.oauth.decide(
        new URLSearchParams({ client_id: 'c1', scope, team: 'T0LOCAL', decision: 'allow' }),
      );
      if (decided.kind !== 'redirect') throw new Error('not allowed');
      const code = new URL(decided.location).searchParams.get('code');
      const access = slack.oauth.access({ client_id: 'c1', client_secret: 's1', code });
      return String(access.access_token);
    };
    const narrow = await tokenWith('commands,chat:write');
    expect((await call(slack, 'conversations.join', { channel: 'C0RANDOM' }, narrow)).error).toBe(
      'missing_scope',
    );
    const wide = await tokenWith(BOT_SCOPES.join(','));
    expect((await call(slack, 'conversations.join', { channel: 'C0RANDOM' }, wide)).ok).toBe(true);
  });
});
