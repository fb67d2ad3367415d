import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunbookEvent, RunbookSurface } from '../../../lib/changes/runbooks.js';
import type { Caller } from '../../../lib/core/caller.js';
import {
  addRunbook,
  cancelRunbookRun,
  checkRunbookChange,
  findRunbook,
  listRunbooks,
  type RunStartSurface,
  removeRunbook,
  startRunbookRun,
} from '../../../lib/core/runbook-library.js';
import { createStore, type RunbookRun, type Store } from '../../../lib/store/index.js';
import { testCaller } from '../../support/caller.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * Runbooks' rules as any surface meets them, on DynamoDB Local with no Slack: who may change the
 * workspace's runbooks, what happens to one that is not there, how a run starts, and who may
 * cancel someone's run.
 */

const ADMIN = 'U0RBADMIN';
const STARTER = 'U0RBSTART';
const OTHER = 'U0RBOTHER';

let table: TestTable;
let store: Store;
let counter = 0;
beforeAll(async () => {
  table = await createTestTable();
  store = createStore(table.ctx, randomLocalCipher());
});
afterAll(() => table.dispose());

function deps() {
  return {
    store,
    approvalAdmins: [ADMIN],
    api: { baseUrl: 'http://127.0.0.1:9', timeoutMs: 1000 },
    logger: new Logger({ serviceName: 'runbook-library-test', logLevel: 'SILENT' }),
  };
}

/** A fresh workspace and channel for one test, so workspace runbooks never meet another test's. */
function place(): { team: string; channel: string } {
  counter += 1;
  return { team: `T0RB${counter}`, channel: `C0RB${counter}` };
}

/** `user` asking in `where`; whether the workspace makes them an admin is `workspaceAdmin`, or a failure if asked. */
function callerFor(where: { team: string; channel: string }, user: string, workspaceAdmin?: boolean): Caller {
  return testCaller(where, user, workspaceAdmin);
}

/** A surface that posts every run's message as `1.0`, and records what it was asked. */
function startSurface(access: Awaited<ReturnType<RunStartSurface['access']>> = { kind: 'open' }) {
  const posted: RunbookRun[] = [];
  const handedOn: RunbookRun[] = [];
  const surface: RunStartSurface = {
    access: async () => access,
    post: async (run) => {
      posted.push(run);
      return '1.0';
    },
    startFirstStep: async (run) => {
      handedOn.push(run);
    },
  };
  return { surface, posted, handedOn };
}

/** A run's surface that only records what the thread is told (cancelling starts no step). */
function runSurface() {
  const told: RunbookEvent[] = [];
  const refuse = () => {
    throw new Error('not expected when cancelling');
  };
  const surface: RunbookSurface = {
    tell: async (_run, event) => {
      told.push(event);
    },
    refusalText: refuse,
    errorText: refuse,
    requestApproval: refuse,
    runChange: refuse,
    follow: refuse,
  };
  return { surface, told };
}

async function runningRun(where: { team: string; channel: string }, by: string): Promise<RunbookRun> {
  await addRunbook(deps(), callerFor(where, by), {
    name: 'reboot',
    workspace: false,
    steps: ['nodes reboot $1'],
  });
  const started = await startRunbookRun(deps(), startSurface().surface, callerFor(where, by), {
    name: 'reboot',
    args: ['12'],
  });
  if (started.kind !== 'started') throw new Error(`not started: ${started.kind}`);
  const run = await store.runbooks.getRun(where.team, started.runId);
  if (!run) throw new Error('run not stored');
  return run;
}

describe('workspace runbooks', () => {
  it('may not be added by someone who is no admin, and nothing is stored', async () => {
    const where = place();
    expect(
      await addRunbook(deps(), callerFor(where, OTHER, false), {
        name: 'drain',
        workspace: true,
        steps: ['volumes list'],
      }),
    ).toEqual({ kind: 'not_allowed' });
    expect(await store.runbooks.get(where.team, null, 'drain')).toBeUndefined();
  });

  it('may be added by an admin of the deployment, and then run in every channel', async () => {
    const where = place();
    expect(
      await addRunbook(deps(), callerFor(where, ADMIN), {
        name: 'drain',
        workspace: true,
        steps: ['volumes list'],
      }),
    ).toEqual({ kind: 'added', steps: 1 });
    const elsewhere = callerFor({ team: where.team, channel: 'C0ELSEWHERE' }, OTHER);
    expect(await findRunbook(deps(), elsewhere, { name: 'drain' })).toMatchObject({
      kind: 'found',
      runbook: { channel: null, createdBy: ADMIN },
    });
  });

  it('may not be removed by someone who is no admin, and stays', async () => {
    const where = place();
    await addRunbook(deps(), callerFor(where, ADMIN), {
      name: 'drain',
      workspace: true,
      steps: ['volumes list'],
    });
    expect(
      await removeRunbook(deps(), callerFor(where, OTHER, false), { name: 'drain', workspace: true }),
    ).toEqual({ kind: 'not_allowed' });
    expect(await store.runbooks.get(where.team, null, 'drain')).toBeDefined();
  });

  it('may be changed by a workspace admin the policy does not name', async () => {
    const where = place();
    expect(
      await checkRunbookChange(deps(), callerFor(where, OTHER, true), { name: 'drain', workspace: true }),
    ).toEqual({ kind: 'allowed' });
  });

  it("a channel's own runbooks need no admin: the workspace is not even asked", async () => {
    const where = place();
    expect(
      await addRunbook(deps(), callerFor(where, OTHER), {
        name: 'drain',
        workspace: false,
        steps: ['volumes list'],
      }),
    ).toEqual({ kind: 'added', steps: 1 });
    expect(await removeRunbook(deps(), callerFor(where, OTHER), { name: 'drain', workspace: false })).toEqual(
      {
        kind: 'removed',
      },
    );
  });
});

