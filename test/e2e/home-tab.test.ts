import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoredView } from '../../infra/local/slack/store.js';
import { HOME_MAX_BLOCKS } from '../../lib/slack/home.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { SLACK_LIMITS } from '../../lib/slack-kit/limits.js';
import { lastCardWith } from '../support/cards.js';
import { ADA, ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';
import { requestLongerExpiry } from '../support/settings-requests.js';
import { testClock } from '../support/store.js';

/**
 * The App Home tab end to end: signed `app_home_opened` events and clicks on the Home view, the
 * bot against DynamoDB Local, the emulator and the Slack stand-in (which refuses a Home of more
 * than 100 blocks and has no channel or response_url on a Home click, as Slack).
 */

const clock = testClock(new Date());
let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;

beforeAll(async () => {
  // Bob is also one of the deployment's admins (`APPROVAL_ADMINS`), though no Slack admin.
  e2e = await startE2E({ stack: { now: clock.now, approvalAdmins: [BOB] } });
  await e2e.login(ALICE, e2e.emulator.demoToken);
});

afterAll(async () => {
  await e2e?.close();
});

beforeEach(async () => {
  clock.set(new Date());
  // Bob is the one approver named, so a new request concerns his Home at once.
  await e2e.stack.store.approvalPolicy.put(team(), { approverUsers: [BOB] }, ADA);
});

function homeOf(user: string): StoredView | undefined {
  return e2e.stack.standIn.store.homeView(team(), user);
}

function homeText(user: string): string {
  return JSON.stringify(homeOf(user)?.view.blocks ?? []);
}

async function openHome(user: string) {
  const delivery = await e2e.stack.workspace.openHome(user);
  expect(delivery.status).toBe(200);
  const home = homeOf(user);
  if (!home) throw new Error(`no Home published for ${user}`);
  return home;
}

async function requestDeletion(label: string): Promise<{ volumeId: number; approvalId: string }> {
  const volume = e2e.emulator.control.createVolume({ label });
  const delivery = await e2e.command(ALICE, `volumes delete ${volume.id}`);
  expect(e2e.textOf(delivery.message)).toContain('needs 1 approval');
  const card = lastCardWith(e2e.stack.standIn.store, CHANNEL, label);
  const approvalId = /Request ([0-9a-f-]{36})/.exec(JSON.stringify(card?.blocks))?.[1];
  if (!approvalId) throw new Error('no approval card');
  return { volumeId: volume.id, approvalId };
}

describe('app_home_opened', () => {
  it("publishes a Home that shows the approver the request waiting for their vote, with the card's buttons", async () => {
    const { approvalId } = await requestDeletion(`home-${Date.now()}`);
    const home = await openHome(BOB);
    expect(home.view.type).toBe('home');
    const text = homeText(BOB);
    expect(text).toContain('Waiting for your vote');
    expect(text).toContain(`"action_id":"${ActionId.approve}"`);
    expect(text).toContain(approvalId);
    expect(text).toContain(`<@${ALICE}>`);
  });

  it('shows the requester their request and its state, not as waiting for their own vote', async () => {
    const { approvalId } = await requestDeletion(`mine-${Date.now()}`);
    await openHome(ALICE);
    const home = homeOf(ALICE);
    const blocks = JSON.stringify(home?.view.blocks);
    expect(blocks).toContain('Your requests');
    expect(blocks).toContain(':hourglass_flowing_sand: Waiting for approval (0 of 1)');
    expect(blocks).not.toContain(approvalId);
    // Her linked profile, with its scopes and expiry.
    expect(blocks).toContain('Your profiles');
    expect(blocks).toMatch(/`default` \(active\)/);
    expect(blocks).toContain('scopes');
  });

  it('is re-published for the approver when a request waiting for them is made, without opening it', async () => {
    await openHome(BOB);
    const before = homeOf(BOB)?.history.length ?? 0;
    const { approvalId } = await requestDeletion(`new-${Date.now()}`);
    expect(homeOf(BOB)?.history.length).toBeGreaterThan(before);
    expect(homeText(BOB)).toContain(approvalId);
  });
});

describe('a settings change on Home', () => {
  it('waits for the vote of a deployment admin (APPROVAL_ADMINS) who approves, though Slack does not call them an admin', async () => {
    const card = await requestLongerExpiry(e2e, ADA);
    const approvalId = /Request ([0-9a-f-]{36})/.exec(JSON.stringify(card.blocks))?.[1];
    if (!approvalId) throw new Error('no request id on the settings card');

    await openHome(BOB);
    const text = homeText(BOB);
    expect(text).toContain('Waiting for your vote');
    expect(text).toContain(approvalId);
  });
});

describe('Approve on Home', () => {
  it('runs the operation once, answers without a response_url, and Homes show it decided', async () => {
    const { volumeId, approvalId } = await requestDeletion(`click-${Date.now()}`);
    const home = await openHome(BOB);
    const approve = JSON.stringify({ a: approvalId });
    const delivery = await e2e.stack.workspace.clickInView(BOB, home, {
      actionId: ActionId.approve,
      value: approve,
    });
    expect(delivery.status).toBe(200);
    await e2e.stack.drain();
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId })).toBe(1);
    expect(e2e.emulator.control.volumeExists(volumeId)).toBe(false);
    // Bob's Home no longer offers it; Alice's shows it done.
    expect(homeText(BOB)).not.toContain(approvalId);
    expect(homeText(ALICE)).toContain(':white_check_mark: Approved and done');
    // The card in the channel followed, as for a click on it.
    const card = e2e.stack.standIn.store
      .messages(CHANNEL)
      .find((m) => JSON.stringify(m.blocks).includes(approvalId));
    expect(JSON.stringify(card?.blocks)).not.toContain(ActionId.approve);

    // The same click again (a second window) runs nothing more and is told so by DM.
    const stale = await e2e.stack.workspace.clickInView(BOB, home, {
      actionId: ActionId.approve,
      value: approve,
    });
    expect(stale.status).toBe(200);
    await e2e.stack.drain();
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId })).toBe(1);
    const dm = e2e.stack.standIn.store.messages(`D${BOB}`).at(-1);
    expect(dm?.text).toMatch(/already|Too late/);
  });

  it('Deny on Home closes the request and the requester sees it denied', async () => {
    const { volumeId, approvalId } = await requestDeletion(`deny-${Date.now()}`);
    const home = await openHome(BOB);
    await e2e.stack.workspace.clickInView(BOB, home, {
      actionId: ActionId.deny,
      value: JSON.stringify({ a: approvalId }),
    });
    await e2e.stack.drain();
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId })).toBe(0);
    expect(homeText(ALICE)).toContain(`:no_entry: Denied; nothing was run (by <@${BOB}>)`);
    expect(homeText(BOB)).not.toContain(approvalId);
  });
});

