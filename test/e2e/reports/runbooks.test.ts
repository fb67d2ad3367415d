import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NODE_RESIZE_MS } from '../../../infra/local/emulator/handlers/node-actions.js';
import { type RunbookSurface, startStep } from '../../../lib/changes/runbooks.js';
import { sweepApprovals } from '../../../lib/changes/sweep.js';
import { runbookFollower } from '../../../lib/slack/approval-answers.js';
import { slackExecutionSurface } from '../../../lib/slack/approved-run-surface.js';
import { continueAfterWatch, slackRunbookSurface } from '../../../lib/slack/runbook-runs.js';
import { runWorkerJob } from '../../../lib/slack/worker-handlers.js';
import { ActionId } from '../../../lib/slack-kit/interactions.js';
import type { RunbookRun } from '../../../lib/store/index.js';
import { lastCardWith } from '../../support/cards.js';
import { ADA, ALICE, BOB, CHANNEL } from '../../support/e2e.js';
import { type ReporterHarness, startReporterHarness, TEAM } from './harness.js';

/**
 * Runbooks end to end: signed slash commands, DynamoDB Local, the emulator (whose clock moves the
 * nodes through their states) and the Slack stand-in. A step starts only when the one before has
 * settled: its status watch ends in a reporter tick, or its approval is decided and run.
 */

const MINUTE = 60_000;
const RESIZE_STEPS = 'nodes shutdown $1; nodes resize $1 --type $2; nodes boot $1';

let harness: ReporterHarness;

beforeAll(async () => {
  harness = await startReporterHarness();
  await harness.e2e.login(ALICE, harness.e2e.emulator.demoToken);
});

afterAll(async () => {
  await harness?.close();
});

beforeEach(async () => {
  await harness.e2e.stack.store.channelPolicy.clear(TEAM, CHANNEL);
  harness.e2e.emulator.control.resetRequestCounts();
});

function world() {
  return harness.e2e.emulator.control.world;
}

const used = new Set<number>();

/** A running node not used by an earlier test, of a small type, so a bigger one is a resize. */
function freshNode() {
  const node = [...world().nodes.values()].find(
    (n) =>
      !used.has(n.id) &&
      n.status === 'running' &&
      n.lastBootedConfigId !== null &&
      n.type !== 'g6-standard-6',
  );
  if (!node) throw new Error('the seed has no running node left');
  used.add(node.id);
  return node;
}

function requests(operationId: string, nodeId: number) {
  return harness.e2e.emulator.control.requestCount(operationId, { nodeId });
}

async function addRunbook(name: string, steps = RESIZE_STEPS) {
  const added = await harness.e2e.command(ALICE, `runbook add ${name} --steps "${steps}"`);
  expect(harness.e2e.textOf(added.message)).toContain(`added runbook \`${name}\``);
}

/** Starts a run and returns it as stored, with its thread. */
async function startRun(name: string, args: string): Promise<RunbookRun> {
  return startRunShown(await harness.e2e.command(ALICE, `runbook run ${name} ${args}`));
}

/** The run an answer says was started: people are shown its first 8 characters, as reports show theirs. */
async function startRunShown(started: { message?: Parameters<typeof harness.e2e.textOf>[0] }) {
  const shown = /run `([0-9a-f]{8})`/.exec(harness.e2e.textOf(started.message))?.[1];
  const run = shown && (await harness.deps.store.runbooks.findRun(TEAM, shown));
  if (!run) throw new Error(`no run started: ${harness.e2e.textOf(started.message)}`);
  return run;
}

async function currentRun(id: string): Promise<RunbookRun> {
  const run = await harness.deps.store.runbooks.getRun(TEAM, id);
  if (!run) throw new Error(`no run ${id}`);
  return run;
}