describe('adding and removing', () => {
  it('says a runbook that is not there was not found, for the channel and the workspace', async () => {
    const where = place();
    expect(
      await removeRunbook(deps(), callerFor(where, OTHER), { name: 'missing', workspace: false }),
    ).toEqual({
      kind: 'not_found',
    });
    expect(
      await removeRunbook(deps(), callerFor(where, ADMIN), { name: 'missing', workspace: true }),
    ).toEqual({
      kind: 'not_found',
    });
  });

  it('never replaces a runbook of the same name: it says it exists', async () => {
    const where = place();
    const caller = callerFor(where, OTHER);
    await addRunbook(deps(), caller, { name: 'boot', workspace: false, steps: ['nodes boot $1'] });
    expect(
      await addRunbook(deps(), caller, { name: 'boot', workspace: false, steps: ['volumes list'] }),
    ).toEqual({
      kind: 'exists',
    });
    expect((await store.runbooks.get(where.team, where.channel, 'boot'))?.steps).toEqual(['nodes boot $1']);
  });

  it('refuses steps that are not API operations, each by its number, and stores nothing', async () => {
    const where = place();
    expect(
      await addRunbook(deps(), callerFor(where, OTHER), {
        name: 'mixed',
        workspace: false,
        steps: ['volumes list', 'runbook list', 'nodes boot $0'],
      }),
    ).toEqual({
      kind: 'invalid_steps',
      faults: [
        { kind: 'not_an_operation', step: 2 },
        { kind: 'bad_parameter', step: 3 },
      ],
    });
    expect(await store.runbooks.list(where.team, where.channel)).toEqual([]);
  });

  it('refuses a name that reaches the prototype before anything else is asked', async () => {
    const where = place();
    expect(
      await addRunbook(deps(), callerFor(where, OTHER), {
        name: 'constructor',
        workspace: true,
        steps: ['volumes list'],
      }),
    ).toEqual({ kind: 'invalid_name', fault: 'reserved' });
  });
});

describe('listRunbooks', () => {
  it("marks a workspace runbook the channel's own of the same name hides", async () => {
    const where = place();
    await addRunbook(deps(), callerFor(where, ADMIN), {
      name: 'boot',
      workspace: true,
      steps: ['nodes boot $1'],
    });
    await addRunbook(deps(), callerFor(where, ADMIN), {
      name: 'list',
      workspace: true,
      steps: ['volumes list'],
    });
    await addRunbook(deps(), callerFor(where, OTHER), {
      name: 'boot',
      workspace: false,
      steps: ['volumes list'],
    });
    expect(await listRunbooks(deps(), callerFor(where, OTHER))).toEqual({
      channel: [{ name: 'boot', steps: 1, parameters: 0 }],
      workspace: [
        { name: 'boot', steps: 1, parameters: 1, shadowed: true },
        { name: 'list', steps: 1, parameters: 0, shadowed: false },
      ],
    });
  });
});