describe('report buttons on Home', () => {
  it('Pause pauses the report as `/cloud reports pause` typed in its own channel would, answered by DM', async () => {
    await e2e.command(ALICE, 'reports add issues --daily 09:00');
    const [sub] = await e2e.stack.store.reports.list(team(), { owner: ALICE });
    if (!sub) throw new Error('no subscription');
    const home = await openHome(ALICE);
    const delivery = await e2e.stack.workspace.clickInView(ALICE, home, {
      actionId: ActionId.homeReport,
      value: JSON.stringify({ r: sub.id, c: 'pause' }),
    });
    expect(delivery.status).toBe(200);
    await e2e.stack.drain();
    expect(await e2e.stack.store.reports.get(team(), sub.id)).toMatchObject({
      paused: true,
      pauseReason: `paused by <@${ALICE}>`,
    });
    const told = e2e.textOf(e2e.stack.standIn.store.messages(`D${ALICE}`).at(-1));
    // Worded from the report's own channel: no "(in #channel)".
    expect(told).toContain(`paused the *managed issues digest* \`${sub.id.slice(0, 8)}\`. `);
    expect(homeText(ALICE)).toContain(':double_vertical_bar: paused');
    await e2e.stack.store.reports.delete(team(), sub.id);
  });
});

describe('agents on Home', () => {
  const RESOURCE = 'https://bot.example.com/mcp';

  async function agentOf(user: string, name: string) {
    return e2e.stack.store.agentGrants.create({
      team: team(),
      user,
      clientId: `https://${name.toLowerCase().replace(/\W/g, '-')}.example/client`,
      clientName: name,
      homeChannel: CHANNEL,
      scopes: ['cloud:read', 'cloud:change'],
    });
  }

  it('shows the agents acting for the person, each with a Revoke that asks to confirm first', async () => {
    const grant = await agentOf(ALICE, 'Claude Code');
    await openHome(ALICE);
    const text = homeText(ALICE);
    expect(text).toContain('Agents acting for you');
    expect(text).toContain('*Claude Code* · home <#C0OPS> · may read and ask for changes');
    expect(text).toContain(`"action_id":"${ActionId.homeAgent}"`);
    expect(text).toContain(JSON.stringify(JSON.stringify({ g: grant.id })));
    expect(text).toContain('"title":{"type":"plain_text","text":"Revoke this agent?"}');
    await e2e.stack.store.agentGrants.revoke(team(), ALICE, grant.id);
  });

  it('Revoke revokes the agent as `/cloud agents revoke` would: its tokens stop, the clicker is told by DM, Home follows', async () => {
    const grant = await agentOf(ALICE, 'Cursor');
    const tokens = await e2e.stack.store.agentGrants.issueTokens(grant, RESOURCE);
    const home = await openHome(ALICE);

    const delivery = await e2e.stack.workspace.clickInView(ALICE, home, {
      actionId: ActionId.homeAgent,
      value: JSON.stringify({ g: grant.id }),
    });
    expect(delivery.status).toBe(200);
    await e2e.stack.drain();

    expect(await e2e.stack.store.agentGrants.get(team(), ALICE, grant.id)).toBeUndefined();
    expect(await e2e.stack.store.agentGrants.verifyAccessToken(tokens.accessToken, RESOURCE)).toEqual({
      refused: 'revoked',
    });
    expect(e2e.textOf(e2e.stack.standIn.store.messages(`D${ALICE}`).at(-1))).toContain('Revoked *Cursor*');
    expect(homeText(ALICE)).not.toContain('Cursor');
    const { entries } = await e2e.stack.store.audit.list(team(), { limit: 5 });
    expect(entries[0]).toMatchObject({ actor: ALICE, action: 'agents.revoke' });
  });

  it("a Revoke that names another person's agent revokes nothing", async () => {
    const alices = await agentOf(ALICE, 'Claude Code');
    const home = await openHome(BOB);
    // A click whose value was altered to name Alice's grant, from Bob's Home.
    const forged = {
      ...home,
      view: {
        ...home.view,
        blocks: [
          {
            type: 'section',
            text: { type: 'mrkdwn', text: 'x' },
            accessory: {
              type: 'button',
              action_id: ActionId.homeAgent,
              text: { type: 'plain_text', text: 'Revoke' },
              value: JSON.stringify({ g: alices.id }),
            },
          },
        ],
      },
    };

    await e2e.stack.workspace.clickInView(BOB, forged, { actionId: ActionId.homeAgent });
    await e2e.stack.drain();

    expect(await e2e.stack.store.agentGrants.get(team(), ALICE, alices.id)).toEqual(alices);
    expect(e2e.textOf(e2e.stack.standIn.store.messages(`D${BOB}`).at(-1))).toContain(
      'That agent no longer acts for you',
    );
    await e2e.stack.store.agentGrants.revoke(team(), ALICE, alices.id);
  });
});

