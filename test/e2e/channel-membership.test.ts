import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreChange } from '../../infra/local/slack/store.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { ALICE, type E2E, startE2E } from '../support/e2e.js';

/**
 * Approval cards and form replies in channels the bot is not a member of, as Slack enforces it:
 * no request without its card, and the person always learns what happened.
 */

const BOT = 'U0CLOUDBOT';
const HUMANS = ['U0ADMIN', 'U0ALICE', 'U0BOB'];
/** Private, the bot not in it: no scope lets the bot in, only `/invite @cloud`. */
const SECRET = 'G0SECRET';
/** Public, the bot not in it. */
const RANDOM = 'C0RANDOM';

let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;

beforeAll(async () => {
  e2e = await startE2E({
    stack: {
      slack: {
        channels: [
          { id: SECRET, name: 'secret', is_private: true, is_im: false, members: HUMANS },
          { id: RANDOM, name: 'random', is_private: false, is_im: false, members: HUMANS },
        ],
      },
    },
  });
  await e2e.login(ALICE, e2e.emulator.demoToken);
});

afterAll(async () => {
  await e2e?.close();
});

function cardsIn(channel: string) {
  return e2e.stack.standIn.store
    .messages(channel)
    .filter((message) => JSON.stringify(message.blocks).includes(ActionId.approve));
}

describe('an approval requested in a channel the bot is not in', () => {
  it('creates no request, and tells the requester how to invite the bot', async () => {
    const volume = e2e.emulator.control.createVolume({ label: 'kept-private' });
    const delivery = await e2e.command(ALICE, `volumes delete ${volume.id}`, SECRET);

    expect(e2e.textOf(delivery.message)).toContain('`/invite @cloud`');
    expect(await e2e.stack.store.approvals.listPending(team())).toEqual([]);
    expect(cardsIn(SECRET)).toEqual([]);
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId: volume.id })).toBe(0);
  });

  it('joins a public channel first, then posts the card there', async () => {
    const volume = e2e.emulator.control.createVolume({ label: 'kept-public' });
    const delivery = await e2e.command(ALICE, `volumes delete ${volume.id}`, RANDOM);

    expect(e2e.textOf(delivery.message)).toContain('needs 1 approval');
    expect(e2e.stack.standIn.store.channel(RANDOM)?.members).toContain(BOT);
    expect(cardsIn(RANDOM)).toHaveLength(1);
    const pending = await e2e.stack.store.approvals.listPending(team());
    expect(pending.map((approval) => approval.channel)).toEqual([RANDOM]);
    expect(pending[0]?.messageTs).toBe(cardsIn(RANDOM)[0]?.ts);
  });

  it('takes the request away again when Slack refuses the card after the check', async () => {
    const before = (await e2e.stack.store.approvals.listPending(team())).length;
    const volume = e2e.emulator.control.createVolume({ label: 'kept-archived' });
    // Someone archives the channel right after the bot checked it, before the card goes up.
    const store = e2e.stack.standIn.store;
    const archiveAfterCheck = (change: StoreChange) => {
      if (change.kind === 'call' && change.call.method === 'conversations.info') store.archiveChannel(RANDOM);
    };
    store.on('change', archiveAfterCheck);
    try {
      const delivery = await e2e.command(ALICE, `volumes delete ${volume.id}`, RANDOM);
      expect(e2e.textOf(delivery.message)).toContain('Nothing was requested');
      expect(e2e.textOf(delivery.message)).toContain('archived');
    } finally {
      store.off('change', archiveAfterCheck);
      store.unarchiveChannel(RANDOM);
    }
    expect(await e2e.stack.store.approvals.listPending(team())).toHaveLength(before);
  });
});

describe('a form submitted from a channel the bot is not in', () => {
  it('answers the person through the response_url of the command that opened it', async () => {
    await e2e.command(ALICE, 'volumes create --form', SECRET);
    const view = e2e.openView(ALICE);
    if (!view) throw new Error('no form');
    const delivery = await e2e.stack.workspace.submitView(ALICE, view, {
      label: { value: 'from-secret' },
      region: { value: 'us-east' },
      size: { value: '30' },
    });
    await e2e.stack.drain();

    expect(delivery.status).toBe(200);
    expect(e2e.emulator.control.requestCount('volumes.create')).toBe(1);
    const reply = e2e.seen(ALICE, SECRET).at(-1);
    expect(reply?.via).toBe('response_url');
    expect(e2e.textOf(reply)).toContain('from-secret');
    expect(e2e.stack.standIn.store.channel(SECRET)?.members).not.toContain(BOT);
  });
});

describe('a long operation run in a channel the bot is not in', () => {
  it('answers through the response_url and says why its status is not followed there', async () => {
    const delivery = await e2e.command(
      ALICE,
      'databases mysql-create --label unseen --region us-east --type g6-dedicated-2 --engine mysql/8.0.26',
      SECRET,
    );
    expect(delivery.status).toBe(200);
    const reply = e2e.seen(ALICE, SECRET).at(-1);
    expect(reply?.via).toBe('response_url');
    expect(e2e.textOf(reply)).toContain('unseen');
    expect(e2e.textOf(reply)).toContain('I cannot follow its status here');
    expect(e2e.textOf(reply)).toContain('`/invite @cloud`');
    expect(await e2e.stack.store.statusWatches.running(50)).toEqual([]);
  });
});

describe('an audit channel the bot is not in', () => {
  it('is refused, so break-glass is never announced where nobody sees it', async () => {
    await e2e.stack.store.approvalPolicy.put(team(), {}, 'U0ADMIN');
    const delivery = await e2e.command('U0ADMIN', `policy --audit-channel <#${SECRET}|secret>`, 'C0OPS');
    expect(e2e.textOf(delivery.message)).toContain('Nothing was changed');
    expect(e2e.textOf(delivery.message)).toContain(`<#${SECRET}>`);
    expect((await e2e.stack.store.channelPolicy.get(team(), 'C0OPS'))?.auditChannel ?? null).toBeNull();
  });
});
