import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { ApiClient } from '../../lib/api/client.js';
import { getOperation, requireOperation } from '../../lib/api/operations/index.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { lastCardWith } from '../support/cards.js';
import { ADA, ALICE, BOB, type E2E, startE2E } from '../support/e2e.js';
import { commandTextFor, existingInputFor } from '../support/sample-inputs.js';

/**
 * Channel guardrails end to end: signed commands, DynamoDB Local, the emulator. A channel's policy
 * decides what may run there and who approves, before any API call.
 */

const OPS = 'C0OPS';
const GENERAL = 'C0GENERAL';
let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;

beforeAll(async () => {
  e2e = await startE2E();
  await e2e.login(ALICE, e2e.emulator.demoToken);
});

afterAll(async () => {
  await e2e?.close();
});

beforeEach(async () => {
  await e2e.stack.store.channelPolicy.clear(team(), OPS);
  await e2e.stack.store.channelPolicy.clear(team(), GENERAL);
  await e2e.stack.store.approvalPolicy.put(team(), {}, ADA);
});

function newVolume(): number {
  return e2e.emulator.control.createVolume({ label: `g-${Math.random().toString(36).slice(2, 8)}` }).id;
}

function lastCard(channel: string): StoredMessage | undefined {
  return lastCardWith(e2e.stack.standIn.store, channel, ActionId.approve);
}

describe('/cloud policy', () => {
  it('shows that a channel without a policy follows the workspace policy', async () => {
    const delivery = await e2e.command(ALICE, 'policy', OPS);
    expect(e2e.textOf(delivery.message)).toContain('no policy of its own');
  });

  it('is changed by admins only, and every change is audited', async () => {
    const refused = await e2e.command(ALICE, 'policy --allow read', OPS);
    expect(e2e.textOf(refused.message)).toContain('Only workspace admins');
    expect(await e2e.stack.store.channelPolicy.get(team(), OPS)).toBeUndefined();

    const changed = await e2e.command(ADA, 'policy --allow read,change', OPS);
    expect(e2e.textOf(changed.message)).toContain('Channel policy updated');
    const shown = e2e.textOf((await e2e.command(BOB, 'policy', OPS)).message);
    expect(shown).toContain('*Allowed here:* read, change operations');
    expect(shown).toContain('<@U0ADMIN>');
    const { entries } = await e2e.stack.store.audit.list(team());
    expect(entries.some((e) => e.action === 'policy.channel' && e.actor === ADA)).toBe(true);
  });

  it('refuses unknown classes and rules with usage', async () => {
    expect(e2e.textOf((await e2e.command(ADA, 'policy --allow everything', OPS)).message)).toContain(
      '`--allow` takes classes',
    );
    expect(
      e2e.textOf((await e2e.command(ADA, 'policy --rule constructor --required 2', OPS)).message),
    ).toContain('neither a class');
    expect(await e2e.stack.store.channelPolicy.get(team(), OPS)).toBeUndefined();
  });
});

