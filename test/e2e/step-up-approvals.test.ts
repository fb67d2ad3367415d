import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StoredMessage, StoredView } from '../../infra/local/slack/store.js';
import {
  CODE_PERIOD_SECONDS,
  codeAt,
  LOCKOUT_WINDOW_MINUTES,
  MAX_WRONG_CODES,
} from '../../lib/changes/step-up.js';
import { castVote } from '../../lib/changes/votes.js';
import { CODE_BLOCK } from '../../lib/slack/step-up-codes.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { lastCardWith } from '../support/cards.js';
import { ADA, ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';
import { testClock } from '../support/store.js';

/**
 * Step-up approvals end to end (signed commands, clicks and modal submissions, DynamoDB Local,
 * the emulator, the Slack stand-in): with a rule asking for an authenticator code on destructive
 * operations, a click alone, a wrong code, a replayed code and a locked-out person change nothing
 * (not one API call); a current code counts, and the card, thread and audit say how and when.
 */

// On a step boundary plus a little, so "the next code" is always the next step.
const clock = testClock(new Date(Date.UTC(2030, 0, 15, 9, 0, 5)));
const STEP_MS = CODE_PERIOD_SECONDS * 1000;
let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;
let userCounter = 0;
/** Every secret an enrollment showed, to look for it where it must not be. */
const secrets: string[] = [];

/** What the function writes to stdout/stderr (Powertools and Bolt both log there). */
const logged: string[] = [];
beforeAll(async () => {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: never[]) => {
      logged.push(String(chunk));
      return write(chunk as string, ...rest);
    }) as typeof stream.write);
  }
  e2e = await startE2E({ stack: { now: clock.now } });
  await e2e.login(ALICE, e2e.emulator.demoToken);
});

afterAll(async () => {
  vi.restoreAllMocks();
  await e2e?.close();
});

beforeEach(async () => {
  clock.set(new Date(Date.UTC(2030, 0, 15, 9, 0, 5)));
  await e2e.stack.store.approvalPolicy.put(team(), {}, ADA);
  await e2e.stack.store.channelPolicy.put(
    team(),
    CHANNEL,
    {
      rules: { destructive: { stepUp: 'code' } },
      breakGlass: { enabled: true, users: [ALICE] },
    },
    ADA,
  );
});

afterEach(() => {
  clock.set(new Date(Date.UTC(2030, 0, 15, 9, 0, 5)));
});

const newUser = () => `U0STEP${String(++userCounter).padStart(3, '0')}`;

/** Enrolls `user` through `/cloud mfa enroll` and `/cloud mfa confirm`; returns the secret. */
async function enroll(user: string): Promise<string> {
  const shown = await e2e.command(user, 'mfa enroll');
  const text = e2e.textOf(shown.message);
  const secret = /Secret: `([A-Z2-7]+)`/.exec(text)?.[1];
  if (!secret) throw new Error(`no secret shown: ${text}`);
  secrets.push(secret);
  expect(text).toContain('otpauth://totp/');
  const confirmed = await e2e.command(user, `mfa confirm ${codeAt(secret, clock.now())}`);
  expect(e2e.textOf(confirmed.message)).toContain('enrolled');
  // The confirming code is spent: the next one is the next step's.
  clock.advance(STEP_MS);
  return secret;
}

function deletesOf(volumeId: number): number {
  return e2e.emulator.control.requestCount('volumes.delete', { volumeId });
}

function lastCard(): StoredMessage {
  const card = lastCardWith(e2e.stack.standIn.store, CHANNEL, 'Request ');
  if (!card) throw new Error('no approval card');
  return card;
}

function cardNow(card: StoredMessage): StoredMessage {
  return e2e.stack.standIn.store.findMessage(CHANNEL, card.ts) ?? card;
}

async function requestDeletion(reason?: string): Promise<{ volumeId: number; card: StoredMessage }> {
  const volume = e2e.emulator.control.createVolume({
    label: `doomed-${Math.random().toString(36).slice(2, 8)}`,
  });
  const why = reason ? ` --reason "${reason}"` : '';
  const delivery = await e2e.command(ALICE, `volumes delete ${volume.id}${why}`);
  expect(e2e.textOf(delivery.message)).toContain('needs 1 approval');
  return { volumeId: volume.id, card: lastCard() };
}

