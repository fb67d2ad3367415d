import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type SlackStandIn,
  type SlackStandInOptions,
  startSlackStandIn,
} from '../../infra/local/slack/server.js';
import { quietLogger } from '../support/slack-client.js';

/**
 * The workspace's directory as Slack lists it (rules `conversations-list`, `users-list`,
 * `usergroups-list` of `infra/local/slack/rules.ts`), each tested on the stand-in by itself.
 */

const START = Date.parse('2025-01-15T09:00:00Z');
const ALICE = 'U0ALICE';
const BOT = 'U0CLOUDBOT';

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

const ids = (items: readonly { id?: string }[] | undefined) => (items ?? []).map((item) => item.id);

describe('conversations-list', () => {
  it("lists the workspace's public channels by default, the bot in them or not", async () => {
    const slack = await start();
    slack.store.createChannel({ id: 'C0QUIET', name: 'quiet', members: [ALICE] });
    const answer = await clientFor(slack).conversations.list({});
    expect(ids(answer.channels)).toEqual(['C0GENERAL', 'C0OPS', 'C0QUIET']);
    expect(answer.channels?.find((channel) => channel.id === 'C0QUIET')).toMatchObject({
      name: 'quiet',
      is_member: false,
      is_private: false,
    });
  });

  it('lists a private channel only where the bot is a member, and never another workspace’s', async () => {
    const slack = await start();
    slack.store.createChannel({ id: 'G0SHARED', name: 'shared', is_private: true, members: [ALICE, BOT] });
    slack.store.createChannel({ id: 'G0HIDDEN', name: 'hidden', is_private: true, members: [ALICE] });
    const answer = await clientFor(slack).conversations.list({ types: 'public_channel,private_channel' });
    expect(ids(answer.channels)).toEqual(['C0GENERAL', 'C0OPS', 'G0SHARED']);
  });

  it('lists archived channels as archived, and leaves them out with exclude_archived', async () => {
    const slack = await start();
    slack.store.archiveChannel('C0GENERAL');
    const client = clientFor(slack);
    const all = await client.conversations.list({});
    expect(all.channels?.[0]).toMatchObject({ id: 'C0GENERAL', is_archived: true });
    expect(ids((await client.conversations.list({ exclude_archived: true })).channels)).toEqual(['C0OPS']);
  });

  it('lists a renamed channel under its new name and the same id', async () => {
    const slack = await start();
    slack.store.renameChannel('C0OPS', 'operations');
    const answer = await clientFor(slack).conversations.list({});
    expect(answer.channels?.find((channel) => channel.id === 'C0OPS')?.name).toBe('operations');
  });

  it('pages by an opaque cursor, empty on the last page, and refuses a cursor it did not issue', async () => {
    const slack = await start();
    const client = clientFor(slack);
    const first = await client.conversations.list({ limit: 1 });
    expect(ids(first.channels)).toEqual(['C0GENERAL']);
    const second = await client.conversations.list({
      limit: 1,
      cursor: first.response_metadata?.next_cursor ?? '',
    });
    expect(ids(second.channels)).toEqual(['C0OPS']);
    expect(second.response_metadata?.next_cursor).toBe('');
    expect(await refusalOf(client.conversations.list({ cursor: 'bm90IGEgbnVtYmVy' }))).toBe('invalid_cursor');
  });

  it('takes a limit under 1000 only', async () => {
    const slack = await start();
    const client = clientFor(slack);
    expect((await client.conversations.list({ limit: 999 })).ok).toBe(true);
    expect(await refusalOf(client.conversations.list({ limit: 1000 }))).toBe('invalid_limit');
    expect(await refusalOf(client.conversations.list({ limit: 0 }))).toBe('invalid_limit');
  });

  it('needs the read scope of each type asked for, and refuses unknown types', async () => {
    const slack = await start({ botScopes: ['channels:read'] });
    const client = clientFor(slack);
    expect((await client.conversations.list({})).ok).toBe(true);
    expect(await refusalOf(client.conversations.list({ types: 'private_channel' }))).toBe('missing_scope');
    expect(await refusalOf(client.conversations.list({ types: 'shared_channel' }))).toBe('invalid_types');
  });
});