describe('a channel that allows only reads', () => {
  it('refuses a destructive command before any API call, naming the rule and where it is allowed', async () => {
    await e2e.command(ADA, 'policy --allow read', OPS);
    await e2e.command(ADA, 'policy --allow read,change,costs,destructive', GENERAL);
    const volumeId = newVolume();
    const before = e2e.emulator.control.requestCount();

    const delivery = await e2e.command(ALICE, `volumes delete ${volumeId}`, OPS);
    const text = e2e.textOf(delivery.message);
    expect(text).toContain('is a *destructive* operation');
    expect(text).toContain('allows only read operations');
    expect(text).toContain(`<#${GENERAL}>`);
    expect(e2e.emulator.control.requestCount()).toBe(before);
    expect(lastCard(OPS)).toBeUndefined();
  });

  it('names where the operation is allowed as the stored policies say: channels whose policy allows it, and channels without one', async () => {
    await e2e.command(ADA, 'policy --allow read', OPS);
    await e2e.command(ADA, 'policy --allow read,change,costs,destructive', GENERAL);
    const text = e2e.textOf((await e2e.command(ALICE, `volumes delete ${newVolume()}`, OPS)).message);
    expect(text).toContain(
      `It is allowed in <#${GENERAL}>, whose policy allows destructive operations, and in any channel without a policy of its own.`,
    );
    expect(text).not.toContain('channels without a policy of their own');

    // With no channel's policy allowing it, only the channels without a policy are left.
    await e2e.command(ADA, 'policy --allow read', GENERAL);
    const alone = e2e.textOf((await e2e.command(ALICE, `volumes delete ${newVolume()}`, OPS)).message);
    expect(alone).toContain('It is allowed only in channels without a policy of their own.');
    expect(alone).not.toContain(`<#${GENERAL}>`);
  });

  it('lists rows and shows a volume without the Detach or Delete the channel would refuse', async () => {
    const api = new ApiClient({ baseUrl: e2e.emulator.url, token: e2e.emulator.demoToken });
    const volumes = (await api.listAll(getOperation('volumes.list'), {})).data as {
      id: number;
      label: string;
      node_id: number | null;
    }[];
    const attached = volumes.find((v) => v.node_id !== null);
    if (!attached) throw new Error('the demo data has no attached volume');
    const offered = async (channel: string) => {
      const row = JSON.stringify(
        (await e2e.command(ALICE, `volumes list --label ${attached.label}`, channel)).message?.blocks,
      );
      const detail = JSON.stringify(
        (await e2e.command(ALICE, `volumes view ${attached.id}`, channel)).message?.blocks,
      );
      return { row, detail };
    };
    // Where everything may run, the row's menu offers Detach and the detail Detach and Delete.
    const everywhere = await offered(GENERAL);
    expect(everywhere.row).toContain('"o\\":\\"volumes.detach');
    expect(everywhere.detail).toContain('"o\\":\\"volumes.detach');
    expect(everywhere.detail).toContain('"o\\":\\"volumes.delete');

    await e2e.command(ADA, 'policy --allow read', OPS);
    const readOnly = await offered(OPS);
    expect(readOnly.row).toContain('"o\\":\\"volumes.view');
    expect(readOnly.row).not.toContain('volumes.detach');
    expect(readOnly.detail).not.toContain('volumes.detach');
    expect(readOnly.detail).not.toContain('volumes.delete');
    expect(readOnly.detail).not.toContain('"text":"Delete"');
  });

  it('offers a read-only token no buttons its scopes would refuse', async () => {
    const READER = 'U0ROWREADER';
    const { token } = e2e.emulator.control.createToken('demo', { scopes: 'volumes:read_only' });
    await e2e.login(READER, token);
    const volumeId = newVolume();
    const detail = JSON.stringify(
      (await e2e.command(READER, `volumes view ${volumeId}`, GENERAL)).message?.blocks,
    );
    expect(detail).toContain(`Volume:`);
    expect(detail).not.toContain('volumes.attach');
    expect(detail).not.toContain('volumes.delete');
  });

  it('refuses a create (costs money) and a change, and still answers reads', async () => {
    await e2e.command(ADA, 'policy --allow read', OPS);
    const before = e2e.emulator.control.requestCount('volumes.create');
    const created = await e2e.command(ALICE, 'volumes create --label nope --region us-east --size 20', OPS);
    expect(e2e.textOf(created.message)).toContain('is a *costs money* operation');
    expect(e2e.emulator.control.requestCount('volumes.create')).toBe(before);
    const listed = await e2e.command(ALICE, 'volumes list', OPS);
    expect(e2e.textOf(listed.message)).not.toContain(':no_entry:');
  });
});