/**
 * Alice, enrolled afresh, breaks glass to delete a new volume under the code rule: the command
 * opens the code modal, and nothing has run yet.
 */
async function breakGlassWithCode(label: string, reason: string) {
  // Removed as an approved admin reset would: her own reset would first ask for her last app's code.
  await e2e.stack.store.stepUp.reset(team(), ALICE);
  const secret = await enroll(ALICE);
  const volume = e2e.emulator.control.createVolume({ label: `${label}-${userCounter}` });
  const before = e2e.openView(ALICE)?.id;
  await e2e.command(ALICE, `volumes delete ${volume.id} --break-glass "${reason}"`);
  const view = e2e.openView(ALICE);
  if (!view || view.id === before) throw new Error('no modal for break-glass');
  return { secret, volume, view };
}

/** A click; returns the code modal it opened for `user`, if any. */
async function click(user: string, card: StoredMessage, actionId: string): Promise<StoredView | undefined> {
  const before = e2e.openView(user)?.id;
  const delivery = await e2e.stack.workspace.click(user, cardNow(card), { actionId });
  expect(delivery.status).toBe(200);
  await e2e.stack.drain();
  const view = e2e.openView(user);
  return view && view.id !== before ? view : undefined;
}

async function submitCode(user: string, view: StoredView, code: string) {
  const delivery = await e2e.stack.workspace.submitView(user, view, { [CODE_BLOCK]: { code_input: code } });
  await e2e.stack.drain();
  return { delivery, body: JSON.stringify(delivery.body) };
}

function thread(card: StoredMessage): string {
  return e2e.stack.standIn.store
    .thread(CHANNEL, card.ts)
    .map((m) => m.text)
    .join('\n');
}