describe('a long Home', () => {
  it('with 150 requests waiting, stays within 100 blocks and says how many more there are', async () => {
    const store = e2e.stack.store;
    await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        store.approvals.create({
          team: team(),
          requester: ALICE,
          operationId: 'volumes.delete',
          input: { volumeId: 900_000 + i },
          summary: `volume ${900_000 + i}`,
          channel: CHANNEL,
          requiredApprovals: 1,
          expiryMinutes: 60,
        }),
      ),
    );
    const home = await openHome(BOB);
    const blocks = home.view.blocks as unknown[];
    expect(blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocksPerView);
    expect(HOME_MAX_BLOCKS).toBeLessThanOrEqual(SLACK_LIMITS.blocksPerView);
    expect(homeText(BOB)).toMatch(/and 1\d\d more requests/);
    // Published, not refused: the stand-in refuses more than 100 blocks.
    expect(e2e.stack.standIn.store.callsTo('views.publish').at(-1)?.ok).toBe(true);
  });

  it('with more of everything than it shows (agents too), stays within 100 blocks and says where the rest are', async () => {
    const store = e2e.stack.store;
    // Bob has 150 requests waiting for him from the test before; he now also asks, links, owns
    // reports and has agents, each past what Home shows.
    await Promise.all([
      ...Array.from({ length: 12 }, (_, i) =>
        store.approvals.create({
          team: team(),
          requester: BOB,
          operationId: 'volumes.delete',
          input: { volumeId: 950_000 + i },
          summary: `volume ${950_000 + i}`,
          channel: CHANNEL,
          requiredApprovals: 1,
          expiryMinutes: 60,
        }),
      ),
      ...Array.from({ length: 10 }, (_, i) =>
        store.tokenLinks.saveLink({
          team: team(),
          user: BOB,
          profile: `p${i}`,
          token: `bob-token-${i}-0123456789`,
          label: 'ci',
          apiUsername: 'bob',
          scopes: '*',
          expiry: null,
        }),
      ),
      ...Array.from({ length: 12 }, () =>
        store.reports.create({
          team: team(),
          kind: 'issues',
          channel: CHANNEL,
          owner: BOB,
          profile: 'p0',
          schedule: { type: 'every', minutes: 60 },
          nextRunAt: clock.now(),
        }),
      ),
      ...Array.from({ length: 8 }, (_, i) =>
        store.agentGrants.create({
          team: team(),
          user: BOB,
          clientId: `https://agent-${i}.example/client`,
          clientName: `Agent ${i}`,
          homeChannel: CHANNEL,
          scopes: ['cloud:read'],
        }),
      ),
    ]);

    const home = await openHome(BOB);

    expect((home.view.blocks as unknown[]).length).toBeLessThanOrEqual(SLACK_LIMITS.blocksPerView);
    expect(homeText(BOB)).toContain('and 3 more agents: `/cloud agents`');
    expect(e2e.stack.standIn.store.callsTo('views.publish').at(-1)?.ok).toBe(true);
  });
});