describe('approval rules per channel', () => {
  it('two approvers for destructive operations in one channel, one in another, for the same operation', async () => {
    await e2e.command(ADA, 'policy --rule destructive --required 2', OPS);

    const strict = await e2e.command(ALICE, `volumes delete ${newVolume()}`, OPS);
    expect(e2e.textOf(strict.message)).toContain('needs 2 approvals');
    const loose = await e2e.command(ALICE, `volumes delete ${newVolume()}`, GENERAL);
    expect(e2e.textOf(loose.message)).toContain('needs 1 approval');
  });

  it('a rule for one operation wins over the rule for its class', async () => {
    await e2e.command(ADA, 'policy --rule destructive --required 2', OPS);
    await e2e.command(ADA, 'policy --rule volumes.delete --required 1', OPS);
    const volumeId = newVolume();
    const delivery = await e2e.command(ALICE, `volumes delete ${volumeId}`, OPS);
    expect(e2e.textOf(delivery.message)).toContain('needs 1 approval');
    const card = lastCard(OPS);
    if (!card) throw new Error('no card');
    await e2e.stack.workspace.click(BOB, card, { actionId: ActionId.approve });
    await e2e.stack.drain();
    expect(e2e.emulator.control.volumeExists(volumeId)).toBe(false);
  });
});

describe('the change preview on the approval card', () => {
  const api = () => new ApiClient({ baseUrl: e2e.emulator.url, token: e2e.emulator.demoToken });

  it('a change under a channel rule shows the exact field diff, and runs once approved', async () => {
    await e2e.command(ADA, 'policy --rule change --required 1', OPS);
    const volumeId = newVolume();
    const before = (await api().call(getOperation('volumes.view'), { volumeId })) as { label: string };
    const delivery = await e2e.command(ALICE, `volumes update ${volumeId} --label renamed-${volumeId}`, OPS);
    expect(e2e.textOf(delivery.message)).toContain('needs 1 approval');
    expect(e2e.emulator.control.requestCount('volumes.update', { volumeId })).toBe(0);
    const card = lastCard(OPS);
    expect(card?.text).toBeDefined();
    expect(e2e.textOf(card)).toContain(`\`label\`: ${before.label} → *renamed-${volumeId}*`);
    if (!card) throw new Error('no card');
    await e2e.stack.workspace.click(BOB, card, { actionId: ActionId.approve });
    await e2e.stack.drain();
    const after = (await api().call(getOperation('volumes.view'), { volumeId })) as { label: string };
    expect(after.label).toBe(`renamed-${volumeId}`);
  });

  it('a volume delete shows the node the volume is attached to', async () => {
    const volumes = (await api().listAll(getOperation('volumes.list'), {})).data as {
      id: number;
      node_id: number | null;
      node_label: string | null;
    }[];
    const attached = volumes.find((v) => v.node_id !== null);
    if (!attached) throw new Error('the demo data has no attached volume');
    await e2e.command(ALICE, `volumes delete ${attached.id}`, OPS);
    expect(e2e.textOf(lastCard(OPS))).toContain(`attached to node *${attached.node_label}*`);
  });

  it('a database restore shows the backup it restores from', async () => {
    const op = getOperation('databases.mysql-backup-restore');
    const input = await existingInputFor(op, api());
    const backup = (await api().call(requireOperation('databases.mysql-backup-view'), input)) as {
      label: string;
      created: string;
    };
    await e2e.command(ALICE, commandTextFor(op, input), OPS);
    // When it was taken, in each reader's own zone (a Slack date token).
    const taken = Math.floor(Date.parse(`${backup.created}Z`) / 1000);
    expect(e2e.textOf(lastCard(OPS))).toContain(
      `*Replaces* the current data with backup *${backup.label} (${String(input.backupId)})*, taken <!date^${taken}^{ago}|`,
    );
  });

  it('a target changed between request and approval is not acted on, and the card says why', async () => {
    const volumeId = newVolume();
    await e2e.command(ALICE, `volumes delete ${volumeId}`, OPS);
    const card = lastCard(OPS);
    if (!card) throw new Error('no card');
    await api().call(getOperation('volumes.update'), { volumeId, label: `changed-${volumeId}` });

    await e2e.stack.workspace.click(BOB, card, { actionId: ActionId.approve });
    await e2e.stack.drain();
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId })).toBe(0);
    expect(e2e.emulator.control.volumeExists(volumeId)).toBe(true);
    const final = e2e.textOf(e2e.stack.standIn.store.findMessage(OPS, card.ts));
    expect(final).toContain('The target changed after the approvers saw it (label changed)');
    expect(final).toContain('nothing was run');
  });
});

