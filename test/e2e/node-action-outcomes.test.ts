import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createClock } from '../../infra/local/emulator/clock.js';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { ApiClient } from '../../lib/api/client.js';
import { getOperation } from '../../lib/api/operations/index.js';
import type { OutcomeCheckSettings } from '../../lib/changes/outcomes.js';
import { sweepApprovals } from '../../lib/changes/sweep.js';
import { castVote } from '../../lib/changes/votes.js';
import { slackExecutionSurface } from '../../lib/slack/approved-run-surface.js';
import { runWorkerJob } from '../../lib/slack/worker-handlers.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { lastCardWith } from '../support/cards.js';
import { ADA, ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';
import { testClock } from '../support/store.js';

/**
 * A node action whose answer is lost (API-FACTS-MORE.md §2): a reboot leaves the node `running`
 * before and after, so the node alone cannot tell whether it happened. The bot reads the
 * account's events (§8) for the action on that node since it was about to send the request, by the
 * API user whose token sent it: the node's status, or anyone else's event, is no proof. The
 * emulator over HTTP with injected
 * latency and faults; the bot's clock runs 10 s ahead of the API's, within the allowance.
 */

const API_TIMEOUT_MS = 800;
const CHECKS: OutcomeCheckSettings = {
  windowMs: 4_000,
  intervalMs: 200,
  readTimeoutMs: 1_000,
  giveUpAfterMs: 30 * 60_000,
  recheckEveryMs: 5 * 60_000,
};
/** The bot's clock is this far ahead of the API's. */
const BOT_AHEAD_MS = 10_000;

const emulatorClock = createClock();
const clock = testClock(new Date(emulatorClock.now() + BOT_AHEAD_MS));

let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;
const world = () => e2e.emulator.control.world;

beforeAll(async () => {
  e2e = await startE2E({
    emulator: { clock: emulatorClock },
    stack: { now: clock.now, apiTimeoutMs: API_TIMEOUT_MS, outcomeChecks: CHECKS },
  });
  await e2e.login(ALICE, e2e.emulator.demoToken);
});

afterAll(async () => {
  await e2e?.close();
});

beforeEach(() => {
  // Every node's earlier work is over; the bot's clock keeps its lead on the API's.
  e2e.emulator.control.advance(60 * 60_000);
  clock.set(new Date(e2e.emulator.control.now() + BOT_AHEAD_MS));
});

afterEach(() => {
  e2e.emulator.control.clearFaults();
});

/** A seeded node that runs with a booted profile, so a reboot has one to boot again. */
function runningNode(skip: readonly number[] = []) {
  const node = [...world().nodes.values()].find(
    (n) => n.status === 'running' && n.lastBootedConfigId !== null && !skip.includes(n.id),
  );
  if (!node) throw new Error('the seed has no running node');
  return node;
}

function eventsOf(nodeId: number, action: string) {
  return [...world().events.values()].filter((e) => e.action === action && e.entity.id === nodeId);
}

function lastSaid(user: string, count = 3): string {
  return e2e
    .seen(user)
    .slice(-count)
    .map((m) => e2e.textOf(m))
    .join('\n');
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

describe('a reboot whose answer comes after the deadline', () => {
  it('regression: "unknowable" for a reboot that happened — now "in doubt, checking", then it went through', async () => {
    const node = runningNode();
    const before = eventsOf(node.id, 'node_reboot').length;
    // The API acts after the client has given up waiting.
    e2e.emulator.control.setLatency(API_TIMEOUT_MS + 700, ['nodes.reboot']);
    await e2e.command(ALICE, `nodes reboot ${node.id}`);
    e2e.emulator.control.setLatency(0);

    expect(eventsOf(node.id, 'node_reboot')).toHaveLength(before + 1);
    const said = lastSaid(ALICE);
    expect(said).toContain('may or may not have happened');
    expect(said).toContain('went through after all');
    expect(said).not.toMatch(/failed|did not happen|cannot read it back|is unknown/);
  });
});

describe('a shutdown answered with a 500 after the API acted', () => {
  it('is read back and reported done, never "failed"', async () => {
    const node = runningNode();
    e2e.emulator.control.injectFault({
      kind: 'status',
      status: 500,
      afterActing: true,
      operations: ['nodes.shutdown'],
      times: 1,
    });
    await e2e.command(ALICE, `nodes shutdown ${node.id}`);

    expect(world().nodes.get(node.id)?.status).toBe('shutting_down');
    const said = lastSaid(ALICE);
    expect(said).toContain('went through after all');
    expect(said).not.toMatch(/failed|server error \(HTTP 500\)\. Try/);
  });
});

describe('a resize whose connection dropped after the API acted', () => {
  it('the events prove it went through (the node shows it no other way)', async () => {
    const node = runningNode();
    const type =
      [...world().nodes.values()].map((n) => n.type).find((t) => t !== node.type) ?? 'g6-standard-2';
    e2e.emulator.control.injectFault({
      kind: 'drop',
      afterActing: true,
      operations: ['nodes.resize'],
      times: 1,
    });
    await e2e.command(ALICE, `nodes resize ${node.id} --type ${type}`);
    const said = lastSaid(ALICE, 6);
    expect(eventsOf(node.id, 'node_resize').length).toBeGreaterThan(0);
    expect(said).toContain('went through after all');
    expect(said).toContain("the account's events");
    expect(said).not.toMatch(/failed/);
  });
});

describe('a reboot refused before the API acted', () => {
  it('is never "done": still unknown after the window, with the events to check', async () => {
    const node = runningNode();
    const before = eventsOf(node.id, 'node_reboot').length;
    e2e.emulator.control.injectFault({ kind: 'status', status: 500, operations: ['nodes.reboot'], times: 1 });
    await e2e.command(ALICE, `nodes reboot ${node.id}`);

    expect(eventsOf(node.id, 'node_reboot')).toHaveLength(before);
    expect(world().nodes.get(node.id)?.status).toBe('running');
    const last = e2e.textOf(e2e.lastSeen(ALICE));
    expect(last).toContain('Still unknown after 4 seconds');
    expect(last).toContain("the account's events show no sign of it");
    expect(last).toContain(`/cloud events list --action node_reboot --entity.id ${node.id}`);
    expect(last).not.toMatch(/went through|failed/);
  });
});

describe('a reboot that never reached the API while someone else rebooted the same node', () => {
  it('is not taken for theirs: neither their event nor the node rebooting proves it', async () => {
    const node = runningNode();
    const other = `oncall-${node.id}`;
    e2e.emulator.control.createUser({ username: other });
    const { token } = e2e.emulator.control.createToken(other, { scopes: '*' });
    // Another person reboots the node from elsewhere, moments before Alice asks the bot to.
    await new ApiClient({ baseUrl: e2e.emulator.url, token }).call(getOperation('nodes.reboot'), {
      nodeId: node.id,
    });
    const before = eventsOf(node.id, 'node_reboot');
    expect(before.filter((e) => e.username === other)).toHaveLength(1);
    expect(world().nodes.get(node.id)?.status).toBe('rebooting');

    e2e.emulator.control.injectFault({ kind: 'status', status: 500, operations: ['nodes.reboot'], times: 1 });
    await e2e.command(ALICE, `nodes reboot ${node.id}`);

    // Alice's request changed nothing: the events are those from before it.
    expect(eventsOf(node.id, 'node_reboot')).toHaveLength(before.length);
    const last = e2e.textOf(e2e.lastSeen(ALICE));
    expect(last).toContain('Still unknown after 4 seconds');
    expect(last).not.toMatch(/went through|failed/);
  });
});

describe('a reboot in doubt, asked with a token that may not read the events', () => {
  it('is unknown, not "went through": the node rebooting could be anyone\'s reboot', async () => {
    const { token } = e2e.emulator.control.createToken('demo', { scopes: 'nodes:read_write' });
    await e2e.login(BOB, token);
    const node = runningNode();
    const before = eventsOf(node.id, 'node_reboot').length;
    e2e.emulator.control.setLatency(API_TIMEOUT_MS + 700, ['nodes.reboot']);
    await e2e.command(BOB, `nodes reboot ${node.id}`);
    e2e.emulator.control.setLatency(0);

    // The API reboots it once its delay is over (the bot, unable to read it back, said so at once);
    // nothing Bob's token may read says the reboot was his.
    await vi.waitFor(() => expect(eventsOf(node.id, 'node_reboot')).toHaveLength(before + 1), {
      timeout: 5_000,
    });
    expect(world().nodes.get(node.id)?.status).toBe('rebooting');
    const said = lastSaid(BOB);
    expect(said).toContain('may or may not have happened');
    expect(said).toContain(
      "Whether `nodes reboot` happened is unknown: only the account's events can tell, and the bot could not read them for this request (a token without `events:read_only` cannot)",
    );
    expect(said).not.toMatch(/went through|failed/);
  });
});

describe('the same reboot delivered twice', () => {
  it('reboots once', async () => {
    const node = runningNode();
    const before = eventsOf(node.id, 'node_reboot').length;
    const job = {
      kind: 'operation',
      correlationId: `corr-reboot-${node.id}-${Date.now()}`,
      team: team(),
      user: ALICE,
      channel: CHANNEL,
      operationId: 'nodes.reboot',
      input: { nodeId: node.id },
      options: { all: false, json: false },
      replaceOriginal: false,
    };
    await runWorkerJob(e2e.stack.worker, job);
    await runWorkerJob(e2e.stack.worker, job);
    expect(eventsOf(node.id, 'node_reboot')).toHaveLength(before + 1);
    expect(e2e.textOf(e2e.lastSeen(ALICE))).toContain('reached the worker twice');
  });
});

describe('an approved reboot whose worker died after the API call', () => {
  it('the sweep reads the events back once the node is running again, and the card says it went through', async () => {
    await e2e.command(ADA, 'policy --rule nodes.reboot --required 1');
    try {
      const node = runningNode();
      await e2e.command(ALICE, `nodes reboot ${node.id}`);
      const card = lastCardWith(e2e.stack.standIn.store, CHANNEL, ActionId.approve);
      if (!card) throw new Error('no approval card');
      const approval = (await e2e.stack.store.approvals.listPending(team())).find(
        (a) => a.messageTs === card.ts,
      );
      if (!approval) throw new Error('no pending approval');

      // Bob approves; the worker claims it, reboots the node, and dies before writing anything.
      await castVote(e2e.stack.store, {
        team: team(),
        approvalId: approval.id,
        user: BOB,
        decision: 'approve',
      });
      expect((await e2e.stack.store.approvals.claimExecution(team(), approval.id)).claimed).toBe(true);
      await new ApiClient({ baseUrl: e2e.emulator.url, token: e2e.emulator.demoToken }).call(
        getOperation('nodes.reboot'),
        { nodeId: node.id },
      );
      // The reboot is over: the node is `running` as before; only the events tell.
      e2e.emulator.control.advance(10 * 60_000);
      expect(world().nodes.get(node.id)?.status).toBe('running');

      clock.advance(4 * 60_000);
      const summary = await sweepApprovals(e2e.stack.worker, slackExecutionSurface(e2e.stack.worker));
      expect(summary.settled).toBe(1);
      expect((await e2e.stack.store.approvals.get(team(), approval.id))?.status).toBe('executed');
      expect(e2e.textOf(cardNow(card))).toContain('went through after all');
      expect(threadText(card)).toContain('The worker stopped before it recorded how this ended');
      expect(threadText(card)).not.toMatch(/failed/);
    } finally {
      await e2e.command(ADA, 'policy --rule nodes.reboot --clear');
    }
  });
});