describe('with step-up by code on destructive operations', () => {
  it('an Approve click alone opens the code modal and counts nothing (0 API calls)', async () => {
    const bob = newUser();
    await enroll(bob);
    const { volumeId, card } = await requestDeletion();
    const callsBefore = e2e.emulator.control.requestCount();
    const view = await click(bob, card, ActionId.approve);
    expect(view?.view.callback_id).toBe('stepup:code');
    expect(e2e.emulator.control.requestCount()).toBe(callsBefore);
    expect(deletesOf(volumeId)).toBe(0);
    expect(e2e.textOf(cardNow(card))).toContain('0 of 1');
    expect(e2e.textOf(cardNow(card))).toContain(ActionId.approve);
  });

  it('a wrong code is refused in the modal and counts nothing; a replayed code is refused too', async () => {
    const bob = newUser();
    const secret = await enroll(bob);
    const { volumeId, card } = await requestDeletion();
    const callsBefore = e2e.emulator.control.requestCount();
    const view = await click(bob, card, ActionId.approve);
    if (!view) throw new Error('no modal');
    const wrong = codeAt(secret, new Date(clock.now().getTime() + 10 * STEP_MS));
    const refused = await submitCode(bob, view, wrong);
    expect(refused.body).toContain('response_action');
    expect(refused.body).toContain('not right');
    expect(e2e.emulator.control.requestCount()).toBe(callsBefore);

    // The code that confirmed the enrollment, a step ago, is still inside the skew window: replayed.
    const replayed = await submitCode(bob, view, codeAt(secret, new Date(clock.now().getTime() - STEP_MS)));
    expect(replayed.body).toContain('used already');
    expect(e2e.emulator.control.requestCount()).toBe(callsBefore);
    expect(deletesOf(volumeId)).toBe(0);
    expect(e2e.textOf(cardNow(card))).toContain('0 of 1');
  });

  it('a current code counts: the operation runs once and the card, thread and audit say "with a code at"', async () => {
    const bob = newUser();
    const secret = await enroll(bob);
    const { volumeId, card } = await requestDeletion();
    const view = await click(bob, card, ActionId.approve);
    if (!view) throw new Error('no modal');
    const accepted = await submitCode(bob, view, codeAt(secret, clock.now()));
    expect(accepted.delivery.status).toBe(200);
    expect(accepted.body).not.toContain('errors');
    expect(deletesOf(volumeId)).toBe(1);
    const cardText = e2e.textOf(cardNow(card));
    expect(cardText).toContain(`<@${bob}> with a code at <!date^`);
    expect(cardText).not.toContain(ActionId.approve);
    expect(thread(card)).toContain(`<@${bob}> approved with a code at`);
    const audit = await e2e.stack.store.audit.list(team(), { limit: 200 });
    expect(
      audit.entries.some(
        (entry) => entry.actor === bob && entry.result === 'approved' && entry.detail === 'with a code',
      ),
    ).toBe(true);

    // The same window again (its challenge is used): nothing more happens.
    clock.advance(STEP_MS);
    const again = await submitCode(bob, view, codeAt(secret, clock.now()));
    expect(again.body).toContain('expired or was used');
    expect(deletesOf(volumeId)).toBe(1);
  });

  it(`after ${MAX_WRONG_CODES} wrong codes the person is locked out: even a right code counts nothing until it ends`, async () => {
    const bob = newUser();
    const secret = await enroll(bob);
    const { volumeId, card } = await requestDeletion();
    const callsBefore = e2e.emulator.control.requestCount();
    const view = await click(bob, card, ActionId.approve);
    if (!view) throw new Error('no modal');
    const wrong = codeAt(secret, new Date(clock.now().getTime() + 10 * STEP_MS));
    for (let i = 0; i < MAX_WRONG_CODES; i++) await submitCode(bob, view, wrong);
    const locked = await submitCode(bob, view, codeAt(secret, clock.now()));
    expect(locked.body).toContain('Too many wrong codes');
    expect(e2e.emulator.control.requestCount()).toBe(callsBefore);

    // A new click while locked out: told so, no modal, nothing counted.
    expect(await click(bob, card, ActionId.approve)).toBeUndefined();
    expect(e2e.textOf(e2e.lastSeen(bob))).toContain('Too many wrong codes');
    expect(deletesOf(volumeId)).toBe(0);
    expect(e2e.emulator.control.requestCount()).toBe(callsBefore);

    // When the window ends, a current code counts again.
    clock.advance(LOCKOUT_WINDOW_MINUTES * 60_000);
    await e2e.stack.store.approvalPolicy.put(team(), { expiryMinutes: 60 }, ADA);
    const { volumeId: next, card: nextCard } = await requestDeletion();
    const view2 = await click(bob, nextCard, ActionId.approve);
    if (!view2) throw new Error('no modal after the lockout');
    await submitCode(bob, view2, codeAt(secret, clock.now()));
    expect(deletesOf(next)).toBe(1);
  });

  it('a person not enrolled is told how, and their click counts nothing', async () => {
    const carol = newUser();
    const { volumeId, card } = await requestDeletion();
    const callsBefore = e2e.emulator.control.requestCount();
    expect(await click(carol, card, ActionId.approve)).toBeUndefined();
    expect(e2e.textOf(e2e.lastSeen(carol))).toContain('/cloud mfa enroll');
    expect(e2e.emulator.control.requestCount()).toBe(callsBefore);
    expect(deletesOf(volumeId)).toBe(0);
    expect(e2e.textOf(cardNow(card))).toContain('0 of 1');
  });

  it('a passkey-only rule counts nothing and says how to enroll a passkey', async () => {
    await e2e.stack.store.channelPolicy.put(
      team(),
      CHANNEL,
      { rules: { destructive: { stepUp: 'passkey' } } },
      ADA,
    );
    const bob = newUser();
    await enroll(bob);
    const { volumeId, card } = await requestDeletion();
    expect(await click(bob, card, ActionId.approve)).toBeUndefined();
    expect(e2e.textOf(e2e.lastSeen(bob))).toContain('/cloud mfa enroll passkey');
    expect(deletesOf(volumeId)).toBe(0);
  });

  it('Deny is gated as well: the click alone denies nothing; with a code it is denied "with a code"', async () => {
    const bob = newUser();
    const secret = await enroll(bob);
    const { volumeId, card } = await requestDeletion();
    const view = await click(bob, card, ActionId.deny);
    if (!view) throw new Error('no modal');
    expect(e2e.textOf(cardNow(card))).toContain(ActionId.deny);
    await submitCode(bob, view, codeAt(secret, clock.now()));
    expect(e2e.textOf(cardNow(card))).toContain(
      `:no_entry: Denied; nothing was run (denied by <@${bob}> with a code at`,
    );
    expect(thread(card)).toContain(`<@${bob}> denied with a code at`);
    expect(deletesOf(volumeId)).toBe(0);
  });

  it('break-glass is gated as well: the command alone runs nothing; with a code it runs once', async () => {
    const { secret, volume, view } = await breakGlassWithCode('glass', 'db down, restoring');
    expect(deletesOf(volume.id)).toBe(0);
    await submitCode(ALICE, view, codeAt(secret, clock.now()));
    expect(deletesOf(volume.id)).toBe(1);
    const card = lastCard();
    expect(e2e.textOf(card)).toContain('db down, restoring');
    expect(e2e.textOf(card)).toContain(`<@${ALICE}> with a code at`);
  });
});

