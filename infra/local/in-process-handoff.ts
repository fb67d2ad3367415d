import type { Handoff } from '../../lib/worker/handoff.js';
import { type WorkerJob, WorkerJobSchema } from '../../lib/worker/jobs.js';

/**
 * The local stack's hand-off: the worker runs in this process, and the job goes through JSON and
 * the worker's schema on the way, as it would through Lambda. `dispatch` does not wait for the
 * job, as an asynchronous invoke does not.
 */
export class InProcessHandoff implements Handoff {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly run: (job: WorkerJob) => Promise<void>,
    private readonly onError: (error: unknown, job: WorkerJob) => void = () => {},
  ) {}

  async dispatch(job: WorkerJob): Promise<void> {
    const parsed = WorkerJobSchema.parse(JSON.parse(JSON.stringify(job)));
    const task = this.run(parsed)
      .catch((error: unknown) => this.onError(error, parsed))
      .finally(() => this.running.delete(task));
    this.running.add(task);
  }

  /** Waits for every job handed off so far (tests, shutdown). */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}
