import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { ApiClient } from '../../lib/api/client.js';
import { getOperation, requireOperation } from '../../lib/api/operations/index.js';
import type { OutcomeCheckSettings } from '../../lib/changes/outcomes.js';
import { sweepApprovals } from '../../lib/changes/sweep.js';
import { castVote } from '../../lib/changes/votes.js';
import { applyApprovedSettings } from '../../lib/core/settings/settings.js';
import { slackExecutionSurface } from '../../lib/slack/approved-run-surface.js';
import { runWorkerJob } from '../../lib/slack/worker-handlers.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { StoreError } from '../../lib/store/errors.js';
import { lastCardWith } from '../support/cards.js';
import { ADA, ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';
import { commandTextFor, existingInputFor } from '../support/sample-inputs.js';
import { requestLongerExpiry } from '../support/settings-requests.js';
import { testClock } from '../support/store.js';

/**
 * The card, the thread, the reply and the audit say what really happened when the API is slow or
 * drops the connection, when the worker dies mid-way, and when a job arrives twice or malformed.
 * The API is the emulator over HTTP with injected latency and faults; the worker's read-back
 * window is shortened to seconds so the tests run quickly, with the same code paths.
 */

const clock = testClock(new Date());
const API_TIMEOUT_MS = 800;
const CHECKS: OutcomeCheckSettings = {
  windowMs: 4_000,
  intervalMs: 200,
  readTimeoutMs: 1_000,
  giveUpAfterMs: 30 * 60_000,
  recheckEveryMs: 5 * 60_000,
};
const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI me@laptop';

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

function newVolume(): number {
  return e2e.emulator.control.createVolume({ label: `vol-${Math.random().toString(36).slice(2, 8)}` }).id;
}

function keysLabelled(label: string): number {
  return [...e2e.emulator.control.world.users.values()]
    .flatMap((user) => [...user.sshKeys.values()])
    .filter((key) => key.label === label).length;
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

async function requestDeletion(volumeId: number): Promise<StoredMessage> {
  const delivery = await e2e.command(ALICE, `volumes delete ${volumeId}`);
  expect(e2e.textOf(delivery.message)).toContain('needs 1 approval');
  const card = lastCardWith(e2e.stack.standIn.store, CHANNEL, ActionId.approve);
  if (!card) throw new Error('no approval card');
  return card;
}

async function approvalOf(card: StoredMessage) {
  const pending = await e2e.stack.store.approvals.listPending(team());
  const approval = pending.find((a) => a.messageTs === card.ts);
  if (!approval) throw new Error('no pending approval for the card');
  return approval;
}

/** Bob as an admin the policy names, so he may decide a settings change Ada (a Slack admin) asks for. */
async function withSettingsAdmin(body: () => Promise<void>): Promise<void> {
  await e2e.stack.store.approvalPolicy.put(team(), { admins: [BOB] }, ADA);
  try {
    await body();
  } finally {
    await e2e.stack.store.approvalPolicy.put(team(), {}, ADA);
  }
}

/** Ada's import of her exported settings with a longer expiry, approved by Bob: its card and request. */
async function approvedSettingsChange() {
  const card = await requestLongerExpiry(e2e, ADA);
  const approval = await approvalOf(card);
  const vote = await castVote(e2e.stack.store, {
    team: team(),
    approvalId: approval.id,
    user: BOB,
    decision: 'approve',
  });
  expect(vote.outcome).toBe('approved');
  return { card, approval };
}

async function auditResults(action: string, approvalId?: string): Promise<string[]> {
  const { entries } = await e2e.stack.store.audit.list(team(), { limit: 100 });
  return entries
    .filter((e) => e.action === action && (approvalId === undefined || e.approvalId === approvalId))
    .map((e) => e.result)
    .reverse();
}

describe('an approved delete whose API call times out', () => {
  it('regression: the volume was gone while the card said "it failed" — now the card says it went through', async () => {
    const volumeId = newVolume();
    const card = await requestDeletion(volumeId);
    const approval = await approvalOf(card);
    // The API acts after the client has given up waiting, as a slow API does.
    e2e.emulator.control.setLatency(API_TIMEOUT_MS + 700, ['volumes.delete']);

    await e2e.stack.workspace.click(BOB, cardNow(card), { actionId: ActionId.approve });
    await e2e.stack.drain();
    e2e.emulator.control.setLatency(0);

    expect(e2e.emulator.control.volumeExists(volumeId)).toBe(false);
    const final = e2e.textOf(cardNow(card));
    expect(final).toContain('went through after all');
    expect(final).not.toMatch(/failed|did not happen/);
    const thread = threadText(card);
    expect(thread).toContain('may or may not have happened');
    expect(thread).toContain(':white_check_mark: Approved and done.');
    expect(thread).not.toMatch(/It did not happen|failed/);
    expect((await e2e.stack.store.approvals.get(team(), approval.id))?.status).toBe('executed');
    const results = await auditResults('volumes.delete', approval.id);
    expect(results).toContain('in_doubt');
    expect(results).toContain('succeeded');
    expect(results).not.toContain('failed');
  });
});

describe('an approved change the API refuses', () => {
  it("regression: the card said only 'The API refused the request' — now it carries the API's reason", async () => {
    const volumeId = newVolume();
    const card = await requestDeletion(volumeId);
    // Gone before the approval lands: the API answers 404 with its reason.
    await new ApiClient({ baseUrl: e2e.emulator.url, token: e2e.emulator.demoToken }).call(
      getOperation('volumes.delete'),
      { volumeId },
    );
    await e2e.stack.workspace.click(BOB, cardNow(card), { actionId: ActionId.approve });
    await e2e.stack.drain();
    const final = e2e.textOf(cardNow(card));
    expect(final).toContain('did not happen');
    expect(final).toContain('The API said: Volume not found');
    expect(threadText(card)).toContain('The API said: Volume not found');
  });
});

describe('a create whose answer is lost', () => {
  it('connection dropped after the API created it: "went through after all", and exactly one key exists', async () => {
    const label = `k-${Date.now()}`;
    e2e.emulator.control.injectFault({
      kind: 'drop',
      afterActing: true,
      operations: ['profile.sshkeys-create'],
      times: 1,
    });
    await e2e.command(ALICE, `profile sshkeys-create --label ${label} --ssh-key "${SSH_KEY}"`);

    expect(keysLabelled(label)).toBe(1);
    const said = e2e
      .seen(ALICE)
      .map((m) => m.text)
      .join('\n');
    expect(said).toContain('went through after all');
    expect(said).not.toContain('Try again');
    expect(await auditResults('profile.sshkeys-create')).toContain('succeeded');
  });

  it('connection dropped before the API acted: never "done", and the person is told what to check', async () => {
    const label = `k-lost-${Date.now()}`;
    e2e.emulator.control.injectFault({ kind: 'drop', operations: ['profile.sshkeys-create'], times: 1 });
    await e2e.command(ALICE, `profile sshkeys-create --label ${label} --ssh-key "${SSH_KEY}"`);

    expect(keysLabelled(label)).toBe(0);
    const last = e2e.textOf(e2e.lastSeen(ALICE));
    expect(last).toContain('Still unknown after 4 seconds');
    expect(last).toContain('/cloud profile sshkeys-list');
    expect(last).not.toContain('went through');
    // It was not sent a second time behind the person's back.
    expect(keysLabelled(label)).toBe(0);
  });

  it('a 503 after the API acted on a create: read back as done, not reported as a server error', async () => {
    const label = `k-503-${Date.now()}`;
    e2e.emulator.control.injectFault({
      kind: 'status',
      status: 503,
      afterActing: true,
      operations: ['profile.sshkeys-create'],
      times: 1,
    });
    await e2e.command(ALICE, `profile sshkeys-create --label ${label} --ssh-key "${SSH_KEY}"`);
    expect(keysLabelled(label)).toBe(1);
    expect(e2e.textOf(e2e.lastSeen(ALICE))).toContain('went through after all');
  });
});

describe('a create that never reached the API while someone else made one just like it', () => {
  it('is not taken for theirs: a new volume with the same values, made by another API user, is not hers', async () => {
    const label = `v-race-${Date.now()}`;
    const other = `oncall-${label}`;
    e2e.emulator.control.createUser({ username: other });
    const { token } = e2e.emulator.control.createToken(other, { scopes: '*' });
    const volumesLabelled = () =>
      [...e2e.emulator.control.world.volumes.values()].filter((v) => v.label === label);
    const checkingNotes = () =>
      e2e.seen(ALICE).filter((m) => m.text.includes('may or may not have happened')).length;
    const notesBefore = checkingNotes();
    e2e.emulator.control.injectFault({ kind: 'drop', operations: ['volumes.create'], times: 1 });
    const asked = e2e.command(ALICE, `volumes create --label ${label} --region us-east --size 20`);
    // While the bot reads it back, another person creates a volume with the very same values.
    await vi.waitFor(() => expect(checkingNotes()).toBe(notesBefore + 1), { timeout: 5_000, interval: 20 });
    await new ApiClient({ baseUrl: e2e.emulator.url, token }).call(getOperation('volumes.create'), {
      label,
      region: 'us-east',
      size: 20,
    });
    await asked;

    // Hers never reached the API: the one volume with that label is theirs.
    expect(volumesLabelled()).toHaveLength(1);
    const last = e2e.textOf(e2e.lastSeen(ALICE));
    expect(last).toContain('Still unknown after 4 seconds');
    expect(last).not.toContain('went through');
  });
});

describe('a create in doubt, asked with a token that may not read the events', () => {
  it('the new item with the requested values is still the evidence: "went through after all"', async () => {
    const { token } = e2e.emulator.control.createToken('demo', { scopes: 'volumes:read_write' });
    await e2e.login(BOB, token);
    const label = `v-noevents-${Date.now()}`;
    e2e.emulator.control.injectFault({
      kind: 'drop',
      afterActing: true,
      operations: ['volumes.create'],
      times: 1,
    });
    await e2e.command(BOB, `volumes create --label ${label} --region us-east --size 20`);

    expect([...e2e.emulator.control.world.volumes.values()].filter((v) => v.label === label)).toHaveLength(1);
    const said = e2e
      .seen(BOB)
      .map((m) => m.text)
      .join('\n');
    expect(said).toContain('may or may not have happened');
    expect(said).toContain('went through after all');
  });
});

describe('an update answered with 503s after the API applied it', () => {
  it('is read back and reported done, not "the API had a problem"', async () => {
    const volumeId = newVolume();
    const label = `renamed-${Date.now()}`;
    e2e.emulator.control.injectFault({
      kind: 'status',
      status: 503,
      afterActing: true,
      operations: ['volumes.update'],
    });
    await e2e.command(ALICE, `volumes update ${volumeId} --label ${label}`);
    e2e.emulator.control.clearFaults();

    const said = e2e
      .seen(ALICE)
      .slice(-3)
      .map((m) => e2e.textOf(m))
      .join('\n');
    expect(said).toContain('went through after all');
    expect(said).not.toMatch(/server error \(HTTP 503\)\.? Try|had a problem/);
    const view = (await new ApiClient({ baseUrl: e2e.emulator.url, token: e2e.emulator.demoToken }).call(
      getOperation('volumes.view'),
      { volumeId },
    )) as { label: string };
    expect(view.label).toBe(label);
  });
});

describe('the requester’s "working…" note', () => {
  it('is posted in the channel and the answer takes its place, once (a slash command reply cannot be replaced)', async () => {
    const label = `k-note-${Date.now()}`;
    const before = e2e.seen(ALICE).length;
    const delivery = await e2e.command(
      ALICE,
      `profile sshkeys-create --label ${label} --ssh-key "${SSH_KEY}"`,
    );
    // The command's own reply is empty: a note there could never go.
    expect(delivery.message).toBeUndefined();
    const mine = e2e.seen(ALICE).slice(before);
    const answers = mine.filter((m) => m.text.includes(label) && !m.ephemeral);
    expect(answers).toHaveLength(1);
    expect(mine.filter((m) => /working on/i.test(m.text))).toEqual([]);
    // The note, posted with the Web API, became the answer (`chat.update`).
    expect(answers[0]?.updatedAt).toBeDefined();
    const replaced = e2e.stack.standIn.store
      .callsTo('chat.update')
      .filter((call) => call.body.ts === answers[0]?.ts);
    expect(replaced).toHaveLength(1);
  });
});

describe('the worker checks what it is handed', () => {
  it('a create job delivered twice is sent once (regression: a second SSH key was created)', async () => {
    const label = `k-twice-${Date.now()}`;
    const job = {
      kind: 'operation',
      correlationId: `corr-${label}`,
      team: team(),
      user: ALICE,
      channel: CHANNEL,
      operationId: 'profile.sshkeys-create',
      input: { label, ssh_key: SSH_KEY },
      options: { all: false, json: false },
      replaceOriginal: false,
    };
    await runWorkerJob(e2e.stack.worker, job);
    await runWorkerJob(e2e.stack.worker, job);
    expect(keysLabelled(label)).toBe(1);
    expect(e2e.emulator.control.requestCount('profile.sshkeys-create')).toBeGreaterThan(0);
    expect(e2e.textOf(e2e.lastSeen(ALICE))).toContain('reached the worker twice');
  });

  it('a destructive job without an approval record is refused and nothing is deleted', async () => {
    const volumeId = newVolume();
    await runWorkerJob(e2e.stack.worker, {
      kind: 'operation',
      correlationId: `corr-direct-${volumeId}`,
      team: team(),
      user: ALICE,
      channel: CHANNEL,
      operationId: 'volumes.delete',
      input: { volumeId },
      options: {},
    });
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId })).toBe(0);
    expect(e2e.emulator.control.volumeExists(volumeId)).toBe(true);
    expect(e2e.textOf(e2e.lastSeen(ALICE))).toContain('needs approval');
  });

  it('malformed jobs are dropped without throwing (a throw would make Lambda deliver them again)', async () => {
    const before = e2e.emulator.control.requestCount();
    for (const job of [
      { kind: 'approval', correlationId: 'c1', team: team(), approvalId: '../../x' },
      { kind: 'approval', correlationId: 'c2', team: team(), approvalId: 'no-such-approval' },
      { kind: 'operation', correlationId: 'c3' },
      { kind: '__proto__' },
      null,
      'volumes delete 12',
    ]) {
      await expect(runWorkerJob(e2e.stack.worker, job)).resolves.toBeUndefined();
    }
    expect(e2e.emulator.control.requestCount()).toBe(before);
  });

  it('a stale response_url does not hide the outcome: the result is posted in the channel', async () => {
    const label = `k-stale-${Date.now()}`;
    await runWorkerJob(e2e.stack.worker, {
      kind: 'operation',
      correlationId: `corr-${label}`,
      team: team(),
      user: ALICE,
      channel: CHANNEL,
      responseUrl: `${e2e.stack.standIn.apiUrl.replace(/\/api\/?$/, '')}/response/expired-${label}`,
      operationId: 'profile.sshkeys-create',
      input: { label, ssh_key: SSH_KEY },
      options: { all: false, json: false },
      replaceOriginal: false,
    });
    expect(keysLabelled(label)).toBe(1);
    const posted = e2e.stack.standIn.store.messages(CHANNEL).filter((m) => e2e.textOf(m).includes(label));
    expect(posted.length).toBeGreaterThan(0);
  });
});