describe('a break-glass waiting for its requester to confirm', () => {
  it("waits for nobody else: not on an approver's Home or in the list, a vote on it is refused, and it runs only when its requester confirms", async () => {
    const { secret, volume, view } = await breakGlassWithCode('awaiting', 'disk full');
    const request = (await e2e.stack.store.approvals.listPending(team())).find(
      (a) => a.reason === 'disk full',
    );
    if (!request) throw new Error('no stored request');
    expect(request.awaitingRequester).toBe(true);

    // Bob, an approver, is not asked for it anywhere, and his vote does not count.
    await e2e.command(BOB, 'approvals list');
    const listed = e2e.stack.standIn.store.messages(CHANNEL, { seenBy: BOB }).at(-1);
    // The list would name it by its summary, which names the volume.
    expect(request.summary).toContain(volume.label);
    expect(e2e.textOf(listed)).not.toContain(volume.label);
    await e2e.stack.workspace.openHome(BOB);
    await e2e.stack.drain();
    const bobsHome = JSON.stringify(e2e.stack.standIn.store.homeView(team(), BOB)?.view.blocks ?? []);
    expect(bobsHome).not.toContain(request.id);
    expect(
      await castVote(e2e.stack.store, {
        team: team(),
        approvalId: request.id,
        user: BOB,
        decision: 'approve',
      }),
    ).toMatchObject({
      outcome: 'awaiting_requester',
    });
    expect(deletesOf(volume.id)).toBe(0);

    // Alice's own Home says what it waits for.
    await e2e.stack.workspace.openHome(ALICE);
    await e2e.stack.drain();
    const alicesHome = JSON.stringify(e2e.stack.standIn.store.homeView(team(), ALICE)?.view.blocks ?? []);
    expect(alicesHome).toContain(':closed_lock_with_key: Break-glass, waiting for its requester to confirm');

    await submitCode(ALICE, view, codeAt(secret, clock.now()));
    expect(deletesOf(volume.id)).toBe(1);
    expect((await e2e.stack.store.approvals.get(team(), request.id))?.awaitingRequester).toBe(false);
  });
});

describe('reasons', () => {
  it('a rule requiring a reason refuses a request without one, and says how', async () => {
    await e2e.stack.store.channelPolicy.put(
      team(),
      CHANNEL,
      { rules: { destructive: { requireReason: true } } },
      ADA,
    );
    const volume = e2e.emulator.control.createVolume({ label: 'kept' });
    const delivery = await e2e.command(ALICE, `volumes delete ${volume.id}`);
    expect(e2e.textOf(delivery.message)).toContain('--reason');
    expect(e2e.textOf(delivery.message)).toContain('Nothing was requested');
    expect(
      (await e2e.stack.store.approvals.listPending(team())).some((a) => a.summary.includes('kept')),
    ).toBe(false);
  });

  it('a reason is shown on the card (escaped) and in the audit', async () => {
    await e2e.stack.store.channelPolicy.put(
      team(),
      CHANNEL,
      { rules: { destructive: { requireReason: true } } },
      ADA,
    );
    const { card } = await requestDeletion('replaced by <!channel> *vol-2*');
    const text = e2e.textOf(card);
    expect(text).toContain('Reason:');
    expect(text).toContain('replaced by &lt;!channel&gt;');
    expect(text).not.toContain('<!channel>');
    const audit = await e2e.stack.store.audit.list(team(), { limit: 200 });
    expect(
      audit.entries.some(
        (entry) => entry.result === 'requested' && entry.detail === 'Reason: replaced by <!channel> *vol-2*',
      ),
    ).toBe(true);
  });

  it('a rule set with /cloud policy --step-up and --require-reason is what the requests meet', async () => {
    await e2e.stack.store.channelPolicy.clear(team(), CHANNEL);
    await e2e.stack.store.approvalPolicy.put(team(), { admins: [ADA] }, ADA);
    const set = await e2e.command(ADA, 'policy --rule destructive --step-up code --require-reason on');
    expect(e2e.textOf(set.message)).toContain('step-up: an authenticator code');
    const bad = await e2e.command(ADA, 'policy --rule destructive --step-up sometimes');
    expect(e2e.textOf(bad.message)).toContain('`--step-up` is');
    const policy = await e2e.stack.store.channelPolicy.get(team(), CHANNEL);
    expect(policy?.rules.destructive).toMatchObject({ stepUp: 'code', requireReason: true });
  });
});