describe('users-list', () => {
  it('lists everyone with handle, real name and display name, deactivated people flagged deleted', async () => {
    const slack = await start();
    slack.store.addUser({
      id: 'U0CAROL',
      name: 'carol',
      real_name: 'Carol Oncall',
      display_name: 'Carol O.',
      is_admin: false,
      is_owner: false,
      is_bot: false,
      tz: 'UTC',
      tz_offset: 0,
    });
    slack.store.deactivateUser('U0BOB');
    const answer = await clientFor(slack).users.list({});
    expect(ids(answer.members)).toEqual(['U0ADMIN', ALICE, 'U0BOB', BOT, 'U0CAROL']);
    expect(answer.members?.find((member) => member.id === 'U0CAROL')).toMatchObject({
      name: 'carol',
      real_name: 'Carol Oncall',
      deleted: false,
      profile: { display_name: 'Carol O.', real_name: 'Carol Oncall' },
    });
    expect(answer.members?.find((member) => member.id === 'U0BOB')?.deleted).toBe(true);
    expect(answer.response_metadata?.next_cursor).toBe('');
  });

  it('pages by an opaque cursor when given a limit', async () => {
    const slack = await start();
    const client = clientFor(slack);
    const first = await client.users.list({ limit: 3 });
    expect(ids(first.members)).toEqual(['U0ADMIN', ALICE, 'U0BOB']);
    const second = await client.users.list({ limit: 3, cursor: first.response_metadata?.next_cursor ?? '' });
    expect(ids(second.members)).toEqual([BOT]);
    expect(second.response_metadata?.next_cursor).toBe('');
    expect(await refusalOf(client.users.list({ cursor: 'bm90IGEgbnVtYmVy' }))).toBe('invalid_cursor');
  });

  it('needs users:read', async () => {
    const slack = await start({ botScopes: ['channels:read'] });
    expect(await refusalOf(clientFor(slack).users.list({}))).toBe('missing_scope');
  });
});

describe('usergroups-list', () => {
  it('lists user groups with id and handle, and their members with include_users', async () => {
    const slack = await start();
    const client = clientFor(slack);
    const plain = await client.usergroups.list({});
    expect(plain.usergroups).toEqual([
      expect.objectContaining({ id: 'S0ONCALL', handle: 'oncall', date_delete: 0 }),
    ]);
    expect(plain.usergroups?.[0]?.users).toBeUndefined();
    const withUsers = await client.usergroups.list({ include_users: true, include_count: true });
    expect(withUsers.usergroups?.[0]).toMatchObject({ users: ['U0ADMIN', ALICE], user_count: 2 });
  });

  it('leaves out a disabled group unless include_disabled, and then shows it disabled', async () => {
    const slack = await start();
    slack.store.disableUsergroup('S0ONCALL');
    const client = clientFor(slack);
    expect((await client.usergroups.list({})).usergroups).toEqual([]);
    const all = await client.usergroups.list({ include_disabled: true });
    expect(all.usergroups?.[0]?.id).toBe('S0ONCALL');
    expect(all.usergroups?.[0]?.date_delete).toBeGreaterThan(0);
  });

  it('needs usergroups:read', async () => {
    const slack = await start({ botScopes: ['channels:read'] });
    expect(await refusalOf(clientFor(slack).usergroups.list({}))).toBe('missing_scope');
  });

  it('answers plan_upgrade_required on the free plan', async () => {
    const slack = await start({ app: { plan: 'free' } });
    expect(await refusalOf(clientFor(slack).usergroups.list({}))).toBe('plan_upgrade_required');
  });
});
