import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { ApiClient } from '../../lib/api/client.js';
import { getOperation } from '../../lib/api/operations/index.js';
import type { OutcomeCheckSettings } from '../../lib/changes/outcomes.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { lastCardWith } from '../support/cards.js';
import { ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';
import { testClock } from '../support/store.js';

/**
 * Two rules of the change workflow, end to end (signed Slack requests, DynamoDB Local, the
 * emulator): a target counts as changed only when something the approvers decided on changed, and
 * a delete whose every attempt got a server error is settled by one read of the target.
 */

const clock = testClock(new Date());
const API_TIMEOUT_MS = 3_000;
// The worker's read-back window, shortened to seconds: a request still in doubt after it shows so.
const CHECKS: OutcomeCheckSettings = {
  windowMs: 2_000,
  intervalMs: 200,
  readTimeoutMs: 1_000,
  giveUpAfterMs: 30 * 60_000,
  recheckEveryMs: 5 * 60_000,
};
const IMAGE_CAPTURE_MS = 2 * 60_000;

let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;

beforeAll(async () => {
  e2e = await startE2E({ stack: { now: clock.now, apiTimeoutMs: API_TIMEOUT_MS, outcomeChecks: CHECKS } });
  await e2e.login(ALICE, e2e.emulator.demoToken);
});

afterAll(async () => {
  await e2e?.close();
});

beforeEach(() => {
  clock.set(new Date());
});

afterEach(() => {
  e2e.emulator.control.clearFaults();
});

function api(): ApiClient {
  return new ApiClient({ baseUrl: e2e.emulator.url, token: e2e.emulator.demoToken });
}

const suffix = () => Math.random().toString(36).slice(2, 8);

/** A private image being captured from a node disk (demo is unrestricted): `creating` for two minutes. */
async function imageBeingCaptured(): Promise<string> {
  const disk = [...e2e.emulator.control.world.nodes.values()]
    .flatMap((node) => [...node.disks.values()])
    .find((d) => d.filesystem !== 'swap');
  if (!disk) throw new Error('no disk to capture');
  const image = (await api().call(getOperation('images.create'), {
    disk_id: disk.id,
    label: `golden-${suffix()}`,
  })) as { id: string; status: string };
  expect(image.status).toBe('creating');
  return image.id;
}

function imageExists(imageId: string): boolean {
  return e2e.emulator.control.world.images.has(imageId);
}

function lastCard(): StoredMessage {
  const card = lastCardWith(e2e.stack.standIn.store, CHANNEL, ActionId.approve);
  if (!card) throw new Error('no approval card');
  return card;
}

function cardNow(card: StoredMessage): StoredMessage {
  return e2e.stack.standIn.store.findMessage(CHANNEL, card.ts) ?? card;
}

function threadText(card: StoredMessage): string {
  return e2e.stack.standIn.store
    .thread(CHANNEL, card.ts)
    .map((m) => m.text)
    .join('\n');
}

async function request(text: string): Promise<StoredMessage> {
  const delivery = await e2e.command(ALICE, text);
  expect(e2e.textOf(delivery.message)).toContain('needs 1 approval');
  return lastCard();
}

async function approve(card: StoredMessage): Promise<void> {
  await e2e.stack.workspace.click(BOB, cardNow(card), { actionId: ActionId.approve });
  await e2e.stack.drain();
}

async function statusOf(card: StoredMessage) {
  const pending = await e2e.stack.store.approvals.listPending(team());
  const id = pending.find((a) => a.messageTs === card.ts)?.id;
  return async () => (id ? (await e2e.stack.store.approvals.get(team(), id))?.status : undefined);
}

describe('an approved image delete', () => {
  it('regression: an image that finished creating between the card and the vote was "target changed: status" — now it is deleted', async () => {
    const imageId = await imageBeingCaptured();
    const card = await request(`images delete ${imageId}`);
    expect(e2e.textOf(card)).toContain('creating');
    const status = await statusOf(card);

    e2e.emulator.control.advance(IMAGE_CAPTURE_MS + 1_000);
    const now = (await api().call(getOperation('images.view'), { imageId })) as { status: string };
    expect(now.status).toBe('available');
    await approve(card);

    expect(imageExists(imageId)).toBe(false);
    expect(e2e.emulator.control.requestCount('images.delete', { imageId })).toBe(1);
    expect(await status()).toBe('executed');
    const final = e2e.textOf(cardNow(card));
    expect(final).toContain(':white_check_mark: Approved and done.');
    expect(final).toMatch(/deleted/i);
    expect(final).not.toContain('changed');
    expect(threadText(card)).toContain(':white_check_mark: Approved and done.');
  });

  it('whose label changed between the card and the vote is not run, and the card names the label (not the status or time the API moved)', async () => {
    const imageId = await imageBeingCaptured();
    const card = await request(`images delete ${imageId}`);
    e2e.emulator.control.advance(IMAGE_CAPTURE_MS + 1_000);
    await api().call(getOperation('images.update'), { imageId, label: `renamed-${suffix()}` });

    await approve(card);

    expect(imageExists(imageId)).toBe(true);
    expect(e2e.emulator.control.requestCount('images.delete', { imageId })).toBe(0);
    const final = e2e.textOf(cardNow(card));
    expect(final).toContain('The target changed after the approvers saw it (label changed)');
    expect(final).toContain('nothing was run');
  });
});

describe('an approved delete whose every attempt got a server error', () => {
  function newVolume(): number {
    return e2e.emulator.control.createVolume({ label: `vol-${suffix()}` }).id;
  }

  it('regression: stayed "in doubt" for 30 minutes though read back the volume was there as it was — now it concludes at once that it was not deleted', async () => {
    const volumeId = newVolume();
    const card = await request(`volumes delete ${volumeId}`);
    const status = await statusOf(card);
    e2e.emulator.control.injectFault({ kind: 'status', status: 500, operations: ['volumes.delete'] });
    const reads = () => e2e.emulator.control.requestCount('volumes.view', { volumeId });
    const readsBefore = reads();

    await approve(card);

    // Every attempt the client made was answered 500 and did nothing.
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId })).toBeGreaterThan(1);
    // At once: the check that the target is unchanged, then one read back (no window of reads).
    expect(reads() - readsBefore).toBe(2);
    expect(e2e.emulator.control.volumeExists(volumeId)).toBe(true);
    expect(await status()).toBe('failed');
    const final = e2e.textOf(cardNow(card));
    expect(final).toContain('it was not deleted');
    expect(final).toContain('can be asked for again');
    expect(final).not.toContain('may or may not');
    expect(threadText(card)).toContain(':x: Approved, but it did not happen.');
  });

  it('with the volume unreadable after the attempts, nothing is proven: it stays in doubt', async () => {
    const volumeId = newVolume();
    const card = await request(`volumes delete ${volumeId}`);
    const status = await statusOf(card);
    e2e.emulator.control.injectFault({
      kind: 'status',
      status: 500,
      operations: ['volumes.delete', 'volumes.view'],
    });

    await approve(card);

    expect(e2e.emulator.control.volumeExists(volumeId)).toBe(true);
    expect(await status()).toBe('in_doubt');
    const final = e2e.textOf(cardNow(card));
    expect(final).toContain('may or may not');
    expect(final).not.toContain('not deleted');
  });

  it('regression: deleted on the first attempt with its answer lost (500), the repeat found it gone (404) and the card said it did not happen — now it says deleted', async () => {
    const volumeId = newVolume();
    const card = await request(`volumes delete ${volumeId}`);
    const status = await statusOf(card);
    e2e.emulator.control.injectFault({
      kind: 'status',
      status: 500,
      operations: ['volumes.delete'],
      afterActing: true,
    });

    await approve(card);

    expect(e2e.emulator.control.volumeExists(volumeId)).toBe(false);
    expect(await status()).toBe('executed');
    const final = e2e.textOf(cardNow(card));
    expect(final).toContain('went through after all');
    expect(final).not.toMatch(/did not happen|not deleted/);
  });
});
