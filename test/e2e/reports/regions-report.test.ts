import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REGIONS } from '../../../infra/local/emulator/catalog.js';
import type { StallMode, StallRule } from '../../../infra/local/slack/server.js';
import { slackFixtures } from '../../support/slack-fixtures.js';
import { type ReporterHarness, startReporterHarness } from './harness.js';

/**
 * The region status report end to end: DynamoDB Local, the emulator over HTTP, the Slack stand-in
 * and the reporter's tick. A region's status is changed through the emulator's list control, with
 * regions shaped as the published `Region` (API-FACTS-MORE.md §7: `status` is `ok` or `outage`).
 * The demo account has nodes in every region of the emulator's catalogue.
 */

const CHANNEL = 'C0REGIONS';
let harness: ReporterHarness;
/** How many messages the channel had when the test's subscription was made. */
let postedBefore = 0;

beforeAll(async () => {
  harness = await startReporterHarness({ stack: { slack: slackFixtures({ channels: [CHANNEL] }) } });
});

afterAll(async () => {
  await harness?.close();
});

afterEach(async () => {
  harness.e2e.emulator.control.setListItems('regions.list', undefined);
  await harness.clearSubscriptions();
});

/** The regions list as the API answers it, with the statuses given by region id. */
function setStatuses(statuses: Readonly<Record<string, 'ok' | 'outage'>>): void {
  harness.e2e.emulator.control.setListItems(
    'regions.list',
    REGIONS.map((region) => ({
      id: region.id,
      label: region.label,
      country: region.country,
      capabilities: [...region.capabilities],
      status: statuses[region.id] ?? region.status,
      resolvers: { ...region.resolvers },
    })),
  );
}

async function subscribe(flags = ''): Promise<void> {
  await harness.link('U0REG', 'regions-watcher', { scopes: 'nodes:read_only' });
  postedBefore = harness.posted(CHANNEL).length;
  const reply = await harness.reports('U0REG', CHANNEL, `reports add regions${flags}`);
  expect(reply.text).toContain('subscribed this channel to the *region status report*');
}

/** The bot's messages in the channel since the test subscribed (the subscription's reply is not one). */
function postedSince() {
  return harness.posted(CHANNEL).slice(postedBefore);
}

/** Ticks once the subscription is due again (every 5 minutes by default). */
async function tickLater() {
  harness.advance(5 * 60_000);
  return harness.tick();
}

/** Stalls the report's post (`mode`), as `tickStalled` takes it. */
function stallRegionPost(mode: StallMode): StallRule {
  return (method, args) =>
    method === 'chat.postMessage' && String(args.text).includes('region status change') ? mode : undefined;
}

/** The section lines of the report's messages since the test subscribed, oldest first. */
function regionLines(): string[] {
  return postedSince()
    .flatMap((m) => (m.blocks ?? []) as { text?: { text?: string } }[])
    .flatMap((block) => {
      const text = block.text?.text;
      return text?.includes('Region *') ? [text] : [];
    });
}

describe('region status report', () => {
  it('posts nothing while every region stays as it was', async () => {
    await subscribe();
    await tickLater();
    await tickLater();
    expect(postedSince()).toEqual([]);
  });

  it('does not post a region that was already down when the channel subscribed', async () => {
    setStatuses({ 'us-east': 'outage' });
    await subscribe();
    await tickLater();
    await tickLater();
    expect(postedSince()).toEqual([]);
  });

  it("posts a region's outage once, however many checks see it down, naming the account's nodes there", async () => {
    await subscribe();
    await tickLater();
    setStatuses({ 'us-east': 'outage' });
    await tickLater();
    await tickLater();
    await tickLater();

    const lines = regionLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(':red_circle: Region *us-east* (Newark, NJ) has an *outage*, was OK');
    expect(lines[0]).toMatch(/your nodes there: `[^`]+-us-east-\d+`/);
  });

  it("posts the region's recovery once after its outage", async () => {
    await subscribe();
    setStatuses({ 'eu-west': 'outage' });
    await tickLater();
    setStatuses({});
    await tickLater();
    await tickLater();

    const lines = regionLines();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('Region *eu-west* (London, UK) has an *outage*, was OK');
    expect(lines[1]).toContain(
      ':large_green_circle: Region *eu-west* (London, UK) is *OK* again, was outage',
    );
  });

  it("cut off when Slack took the outage's message but its answer was lost, no later run posts it again", async () => {
    await subscribe();
    await tickLater();
    setStatuses({ 'us-east': 'outage' });
    harness.advance(5 * 60_000);
    // Slack posts the message and its answer never comes back; the run's deadline ends it.
    const cut = await harness.tickStalled(stallRegionPost('answer_lost'), 1500);
    expect(cut.messagesPosted).toBe(0);
    expect(regionLines()).toHaveLength(1);

    // At once, and after every lease a cut-off run can leave: the outage is in the channel once.
    await harness.tick();
    for (let i = 0; i < 4; i++) await tickLater();
    expect(regionLines()).toHaveLength(1);

    // The region's recovery is still posted, once.
    setStatuses({});
    await tickLater();
    await tickLater();
    const lines = regionLines();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('Region *us-east* (Newark, NJ) is *OK* again, was outage');
  }, 60_000);

  it('cut off when the message never reached Slack (the request lost on the way), a run after the lease posts it, once', async () => {
    await subscribe();
    await tickLater();
    setStatuses({ 'eu-west': 'outage' });
    harness.advance(5 * 60_000);
    await harness.tickStalled(stallRegionPost('unanswered'), 1500);
    expect(regionLines()).toEqual([]);

    for (let i = 0; i < 4; i++) await tickLater();
    const lines = regionLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('Region *eu-west* (London, UK) has an *outage*, was OK');
  }, 60_000);

  it('posts a second outage of the same region after its recovery', async () => {
    await subscribe();
    setStatuses({ 'us-east': 'outage' });
    await tickLater();
    setStatuses({});
    await tickLater();
    setStatuses({ 'us-east': 'outage' });
    await tickLater();
    await tickLater();

    const lines = regionLines();
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain('Region *us-east* (Newark, NJ) has an *outage*, was OK');
    expect(lines[1]).toContain('Region *us-east* (Newark, NJ) is *OK* again, was outage');
    expect(lines[2]).toContain('Region *us-east* (Newark, NJ) has an *outage*, was OK');
  });

  it('posts an outage on the next run when Slack certainly did not take the message (429), once', async () => {
    await subscribe();
    await tickLater();
    setStatuses({ 'ap-south': 'outage' });
    harness.e2e.stack.standIn.injectRateLimit({
      methods: ['chat.postMessage'],
      retryAfterSeconds: 3600,
      times: 1,
    });
    await tickLater();
    harness.e2e.stack.standIn.injectRateLimit(undefined);
    expect(regionLines()).toEqual([]);

    await tickLater();
    await tickLater();
    const lines = regionLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('Region *ap-south*');
  });

  it('watches only the regions its --region list names', async () => {
    await subscribe(' --region ap-south');
    setStatuses({ 'us-east': 'outage' });
    await tickLater();
    expect(postedSince()).toEqual([]);

    setStatuses({ 'us-east': 'outage', 'ap-south': 'outage' });
    await tickLater();
    const lines = regionLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('Region *ap-south*');
  });
});
