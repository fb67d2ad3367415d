import { describe, expect, it } from 'vitest';
import {
  cancelRun,
  claimStep,
  runbookNameFault,
  settleStep,
  stepFaults,
  stepProblem,
  substituteArgs,
} from '../../../lib/changes/runbooks.js';
import type { RunbookRun } from '../../../lib/store/index.js';

function run(states: RunbookRun['steps'][number]['state'][], current = 0): RunbookRun {
  return {
    id: 'r1',
    team: 'T1',
    channel: 'C1',
    runbook: 'resize',
    args: ['12'],
    user: 'U1',
    threadTs: '1.0',
    state: 'running',
    current,
    steps: states.map((state, i) => ({
      command: `nodes boot ${i}`,
      state,
      detail: null,
      approvalId: null,
      watchId: null,
    })),
    cancelledBy: null,
    version: 3,
    startedAt: new Date(0),
  };
}

describe('runbook names and steps', () => {
  it('refuses prototype keys, command names and odd shapes', () => {
    for (const name of [
      '__proto__',
      'constructor',
      'nodes',
      'runbook',
      'help',
      'Bad',
      '1x',
      'a#b',
      'x'.repeat(40),
    ]) {
      expect(runbookNameFault(name), name).toBeDefined();
    }
    expect(runbookNameFault('resize-node')).toBeUndefined();
  });

  it('checks every step with the parser, placeholders filled in', () => {
    const stepProblems = (steps: string[]) => stepFaults(steps).map(stepProblem);
    expect(stepProblems(['nodes shutdown $1', 'nodes resize $1 --type $2', 'nodes boot $1'])).toEqual([]);
    expect(stepProblems(['nodes explode $1'])).toHaveLength(1);
    expect(stepProblems(['runbook list'])).toEqual(['Step 1 is not an API operation.']);
    expect(stepProblems(['nodes boot $0'])[0]).toContain('`$1` to `$9`');
    expect(stepProblems([])).toHaveLength(1);
  });

  it('fills arguments in, one word each, exactly as many as the steps use', () => {
    expect(substituteArgs(['nodes resize $1 --type $2'], ['12', 'g6-standard-2'])).toEqual({
      ok: true,
      commands: ['nodes resize 12 --type g6-standard-2'],
    });
    expect(substituteArgs(['nodes boot $1'], [])).toMatchObject({ ok: false });
    expect(substituteArgs(['nodes boot $1'], ['12 --config-id 3'])).toMatchObject({ ok: false });
    expect(substituteArgs(['nodes boot $1'], ['--all'])).toMatchObject({ ok: false });
  });
});

describe('the run state machine', () => {
  it('starts a step once: a second claim of the same step finds it started', () => {
    const claimed = claimStep(run(['pending', 'pending']), 0);
    expect(claimed?.steps[0]?.state).toBe('starting');
    expect(claimed && claimStep(claimed, 0)).toBeUndefined();
    expect(claimStep(run(['pending', 'pending']), 1)).toBeUndefined();
  });

  it('settles a step once and moves to the next only on success', () => {
    const settled = settleStep(run(['running', 'pending']), 0, 'succeeded', 'Settled.');
    expect(settled).toMatchObject({ current: 1, state: 'running' });
    // The same completion delivered again changes nothing, so the next step is not started twice.
    expect(settled && settleStep(settled, 0, 'succeeded', 'Settled.')).toBeUndefined();
  });

  it('stops at the first failure and skips the rest', () => {
    const failed = settleStep(run(['succeeded', 'awaiting_approval', 'pending'], 1), 1, 'failed', 'denied');
    expect(failed?.state).toBe('failed');
    expect(failed?.steps.map((s) => s.state)).toEqual(['succeeded', 'failed', 'skipped']);
  });

  it('cancels before the next step while the step under way still records its outcome', () => {
    const cancelled = cancelRun(run(['running', 'pending']), 'U2');
    expect(cancelled?.steps.map((s) => s.state)).toEqual(['running', 'cancelled']);
    const ended = cancelled && settleStep(cancelled, 0, 'succeeded', 'Settled.');
    expect(ended).toMatchObject({ state: 'cancelled', current: 0 });
    expect(ended?.steps[0]?.state).toBe('succeeded');
  });
});
