import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BOT_SCOPES } from '../../../lib/slack-kit/app-scopes.js';
import { type ReporterHarness, startReporterHarness } from './harness.js';

/**
 * Report subscriptions and the channel's membership, as Slack enforces it: the bot posts only
 * where it is a member of a channel that is not archived. `/cloud reports add` finds out first
 * (joining a public channel when the app may), and a subscription whose channel stops taking its
 * posts pauses itself and tells its owner once.
 */

const BOT = 'U0CLOUDBOT';
const OWNER = 'U0ALICE';
/** Public, the bot not in it. */
const RANDOM = 'C0RANDOM';
/** Private, the bot not in it. */
const SECRET = 'G0SECRET';
/** Public, the bot a member; archived by a test. */
const ARCHIVED_LATER = 'C0ARCHIVE';
const HUMANS = ['U0ADMIN', 'U0ALICE', 'U0BOB'];

const CHANNELS = [
  { id: RANDOM, name: 'random', is_private: false, is_im: false, members: HUMANS },
  { id: SECRET, name: 'secret', is_private: true, is_im: false, members: HUMANS },
  { id: ARCHIVED_LATER, name: 'soon-archived', is_private: false, is_im: false },
];

describe('with channels:join', () => {
  let harness: ReporterHarness;

  beforeAll(async () => {
    harness = await startReporterHarness({ stack: { slack: { channels: CHANNELS } } });
    await harness.link(OWNER, 'alice');
  });
  afterAll(async () => {
    await harness?.close();
  });
  afterEach(async () => {
    await harness.clearSubscriptions();
    harness.e2e.stack.standIn.store.reset();
  });

  it('joins a public channel the bot is not in, then subscribes it', async () => {
    const reply = await harness.reports(OWNER, RANDOM, 'reports add issues --daily 09:00');

    expect(reply.text).toContain('subscribed this channel');
    expect(JSON.stringify(reply.blocks)).toContain('I joined this channel');
    expect(harness.e2e.stack.standIn.store.channel(RANDOM)?.members).toContain(BOT);
    expect(harness.e2e.stack.standIn.store.lastMessage(RANDOM)?.text).toBe(
      `<@${BOT}> has joined the channel`,
    );
    expect(await harness.subscriptions()).toHaveLength(1);
  });

  it('refuses a private channel the bot is not in, says how to invite it, and stores nothing', async () => {
    const reply = await harness.reports(OWNER, SECRET, 'reports add issues --daily 09:00');

    expect(reply.visibility).toBe('ephemeral');
    expect(reply.text).toContain('Nothing was subscribed');
    expect(reply.text).toContain('`/invite @cloud`');
    expect(await harness.subscriptions()).toEqual([]);
    expect(harness.e2e.stack.standIn.store.channel(SECRET)?.members).not.toContain(BOT);
  });

  it('refuses an archived channel and stores nothing', async () => {
    harness.e2e.stack.standIn.store.archiveChannel(ARCHIVED_LATER);
    const reply = await harness.reports(OWNER, ARCHIVED_LATER, 'reports add issues --daily 09:00');

    expect(reply.text).toContain('archived');
    expect(await harness.subscriptions()).toEqual([]);
  });

  it('pauses a subscription whose channel is archived later and tells its owner once, over several runs', async () => {
    const added = await harness.reports(OWNER, ARCHIVED_LATER, 'reports add issues --every 15m');
    expect(added.text).toContain('subscribed this channel');
    harness.advance(20 * 60_000);
    const first = await harness.tick();
    expect(first.messagesPosted).toBe(1);

    harness.e2e.stack.standIn.store.archiveChannel(ARCHIVED_LATER);
    const runs = [];
    for (let run = 0; run < 3; run += 1) {
      harness.advance(20 * 60_000);
      runs.push(await harness.tick());
    }

    expect(runs.map((run) => run.channelPauses)).toEqual([1, 0, 0]);
    expect(runs.slice(1).map((run) => run.due)).toEqual([0, 0]);
    const [sub] = await harness.subscriptions();
    expect(sub).toMatchObject({ paused: true, pauseReason: 'the channel is archived' });
    const told = harness.e2e.stack.standIn.store.messages(`D${OWNER}`);
    expect(told).toHaveLength(1);
    expect(told[0]?.text).toContain('I paused your *managed issues digest*');
    expect(told[0]?.text).toContain(`<#${ARCHIVED_LATER}>`);
  });

  it('keeps a subscription paused while its channel still refuses the bot, and resumes it once invited back', async () => {
    await harness.reports(OWNER, ARCHIVED_LATER, 'reports add issues --every 15m');
    harness.e2e.stack.standIn.store.archiveChannel(ARCHIVED_LATER);
    harness.advance(20 * 60_000);
    await harness.tick();
    const [paused] = await harness.subscriptions();
    if (!paused?.paused) throw new Error('not paused');
    const id = paused.id.slice(0, 8);

    const refused = await harness.reports(OWNER, 'C0OPS', `reports resume ${id}`);
    expect(refused.text).toContain('stays paused');
    expect(refused.text).toContain(`<#${ARCHIVED_LATER}> is archived`);
    expect((await harness.subscriptions())[0]?.paused).toBe(true);

    harness.e2e.stack.standIn.store.unarchiveChannel(ARCHIVED_LATER);
    const resumed = await harness.reports(OWNER, ARCHIVED_LATER, `reports resume ${id}`);
    expect(resumed.text).toContain('resumed');
    expect((await harness.subscriptions())[0]?.paused).toBe(false);
  });

  it('pauses a subscription whose channel the bot was removed from, telling the owner how to invite it back', async () => {
    const added = await harness.reports(OWNER, ARCHIVED_LATER, 'reports add issues --every 15m');
    expect(added.text).toContain('subscribed this channel');
    harness.e2e.stack.standIn.store.kickBot(ARCHIVED_LATER);
    harness.advance(20 * 60_000);
    await harness.tick();
    harness.advance(20 * 60_000);
    await harness.tick();

    const [sub] = await harness.subscriptions();
    expect(sub?.paused).toBe(true);
    const told = harness.e2e.stack.standIn.store.messages(`D${OWNER}`);
    expect(told).toHaveLength(1);
    expect(told[0]?.text).toContain('`/invite @cloud`');
  });
});

describe('without channels:join', () => {
  let harness: ReporterHarness;

  beforeAll(async () => {
    harness = await startReporterHarness({
      stack: {
        slack: { channels: CHANNELS, botScopes: BOT_SCOPES.filter((scope) => scope !== 'channels:join') },
      },
    });
    await harness.link(OWNER, 'alice');
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('refuses a public channel the bot is not in, says how to invite it, and stores nothing', async () => {
    const reply = await harness.reports(OWNER, RANDOM, 'reports add alerts');

    expect(reply.visibility).toBe('ephemeral');
    expect(reply.text).toContain('Nothing was subscribed');
    expect(reply.text).toContain('`/invite @cloud`');
    expect(await harness.subscriptions()).toEqual([]);
    expect(harness.e2e.stack.standIn.store.channel(RANDOM)?.members).not.toContain(BOT);
  });
});