describe('break-glass', () => {
  const REASON = 'db is on fire, restoring service';

  it('is refused where the channel has not enabled it, and nothing runs', async () => {
    const volumeId = newVolume();
    const cardsBefore = e2e.stack.standIn.store.messages(OPS).length;
    const delivery = await e2e.command(ALICE, `volumes delete ${volumeId} --break-glass "${REASON}"`, OPS);
    expect(e2e.textOf(delivery.message)).toContain('Break-glass is not enabled in this channel');
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId })).toBe(0);
    expect(e2e.stack.standIn.store.messages(OPS).filter((m) => !m.ephemeral).length).toBeLessThanOrEqual(
      cardsBefore,
    );
  });

  it('runs once where enabled, loudly: card with the reason, audit channel, audit entry; then the hourly limit holds', async () => {
    await e2e.command(
      ADA,
      `policy --allow-break-glass on --break-glass-users ${ALICE} --audit-channel ${GENERAL}`,
      OPS,
    );
    const volumeId = newVolume();
    const delivery = await e2e.command(ALICE, `volumes delete ${volumeId} --break-glass "${REASON}"`, OPS);
    expect(e2e.textOf(delivery.message)).toContain('Break-glass: running');

    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId })).toBe(1);
    expect(e2e.emulator.control.volumeExists(volumeId)).toBe(false);
    const card = e2e.stack.standIn.store
      .messages(OPS)
      .filter((m) => !m.thread_ts && m.text.includes('BREAK-GLASS'))
      .at(-1);
    const shown = e2e.textOf(card);
    expect(shown).toContain(`<@${ALICE}> used break-glass to delete volume *`);
    expect(shown).toContain(`ran this without waiting for approvals. Reason: “${REASON}”`);
    expect(shown).toContain(`*Break-glass* by <@${ALICE}> without step-up at <!date^`);
    expect(shown).toContain(':white_check_mark: Run with break-glass and done.');
    // Regression: it read "1 of 1 approval · approved by @Alice" and "Approved by @Alice and executed".
    expect(shown).not.toMatch(/approved by|Approved by|1 of 1/);
    // The audit channel got the alarm with a copy of the card, which follows the card since.
    const announced = e2e.stack.standIn.store
      .callsTo('chat.postMessage')
      .filter((call) => call.body.channel === GENERAL && String(call.body.text).includes(REASON));
    expect(announced.length).toBe(1);
    // The policy names no approvers: the alarm says where it went instead of mentioning nobody.
    const alarm = e2e.stack.standIn.store
      .thread(OPS, card?.ts ?? '')
      .map((m) => m.text)
      .find((t) => t.includes('used break-glass'));
    expect(alarm).toBe(
      `:rotating_light: <@${ALICE}> used break-glass. Reason: “${REASON}” No approvers are named in the ` +
        `approval policy, so this is told to <#${OPS}> and the audit channel <#${GENERAL}>.`,
    );
    expect(announced[0]?.body.text).toContain(alarm);
    expect(e2e.textOf(delivery.message)).toContain(
      `No approvers are named in the approval policy, so <#${OPS}> and the audit channel <#${GENERAL}> have been told.`,
    );
    const { entries } = await e2e.stack.store.audit.list(team());
    expect(
      entries.some(
        (e) => e.result === 'break_glass' && e.detail === `${REASON} (without step-up)` && e.actor === ALICE,
      ),
    ).toBe(true);

    // A second use in the hour is allowed, a third is not.
    await e2e.command(ALICE, `volumes delete ${newVolume()} --break-glass "${REASON}"`, OPS);
    const third = newVolume();
    const refused = await e2e.command(ALICE, `volumes delete ${third} --break-glass "${REASON}"`, OPS);
    expect(e2e.textOf(refused.message)).toContain('the most allowed');
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId: third })).toBe(0);
  });

  it('mentions the approvers the policy names in its alarm, and never the person who used it', async () => {
    await e2e.stack.store.approvalPolicy.put(team(), { approverUsers: [BOB, ADA] }, ADA);
    await e2e.command(ADA, `policy --allow-break-glass on --break-glass-users ${ADA}`, OPS);
    await e2e.login(ADA, e2e.emulator.demoToken);
    const delivery = await e2e.command(ADA, `volumes delete ${newVolume()} --break-glass "${REASON}"`, OPS);
    expect(e2e.textOf(delivery.message)).toContain(`The approvers (<@${BOB}>) and <#${OPS}> have been told.`);
    const alarm = e2e.stack.standIn.store
      .messages(OPS)
      .filter((m) => m.thread_ts && m.text.includes('used break-glass'))
      .at(-1);
    expect(alarm?.text).toBe(`:rotating_light: <@${BOB}>: <@${ADA}> used break-glass. Reason: “${REASON}”`);
  });

  it('is refused for someone not on the list, and without a reason', async () => {
    await e2e.command(ADA, `policy --allow-break-glass on --break-glass-users ${ALICE}`, OPS);
    await e2e.login(BOB, e2e.emulator.demoToken);
    const volumeId = newVolume();
    const bob = await e2e.command(BOB, `volumes delete ${volumeId} --break-glass "${REASON}"`, OPS);
    expect(e2e.textOf(bob.message)).toContain('not on this channel’s break-glass list');
    const bare = await e2e.command(ALICE, `volumes delete ${volumeId} --break-glass`, OPS);
    expect(e2e.textOf(bare.message)).toContain('Break-glass needs a reason');
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId })).toBe(0);
  });
});