function thread(run: RunbookRun) {
  return harness.e2e.stack.standIn.store
    .messages(CHANNEL)
    .filter((m) => m.thread_ts === run.threadTs && m.ts !== run.threadTs)
    .map((m) => `${m.text}${JSON.stringify(m.blocks ?? [])}`);
}

function runMessage(run: RunbookRun) {
  const message = run.threadTs && harness.e2e.stack.standIn.store.findMessage(CHANNEL, run.threadTs);
  return message ? `${message.text}\n${JSON.stringify(message.blocks)}` : '';
}

function approvalCard() {
  return lastCardWith(harness.e2e.stack.standIn.store, CHANNEL, ActionId.approve);
}

/** Time on the emulator's clock (a minute by default), then a reporter tick: the watched node settles. */
async function settle(ms = MINUTE) {
  harness.advance(ms);
  await harness.tick();
  await harness.drain();
  await harness.e2e.stack.drain();
}

describe('a three-step runbook: shutdown, resize behind approval, boot', () => {
  it('runs each step only after the one before settled, all in one thread', async () => {
    await harness.e2e.command(ADA, 'policy --rule costs --required 1', CHANNEL);
    await addRunbook('resize-node');
    const node = freshNode();
    const run = await startRun('resize-node', `${node.id} g6-standard-6`);
    expect(run.threadTs).not.toBeNull();

    // Step 1 was sent; the node is shutting down, and nothing else was asked of the API.
    expect(requests('nodes.shutdown', node.id)).toBe(1);
    expect(requests('nodes.resize', node.id)).toBe(0);
    expect((await currentRun(run.id)).steps.map((s) => s.state)).toEqual(['running', 'pending', 'pending']);

    // The shutdown settles in a tick: the resize is asked for, behind its approval, not sent.
    await settle();
    expect(world().nodes.get(node.id)?.status).toBe('offline');
    expect((await currentRun(run.id)).steps.map((s) => s.state)).toEqual([
      'succeeded',
      'awaiting_approval',
      'pending',
    ]);
    expect(requests('nodes.resize', node.id)).toBe(0);
    const card = approvalCard();
    if (!card) throw new Error('no approval card for the resize');
    expect(thread(run).join('\n')).toContain('waits for approval');

    // Approved: the resize runs in the worker, its answer goes in the run's thread and is followed there.
    await harness.e2e.stack.workspace.click(BOB, card, { actionId: ActionId.approve });
    await harness.e2e.stack.drain();
    expect(requests('nodes.resize', node.id)).toBe(1);
    expect(requests('nodes.boot', node.id)).toBe(0);
    expect((await currentRun(run.id)).steps.map((s) => s.state)).toEqual(['succeeded', 'running', 'pending']);

    // Still resizing after a minute: the boot waits.
    await settle();
    expect(world().nodes.get(node.id)?.status).toBe('resizing');
    expect(requests('nodes.boot', node.id)).toBe(0);
    await settle(NODE_RESIZE_MS);
    // Resized and offline when read, so the boot was sent at once.
    expect(world().nodes.get(node.id)).toMatchObject({ type: 'g6-standard-6', status: 'booting' });
    expect(requests('nodes.boot', node.id)).toBe(1);
    await settle();
    expect(world().nodes.get(node.id)?.status).toBe('running');

    const finished = await currentRun(run.id);
    expect(finished.state).toBe('succeeded');
    expect(finished.steps.map((s) => s.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(runMessage(finished)).toContain('finished: all 3 steps done');
    // Each step's status message is in the run's thread, not in the channel.
    const lines = thread(finished).join('\n');
    expect(lines).toContain('Status *offline*');
    expect(lines).toContain('Status *running*');
    const audit = (await harness.deps.store.audit.list(TEAM, { limit: 50 })).entries
      .filter((e) => e.action === 'runbook.step')
      .reverse();
    expect(
      audit.filter((e) => e.detail?.includes(`run ${run.id.slice(0, 8)}:`)).map((e) => e.result),
    ).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });
});

describe('a failing step', () => {
  it('stops the run there, names the step, and the steps after it are not run', async () => {
    await addRunbook('resize-same');
    const node = freshNode();
    // Resizing to the type it has is refused by the API (400).
    const run = await startRun('resize-same', `${node.id} ${node.type}`);
    await settle();
    expect(requests('nodes.resize', node.id)).toBe(1);
    expect(requests('nodes.boot', node.id)).toBe(0);
    const stopped = await currentRun(run.id);
    expect(stopped.state).toBe('failed');
    expect(stopped.steps.map((s) => s.state)).toEqual(['succeeded', 'failed', 'skipped']);
    expect(runMessage(stopped)).toContain('stopped at step 2 (`nodes resize');
    await settle();
    expect(requests('nodes.boot', node.id)).toBe(0);
  });

  it('stops the run at a step whose outcome a server error leaves in doubt', async () => {
    await addRunbook('resize-faulty');
    const node = freshNode();
    const run = await startRun('resize-faulty', `${node.id} g6-standard-6`);
    harness.e2e.emulator.control.injectFault({ kind: 'status', status: 503, operations: ['nodes.resize'] });
    try {
      await settle();
    } finally {
      harness.e2e.emulator.control.clearFaults();
    }
    const stopped = await currentRun(run.id);
    expect(stopped.state).toBe('failed');
    // A resize is not safe to send again, and a 503 does not say it was not acted on: in doubt.
    expect(stopped.steps.map((s) => s.state)).toEqual(['succeeded', 'in_doubt', 'skipped']);
    expect(runMessage(stopped)).toContain('stopped at step 2 (`nodes resize');
    await settle();
    expect(requests('nodes.boot', node.id)).toBe(0);
  });

  it('stops the run when the approval is denied', async () => {
    await harness.e2e.command(ADA, 'policy --rule costs --required 1', CHANNEL);
    await addRunbook('resize-denied');
    const node = freshNode();
    const run = await startRun('resize-denied', `${node.id} g6-standard-6`);
    await settle();
    const card = approvalCard();
    if (!card) throw new Error('no approval card');
    await harness.e2e.stack.workspace.click(BOB, card, { actionId: ActionId.deny });
    await harness.e2e.stack.drain();
    const stopped = await currentRun(run.id);
    expect(stopped.steps.map((s) => s.state)).toEqual(['succeeded', 'failed', 'skipped']);
    expect(stopped.steps[1]?.detail).toContain('denied');
    expect(requests('nodes.resize', node.id)).toBe(0);
  });
});

describe('a step that waits for approval', () => {
  it('has a card that names its runbook, its run and which step of how many it is', async () => {
    await harness.e2e.command(ADA, 'policy --rule costs --required 1', CHANNEL);
    await addRunbook('resize-named');
    const node = freshNode();
    const run = await startRun('resize-named', `${node.id} g6-standard-6`);
    await settle();
    const card = harness.e2e.textOf(approvalCard());
    expect(card).toContain(`as step 2 of 3 of runbook \`resize-named\` (run \`${run.id.slice(0, 8)}\`).`);
  });
});

describe('run ids as people see them', () => {
  it('are the 8 characters the reports use, on the run message and in the answer, and cancel takes them', async () => {
    await addRunbook('resize-short-id');
    const node = freshNode();
    const started = await harness.e2e.command(ALICE, `runbook run resize-short-id ${node.id} g6-standard-6`);
    const run = await startRunShown(started);
    const shown = `${harness.e2e.textOf(started.message)}\n${runMessage(run)}`;
    expect(shown).toContain(`run \`${run.id.slice(0, 8)}\``);
    expect(shown).toContain(`/cloud runbook cancel ${run.id.slice(0, 8)}`);
    // The full id stays in the data (the Cancel button's value), never in the words.
    expect(shown.replace(`"value":"${run.id}"`, '')).not.toContain(run.id);
    const cancelled = await harness.e2e.command(ALICE, `runbook cancel ${run.id.slice(0, 8)}`);
    expect(harness.e2e.textOf(cancelled.message)).toContain(`Cancelled run \`${run.id.slice(0, 8)}\``);
    expect((await currentRun(run.id)).state).toBe('cancelled');
    await settle();
  });

  it('refuses fewer than 8 characters, which could name a run nobody meant', async () => {
    const refused = await harness.e2e.command(ALICE, 'runbook cancel 1a2b');
    expect(harness.e2e.textOf(refused.message)).toContain(
      'That is not a run id: give its first 8 characters',
    );
  });
});

describe('an approval that expires', () => {
  it('stops the run when the sweep expires the request its step waits on', async () => {
    await harness.e2e.command(ADA, 'policy --rule costs --required 1', CHANNEL);
    await addRunbook('resize-expired');
    const node = freshNode();
    const run = await startRun('resize-expired', `${node.id} g6-standard-6`);
    await settle();
    expect((await currentRun(run.id)).steps[1]?.state).toBe('awaiting_approval');
    harness.advance(60 * MINUTE);
    const worker = harness.e2e.stack.worker;
    const swept = await sweepApprovals(worker, slackExecutionSurface(worker, runbookFollower(worker)));
    expect(swept.expired).toBeGreaterThanOrEqual(1);
    const stopped = await currentRun(run.id);
    expect(stopped.steps.map((s) => s.state)).toEqual(['succeeded', 'failed', 'skipped']);
    expect(stopped.steps[1]?.detail).toContain('expired');
    expect(requests('nodes.resize', node.id)).toBe(0);
  });
});

describe('cancelling a run', () => {
  it('lets the step under way finish and starts no step after it', async () => {
    await addRunbook('resize-cancelled');
    const node = freshNode();
    const run = await startRun('resize-cancelled', `${node.id} g6-standard-6`);
    const cancelled = await harness.e2e.command(ALICE, `runbook cancel ${run.id}`);
    expect(harness.e2e.textOf(cancelled.message)).toContain('Step 1 is under way and is not interrupted');
    await settle();
    const ended = await currentRun(run.id);
    expect(ended.state).toBe('cancelled');
    expect(ended.steps.map((s) => s.state)).toEqual(['succeeded', 'cancelled', 'cancelled']);
    expect(requests('nodes.resize', node.id)).toBe(0);
  });
});

describe('who may cancel a run', () => {
  function runMessageOf(run: RunbookRun) {
    const message = run.threadTs
      ? harness.e2e.stack.standIn.store.findMessage(CHANNEL, run.threadTs)
      : undefined;
    if (!message) throw new Error('the run has no message');
    return message;
  }

  async function click(user: string, run: RunbookRun) {
    const delivery = await harness.e2e.stack.workspace.click(user, runMessageOf(run), {
      actionId: ActionId.runbookCancel,
    });
    expect(delivery.status).toBe(200);
    await harness.e2e.stack.drain();
    return harness.e2e.textOf(harness.e2e.lastSeen(user));
  }

  it('refuses someone else, by command and by the Cancel button, and the run goes on', async () => {
    await addRunbook('resize-not-yours');
    const node = freshNode();
    const run = await startRun('resize-not-yours', `${node.id} g6-standard-6`);
    const typed = await harness.e2e.command(BOB, `runbook cancel ${run.id}`);
    expect(harness.e2e.textOf(typed.message)).toContain(`was started by <@${ALICE}>; only they`);
    expect(await click(BOB, run)).toContain(`was started by <@${ALICE}>; only they`);
    expect((await currentRun(run.id)).state).toBe('running');
    await settle();
    expect(requests('nodes.resize', node.id)).toBe(1);
  });

  it('the Cancel button cancels as the command does for the person who started the run, and goes when the run ends', async () => {
    await addRunbook('resize-button');
    const node = freshNode();
    const run = await startRun('resize-button', `${node.id} g6-standard-6`);
    expect(runMessage(run)).toContain(ActionId.runbookCancel);
    expect(await click(ALICE, run)).toContain('Step 1 is under way and is not interrupted');
    // The run's message says it was cancelled at once, and has no button any more.
    expect(runMessage(await currentRun(run.id))).toContain(`was cancelled by <@${ALICE}>`);
    expect(runMessage(await currentRun(run.id))).not.toContain(ActionId.runbookCancel);
    await settle();
    const ended = await currentRun(run.id);
    expect(ended.steps.map((s) => s.state)).toEqual(['succeeded', 'cancelled', 'cancelled']);
    expect(requests('nodes.resize', node.id)).toBe(0);
  });

  it('lets a workspace admin cancel anyone’s run with the button', async () => {
    await addRunbook('resize-admin');
    const node = freshNode();
    const run = await startRun('resize-admin', `${node.id} g6-standard-6`);
    expect(await click(ADA, run)).toContain('Cancelled run');
    expect((await currentRun(run.id)).cancelledBy).toBe(ADA);
    await settle();
    expect(requests('nodes.resize', node.id)).toBe(0);
  });

  it('the message of a run that finished has no Cancel button', async () => {
    await addRunbook('shutdown-only', 'nodes shutdown $1');
    const node = freshNode();
    const run = await startRun('shutdown-only', `${node.id}`);
    expect(runMessage(run)).toContain(ActionId.runbookCancel);
    await settle();
    const finished = await currentRun(run.id);
    expect(finished.state).toBe('succeeded');
    expect(runMessage(finished)).not.toContain(ActionId.runbookCancel);
  });
});

describe('workspace runbooks', () => {
  const GENERAL = 'C0GENERAL';
  const say = async (user: string, text: string, channel = CHANNEL) =>
    harness.e2e.textOf((await harness.e2e.command(user, text, channel)).message);

  it('only an admin adds or removes one; it runs in every channel; a channel’s of the same name wins', async () => {
    expect(await say(ALICE, 'runbook add ws-stop --steps "nodes shutdown $1" --workspace')).toContain(
      'Only workspace admins',
    );
    expect(await harness.deps.store.runbooks.list(TEAM, null)).toEqual([]);
    expect(await say(ADA, 'runbook add ws-stop --steps "nodes shutdown $1" --workspace')).toContain(
      'added workspace runbook `ws-stop`',
    );

    // Found in a channel that has no runbook of its own by that name.
    const node = freshNode();
    expect(await say(ALICE, `runbook run ws-stop ${node.id}`, GENERAL)).toContain('Started run');
    expect(requests('nodes.shutdown', node.id)).toBe(1);
    expect(await say(BOB, 'runbook show ws-stop', GENERAL)).toContain('(the workspace’s)');

    // A channel's runbook of the same name wins in that channel; the list shows both, and says so.
    await addRunbook('ws-stop', 'nodes boot $1');
    const shown = await say(BOB, 'runbook show ws-stop');
    expect(shown).toContain('nodes boot $1');
    expect(shown).not.toContain('the workspace’s');
    const listed = await say(BOB, 'runbook list');
    expect(listed).toContain('This channel’s runbooks');
    expect(listed).toContain('The workspace’s runbooks');
    expect(listed).toContain('(this channel’s of the same name runs here)');

    // Removing without --workspace removes the channel's; the workspace's is found again.
    expect(await say(ALICE, 'runbook remove ws-stop')).toContain('Removed runbook `ws-stop`');
    expect(await say(BOB, 'runbook show ws-stop')).toContain('nodes shutdown $1');
    expect(await say(ALICE, 'runbook remove ws-stop --workspace')).toContain('Only workspace admins');
    expect(await say(ADA, 'runbook remove ws-stop --workspace')).toContain('Removed workspace runbook');
    expect(await say(BOB, 'runbook show ws-stop')).toContain('Neither this channel nor the workspace');
  });

  it('the modal of `runbook add NAME --workspace` adds the workspace’s, and asks again on submission', async () => {
    const opened = await harness.e2e.stack.workspace.command(
      ADA,
      CHANNEL,
      'runbook add ws-modal --workspace',
    );
    expect(opened.status).toBe(200);
    const view = harness.e2e.openView(ADA);
    if (!view) throw new Error('no modal opened');
    await harness.e2e.stack.workspace.submitView(ADA, view, { steps: { steps_input: 'nodes boot $1' } });
    expect(await harness.deps.store.runbooks.get(TEAM, null, 'ws-modal')).toMatchObject({
      channel: null,
      steps: ['nodes boot $1'],
      createdBy: ADA,
    });
    expect(await harness.deps.store.runbooks.get(TEAM, CHANNEL, 'ws-modal')).toBeUndefined();
    await say(ADA, 'runbook remove ws-modal --workspace');
  });
});

describe('a completion delivered twice', () => {
  it('starts the next step once', async () => {
    await addRunbook('reboot-twice', 'nodes shutdown $1; nodes boot $1');
    const node = freshNode();
    const run = await startRun('reboot-twice', `${node.id}`);
    const watchId = (await currentRun(run.id)).steps[0]?.watchId;
    if (!watchId) throw new Error('the first step has no watch');
    harness.advance(MINUTE);
    // The watch's end reaches the run twice at once (a retried tick, a duplicated event).
    const deps = { ...harness.deps };
    await Promise.all([
      continueAfterWatch(deps, TEAM, watchId, 'final', 'offline'),
      continueAfterWatch(deps, TEAM, watchId, 'final', 'offline'),
    ]);
    expect(requests('nodes.boot', node.id)).toBe(1);
    // And the worker's job of the first step delivered again starts nothing.
    await runWorkerJob(deps, {
      kind: 'runbook-step',
      correlationId: 'again',
      team: TEAM,
      runId: run.id,
      step: 0,
    });
    expect(requests('nodes.shutdown', node.id)).toBe(1);
  });
});

describe('a status watch that ends before its step is linked to it', () => {
  it('moves the run on exactly once: the step that links it reads the watch again', async () => {
    const node = freshNode();
    const deps = { ...harness.deps };
    const run = await deps.store.runbooks.createRun({
      team: TEAM,
      channel: CHANNEL,
      runbook: 'reboot-race',
      args: [String(node.id)],
      user: ALICE,
      commands: [`nodes shutdown ${node.id}`, `nodes boot ${node.id}`],
    });
    const slack = slackRunbookSurface(deps);
    const endedBeforeLink: string[] = [];
    // Each step's watch is created by \`follow\`; the link to the run is written after it returns.
    // A reporter tick inside that window settles the node and ends the watch, and finds no step
    // waiting on it.
    const surface: RunbookSurface = {
      ...slack,
      async follow(...args) {
        const followed = await slack.follow(...args);
        if (followed.kind === 'watching') {
          harness.advance(MINUTE);
          await harness.tick();
          const watch = await deps.store.statusWatches.get(TEAM, followed.watchId);
          if (watch?.finished) endedBeforeLink.push(followed.watchId);
          expect(await deps.store.runbooks.linkOf(TEAM, 'watch', followed.watchId)).toBeUndefined();
        }
        return followed;
      },
    };
    await startStep(deps, surface, TEAM, run.id, 0);
    expect(endedBeforeLink).toHaveLength(2);
    const finished = await currentRun(run.id);
    expect(finished.state).toBe('succeeded');
    expect(finished.steps.map((s) => s.state)).toEqual(['succeeded', 'succeeded']);
    expect(requests('nodes.shutdown', node.id)).toBe(1);
    expect(requests('nodes.boot', node.id)).toBe(1);

    // The tick's own completion arriving late (a retry) finds the step settled and starts nothing.
    const [firstWatch] = endedBeforeLink;
    if (!firstWatch) throw new Error('no watch');
    await continueAfterWatch(deps, TEAM, firstWatch, 'final', 'offline');
    await startStep(deps, surface, TEAM, run.id, 1);
    expect(requests('nodes.boot', node.id)).toBe(1);
    const audit = (await deps.store.audit.list(TEAM, { limit: 100 })).entries.filter(
      (e) => e.action === 'runbook.step' && e.detail?.includes(`run ${run.id.slice(0, 8)}:`),
    );
    expect(audit).toHaveLength(2);
  });
});

describe('hostile runbooks', () => {
  it.each([
    ['__proto__', RESIZE_STEPS],
    ['nodes', RESIZE_STEPS],
    ['runbook', RESIZE_STEPS],
    ['a#b', RESIZE_STEPS],
  ])('refuses the name %s', async (name, steps) => {
    const refused = await harness.e2e.command(ALICE, `runbook add ${name} --steps "${steps}"`);
    expect(harness.e2e.textOf(refused.message)).not.toContain('added runbook');
    expect(await harness.deps.store.runbooks.list(TEAM, CHANNEL)).not.toContainEqual(
      expect.objectContaining({ name }),
    );
  });

  it.each(['runbook run x', 'nodes reboot $1 --break-glass "because"', 'nodes explode $1', 'nodes boot $0'])(
    'refuses the step %s',
    async (step) => {
      const refused = await harness.e2e.command(ALICE, `runbook add bad-step --steps '${step}'`);
      expect(harness.e2e.textOf(refused.message)).toContain('was not added');
    },
  );

  it('refuses arguments that would change a step’s shape', async () => {
    await addRunbook('boot-one', 'nodes boot $1');
    const refused = await harness.e2e.command(ALICE, 'runbook run boot-one --all');
    expect(harness.e2e.textOf(refused.message)).not.toContain('Started run');
  });
});

describe('runbook add --steps', () => {
  it('keeps a `;` inside a quoted value in its step, and splits at the others', async () => {
    const added = await harness.e2e.command(
      ALICE,
      `runbook add relabel --steps "volumes update $1 --label 'db;primary'; nodes boot $2"`,
    );
    expect(harness.e2e.textOf(added.message)).toContain('added runbook `relabel`');
    expect((await harness.deps.store.runbooks.get(TEAM, CHANNEL, 'relabel'))?.steps).toEqual([
      "volumes update $1 --label 'db;primary'",
      'nodes boot $2',
    ]);
  });
});

describe('runbook add without --steps', () => {
  it('opens a modal whose lines are the steps, checked by the parser before anything is stored', async () => {
    const opened = await harness.e2e.stack.workspace.command(ALICE, CHANNEL, 'runbook add from-modal');
    expect(opened.status).toBe(200);
    const view = harness.e2e.openView(ALICE);
    if (!view) throw new Error('no modal opened');

    const refused = await harness.e2e.stack.workspace.submitView(ALICE, view, {
      steps: { steps_input: 'nodes shutdown $1\nnodes explode $1' },
    });
    expect(JSON.stringify(refused.body)).toContain('Step 2');
    expect(await harness.deps.store.runbooks.get(TEAM, CHANNEL, 'from-modal')).toBeUndefined();

    await harness.e2e.stack.workspace.submitView(ALICE, view, {
      steps: { steps_input: 'nodes shutdown $1\n\n  nodes boot $1  \n' },
    });
    expect(await harness.deps.store.runbooks.get(TEAM, CHANNEL, 'from-modal')).toMatchObject({
      steps: ['nodes shutdown $1', 'nodes boot $1'],
      createdBy: ALICE,
    });
    const shown = await harness.e2e.command(BOB, 'runbook show from-modal');
    expect(harness.e2e.textOf(shown.message)).toContain('2. `nodes boot $1`');
  });
});
