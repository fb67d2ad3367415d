import { WebClient } from '@slack/web-api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type SlackStandIn, startSlackStandIn } from '../../infra/local/slack/server.js';
import type { SlackUser } from '../../infra/local/slack/store.js';
import { type Resolution, slackDirectory } from '../../lib/slack-kit/directory.js';
import { createSlackWebClient } from '../../lib/slack-kit/web-client.js';
import { quietLogger } from '../support/slack-client.js';

/**
 * The directory a settings document resolves its names with, against the Slack stand-in over real
 * HTTP: listings of more than one page, what the bot may not see, people who left, renamed
 * channels, the free plan, rate limits, and hostile names.
 */

const ALICE = 'U0ALICE';
const BOT = 'U0CLOUDBOT';

let slack: SlackStandIn;

beforeAll(async () => {
  slack = await startSlackStandIn({});
});

afterAll(async () => {
  await slack.close();
});

afterEach(() => {
  slack.store.reset();
  slack.injectRateLimit(undefined);
  slack.settings.plan = 'standard';
});

/** The project's own client: one brief retry, rate-limited calls handed back at once. */
const projectClient = () => createSlackWebClient(slack.botToken, slack.apiUrl);

function person(id: string, name: string, displayName: string): SlackUser {
  return {
    id,
    name,
    real_name: displayName,
    display_name: displayName,
    is_admin: false,
    is_owner: false,
    is_bot: false,
    tz: 'UTC',
    tz_offset: 0,
  };
}

/** What each input came to, shortly: `found C0OPS`, `unknown`, `deleted U0BOB`. */
const outcomes = (resolutions: readonly Resolution[]) =>
  resolutions.map((one) => ('id' in one ? `${one.kind} ${one.id}` : one.kind));

describe('the directory of a workspace with more than one page of channels and people', () => {
  it('reads every page of conversations.list and finds a channel on the last', async () => {
    for (let i = 0; i < 250; i++) slack.store.createChannel({ id: `C0MANY${i}`, name: `team-${i}` });
    const directory = slackDirectory(projectClient());
    expect(outcomes(await directory.channelIds(['#team-249', '#ops', 'team-0']))).toEqual([
      'found C0MANY249',
      'found C0OPS',
      'found C0MANY0',
    ]);
    expect(slack.store.callsTo('conversations.list')).toHaveLength(2);
  });

  it('reads every page of users.list and finds a person on the last', async () => {
    for (let i = 0; i < 250; i++) slack.store.addUser(person(`U0MANY${i}`, `person-${i}`, `Person ${i}`));
    const directory = slackDirectory(projectClient());
    expect(outcomes(await directory.userIds(['@person-249', '@alice']))).toEqual([
      'found U0MANY249',
      `found ${ALICE}`,
    ]);
    expect(slack.store.callsTo('users.list')).toHaveLength(2);
  });

  it('lists each kind once for the life of the directory, however often it is asked', async () => {
    const directory = slackDirectory(projectClient());
    await directory.channelIds(['#ops']);
    await directory.channelNames(['C0GENERAL']);
    await Promise.all([directory.userIds(['@alice']), directory.userNames([ALICE])]);
    expect(slack.store.callsTo('conversations.list')).toHaveLength(1);
    expect(slack.store.callsTo('users.list')).toHaveLength(1);
    expect(slack.store.callsTo('usergroups.list')).toHaveLength(0);
  });
});

describe('channels', () => {
  it('does not find a private channel the bot is not in, by name or by id', async () => {
    slack.store.createChannel({ id: 'G0SECRET', name: 'secret', is_private: true, members: [ALICE] });
    const directory = slackDirectory(projectClient());
    expect(outcomes(await directory.channelIds(['#secret', 'G0SECRET', '<#G0SECRET|secret>']))).toEqual([
      'unknown',
      'unknown',
      'unknown',
    ]);
  });

  it('finds a private channel the bot is in', async () => {
    slack.store.createChannel({ id: 'G0SHARED', name: 'shared', is_private: true, members: [ALICE, BOT] });
    expect(outcomes(await slackDirectory(projectClient()).channelIds(['#shared']))).toEqual([
      'found G0SHARED',
    ]);
  });

  it('resolves a renamed channel by its new name, and its id (or an old mention) to the new name', async () => {
    slack.store.renameChannel('C0OPS', 'operations');
    const directory = slackDirectory(projectClient());
    const [byNewName, byOldName, byMention] = await directory.channelIds([
      '#operations',
      '#ops',
      '<#C0OPS|ops>',
    ]);
    expect(byNewName).toMatchObject({
      kind: 'found',
      id: 'C0OPS',
      name: 'operations',
      written: '#operations',
    });
    expect(byOldName).toMatchObject({ kind: 'unknown' });
    expect(byMention).toMatchObject({ kind: 'found', name: 'operations' });
    expect(await directory.channelNames(['C0OPS'])).toEqual([
      { input: 'C0OPS', kind: 'found', id: 'C0OPS', name: 'operations', written: '#operations' },
    ]);
  });

  it('says a channel is archived, by name and by id', async () => {
    slack.store.archiveChannel('C0GENERAL');
    const directory = slackDirectory(projectClient());
    expect(outcomes(await directory.channelIds(['#general', 'C0GENERAL']))).toEqual([
      'archived C0GENERAL',
      'archived C0GENERAL',
    ]);
  });

  it("never finds another workspace's channel", async () => {
    const directory = slackDirectory(projectClient());
    expect(outcomes(await directory.channelIds(['#platform', 'C0PLATFORM']))).toEqual(['unknown', 'unknown']);
  });

  it('takes only ids where ids are asked for', async () => {
    expect(await slackDirectory(projectClient()).channelNames(['#ops'])).toEqual([
      { input: '#ops', kind: 'malformed', problem: 'not_an_id' },
    ]);
  });
});