describe('help fitted to the caller', () => {
  const READER = 'U0READER';

  it('for a read-only token lists no write actions, says how many are hidden, and --all shows them', async () => {
    const { token } = e2e.emulator.control.createToken('demo', { scopes: 'volumes:read_only' });
    await e2e.login(READER, token);
    const fitted = e2e.textOf((await e2e.command(READER, 'help volumes', GENERAL)).message);
    expect(fitted).toContain('`list`');
    expect(fitted).toContain('`view &lt;volumeId&gt;`');
    for (const write of [
      '`create`',
      '`delete &lt;volumeId&gt;`',
      '`attach &lt;volumeId&gt;`',
      '`resize &lt;volumeId&gt;`',
    ]) {
      expect(fitted).not.toContain(write);
    }
    expect(fitted).toMatch(/\d+ actions hidden: not allowed by your token's scopes/);

    const everything = e2e.textOf((await e2e.command(READER, 'help volumes --all', GENERAL)).message);
    expect(everything).toContain('`delete &lt;volumeId&gt;`');
    expect(everything).not.toContain('hidden');
  });

  it("follows the channel's policy: a read-only channel lists only reads", async () => {
    await e2e.command(ADA, 'policy --allow read', OPS);
    const fitted = e2e.textOf((await e2e.command(ALICE, 'help volumes', OPS)).message);
    expect(fitted).not.toContain('`delete &lt;volumeId&gt;`');
    expect(fitted).toContain("this channel's policy");
    const overview = e2e.textOf((await e2e.command(ALICE, 'help', OPS)).message);
    expect(overview).toMatch(/\d+ of \d+ actions are available to you here/);
  });
});