describe('startRunbookRun', () => {
  it('stores the run, then replaces it with one that knows its thread, and hands on that one', async () => {
    const where = place();
    await addRunbook(deps(), callerFor(where, STARTER), {
      name: 'boot',
      workspace: false,
      steps: ['nodes boot $1'],
    });
    const { surface, posted, handedOn } = startSurface();
    const started = await startRunbookRun(deps(), surface, callerFor(where, STARTER), {
      name: 'boot',
      args: ['12'],
    });
    if (started.kind !== 'started') throw new Error(started.kind);
    expect(posted).toMatchObject([{ id: started.runId, threadTs: null, version: 0 }]);
    expect(handedOn).toMatchObject([{ id: started.runId, threadTs: '1.0', version: 1 }]);
    expect(await store.runbooks.getRun(where.team, started.runId)).toMatchObject({
      threadTs: '1.0',
      version: 1,
      user: STARTER,
      state: 'running',
      steps: [{ command: 'nodes boot 12', state: 'pending' }],
    });
  });

  it('stores nothing when the channel cannot show the run', async () => {
    const where = place();
    await addRunbook(deps(), callerFor(where, STARTER), {
      name: 'boot',
      workspace: false,
      steps: ['nodes boot $1'],
    });
    const { surface, posted } = startSurface({ kind: 'refused', refusal: 'archived' });
    expect(
      await startRunbookRun(deps(), surface, callerFor(where, STARTER), { name: 'boot', args: ['12'] }),
    ).toEqual({ kind: 'channel_refused', refusal: 'archived' });
    expect(posted).toEqual([]);
  });

  it('refuses arguments that do not fit before the channel is asked', async () => {
    const where = place();
    await addRunbook(deps(), callerFor(where, STARTER), {
      name: 'boot',
      workspace: false,
      steps: ['nodes boot $1'],
    });
    const { surface, posted } = startSurface();
    expect(
      await startRunbookRun(deps(), surface, callerFor(where, STARTER), { name: 'boot', args: [] }),
    ).toEqual({
      kind: 'arguments_do_not_fit',
      fault: { kind: 'count', needed: 1, given: 0 },
    });
    expect(
      await startRunbookRun(deps(), surface, callerFor(where, STARTER), { name: 'boot', args: ['12 --all'] }),
    ).toEqual({ kind: 'arguments_do_not_fit', fault: { kind: 'not_a_word' } });
    expect(posted).toEqual([]);
  });

  it('says a runbook neither the channel nor the workspace has was not found', async () => {
    const { surface } = startSurface();
    expect(
      await startRunbookRun(deps(), surface, callerFor(place(), STARTER), { name: 'nowhere', args: [] }),
    ).toEqual({ kind: 'not_found' });
  });
});

describe('cancelRunbookRun', () => {
  it('lets the person who started a run cancel it, without asking the workspace', async () => {
    const where = place();
    const run = await runningRun(where, STARTER);
    const { surface, told } = runSurface();
    expect(await cancelRunbookRun(deps(), surface, callerFor(where, STARTER), { runId: run.id })).toEqual({
      kind: 'cancelled',
      runningStep: undefined,
    });
    expect(told).toEqual([
      { kind: 'cancel_requested', by: STARTER, runningStep: undefined },
      { kind: 'finished' },
    ]);
    expect((await store.runbooks.getRun(where.team, run.id))?.state).toBe('cancelled');
  });

  it("refuses someone else's run to a person who is no admin, and the run goes on", async () => {
    const where = place();
    const run = await runningRun(where, STARTER);
    const { surface, told } = runSurface();
    expect(
      await cancelRunbookRun(deps(), surface, callerFor(where, OTHER, false), { runId: run.id }),
    ).toEqual({
      kind: 'not_allowed',
      startedBy: STARTER,
    });
    expect(told).toEqual([]);
    expect((await store.runbooks.getRun(where.team, run.id))?.state).toBe('running');
  });

  it("lets an admin cancel someone else's run", async () => {
    const where = place();
    const run = await runningRun(where, STARTER);
    expect(
      await cancelRunbookRun(deps(), runSurface().surface, callerFor(where, ADMIN), { runId: run.id }),
    ).toEqual({ kind: 'cancelled', runningStep: undefined });
    expect((await store.runbooks.getRun(where.team, run.id))?.cancelledBy).toBe(ADMIN);
  });

  it('says a run that has ended has ended', async () => {
    const where = place();
    const run = await runningRun(where, STARTER);
    await cancelRunbookRun(deps(), runSurface().surface, callerFor(where, STARTER), { runId: run.id });
    expect(
      await cancelRunbookRun(deps(), runSurface().surface, callerFor(where, STARTER), { runId: run.id }),
    ).toEqual({ kind: 'ended' });
  });

  it("does not find another channel's run", async () => {
    const where = place();
    const run = await runningRun(where, STARTER);
    const elsewhere = callerFor({ team: where.team, channel: 'C0ELSEWHERE' }, STARTER);
    expect(await cancelRunbookRun(deps(), runSurface().surface, elsewhere, { runId: run.id })).toEqual({
      kind: 'not_found',
    });
  });

  it('refuses a run id of the wrong shape before the store is asked', async () => {
    expect(
      await cancelRunbookRun(deps(), runSurface().surface, callerFor(place(), STARTER), {
        runId: '__proto__#x',
      }),
    ).toEqual({ kind: 'invalid_run_id' });
  });
});