/** Ada, a policy admin, asks to reset `whose` methods: the card is up, nothing is removed. */
async function adminAsksReset(whose: string): Promise<StoredMessage> {
  await e2e.stack.store.approvalPolicy.put(team(), { admins: [ADA] }, ADA);
  const asked = await e2e.command(ADA, `mfa reset <@${whose}>`);
  expect(e2e.textOf(asked.message)).toContain('Nothing is removed yet');
  const card = lastCard();
  expect(e2e.textOf(card)).toContain(`asked to remove every step-up method of <@${whose}>`);
  expect((await e2e.stack.store.stepUp.enrollment(team(), whose))?.status).toBe('active');
  return card;
}

describe('mfa', () => {
  it('others may not ask to reset someone else’s step-up', async () => {
    const dave = newUser();
    await enroll(dave);
    const refused = await e2e.command(BOB, `mfa reset <@${dave}>`);
    expect(e2e.textOf(refused.message)).toContain('Only workspace admins');
    expect((await e2e.stack.store.stepUp.enrollment(team(), dave))?.status).toBe('active');
  });

  it('an admin’s reset of someone else is a reviewed change: removed only once another person approves, audited, their DM told', async () => {
    // Bob, whose DM the stand-in keeps; his methods are removed as an approved reset would.
    const dave = BOB;
    await e2e.stack.store.stepUp.reset(team(), BOB);
    await e2e.stack.store.passkeys.removeAll(team(), BOB);
    const told = directMessagesOf(BOB).length;
    await enroll(dave);
    const card = await adminAsksReset(dave);
    // Neither the admin who asked nor the person it is about decides it.
    await click(ADA, card, ActionId.approve);
    expect(e2e.textOf(e2e.lastSeen(ADA))).toContain('someone else has to approve');
    await click(dave, card, ActionId.approve);
    expect(e2e.textOf(e2e.lastSeen(dave))).toContain('removes your own step-up methods');
    expect((await e2e.stack.store.stepUp.enrollment(team(), dave))?.status).toBe('active');

    await click(ALICE, card, ActionId.approve);
    expect(await e2e.stack.store.stepUp.enrollment(team(), dave)).toBeUndefined();
    expect(directMessagesOf(dave).slice(told)).toContain(
      `Your step-up methods were removed:* authenticator app, by <@${ADA}>`,
    );
    const shown = e2e.textOf(cardNow(card));
    expect(shown).toContain('authenticator app was removed');
    const audit = (await e2e.stack.store.audit.list(team(), { limit: 200 })).entries.filter(
      (entry) => entry.target === `user ${dave}`,
    );
    expect(audit.map((entry) => [entry.action, entry.actor, entry.result])).toEqual(
      expect.arrayContaining([
        ['mfa.reset', ADA, 'requested'],
        ['mfa.reset', ALICE, 'approved'],
        ['mfa.reset', ADA, 'succeeded'],
      ]),
    );
  });

  it('under a rule that asks for reasons, an admin’s reset without --reason is told to add one and asks for nothing', async () => {
    const dave = newUser();
    await enroll(dave);
    await e2e.stack.store.approvalPolicy.put(team(), { admins: [ADA], requireReason: true }, ADA);
    try {
      const cards = e2e.stack.standIn.store.messages(CHANNEL).length;
      const asked = e2e.textOf((await e2e.command(ADA, `mfa reset <@${dave}>`)).message);
      expect(asked).toContain('asks every request to say why');
      expect(asked).toContain('--reason');
      expect(asked).not.toContain('takes no reason');
      expect(e2e.stack.standIn.store.messages(CHANNEL)).toHaveLength(cards);
      expect((await e2e.stack.store.stepUp.enrollment(team(), dave))?.status).toBe('active');
    } finally {
      await e2e.stack.store.approvalPolicy.put(team(), { admins: [ADA] }, ADA);
    }
  });

  it('an admin’s reset with --reason shows the reason on its card, and another person’s approval resets', async () => {
    const dave = newUser();
    await enroll(dave);
    await e2e.stack.store.approvalPolicy.put(team(), { admins: [ADA], requireReason: true }, ADA);
    try {
      const asked = await e2e.command(ADA, `mfa reset <@${dave}> --reason "lost phone, ticket 4411"`);
      expect(e2e.textOf(asked.message)).toContain('Nothing is removed yet');
      const card = lastCard();
      expect(e2e.textOf(card)).toContain(`asked to remove every step-up method of <@${dave}>`);
      expect(e2e.textOf(card)).toContain('*Reason:* “lost phone, ticket 4411”');
      await click(ALICE, card, ActionId.approve);
      expect(await e2e.stack.store.stepUp.enrollment(team(), dave)).toBeUndefined();
      expect(e2e.textOf(cardNow(card))).toContain('authenticator app was removed');
    } finally {
      await e2e.stack.store.approvalPolicy.put(team(), { admins: [ADA] }, ADA);
    }
  });

  it('a denied reset removes nothing', async () => {
    const dave = newUser();
    await enroll(dave);
    const card = await adminAsksReset(dave);
    await click(ALICE, card, ActionId.deny);
    expect(cardNow(card).text).toContain('Denied; nothing was run');
    expect((await e2e.stack.store.stepUp.enrollment(team(), dave))?.status).toBe('active');
    expect(directMessagesOf(dave)).not.toContain('were removed');
  });

  it('an approve click delivered twice resets once: one removal, one DM', async () => {
    // Bob, whose DM the stand-in keeps; his methods are removed as an approved reset would.
    const dave = BOB;
    await e2e.stack.store.stepUp.reset(team(), BOB);
    await e2e.stack.store.passkeys.removeAll(team(), BOB);
    const removedBefore = e2e.stack.standIn.store
      .messages(`D${BOB}`)
      .filter((message) => message.text.includes('were removed')).length;
    const removals = async () =>
      (await e2e.stack.store.audit.list(team(), { limit: 500 })).entries.filter(
        (entry) =>
          entry.action === 'mfa.reset' && entry.target === `user ${dave}` && entry.result === 'succeeded',
      ).length;
    const removalsBefore = await removals();
    await enroll(dave);
    await givePasskey(dave, 'laptop');
    const card = await adminAsksReset(dave);
    await Promise.all([
      e2e.stack.workspace.click(ALICE, cardNow(card), { actionId: ActionId.approve }),
      e2e.stack.workspace.click(ALICE, cardNow(card), { actionId: ActionId.approve }),
    ]);
    await e2e.stack.drain();
    expect(await e2e.stack.store.passkeys.list(team(), dave)).toEqual([]);
    const removedNotices = e2e.stack.standIn.store
      .messages(`D${BOB}`)
      .filter((message) => message.text.includes('were removed'));
    expect(removedNotices.length - removedBefore).toBe(1);
    expect((await removals()) - removalsBefore).toBe(1);
  });

  it('the enrollment secret appears only in the enrolling person’s own ephemeral reply', async () => {
    expect(secrets.length).toBeGreaterThan(0);
    const store = e2e.stack.standIn.store;
    let shown = 0;
    for (const channel of store.channels()) {
      for (const message of store.messages(channel.id, { includeEphemeral: true })) {
        const text = e2e.textOf(message);
        for (const secret of secrets) {
          if (!text.includes(secret)) continue;
          shown++;
          expect(message.ephemeral).toBe(true);
          expect(text).toContain('Only you see this message');
        }
      }
    }
    // Each secret was shown once, to its person: the scan looked where the secrets are.
    expect(shown).toBe(secrets.length);
    // No Web API call (a channel post, a DM, a modal, a card update) ever carried one.
    const calls = JSON.stringify(store.calls());
    for (const secret of secrets) expect(calls).not.toContain(secret);
    for (const view of store.views()) {
      for (const secret of secrets) expect(JSON.stringify(view.view)).not.toContain(secret);
    }
    const audit = JSON.stringify((await e2e.stack.store.audit.list(team(), { limit: 200 })).entries);
    const logs = logged.join('');
    for (const secret of secrets) {
      expect(audit).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });
});

async function givePasskey(user: string, name: string) {
  await e2e.stack.store.passkeys.save(team(), user, {
    id: Buffer.from(`${name}-of-${user}`).toString('base64url'),
    publicKey: new Uint8Array(77).fill(7),
    counter: 0,
    transports: ['internal'],
  });
}

/** What the bot said in `user`'s direct message with it. */
function directMessagesOf(user: string): string {
  return e2e.stack.standIn.store
    .messages(`D${user}`)
    .map((message) => e2e.textOf(message))
    .join('\n');
}

describe('binding another method needs a proof from one already enrolled (NIST SP 800-63B §6.1.2.3)', () => {
  beforeEach(async () => {
    await e2e.stack.store.stepUp.reset(team(), BOB);
    await e2e.stack.store.passkeys.removeAll(team(), BOB);
  });

  it('holding Bob’s Slack session alone, /cloud mfa enroll passkey binds nothing: it asks for his passkey', async () => {
    const told = directMessagesOf(BOB).length;
    await givePasskey(BOB, 'laptop');
    const answer = await e2e.command(BOB, 'mfa enroll passkey');
    const text = e2e.textOf(answer.message);
    expect(text).toContain('You have step-up methods already, so to add a passkey confirm it is you');
    const url = /<(http:\/\/localhost:\d+\/passkey\/[^|>]+)\|/.exec(text)?.[1];
    if (!url) throw new Error(`no passkey link: ${text}`);
    // The link proves with his passkey; it does not open a registration.
    const page = await fetch(url);
    expect(await page.text()).toContain('Confirm it is you: add a passkey');
    const options = (await (await fetch(`${url}/options`, { method: 'POST', body: '{}' })).json()) as {
      options: { allowCredentials?: unknown[]; excludeCredentials?: unknown };
    };
    expect(options.options.allowCredentials).toHaveLength(1);
    expect(options.options.excludeCredentials).toBeUndefined();
    expect(await e2e.stack.store.passkeys.list(team(), BOB)).toHaveLength(1);
    expect(directMessagesOf(BOB).slice(told)).not.toContain('added');
  });

  it('holding Bob’s Slack session alone, /cloud mfa reset removes nothing', async () => {
    await givePasskey(BOB, 'laptop');
    const answer = e2e.textOf((await e2e.command(BOB, 'mfa reset')).message);
    expect(answer).toContain('confirm it is you with a passkey you have');
    expect(await e2e.stack.store.passkeys.list(team(), BOB)).toHaveLength(1);
  });

  it('with a current code from his app, enroll passkey gives Bob the enrollment link; a wrong code gives nothing', async () => {
    const secret = await enroll(BOB);
    await e2e.command(BOB, 'mfa enroll passkey');
    const view = e2e.openView(BOB);
    if (!view) throw new Error('no code modal');
    expect(JSON.stringify(view.view)).toContain('To add a passkey, confirm it is you');
    const wrong = await submitCode(BOB, view, codeAt(secret, new Date(clock.now().getTime() + 10 * STEP_MS)));
    expect(wrong.body).toContain('not right. Nothing changed');
    expect(JSON.stringify(e2e.seen(BOB))).not.toContain('Add a passkey.');
    const right = await submitCode(BOB, view, codeAt(secret, clock.now()));
    expect(right.body).not.toContain('errors');
    const told = e2e.lastSeen(BOB);
    expect(told.ephemeral && told.visibleTo === BOB).toBe(true);
    expect(e2e.textOf(told)).toContain('*Add a passkey.*');
    expect(await (await fetch(/<(http:[^|>]+)\|/.exec(e2e.textOf(told))?.[1] ?? '')).text()).toContain(
      'Set up a passkey',
    );
  });

  it('Bob’s DM hears whenever a method of his is added or removed: which, by whom, when, and what to do if not him', async () => {
    const secret = await enroll(BOB);
    const added = directMessagesOf(BOB);
    expect(added).toContain(
      'A step-up method was added to your account:* an authenticator app, by you, <!date^',
    );
    expect(added).toContain('If this was not you');
    await e2e.command(BOB, 'mfa reset');
    const view = e2e.openView(BOB);
    if (!view) throw new Error('no code modal');
    await submitCode(BOB, view, codeAt(secret, clock.now()));
    expect(directMessagesOf(BOB)).toContain('Your step-up methods were removed:* authenticator app, by you');
    expect((await e2e.stack.store.stepUp.enrollment(team(), BOB)) ?? 'none').toBe('none');
  });
});

describe('with passkeys (the page itself is exercised in chromium, test/local/passkey-*-browser)', () => {
  it('mfa status counts passkeys and says when each was added; mfa reset removes them, admins for others', async () => {
    const erin = newUser();
    await enroll(erin);
    await givePasskey(erin, 'laptop');
    await givePasskey(erin, 'phone');
    const status = e2e.textOf((await e2e.command(erin, 'mfa status')).message);
    expect(status).toContain('Authenticator app enrolled');
    expect(status).toContain('2 passkeys enrolled (added <!date^');

    const refused = await e2e.command(BOB, `mfa reset <@${erin}>`);
    expect(e2e.textOf(refused.message)).toContain('Only workspace admins');
    expect(await e2e.stack.store.passkeys.list(team(), erin)).toHaveLength(2);

    const card = await adminAsksReset(erin);
    await click(ALICE, card, ActionId.approve);
    expect(e2e.textOf(cardNow(card))).toContain('authenticator app and 2 passkeys were removed');
    expect(await e2e.stack.store.passkeys.list(team(), erin)).toEqual([]);
    const after = e2e.textOf((await e2e.command(erin, 'mfa status')).message);
    expect(after).toContain('no step-up method');
    const audit = await e2e.stack.store.audit.list(team(), { limit: 200 });
    expect(
      audit.entries.some(
        (entry) =>
          entry.action === 'mfa.reset' &&
          entry.actor === ADA &&
          entry.target === `user ${erin}` &&
          entry.detail?.includes('2 passkeys'),
      ),
    ).toBe(true);

    // Her own reset removes nothing on her Slack session alone: it asks for her passkey first.
    const own = newUser();
    await givePasskey(own, 'key');
    const asked = e2e.textOf((await e2e.command(own, 'mfa reset')).message);
    expect(asked).toContain('to remove all your step-up methods confirm it is you with a passkey you have');
    expect(await e2e.stack.store.passkeys.list(team(), own)).toHaveLength(1);
  });

  it('under a passkey rule, a click answers the clicker alone with a link; no passkey: told how, nothing counted', async () => {
    await e2e.stack.store.channelPolicy.put(
      team(),
      CHANNEL,
      { rules: { destructive: { stepUp: 'passkey' } } },
      ADA,
    );
    const frank = newUser();
    const { volumeId, card } = await requestDeletion();
    const calls = e2e.emulator.control.requestCount();
    expect(await click(frank, card, ActionId.approve)).toBeUndefined();
    const told = e2e.textOf(e2e.lastSeen(frank));
    expect(told).toContain('/cloud mfa enroll passkey');
    expect(told).not.toContain('/passkey/');

    // A code does not stand in for a passkey: enrolled with an app only is not enrolled here.
    await enroll(frank);
    expect(await click(frank, card, ActionId.approve)).toBeUndefined();
    expect(e2e.textOf(e2e.lastSeen(frank))).toContain('/cloud mfa enroll passkey');

    await givePasskey(frank, 'key');
    expect(await click(frank, card, ActionId.approve)).toBeUndefined();
    const offered = e2e.lastSeen(frank);
    expect(offered.ephemeral && offered.visibleTo === frank).toBe(true);
    const url = /<(http:\/\/localhost:\d+\/passkey\/[^|>]+)\|/.exec(e2e.textOf(offered))?.[1];
    expect(url).toBeDefined();
    expect(JSON.stringify(e2e.seen(ALICE))).not.toContain(url);
    expect(e2e.emulator.control.requestCount()).toBe(calls);
    expect(deletesOf(volumeId)).toBe(0);
  });

  it('under an `any` rule, someone with passkeys and no app gets a link; with an app, the code modal', async () => {
    await e2e.stack.store.channelPolicy.put(
      team(),
      CHANNEL,
      { rules: { destructive: { stepUp: 'any' } } },
      ADA,
    );
    const gina = newUser();
    await givePasskey(gina, 'key');
    const { card } = await requestDeletion();
    expect(await click(gina, card, ActionId.approve)).toBeUndefined();
    expect(e2e.textOf(e2e.lastSeen(gina))).toMatch(/\/passkey\//);

    const hal = newUser();
    await enroll(hal);
    await givePasskey(hal, 'key');
    expect(await click(hal, card, ActionId.approve)).toBeDefined();
  });
});
