import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseCommand } from '../../../lib/commands/parse.js';
import { scopesCoverReports } from '../../../lib/core/report-subscriptions.js';
import { slackFixtures } from '../../support/slack-fixtures.js';
import { type ReporterHarness, startReporterHarness, TEAM } from './harness.js';

/** `/cloud reports …` against the emulator, DynamoDB Local and the Slack stand-in. */

let harness: ReporterHarness;

beforeAll(async () => {
  harness = await startReporterHarness({
    stack: {
      slack: slackFixtures({
        channels: ['C0ELSEWHERE', 'C0OTHER', 'C0REPORTS'],
        people: ['U0CAROL', 'U0DAVE', 'U0NOBODY'],
      }),
    },
  });
});

afterAll(async () => {
  await harness?.close();
});

afterEach(async () => {
  await harness.clearSubscriptions();
});

const CHANNEL = 'C0REPORTS';

async function addedId(text: string): Promise<string> {
  const reply = await harness.reports('U0ALICE', CHANNEL, text);
  expect(reply.text).toContain('subscribed this channel');
  const sub = (await harness.subscriptions()).at(-1);
  if (!sub) throw new Error('nothing was subscribed');
  return sub.id.slice(0, 8);
}

describe('reports add', () => {
  it('asks to log in first when there is no linked token', async () => {
    const reply = await harness.reports('U0NOBODY', CHANNEL, 'reports add issues');
    expect(reply.visibility).toBe('ephemeral');
    expect(reply.text).toContain('/cloud login');
    expect(await harness.subscriptions()).toEqual([]);
  });

  it('says exactly which scope the token lacks', async () => {
    await harness.link('U0CAROL', 'carol', { scopes: 'databases:read_only volumes:read_write' });
    const reply = await harness.reports('U0CAROL', CHANNEL, 'reports add stats');
    expect(reply.text).toContain('`databases:read_only volumes:read_write`');
    expect(reply.text).toContain('needs `account:read_only`');
    expect(await harness.subscriptions()).toEqual([]);
  });

  it("refuses a regions report to a token that cannot read the account's nodes, naming the scope", async () => {
    await harness.link('U0ERIN', 'erin', { scopes: 'account:read_only' });
    const reply = await harness.reports('U0ERIN', CHANNEL, 'reports add regions');
    expect(reply.text).toContain('whose scopes are `account:read_only`');
    expect(reply.text).toContain('The region status report reads your nodes');
    expect(reply.text).toContain(
      'needs `nodes:read_only` or `nodes:read_write` or `*`; that scope is missing',
    );
    expect(await harness.subscriptions()).toEqual([]);
  });

  it("refuses a restricted user's token, which the API does not let read managed monitoring", async () => {
    harness.e2e.emulator.control.createUser({ username: 'dave', restricted: true });
    await harness.link('U0DAVE', 'dave', { scopes: 'account:read_only' });
    const reply = await harness.reports('U0DAVE', CHANNEL, 'reports add issues');
    expect(reply.text).toContain('unrestricted user');
    expect(await harness.subscriptions()).toEqual([]);
  });

  it.each([
    ['reports add issues --every 1m', 'every 5 minutes'],
    ['reports add issues --daily 25:00', 'HH:MM'],
    ['reports add issues --daily 09:00 --tz Moon/Base', 'IANA'],
  ])('answers %j with what to type instead', async (text, hint) => {
    await harness.link('U0ALICE', 'alice');
    const reply = await harness.reports('U0ALICE', CHANNEL, text);
    expect(reply.visibility).toBe('ephemeral');
    expect(reply.text).toContain(hint);
    expect(await harness.subscriptions()).toEqual([]);
  });

  it('refuses a kind that is not in the report-kind registry while parsing, listing the kinds', () => {
    const parsed = parseCommand('reports add weather');
    expect(parsed.kind).toBe('error');
    if (parsed.kind === 'error') expect(parsed.message).toContain('`issues` (digest of open issues)');
  });

  it('subscribes the channel with the owner, profile and schedule, announced in the channel', async () => {
    await harness.link('U0ALICE', 'alice');
    const reply = await harness.reports(
      'U0ALICE',
      CHANNEL,
      'reports add issues --daily 08:30 --tz Europe/Berlin',
    );
    expect(reply.visibility).toBe('in_channel');
    expect(reply.text).toContain('<@U0ALICE> subscribed this channel to the *managed issues digest*');
    const [sub] = await harness.subscriptions();
    expect(sub).toMatchObject({
      team: TEAM,
      kind: 'issues',
      channel: CHANNEL,
      owner: 'U0ALICE',
      profile: 'default',
      schedule: { type: 'daily', time: '08:30', tz: 'Europe/Berlin' },
    });
  });

  it('tells alert subscribers that issues open now are not posted', async () => {
    await harness.link('U0ALICE', 'alice');
    const reply = await harness.reports('U0ALICE', CHANNEL, 'reports add alerts');
    expect(JSON.stringify(reply.blocks)).toMatch(
      /The \d+ issues? open now (is|are) not posted; each new issue is posted here once/,
    );
    const [sub] = await harness.subscriptions();
    expect(sub?.lastRun).not.toBeNull();
    expect(sub?.seenIssueIds.size).toBeGreaterThan(0);
  });
});

