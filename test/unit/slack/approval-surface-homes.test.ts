import { Logger } from '@aws-lambda-powertools/logger';
import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { slackApprovalSurface } from '../../../lib/slack/approval-surface.js';
import type { Store } from '../../../lib/store/index.js';
import type { WorkerJob } from '../../../lib/worker/jobs.js';

const logger = new Logger({ serviceName: 'approval-surface-homes-test', logLevel: 'SILENT' });

/** A client and a store that record any use: the hand-off path must use neither. */
function untouchable(): { client: WebClient; store: Store; used: string[] } {
  const used: string[] = [];
  const trap = (name: string): unknown =>
    new Proxy(() => undefined, {
      get: (_target, key) => (key === 'then' ? undefined : trap(`${name}.${String(key)}`)),
      apply: () => {
        used.push(name);
        return Promise.resolve({ ok: true });
      },
    });
  return { client: trap('slack') as WebClient, store: trap('store') as Store, used };
}

describe("a request's Homes after it changed", () => {
  it('are handed to the worker where a hand-off exists: no read and no views.publish before the answer', async () => {
    const { client, store, used } = untouchable();
    const jobs: WorkerJob[] = [];
    const handoff = { dispatch: async (job: WorkerJob) => void jobs.push(job) };
    await slackApprovalSurface(client, { logger, store, handoff }).requestChanged('T0TEAM', 'a5c71e08-bd52');
    expect(jobs).toEqual([
      {
        kind: 'request-homes',
        correlationId: expect.any(String),
        team: 'T0TEAM',
        approvalId: 'a5c71e08-bd52',
      },
    ]);
    expect(used).toEqual([]);
  });

  it('are published in place where there is no hand-off (the worker, the reporter)', async () => {
    const { client, store, used } = untouchable();
    await slackApprovalSurface(client, { logger, store }).requestChanged('T0TEAM', 'a5c71e08-bd52');
    expect(used).toContain('store.approvals.get');
  });
});