describe('people', () => {
  it('says a deactivated person is deleted, by handle and by id', async () => {
    slack.store.deactivateUser('U0BOB');
    const directory = slackDirectory(projectClient());
    expect(outcomes(await directory.userIds(['@bob', '<@U0BOB>']))).toEqual([
      'deleted U0BOB',
      'deleted U0BOB',
    ]);
    expect(outcomes(await directory.userNames(['U0BOB']))).toEqual(['deleted U0BOB']);
  });

  it('finds a person by display name when no handle matches, in any case', async () => {
    slack.store.addUser(person('U0CAROL', 'carol', 'Carol the Oncall'));
    expect(outcomes(await slackDirectory(projectClient()).userIds(['@carol the oncall']))).toEqual([
      'found U0CAROL',
    ]);
  });

  it('calls a display name two people share ambiguous, naming both', async () => {
    slack.store.addUser(person('U0SAM1', 'sam.one', 'Sam'));
    slack.store.addUser(person('U0SAM2', 'sam.two', 'Sam'));
    const [sam] = await slackDirectory(projectClient()).userIds(['@Sam']);
    expect(sam).toMatchObject({
      kind: 'ambiguous',
      candidates: [
        { id: 'U0SAM1', written: '@sam.one' },
        { id: 'U0SAM2', written: '@sam.two' },
      ],
    });
  });

  it("matches a handle before someone else's display name", async () => {
    slack.store.addUser(person('U0IMPOSTOR', 'mallory', 'alice'));
    expect(outcomes(await slackDirectory(projectClient()).userIds(['@alice']))).toEqual([`found ${ALICE}`]);
  });

  it('names a person back by handle for an export', async () => {
    expect(await slackDirectory(projectClient()).userNames([ALICE])).toEqual([
      { input: ALICE, kind: 'found', id: ALICE, name: 'alice', written: '@alice' },
    ]);
  });
});

describe('user groups', () => {
  it('finds a group by handle, mention or id, and names it back by handle', async () => {
    const directory = slackDirectory(projectClient());
    expect(outcomes(await directory.groupIds(['@oncall', '<!subteam^S0ONCALL|@oncall>', 'oncall']))).toEqual([
      'found S0ONCALL',
      'found S0ONCALL',
      'found S0ONCALL',
    ]);
    expect(await directory.groupHandles(['S0ONCALL'])).toMatchObject([{ kind: 'found', written: '@oncall' }]);
  });

  it('says a disabled group is disabled', async () => {
    slack.store.disableUsergroup('S0ONCALL');
    expect(outcomes(await slackDirectory(projectClient()).groupIds(['@oncall']))).toEqual([
      'disabled S0ONCALL',
    ]);
  });

  it('says the workspace has no user groups on the free plan, for every group named', async () => {
    slack.settings.plan = 'free';
    expect(outcomes(await slackDirectory(projectClient()).groupIds(['@oncall', 'S0ONCALL']))).toEqual([
      'no_user_groups',
      'no_user_groups',
    ]);
  });
});

describe('rate limits', () => {
  it('resolves through a 429 with Retry-After that a client retrying rate-limited calls waits out', async () => {
    slack.injectRateLimit({ methods: ['users.list'], retryAfterSeconds: 1, times: 1 });
    const retrying = new WebClient(slack.botToken, {
      slackApiUrl: slack.apiUrl,
      retryConfig: { retries: 1, factor: 1, minTimeout: 0, maxTimeout: 0 },
      logger: quietLogger,
    });
    const started = Date.now();
    expect(outcomes(await slackDirectory(retrying).userIds(['@alice']))).toEqual([`found ${ALICE}`]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(slack.store.callsTo('users.list')).toHaveLength(2);
  });

  it("answers each name with Slack's wait when the client hands the 429 back, and asks again next time", async () => {
    slack.injectRateLimit({ methods: ['conversations.list'], retryAfterSeconds: 7, times: 1 });
    const directory = slackDirectory(projectClient());
    expect(await directory.channelIds(['#ops'])).toEqual([
      { input: '#ops', kind: 'unreadable', cause: { kind: 'rate_limited', retryAfterSeconds: 7 } },
    ]);
    expect(outcomes(await directory.channelIds(['#ops']))).toEqual(['found C0OPS']);
  });
});

describe('hostile names', () => {
  it('answers 10,000 names (prototype keys, odd unicode, long and malformed ones) with one listing', async () => {
    const hostile = [
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'hasOwnProperty',
      '\u202eecila',
      '\ud800',
    ];
    const names = Array.from({ length: 10_000 }, (_, i) =>
      i % 5 === 0 ? `@${hostile[i % hostile.length]}` : i % 5 === 1 ? `@${'x'.repeat(i)}` : `@person-${i}`,
    );
    names[9_999] = '@alice';
    const answers = await slackDirectory(projectClient()).userIds(names);
    expect(answers).toHaveLength(10_000);
    expect(answers.filter((one) => one.kind === 'found').map((one) => one.input)).toEqual(['@alice']);
    expect(answers[0]).toEqual({ input: '@__proto__', kind: 'unknown' });
    expect(new Set(answers.map((one) => one.kind))).toEqual(new Set(['found', 'unknown', 'malformed']));
    expect(slack.store.callsTo('users.list')).toHaveLength(1);
  });

  it('answers a channel named __proto__ as unknown without touching any prototype', async () => {
    const [proto] = await slackDirectory(projectClient()).channelIds(['#__proto__', '#constructor']);
    expect(proto).toEqual({ input: '#__proto__', kind: 'unknown' });
    expect(({} as Record<string, unknown>).kind).toBeUndefined();
  });
});