describe('the approval sweep', () => {
  it('a worker that died after the API call and before writing the outcome: the sweep reads it back and the card says done', async () => {
    const volumeId = newVolume();
    const card = await requestDeletion(volumeId);
    const approval = await approvalOf(card);
    // Bob approves; the worker claims it, deletes the volume, and dies before writing anything.
    expect(
      (
        await castVote(e2e.stack.store, {
          team: team(),
          approvalId: approval.id,
          user: BOB,
          decision: 'approve',
        })
      ).outcome,
    ).toBe('approved');
    const claim = await e2e.stack.store.approvals.claimExecution(team(), approval.id);
    expect(claim.claimed).toBe(true);
    await new ApiClient({ baseUrl: e2e.emulator.url, token: e2e.emulator.demoToken }).call(
      getOperation('volumes.delete'),
      { volumeId },
    );

    // Within its lease the worker is taken to be alive: the sweep leaves it alone.
    expect((await sweepApprovals(e2e.stack.worker, slackExecutionSurface(e2e.stack.worker))).settled).toBe(0);
    expect((await e2e.stack.store.approvals.get(team(), approval.id))?.status).toBe('executing');

    clock.advance(4 * 60_000);
    const summary = await sweepApprovals(e2e.stack.worker, slackExecutionSurface(e2e.stack.worker));
    expect(summary.settled).toBe(1);
    expect((await e2e.stack.store.approvals.get(team(), approval.id))?.status).toBe('executed');
    expect(e2e.textOf(cardNow(card))).toContain('went through after all');
    expect(threadText(card)).toContain('The worker stopped before it recorded how this ended');
  });

  it('a settings apply whose worker died part way: the sweep says it stopped part way and to ask again, not that the request cannot be read', async () => {
    await withSettingsAdmin(async () => {
      const { card, approval } = await approvedSettingsChange();
      // The worker claims the run and dies before it records anything.
      expect((await e2e.stack.store.approvals.claimExecution(team(), approval.id)).claimed).toBe(true);

      clock.advance(4 * 60_000);
      await sweepApprovals(e2e.stack.worker, slackExecutionSurface(e2e.stack.worker));
      expect((await e2e.stack.store.approvals.get(team(), approval.id))?.status).toBe('unknown');
      const text = `${e2e.textOf(cardNow(card))}\n${threadText(card)}`;
      expect(text).toContain(
        'It stopped part way, so some of it may have been done: ask again to finish it.',
      );
      expect(text).not.toContain('can no longer be read back');
      expect(text).not.toMatch(/failed|:x:/);
    });
  });

  it('a settings apply whose worker died after recording its version: the sweep reads the version back and the card says applied', async () => {
    await withSettingsAdmin(async () => {
      const { card, approval } = await approvedSettingsChange();
      // The worker claims the run, applies the document (its version recorded), and dies.
      expect((await e2e.stack.store.approvals.claimExecution(team(), approval.id)).claimed).toBe(true);
      const input = await e2e.stack.store.approvals.readInput(team(), approval.id);
      const applied = await applyApprovedSettings(e2e.stack.worker, approval, String(input?.proposal));
      expect(applied.kind).toBe('applied');
      const version = applied.kind === 'applied' ? applied.version.version : 0;

      clock.advance(4 * 60_000);
      await sweepApprovals(e2e.stack.worker, slackExecutionSurface(e2e.stack.worker));
      expect((await e2e.stack.store.approvals.get(team(), approval.id))?.status).toBe('executed');
      const text = `${e2e.textOf(cardNow(card))}\n${threadText(card)}`;
      expect(text).toContain(`The settings are now version ${version}`);
      expect(text).not.toContain('stopped part way');
      expect(await auditResults('settings.apply', approval.id)).toContain('succeeded');
    });
  });

  it('a settings apply whose version was written but whose answer was lost: the worker reads the version back and the card says applied', async () => {
    await withSettingsAdmin(async () => {
      const { card, approval } = await approvedSettingsChange();
      const { store } = e2e.stack.worker;
      // The version lands in DynamoDB; its answer never comes back.
      const record: typeof store.settingsVersions.record = async (...args) => {
        const recorded = await store.settingsVersions.record(...args);
        // Only the document's own version, the apply's last write, loses its answer.
        if (args[2].approvalId !== approval.id) return recorded;
        throw new StoreError('storage_unavailable', 'DynamoDB is not answering.');
      };
      const settingsVersions = new Proxy(store.settingsVersions, {
        get: (target, name) => (name === 'record' ? record : Reflect.get(target, name)),
      });
      await runWorkerJob(
        { ...e2e.stack.worker, store: { ...store, settingsVersions } },
        { kind: 'approval', correlationId: `corr-${approval.id}`, team: team(), approvalId: approval.id },
      );
      await e2e.stack.drain();

      expect((await e2e.stack.store.approvals.get(team(), approval.id))?.status).toBe('executed');
      const text = `${e2e.textOf(cardNow(card))}\n${threadText(card)}`;
      expect(text).toContain('The settings are now version');
      expect(text).not.toContain('stopped part way');
    });
  });

  it('a worker that died before the API call: checked every 5 minutes, then "still unknown" after 30 — never "failed"', async () => {
    const volumeId = newVolume();
    const card = await requestDeletion(volumeId);
    const approval = await approvalOf(card);
    await castVote(e2e.stack.store, {
      team: team(),
      approvalId: approval.id,
      user: BOB,
      decision: 'approve',
    });
    await e2e.stack.store.approvals.claimExecution(team(), approval.id);

    clock.advance(4 * 60_000);
    expect(
      (await sweepApprovals(e2e.stack.worker, slackExecutionSurface(e2e.stack.worker))).stillInDoubt,
    ).toBe(1);
    expect(e2e.textOf(cardNow(card))).toContain('may or may not have happened');
    // Not due again before the next check.
    clock.advance(60_000);
    expect(
      (await sweepApprovals(e2e.stack.worker, slackExecutionSurface(e2e.stack.worker))).stillInDoubt,
    ).toBe(0);

    for (let minutes = 0; minutes < 30; minutes += 5) {
      clock.advance(5 * 60_000);
      await sweepApprovals(e2e.stack.worker, slackExecutionSurface(e2e.stack.worker));
    }
    const final = await e2e.stack.store.approvals.get(team(), approval.id);
    expect(final?.status).toBe('unknown');
    const text = e2e.textOf(cardNow(card));
    expect(text).toContain('it is still there');
    expect(text).toContain('/cloud volumes view');
    expect(text).toContain(':warning: Approved; whether it happened is unknown: Still unknown after');
    expect(text).not.toMatch(/failed|:x:/);
    expect(e2e.emulator.control.volumeExists(volumeId)).toBe(true);
    expect(await auditResults('volumes.delete', approval.id)).toContain('unknown');
    // A late click from a stale copy of the card hears the state, not "running".
    await e2e.stack.workspace.click(BOB, card, { actionId: ActionId.approve });
    await e2e.stack.drain();
    const answer = e2e.textOf(e2e.lastSeen(BOB));
    expect(answer).toContain('whether it happened is unknown');
    expect(answer).not.toContain('running');
  });

  it('a pending request past its expiry loses its buttons without waiting for a click', async () => {
    const volumeId = newVolume();
    const card = await requestDeletion(volumeId);
    const approval = await approvalOf(card);
    clock.advance(16 * 60_000);
    expect(
      (await sweepApprovals(e2e.stack.worker, slackExecutionSurface(e2e.stack.worker))).expired,
    ).toBeGreaterThanOrEqual(1);
    const updated = cardNow(card);
    expect(JSON.stringify(updated.blocks)).not.toContain(ActionId.approve);
    expect(e2e.textOf(updated)).toContain('Expired');
    expect(await auditResults('volumes.delete', approval.id)).toContain('expired');
    expect(e2e.emulator.control.volumeExists(volumeId)).toBe(true);
  });

  it('an approved request no worker ever picked up is closed as not run', async () => {
    const volumeId = newVolume();
    const card = await requestDeletion(volumeId);
    const approval = await approvalOf(card);
    await castVote(e2e.stack.store, {
      team: team(),
      approvalId: approval.id,
      user: BOB,
      decision: 'approve',
    });
    clock.advance(6 * 60_000);
    expect((await sweepApprovals(e2e.stack.worker, slackExecutionSurface(e2e.stack.worker))).notRun).toBe(1);
    expect((await e2e.stack.store.approvals.get(team(), approval.id))?.status).toBe('not_run');
    expect(e2e.textOf(cardNow(card))).toContain('never started; nothing was run');
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId })).toBe(0);
  });
});

