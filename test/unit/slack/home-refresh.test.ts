import { afterEach, describe, expect, it, vi } from 'vitest';
import { HOME_REFRESH_HANDOFF_WAIT_MS, republishHome } from '../../../lib/slack/home-refresh.js';
import type { Handoff } from '../../../lib/worker/handoff.js';
import type { WorkerJob } from '../../../lib/worker/jobs.js';

/** Re-publishing Home is a courtesy: it never fails a command's answer and never holds it up long. */

function recordingLogger() {
  const warnings: { message: string; details: unknown }[] = [];
  const logger = { warn: (message: string, details: unknown) => warnings.push({ message, details }) };
  return { logger: logger as never, warnings };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('republishHome', () => {
  it('hands one job to the worker with each person once, at most ten, and none for nobody', async () => {
    const jobs: WorkerJob[] = [];
    const handoff: Handoff = { dispatch: async (job) => void jobs.push(job) };
    const { logger } = recordingLogger();
    const many = Array.from({ length: 12 }, (_, i) => `U${i}`);
    await republishHome({ handoff, logger }, 'T1', ['U1', undefined, 'U1', ...many], 'c1');
    await republishHome({ handoff, logger }, 'T1', [undefined], 'c2');
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ kind: 'home-refresh', team: 'T1', correlationId: 'c1' });
    const users = jobs[0]?.kind === 'home-refresh' ? jobs[0].users : [];
    expect(users).toHaveLength(10);
    expect(new Set(users).size).toBe(10);
  });

  it('a refused hand-off is logged by its name and not thrown', async () => {
    const handoff: Handoff = {
      dispatch: async () => {
        throw new Error('AccessDenied for token xoxb-secret');
      },
    };
    const { logger, warnings } = recordingLogger();
    await expect(republishHome({ handoff, logger }, 'T1', ['U1'], 'c1')).resolves.toBeUndefined();
    expect(warnings.map((w) => w.message)).toEqual(['home refresh not handed off']);
    expect(JSON.stringify(warnings)).not.toContain('xoxb');
  });

  it('a hand-off that hangs is waited for no longer than the bound', async () => {
    vi.useFakeTimers();
    const handoff: Handoff = { dispatch: () => new Promise<void>(() => {}) };
    const { logger, warnings } = recordingLogger();
    let done = false;
    const refresh = republishHome({ handoff, logger }, 'T1', ['U1'], 'c1').then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(HOME_REFRESH_HANDOFF_WAIT_MS - 1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await refresh;
    expect(done).toBe(true);
    expect(warnings.map((w) => w.message)).toEqual(['home refresh not handed off in time']);
  });
});
