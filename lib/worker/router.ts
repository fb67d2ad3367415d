import type { Logger } from '@aws-lambda-powertools/logger';
import { type WorkerJob, WorkerJobSchema } from './jobs.js';

/**
 * One handler per kind of job, typed by the kind: a job kind without a handler does not compile.
 * The surface that shows a job's outcome (Slack today) supplies them.
 */
export type WorkerHandlers = {
  readonly [Kind in WorkerJob['kind']]: (job: Extract<WorkerJob, { kind: Kind }>) => Promise<void>;
};

/**
 * Runs one job. The job is checked like any other input (an asynchronous invoke can carry anything
 * IAM lets through): a malformed one is logged and dropped, never thrown, because throwing makes
 * Lambda deliver it again.
 */
export async function routeWorkerJob(
  handlers: WorkerHandlers,
  logger: Logger,
  event: unknown,
): Promise<void> {
  const parsed = WorkerJobSchema.safeParse(event);
  if (!parsed.success) {
    logger.error('worker job dropped: malformed', {
      issues: parsed.error.issues.map((issue) => issue.path.join('.') || '(job)'),
    });
    return;
  }
  const job: WorkerJob = parsed.data;
  // The table is typed kind by kind; indexing it with a union kind loses that pairing, not safety.
  const handle = handlers[job.kind] as (job: WorkerJob) => Promise<void>;
  return handle(job);
}