describe('reports list, pause, resume, remove', () => {
  it("lists this channel's subscriptions with their state", async () => {
    await harness.link('U0ALICE', 'alice');
    const id = await addedId('reports add stats --every 6h');
    const reply = await harness.reports('U0ALICE', CHANNEL, 'reports list');
    expect(reply.text).toContain(`\`${id}\` *managed stats chart*, every 6h, by <@U0ALICE>`);
    expect((await harness.reports('U0ALICE', 'C0ELSEWHERE', 'reports list')).text).toContain(
      'no report subscriptions',
    );
  });

  it('lets the owner pause and resume, and no one else who is not an admin', async () => {
    await harness.link('U0ALICE', 'alice');
    const id = await addedId('reports add issues --every 1h');
    expect((await harness.reports('U0BOB', CHANNEL, `reports pause ${id}`)).text).toContain(
      'Only <@U0ALICE>',
    );

    const paused = await harness.reports('U0ALICE', CHANNEL, `reports pause ${id}`);
    expect(paused.text).toContain('paused');
    expect((await harness.subscriptions())[0]).toMatchObject({ paused: true });
    expect((await harness.reports('U0ALICE', CHANNEL, 'reports list')).text).toContain(
      ':pause_button: paused',
    );

    expect((await harness.reports('U0ALICE', CHANNEL, `reports resume ${id}`)).text).toContain('resumed');
    expect((await harness.subscriptions())[0]).toMatchObject({ paused: false });
  });

  it('does not resume a subscription whose token the API rejected', async () => {
    const token = await harness.link('U0ALICE', 'alice');
    const id = await addedId('reports add issues --every 1h');
    harness.e2e.emulator.control.revokeToken(token);
    await harness.tick();
    expect((await harness.subscriptions())[0]).toMatchObject({ paused: true });
    const reply = await harness.reports('U0ALICE', CHANNEL, `reports resume ${id}`);
    expect(reply.text).toContain('/cloud login');
    expect((await harness.subscriptions())[0]).toMatchObject({ paused: true });
  });

  it('lets a workspace admin remove it', async () => {
    await harness.link('U0ALICE', 'alice');
    const id = await addedId('reports add issues --every 1h');
    const reply = await harness.reports('U0ADMIN', CHANNEL, `reports remove ${id}`);
    expect(reply.text).toContain('removed');
    expect(await harness.subscriptions()).toEqual([]);
    expect((await harness.reports('U0ADMIN', CHANNEL, `reports remove ${id}`)).text).toContain(
      'No report has the ID',
    );
  });
});

describe('reports run', () => {
  it('posts the report now and leaves the schedule as it was', async () => {
    await harness.link('U0ALICE', 'alice');
    const id = await addedId('reports add issues --daily 09:00');
    const before = (await harness.subscriptions())[0];
    const postedBefore = harness.posted(CHANNEL).length;
    const reply = await harness.reports('U0BOB', CHANNEL, `reports run ${id}`);
    expect(reply.text).toContain(`Running report \`${id}\``);
    await harness.drain();
    expect(harness.replies('U0BOB', CHANNEL).at(-1)?.text).toContain('Posted report');
    expect(
      harness
        .posted(CHANNEL)
        .slice(postedBefore)
        .map((m) => m.text),
    ).toEqual([expect.stringContaining('Managed issues')]);
    expect((await harness.subscriptions())[0]?.nextRunAt).toEqual(before?.nextRunAt);
  });

  it('posts the chart of a stats report', async () => {
    await harness.link('U0ALICE', 'alice');
    const id = await addedId('reports add stats --every 1h');
    const files = harness.e2e.stack.standIn.store.files().length;
    await harness.reports('U0ALICE', CHANNEL, `reports run ${id}`);
    await harness.drain();
    expect(harness.e2e.stack.standIn.store.files()).toHaveLength(files + 1);
  });

  it('runs only from the channel the report posts in', async () => {
    await harness.link('U0ALICE', 'alice');
    const id = await addedId('reports add issues --every 1h');
    expect((await harness.reports('U0ALICE', 'C0OTHER', `reports run ${id}`)).text).toContain(
      `<#${CHANNEL}>`,
    );
  });
});