describe('what an approval card names', () => {
  it('regression: a credentials reset named the database "root (41)" after reading its credentials — now its label', async () => {
    const op = getOperation('databases.mysql-creds-reset');
    const client = new ApiClient({ baseUrl: e2e.emulator.url, token: e2e.emulator.demoToken });
    const input = await existingInputFor(op, client);
    const database = (await client.call(requireOperation('databases.mysql-view'), {
      instanceId: input.instanceId,
    })) as { label: string };
    const credentialReads = e2e.emulator.control.requestCount('databases.mysql-creds-view');
    await e2e.command(ALICE, commandTextFor(op, input));
    const card = lastCardWith(e2e.stack.standIn.store, CHANNEL, ActionId.approve);
    const text = e2e.textOf(card);
    expect(text).toContain(`${database.label} (${String(input.instanceId)})`);
    expect(text).not.toContain('root (');
    expect(e2e.emulator.control.requestCount('databases.mysql-creds-view')).toBe(credentialReads);
  });

  it('a snapshot card reads "take a manual snapshot backup of node …", not "of a node 1001"', async () => {
    const op = getOperation('nodes.snapshot');
    const client = new ApiClient({ baseUrl: e2e.emulator.url, token: e2e.emulator.demoToken });
    const input = await existingInputFor(op, client);
    await e2e.command(ALICE, commandTextFor(op, input));
    const card = lastCardWith(e2e.stack.standIn.store, CHANNEL, ActionId.approve);
    expect(card?.text).toMatch(/take a manual snapshot backup of node \S/);
    expect(card?.text).not.toContain('of a node');
  });
});
