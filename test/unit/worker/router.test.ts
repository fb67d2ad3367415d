import type { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, it, vi } from 'vitest';
import type { WorkerJob } from '../../../lib/worker/jobs.js';
import { routeWorkerJob, type WorkerHandlers } from '../../../lib/worker/router.js';

function recordingHandlers() {
  const seen: WorkerJob[] = [];
  const record = async (job: WorkerJob) => {
    seen.push(job);
  };
  const handlers: WorkerHandlers = {
    operation: record,
    approval: record,
    'report-run': record,
    'runbook-step': record,
    'home-refresh': record,
    'request-homes': record,
    'resource-cards': record,
  };
  return { handlers, seen };
}

function silentLogger() {
  const error = vi.fn();
  return { logger: { error } as unknown as Logger, error };
}

describe('routeWorkerJob', () => {
  it('runs a job with the handler of its kind, once, with the parsed job', async () => {
    const { handlers, seen } = recordingHandlers();
    const approval = vi.fn(async () => undefined);
    const { logger } = silentLogger();
    await routeWorkerJob({ ...handlers, approval }, logger, {
      kind: 'approval',
      correlationId: 'c1',
      team: 'T1',
      approvalId: 'a-1',
    });
    expect(approval).toHaveBeenCalledTimes(1);
    expect(approval).toHaveBeenCalledWith({
      kind: 'approval',
      correlationId: 'c1',
      team: 'T1',
      approvalId: 'a-1',
    });
    expect(seen).toEqual([]);
  });

  it('fills the defaults of an operation job before its handler sees it', async () => {
    const { handlers, seen } = recordingHandlers();
    const { logger } = silentLogger();
    await routeWorkerJob(handlers, logger, {
      kind: 'operation',
      correlationId: 'c2',
      team: 'T1',
      user: 'U1',
      channel: 'C1',
      operationId: 'volumes.list',
      input: {},
      options: {},
    });
    expect(seen).toMatchObject([
      { kind: 'operation', options: { all: false, json: false }, replaceOriginal: false },
    ]);
  });

  it.each([
    ['not an object', 'hello'],
    ['an unknown kind', { kind: 'format-disk', correlationId: 'c', team: 'T1' }],
    [
      'a team id the table would not take',
      { kind: 'approval', correlationId: 'c', team: 'T#1', approvalId: 'a' },
    ],
    ['a prototype key for a kind', { ['__proto__']: { kind: 'approval' } }],
  ])(
    'drops %s: no handler runs, nothing is thrown, the drop is logged by field only',
    async (_name, event) => {
      const { handlers, seen } = recordingHandlers();
      const { logger, error } = silentLogger();
      await expect(routeWorkerJob(handlers, logger, event)).resolves.toBeUndefined();
      expect(seen).toEqual([]);
      expect(error).toHaveBeenCalledWith('worker job dropped: malformed', { issues: expect.any(Array) });
    },
  );

  it("passes a handler's failure on, so the invoke is retried as before", async () => {
    const { handlers } = recordingHandlers();
    const { logger } = silentLogger();
    const failing = async () => {
      throw new Error('store unavailable');
    };
    await expect(
      routeWorkerJob({ ...handlers, 'home-refresh': failing }, logger, {
        kind: 'home-refresh',
        correlationId: 'c',
        team: 'T1',
        users: ['U1'],
      }),
    ).rejects.toThrow('store unavailable');
  });
});