describe('scopesCoverReports', () => {
  it.each([
    ['*', true],
    ['account:read_only', true],
    ['databases:read_write account:read_write', true],
    ['databases:read_only', false],
    ['', false],
  ])('%j → %s', (scopes, covers) => {
    for (const kind of ['issues', 'alerts', 'stats'] as const)
      expect(scopesCoverReports(scopes, kind), kind).toBe(covers);
  });
});

describe('reports quiet and reports set', () => {
  it('set quiet hours that wrap midnight in a zone, then turn them off, each stored and said in the channel', async () => {
    await harness.link('U0ALICE', 'alice');
    const id = await addedId('reports add alerts');
    const quiet = await harness.reports(
      'U0ALICE',
      CHANNEL,
      `reports quiet ${id} 22:00-07:00 --tz europe/berlin`,
    );
    expect(quiet.visibility).toBe('in_channel');
    expect(quiet.text).toContain('quiet 22:00–07:00 Europe/Berlin');
    expect((await harness.subscriptions())[0]?.noise.quietHours).toEqual({
      from: '22:00',
      to: '07:00',
      tz: 'Europe/Berlin',
    });
    const off = await harness.reports('U0ALICE', CHANNEL, `reports quiet ${id} off`);
    expect(off.text).toContain('no quiet hours');
    expect((await harness.subscriptions())[0]?.noise.quietHours).toBeNull();
  });

  it('set the burst size and the flapping window, keeping the quiet hours', async () => {
    await harness.link('U0ALICE', 'alice', { scopes: 'account:read_only events:read_only' });
    const id = await addedId('reports add events');
    await harness.reports('U0ALICE', CHANNEL, `reports quiet ${id} 23:00-06:00`);
    const reply = await harness.reports('U0ALICE', CHANNEL, `reports set ${id} --burst 5 --flap 30`);
    expect(reply.text).toContain('5 or more new at once grouped');
    expect((await harness.subscriptions())[0]?.noise).toEqual({
      quietHours: { from: '23:00', to: '06:00', tz: 'UTC' },
      burstAt: 5,
      flapMinutes: 30,
    });
  });

  it.each([
    ['25:00-07:00', '', 'not a span of hours'],
    ['22:00-07:00', ' --tz Mars/Olympus', 'not a time zone I know'],
    ['22:00-22:00', '', 'never end'],
    ['22:00', '', 'not a span of hours'],
    ['__proto__', '', 'not a span of hours'],
  ])('refuse quiet hours %j%s with what to type instead, changing nothing', async (hours, flags, hint) => {
    await harness.link('U0ALICE', 'alice');
    const id = await addedId('reports add alerts');
    const reply = await harness.reports('U0ALICE', CHANNEL, `reports quiet ${id} ${hours}${flags}`);
    expect(reply.visibility).toBe('ephemeral');
    expect(reply.text).toContain(hint);
    expect(reply.text).toContain('Nothing was changed');
    expect((await harness.subscriptions())[0]?.noise).toEqual({
      quietHours: null,
      burstAt: 3,
      flapMinutes: 60,
    });
  });

  it.each(['--burst 0', '--burst 1000000000', '--flap 0', '--flap 100000'])(
    'refuse %s while parsing, with the bounds',
    (flags) => {
      const parsed = parseCommand(`reports set 1a2b3c4d ${flags}`);
      expect(parsed.kind).toBe('error');
      if (parsed.kind === 'error') expect(parsed.message).toMatch(/whole number from \d+ to \d+/);
    },
  );

  it("refuse someone who is neither the report's owner nor an admin", async () => {
    await harness.link('U0ALICE', 'alice');
    const id = await addedId('reports add alerts');
    const reply = await harness.reports('U0CAROL', CHANNEL, `reports set ${id} --burst 9`);
    expect(reply.text).toContain('who added report');
    expect((await harness.subscriptions())[0]?.noise.burstAt).toBe(3);
  });

  it('refuse the settings for a digest, which posts on its schedule', async () => {
    await harness.link('U0ALICE', 'alice');
    const id = await addedId('reports add issues --daily 09:00');
    const reply = await harness.reports('U0ALICE', CHANNEL, `reports quiet ${id} 22:00-07:00`);
    expect(reply.text).toContain('settings of `alerts` and `events` reports');
    expect((await harness.subscriptions())[0]?.noise.quietHours).toBeNull();
  });
});
