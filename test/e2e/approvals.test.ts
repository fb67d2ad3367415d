import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { ApiClient } from '../../lib/api/client.js';
import type { AnyOperation } from '../../lib/api/operation.js';
import { getOperation, operations, requireOperation } from '../../lib/api/operations/index.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { parseApiDate } from '../../lib/slack-kit/text.js';
import { lastCardWith } from '../support/cards.js';
import { ADA, ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';
import { commandTextFor, existingInputFor } from '../support/sample-inputs.js';
import { testClock } from '../support/store.js';

/**
 * Approval buttons end to end: signed commands and clicks, DynamoDB Local, the emulator. What
 * matters is what the API saw: a destructive operation runs once after approval, never otherwise.
 */

const clock = testClock(new Date());
let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;

beforeAll(async () => {
  e2e = await startE2E({ stack: { now: clock.now } });
  await e2e.login(ALICE, e2e.emulator.demoToken);
});

afterAll(async () => {
  await e2e?.close();
});

beforeEach(async () => {
  clock.set(new Date());
  await e2e.stack.store.approvalPolicy.put(team(), {}, ADA);
});

function deletesOf(volumeId: number): number {
  return e2e.emulator.control.requestCount('volumes.delete', { volumeId });
}

async function someVolumeId(): Promise<number> {
  const volume = e2e.emulator.control.createVolume({
    label: `doomed-${Math.random().toString(36).slice(2, 8)}`,
  });
  return volume.id;
}

/** The newest approval card in the channel. */
function lastCard(): StoredMessage {
  const card = lastCardWith(e2e.stack.standIn.store, CHANNEL, ActionId.approve);
  if (!card) throw new Error('no approval card');
  return card;
}

function cardNow(card: StoredMessage): StoredMessage {
  return e2e.stack.standIn.store.findMessage(CHANNEL, card.ts) ?? card;
}

async function click(user: string, card: StoredMessage, actionId: string) {
  const delivery = await e2e.stack.workspace.click(user, cardNow(card), { actionId });
  await e2e.stack.drain();
  return delivery;
}

/** A click on the card as it looked before it was updated (a slow client, a second window). */
async function clickStale(user: string, card: StoredMessage, actionId: string) {
  const delivery = await e2e.stack.workspace.click(user, card, { actionId });
  await e2e.stack.drain();
  return delivery;
}

async function requestDeletion(): Promise<{ volumeId: number; card: StoredMessage }> {
  const volumeId = await someVolumeId();
  const delivery = await e2e.command(ALICE, `volumes delete ${volumeId}`);
  expect(e2e.textOf(delivery.message)).toContain('needs 1 approval');
  return { volumeId, card: lastCard() };
}

describe('a destructive command', () => {
  it('does not run, and posts a card naming the target and the consequence', async () => {
    const { volumeId, card } = await requestDeletion();
    expect(deletesOf(volumeId)).toBe(0);
    const text = e2e.textOf(card);
    expect(text).toContain('doomed-');
    expect(text).toContain('cannot be undone');
    expect(text).toContain(`<@${ALICE}>`);
    // The volume's size with its unit ("size 20" said nothing of GB).
    expect(text).toMatch(/size \*\d+ GB\*/);
  });

  it('for a target that does not exist, posts no card', async () => {
    const cardsBefore = e2e.stack.standIn.store.callsTo('chat.postMessage').length;
    const delivery = await e2e.command(ALICE, 'volumes delete 999999');
    expect(e2e.textOf(delivery.message)).toContain('nothing to approve');
    expect(e2e.stack.standIn.store.callsTo('chat.postMessage').length).toBe(cardsBefore);
  });

  it('approve → runs once, and the card and thread say so', async () => {
    const { volumeId, card } = await requestDeletion();
    await click(BOB, card, ActionId.approve);
    expect(deletesOf(volumeId)).toBe(1);
    expect(e2e.emulator.control.volumeExists(volumeId)).toBe(false);
    const updated = cardNow(card);
    expect(JSON.stringify(updated.blocks)).not.toContain(ActionId.approve);
    const thread = e2e.stack.standIn.store.thread(CHANNEL, card.ts).map((m) => m.text);
    expect(thread.join('\n')).toMatch(/approved/);
    expect(thread.join('\n')).toContain(':white_check_mark: Approved and done.');
    const audit = await e2e.stack.store.audit.list(team());
    expect(
      audit.entries.some((entry) => entry.action === 'volumes.delete' && entry.result === 'succeeded'),
    ).toBe(true);
  });

  it('50 concurrent approve clicks → one API call', async () => {
    const { volumeId, card } = await requestDeletion();
    const clickers = Array.from({ length: 50 }, (_, i) => `U0CLICK${String(i).padStart(2, '0')}`);
    const deliveries = await Promise.all(
      clickers.map((user) => e2e.stack.workspace.click(user, card, { actionId: ActionId.approve })),
    );
    await e2e.stack.drain();
    expect(deliveries.every((d) => d.status === 200)).toBe(true);
    expect(deletesOf(volumeId)).toBe(1);
  });

  it('the same person clicking twice counts once', async () => {
    await e2e.stack.store.approvalPolicy.put(team(), { requiredApprovals: 2 }, ADA);
    const volumeId = await someVolumeId();
    await e2e.command(ALICE, `volumes delete ${volumeId}`);
    const card = lastCard();
    await click(BOB, card, ActionId.approve);
    const again = await click(BOB, card, ActionId.approve);
    expect(again.status).toBe(200);
    expect(deletesOf(volumeId)).toBe(0);
    expect(e2e.textOf(e2e.lastSeen(BOB))).toContain('already approved');
  });

  it('deny → never runs', async () => {
    const { volumeId, card } = await requestDeletion();
    await click(BOB, card, ActionId.deny);
    await clickStale(ADA, card, ActionId.approve);
    expect(e2e.textOf(e2e.lastSeen(ADA))).toContain('already denied');
    expect(deletesOf(volumeId)).toBe(0);
    expect(e2e.textOf(cardNow(card))).toMatch(/denied/i);
  });

  it('cancel by the requester → never runs; others may not cancel', async () => {
    const { volumeId, card } = await requestDeletion();
    await click(BOB, card, ActionId.cancel);
    expect(e2e.textOf(e2e.lastSeen(BOB))).toContain('Only the person who asked');
    await click(ALICE, card, ActionId.cancel);
    await clickStale(BOB, card, ActionId.approve);
    expect(deletesOf(volumeId)).toBe(0);
    expect(e2e.textOf(cardNow(card))).toMatch(/cancel/i);
  });

  it('self-approval is refused under the default policy', async () => {
    const { volumeId, card } = await requestDeletion();
    await click(ALICE, card, ActionId.approve);
    expect(deletesOf(volumeId)).toBe(0);
    expect(e2e.textOf(e2e.lastSeen(ALICE))).toContain('someone else');
  });

  it("a non-approver's click is refused with a message", async () => {
    await e2e.stack.store.approvalPolicy.put(team(), { approverUsers: [ADA] }, ADA);
    const { volumeId, card } = await requestDeletion();
    await click(BOB, card, ActionId.approve);
    expect(deletesOf(volumeId)).toBe(0);
    expect(e2e.textOf(e2e.lastSeen(BOB))).toContain('not one of the approvers');
    await click(ADA, card, ActionId.approve);
    expect(deletesOf(volumeId)).toBe(1);
  });

  it('a group approver whose group Slack would not list (429) is told to try again, and may approve after', async () => {
    await e2e.stack.store.approvalPolicy.put(team(), { approverGroup: 'S0ONCALL' }, ADA);
    const { volumeId, card } = await requestDeletion();
    e2e.stack.standIn.injectRateLimit({ methods: ['usergroups.users.list'], retryAfterSeconds: 7, times: 1 });
    try {
      await click(ADA, card, ActionId.approve);
    } finally {
      e2e.stack.standIn.injectRateLimit(undefined);
    }
    expect(deletesOf(volumeId)).toBe(0);
    const refusal = e2e.textOf(e2e.lastSeen(ADA));
    expect(refusal).toContain('slow down');
    expect(refusal).not.toContain('not one of the approvers');
    await click(ADA, card, ActionId.approve);
    expect(deletesOf(volumeId)).toBe(1);
  });

  it('2-of-3 needs two distinct approvers', async () => {
    await e2e.stack.store.approvalPolicy.put(
      team(),
      { approverUsers: [ADA, BOB, 'U0CAROL'], requiredApprovals: 2 },
      ADA,
    );
    const volumeId = await someVolumeId();
    await e2e.command(ALICE, `volumes delete ${volumeId}`);
    const card = lastCard();
    await click(BOB, card, ActionId.approve);
    expect(deletesOf(volumeId)).toBe(0);
    expect(e2e.textOf(cardNow(card))).toContain('1 of 2');
    await click(ADA, card, ActionId.approve);
    expect(deletesOf(volumeId)).toBe(1);
  });

  it('tells the approver their vote counted when Slack rate limits the card update (429 on chat.update)', async () => {
    await e2e.stack.store.approvalPolicy.put(
      team(),
      { approverUsers: [ADA, BOB], requiredApprovals: 2 },
      ADA,
    );
    const volumeId = await someVolumeId();
    await e2e.command(ALICE, `volumes delete ${volumeId}`);
    const card = lastCard();
    e2e.stack.standIn.injectRateLimit({ methods: ['chat.update'], retryAfterSeconds: 30, times: 1 });
    try {
      await click(BOB, card, ActionId.approve);
    } finally {
      e2e.stack.standIn.injectRateLimit(undefined);
    }
    const told = e2e.textOf(e2e.lastSeen(BOB));
    expect(told).toContain('Your approval counts (1 of 2)');
    expect(told).toContain('did not let the bot update the card');
    await click(ADA, card, ActionId.approve);
    expect(deletesOf(volumeId)).toBe(1);
  });

  it('expiry refuses late clicks and the card says expired', async () => {
    const { volumeId, card } = await requestDeletion();
    clock.advance(16 * 60_000);
    await click(BOB, card, ActionId.approve);
    expect(deletesOf(volumeId)).toBe(0);
    expect(e2e.textOf(e2e.lastSeen(BOB))).toContain('expired');
    expect(e2e.textOf(cardNow(card))).toMatch(/expired/i);
  });

  it("the requester's token revoked before approval → the failure is shown and recorded", async () => {
    const { token } = e2e.emulator.control.createToken('demo', { scopes: '*' });
    await e2e.login('U0DAVE', token);
    const volumeId = await someVolumeId();
    await e2e.command('U0DAVE', `volumes delete ${volumeId}`);
    const card = lastCard();
    e2e.emulator.control.revokeToken(token);
    await click(BOB, card, ActionId.approve);
    expect(e2e.emulator.control.volumeExists(volumeId)).toBe(true);
    expect(e2e.textOf(cardNow(card))).toContain(':x: Approved, but it did not happen');
    const thread = e2e.stack.standIn.store.thread(CHANNEL, card.ts).map((m) => m.text);
    expect(thread.join('\n')).toContain(':x: Approved, but it did not happen');
    const audit = await e2e.stack.store.audit.list(team());
    expect(
      audit.entries.some((entry) => entry.action === 'volumes.delete' && entry.result === 'failed'),
    ).toBe(true);
  });
});

describe('every destructive operation of the registry', () => {
  const destructive = operations.filter(
    (op): op is AnyOperation & { destructive: object } => !!op.destructive,
  );

  it('is at least every DELETE plus the documented irreversible actions', () => {
    const ids = destructive.map((op) => op.id);
    expect(ids).toEqual(
      expect.arrayContaining(['nodes.backups-cancel', 'nodes.snapshot', 'profile.tfa-disable']),
    );
    expect(ids).toEqual(
      expect.arrayContaining(['databases.mysql-backup-restore', 'databases.postgresql-creds-reset']),
    );
    expect(operations.filter((op) => op.method === 'DELETE').every((op) => op.destructive)).toBe(true);
  });

  it('goes through the approval card, never straight to the API', async () => {
    const failures: string[] = [];
    const client = new ApiClient({ baseUrl: e2e.emulator.url, token: e2e.emulator.demoToken });
    for (const op of destructive) {
      const input = await existingInputFor(op, client);
      const before = e2e.emulator.control.requestCount(op.id);
      const cardsBefore = e2e.stack.standIn.store.callsTo('chat.postMessage').length;
      const delivery = await e2e.command(ALICE, commandTextFor(op, input));
      const cardPosted = e2e.stack.standIn.store.callsTo('chat.postMessage').length > cardsBefore;
      if (!cardPosted || e2e.emulator.control.requestCount(op.id) !== before) {
        failures.push(`${op.id}: ${e2e.textOf(delivery.message).slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('/cloud approvals', () => {
  it('policy shows the defaults to anyone', async () => {
    const delivery = await e2e.command(BOB, 'approvals policy');
    const text = e2e.textOf(delivery.message);
    expect(text).toContain('Approvals needed:* 1');
    expect(text).toContain('own request:* no');
    expect(text).toContain('15 minutes');
  });

  it('only a workspace admin may change the policy', async () => {
    const refused = await e2e.command(BOB, 'approvals policy --required 2');
    expect(e2e.textOf(refused.message)).toContain('Only workspace admins');
    expect((await e2e.stack.store.approvalPolicy.get(team())).requiredApprovals).toBe(1);

    const changed = await e2e.command(
      ADA,
      `approvals policy --approvers <@${BOB}>,<@${ADA}> --required 2 --expiry 30`,
    );
    expect(e2e.textOf(changed.message)).toContain('Approval policy updated');
    const policy = await e2e.stack.store.approvalPolicy.get(team());
    expect(policy).toMatchObject({ approverUsers: [BOB, ADA], requiredApprovals: 2, expiryMinutes: 30 });
  });

  it('says to try again, not "only admins", when Slack rate limits the admin check', async () => {
    e2e.stack.standIn.injectRateLimit({ methods: ['users.info'], retryAfterSeconds: 3 });
    try {
      const delivery = await e2e.command(BOB, 'approvals policy --required 2');
      const text = e2e.textOf(delivery.message);
      expect(text).toContain('Try again in 3 seconds');
      expect(text).not.toContain('Only workspace admins');
    } finally {
      e2e.stack.standIn.injectRateLimit(undefined);
    }
    expect((await e2e.stack.store.approvalPolicy.get(team())).requiredApprovals).toBe(1);
  });

  it('refuses a policy that could never be satisfied', async () => {
    const delivery = await e2e.command(ADA, `approvals policy --approvers <@${BOB}> --required 2`);
    expect(e2e.textOf(delivery.message)).toContain('names only 1 approver');
  });

  it('list shows pending requests', async () => {
    const { volumeId } = await requestDeletion();
    const delivery = await e2e.command(BOB, 'approvals list');
    expect(e2e.textOf(delivery.message)).toContain(`(${volumeId})`);
  });
});

describe('what the cards name', () => {
  const api = () => new ApiClient({ baseUrl: e2e.emulator.url, token: e2e.emulator.demoToken });

  async function restoreRequest() {
    const op = getOperation('databases.mysql-backup-restore');
    const input = await existingInputFor(op, api());
    const database = (await api().call(requireOperation('databases.mysql-view'), {
      instanceId: input.instanceId,
    })) as { label: string };
    const backup = (await api().call(requireOperation('databases.mysql-backup-view'), input)) as {
      label: string;
      created: string;
    };
    return { command: commandTextFor(op, input), input, database, backup };
  }

  it('regression: a restore card read "restore backup before_migration (41/8001)"; now it names the backup and its database by label and id, and when the backup was taken', async () => {
    const { command, input, database, backup } = await restoreRequest();
    const target = `${backup.label} (${String(input.backupId)}) of database ${database.label} (${String(input.instanceId)})`;
    await e2e.command(ALICE, command);
    const card = lastCard();
    expect(card.blocks?.[0]).toMatchObject({
      type: 'header',
      text: { text: `Approval needed: restore backup ${target}` },
    });
    const text = e2e.textOf(card);
    expect(text).toContain(`<@${ALICE}> asked to restore backup *${target}*.`);
    expect(text).toContain(`*Now:* backup ${backup.label} (${String(input.backupId)}): type *`);
    const taken = (parseApiDate(backup.created)?.getTime() ?? Number.NaN) / 1000;
    expect(text).toContain(
      `*Replaces* the current data with backup *${backup.label} (${String(input.backupId)})*, taken <!date^${taken}^{ago}|`,
    );
    expect(text).not.toContain(`(${String(input.instanceId)}/${String(input.backupId)})`);
    expect(text).not.toContain(backup.created);
  });

  it('the channel message that follows an approved restore names the backup, its database, who ran it and who approved', async () => {
    const { command, input, database, backup } = await restoreRequest();
    const target = `${backup.label} (${String(input.backupId)}) of database ${database.label} (${String(input.instanceId)})`;
    await e2e.command(ALICE, command);
    const card = lastCard();
    await click(BOB, card, ActionId.approve);
    const followed = e2e.stack.standIn.store
      .messages(CHANNEL)
      .filter((m) => !m.thread_ts && !m.ephemeral && m.ts !== card.ts)
      .map((m) => e2e.textOf(m))
      .filter((text) => text.includes(`:ballot_box_with_check: Restore backup *${target}*`))
      .at(-1);
    expect(followed).toContain(`· Approved by <@${BOB}>`);
    expect(followed).toContain(
      `:bust_in_silhouette: <@${ALICE}> ran \`/cloud databases mysql-backup-restore\``,
    );
  });

  it("shows an id whose label the requester's token cannot read, and says so, instead of failing", async () => {
    const { command, input, backup } = await restoreRequest();
    const fault = e2e.emulator.control.injectFault({
      kind: 'status',
      status: 500,
      operations: ['databases.mysql-view'],
    });
    try {
      const delivery = await e2e.command(ALICE, command);
      expect(e2e.textOf(delivery.message)).toContain('needs 1 approval');
    } finally {
      e2e.emulator.control.removeFault(fault);
    }
    expect(e2e.textOf(lastCard())).toContain(
      `restore backup *${backup.label} (${String(input.backupId)}) of database ${String(input.instanceId)} (label not readable)*`,
    );
  });

  it('a delete card names the volume with its state while pending, and drops that state once the volume is gone', async () => {
    const volume = e2e.emulator.control.createVolume({
      label: `named-${Math.random().toString(36).slice(2, 8)}`,
    });
    await e2e.command(ALICE, `volumes delete ${volume.id}`);
    const card = lastCard();
    expect(e2e.textOf(card)).toContain(
      `<@${ALICE}> asked to delete volume *${volume.label} (${volume.id})*.`,
    );
    expect(e2e.textOf(card)).toContain(`*Now:* volume ${volume.label} (${volume.id}): status *active*`);

    await click(BOB, card, ActionId.approve);
    expect(e2e.emulator.control.volumeExists(volume.id)).toBe(false);
    const settled = e2e.textOf(cardNow(card));
    // Regression: "Now: status active" stayed on the card after the volume was deleted.
    expect(settled).not.toContain('*Now:*');
    expect(settled).not.toContain('status *active*');
    expect(settled).toContain(':white_check_mark: Approved and done.');
    expect(settled).toContain(`approved by <@${BOB}>`);
    expect(settled).toContain(`Delete volume ${volume.label} (${volume.id})`);
  });

  it('a denied card keeps the state it showed, as the state when asked', async () => {
    const { volumeId, card } = await requestDeletion();
    await click(BOB, card, ActionId.deny);
    const settled = e2e.textOf(cardNow(card));
    expect(settled).toMatch(
      new RegExp(`\\*When asked:\\* volume doomed-\\w+ \\(${volumeId}\\): status \\*active\\*`),
    );
    expect(settled).not.toContain('*Now:*');
  });

  it('regression: a change posted in the channel ("Volume: newcomer-vol") did not say who made it', async () => {
    const label = `newcomer-${Math.random().toString(36).slice(2, 8)}`;
    await e2e.command(ALICE, `volumes create --label ${label} --region us-east --size 20`);
    const posted = e2e.stack.standIn.store
      .messages(CHANNEL)
      .filter((m) => !m.ephemeral && m.text.includes(`Volume: ${label}`))
      .at(-1);
    expect(e2e.textOf(posted)).toContain(`:bust_in_silhouette: <@${ALICE}> ran \`/cloud volumes create\``);
  });
});

describe('/cloud audit', () => {
  it('lists the latest changes with who, what and the outcome', async () => {
    const { volumeId, card } = await requestDeletion();
    await click(BOB, card, ActionId.approve);
    const delivery = await e2e.command(BOB, 'audit --limit 5');
    const text = e2e.textOf(delivery.message);
    // In words: who ran which command on what, and how it ended; dates as a person reads them.
    expect(text).toContain(`<@${ALICE}> ran \`volumes delete\` on volume ${volumeId} — *succeeded*`);
    expect(text).toContain(`<@${BOB}> approved \`volumes delete\` on `);
    expect(text).not.toContain('volumes.delete');
    expect(text).not.toMatch(/\|\d{4}-\d{2}-\d{2}T/);
  });

  it('refuses a limit out of range', async () => {
    const delivery = await e2e.command(BOB, 'audit --limit 500');
    expect(e2e.textOf(delivery.message)).toContain('from 1 to 50');
  });
});

describe('approver groups on a free Slack plan (no user groups there)', () => {
  async function onFreePlan(work: () => Promise<void>): Promise<void> {
    const { settings } = e2e.stack.standIn;
    settings.plan = 'free';
    try {
      await work();
    } finally {
      settings.plan = 'standard';
    }
  }

  it('refuses --approver-group and says to name the approvers instead', async () => {
    await onFreePlan(async () => {
      const delivery = await e2e.command(
        ADA,
        'approvals policy --approver-group <!subteam^S0ONCALL|@oncall>',
      );
      const text = e2e.textOf(delivery.message);
      expect(text).toContain('plan has no user groups');
      expect(text).toContain('--approvers');
    });
    expect((await e2e.stack.store.approvalPolicy.get(team())).approverGroup).toBeNull();
  });

  it('refuses it in a channel rule too', async () => {
    await onFreePlan(async () => {
      const delivery = await e2e.command(
        ADA,
        'policy --rule destructive --approver-group <!subteam^S0ONCALL|@oncall>',
      );
      expect(e2e.textOf(delivery.message)).toContain('plan has no user groups');
    });
    expect((await e2e.stack.store.channelPolicy.get(team(), CHANNEL))?.rules?.destructive).toBeUndefined();
  });

  it('tells a group member why the group cannot be read, instead of that they are no approver', async () => {
    await e2e.stack.store.approvalPolicy.put(team(), { approverGroup: 'S0ONCALL' }, ADA);
    const { volumeId, card } = await requestDeletion();
    await onFreePlan(async () => {
      await click(ADA, card, ActionId.approve);
    });
    expect(deletesOf(volumeId)).toBe(0);
    const refusal = e2e.textOf(e2e.lastSeen(ADA));
    expect(refusal).toContain('plan has no user groups');
    expect(refusal).not.toContain('not one of the approvers');
  });
});
