import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { ActionId } from '../../lib/slack-kit/interaction-ids.js';
import { lastCardWith } from '../support/cards.js';
import { ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';
import { testClock } from '../support/store.js';

/**
 * Stale and leftover messages. A change handed to the worker says it is being worked on in a
 * channel message that its answer replaces (or that goes, when the answer is for the person
 * alone); a slash command's own reply could never be removed (SLACK-FACTS, "`response_url` and
 * ephemeral messages").
 *
 * A resource's card in the channel follows what the bot later does to the resource: a volume's
 * card posted when it was created (the message that followed its status) says it was deleted, or
 * shows its new size, once a change through the bot ran, whoever asked and however it ran (in the
 * worker, or approved). Slack's refusals of the update never fail the change.
 */

const clock = testClock(new Date());
let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;
const MINUTE = 60_000;

beforeAll(async () => {
  e2e = await startE2E({ stack: { now: clock.now } });
  await e2e.login(ALICE, e2e.emulator.demoToken);
});

afterAll(async () => {
  await e2e?.close();
});

beforeEach(async () => {
  await e2e.stack.store.approvalPolicy.put(team(), { approverUsers: [BOB] }, BOB);
});

function all(message: StoredMessage | undefined): string {
  return message ? `${message.text}\n${JSON.stringify(message.blocks)}` : '';
}

function now(card: StoredMessage): StoredMessage | undefined {
  return e2e.stack.standIn.store.findMessage(CHANNEL, card.ts);
}

function hasButtons(message: StoredMessage | undefined): boolean {
  return JSON.stringify(message?.blocks ?? []).includes('"type":"actions"');
}

/** `/cloud volumes create` from Slack; the volume and the card the channel got for it, once active. */
async function volumeWithCard(label: string): Promise<{ id: number; card: StoredMessage }> {
  await e2e.command(ALICE, `volumes create --label ${label} --region us-east --size 20`);
  const volume = [...e2e.emulator.control.world.volumes.values()].find((v) => v.label === label);
  if (!volume) throw new Error(`volume ${label} was not created`);
  const card = e2e.stack.standIn.store
    .messages(CHANNEL)
    .filter((m) => !m.ephemeral && !m.thread_ts && all(m).includes(label))
    .at(-1);
  if (!card) throw new Error(`no channel card for ${label}`);
  // The volume is created in a minute; nothing else changes it.
  e2e.emulator.control.advance(5 * MINUTE);
  return { id: volume.id, card };
}

/** The newest approval card, approved by Bob. */
async function approveLast(): Promise<StoredMessage> {
  const request = lastCardWith(e2e.stack.standIn.store, CHANNEL, ActionId.approve);
  if (!request) throw new Error('no approval card');
  await e2e.stack.workspace.click(BOB, request, { actionId: ActionId.approve });
  await e2e.stack.drain();
  return e2e.stack.standIn.store.findMessage(CHANNEL, request.ts) ?? request;
}

describe("a resource's card in the channel", () => {
  it('says the volume was deleted, by whom, with no buttons left, once an approved delete ran', async () => {
    const { id, card } = await volumeWithCard('card-deleted');
    expect(hasButtons(card)).toBe(true);

    await e2e.command(ALICE, `volumes delete ${id}`);
    const request = await approveLast();
    expect(all(request)).toMatch(/approved/i);

    const shown = now(card);
    expect(all(shown)).toContain(`Volume \`${id}\` was deleted by <@${ALICE}>`);
    expect(all(shown)).not.toContain('active');
    expect(hasButtons(shown)).toBe(false);
  });

  it("shows the volume's new size after a resize run in the worker, and says who changed it", async () => {
    const { id, card } = await volumeWithCard('card-resized');
    expect(all(card)).toContain('20 GB');

    await e2e.command(ALICE, `volumes resize ${id} --size 30`);

    const shown = now(card);
    expect(all(shown)).toContain('30 GB');
    expect(all(shown)).toContain(`after <@${ALICE}> ran \`volumes resize\``);
    expect(hasButtons(shown)).toBe(true);
  });

  it("shows the volume's new label after an update that ran at once, in the command's answer", async () => {
    const { id, card } = await volumeWithCard('card-renamed');

    await e2e.command(ALICE, `volumes update ${id} --label card-renamed-2`);

    const shown = now(card);
    expect(all(shown)).toContain('card-renamed-2');
    expect(all(shown)).toContain(`after <@${ALICE}> ran \`volumes update\``);
  });

  it('a card someone deleted (message_not_found) does not stop the delete from being answered, and is no longer followed', async () => {
    const { id, card } = await volumeWithCard('card-gone');
    e2e.stack.standIn.store.deleteMessage(CHANNEL, card.ts);

    await e2e.command(ALICE, `volumes delete ${id}`);
    const request = await approveLast();

    expect(all(request)).toMatch(/approved/i);
    expect(e2e.emulator.control.world.volumes.has(id)).toBe(false);
    const refused = e2e.stack.standIn.store.callsTo('chat.update').filter((call) => call.body.ts === card.ts);
    expect(refused.at(-1)?.error).toBe('message_not_found');
    expect(await e2e.stack.store.resourceCards.cardsOf(team(), `/volumes/${id}`)).toEqual([]);
  });

  it('a rate-limited card update (429) leaves the resize answered, and the card as it was', async () => {
    const { id, card } = await volumeWithCard('card-limited');
    e2e.stack.standIn.injectRateLimit({ methods: ['chat.update'], retryAfterSeconds: 30 });
    let answer: StoredMessage | undefined;
    try {
      await e2e.command(ALICE, `volumes resize ${id} --size 40`);
      answer = e2e.stack.standIn.store
        .messages(CHANNEL)
        .filter((m) => m.ts !== card.ts && all(m).includes('volumes resize'))
        .at(-1);
    } finally {
      e2e.stack.standIn.injectRateLimit(undefined);
    }
    expect(e2e.emulator.control.world.volumes.get(id)?.size).toBe(40);
    expect(all(answer)).toContain('40 GB');
    expect(all(now(card))).toContain('20 GB');
  });

  it('shows how the volume ended when a resize and an approved delete of it run together', async () => {
    const { id, card } = await volumeWithCard('card-raced');
    await e2e.command(ALICE, `volumes delete ${id}`);
    const request = lastCardWith(e2e.stack.standIn.store, CHANNEL, ActionId.approve);
    if (!request) throw new Error('no approval card');
    await Promise.all([
      e2e.stack.workspace.command(ALICE, CHANNEL, `volumes resize ${id} --size 50`),
      e2e.stack.workspace.click(BOB, request, { actionId: ActionId.approve }),
    ]);
    await e2e.stack.drain();

    // Whichever ran (the delete is not run when the size changed after it was asked for), the
    // card says how the volume stands now, never the 20 GB it showed before.
    const shown = now(card);
    const volume = e2e.emulator.control.world.volumes.get(id);
    if (volume) {
      expect(all(shown)).toContain(`${volume.size} GB`);
      expect(all(shown)).not.toContain('20 GB');
    } else {
      expect(all(shown)).toContain(`Volume \`${id}\` was deleted by <@${ALICE}>`);
      expect(hasButtons(shown)).toBe(false);
    }
  });
});

describe("a resource's ephemeral card", () => {
  it('answers a click on one of its buttons after the bot deleted the volume with who deleted it, and runs nothing', async () => {
    const { id } = await volumeWithCard('card-ephemeral');
    const viewed = await e2e.command(ALICE, `volumes view ${id}`);
    const card = viewed.message ?? e2e.lastSeen(ALICE);
    expect(card.ephemeral).toBe(true);
    await e2e.command(ALICE, `volumes delete ${id}`);
    await approveLast();
    const attachesBefore = e2e.emulator.control.requestCount('volumes.attach', { volumeId: id });

    await e2e.stack.workspace.click(ALICE, card, { actionId: ActionId.run });
    await e2e.stack.drain();

    expect(e2e.textOf(e2e.lastSeen(ALICE))).toContain(`Volume \`${id}\` was deleted by <@${ALICE}>`);
    expect(e2e.textOf(e2e.lastSeen(ALICE))).toContain('nothing was run');
    expect(e2e.emulator.control.requestCount('volumes.attach', { volumeId: id })).toBe(attachesBefore);
  });
});

describe('the working note of a change handed to the worker', () => {
  function workingNotes(): StoredMessage[] {
    return e2e.stack.standIn.store.messages(CHANNEL).filter((m) => /working on/i.test(m.text));
  }

  it('goes when the answer is an error, which comes to the person alone', async () => {
    const delivery = await e2e.command(ALICE, 'volumes resize 999999 --size 30');
    expect(delivery.message).toBeUndefined();
    expect(workingNotes()).toEqual([]);
    const told = e2e.lastSeen(ALICE);
    expect(told.ephemeral).toBe(true);
    expect(e2e.textOf(told)).toMatch(/999999/);
  });

  it('goes when the answer is a message that follows the new resource', async () => {
    await volumeWithCard('note-created');
    expect(workingNotes()).toEqual([]);
    const deleted = e2e.stack.standIn.store.callsTo('chat.delete').at(-1);
    expect(deleted?.ok).toBe(true);
  });
});
