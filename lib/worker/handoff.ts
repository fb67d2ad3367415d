import {
  createLambdaInvoker,
  INVOKE_DEFAULTS,
  type LambdaInvoker,
  lambdaTarget,
} from '../aws/lambda-invoke.js';
import type { WorkerJob } from './jobs.js';

export type { ApprovalJob, OperationJob, ReportRunJob, WorkerJob } from './jobs.js';

/**
 * Work that cannot finish inside Slack's inline budget is handed to the worker. In AWS that is
 * an asynchronous Lambda invoke (the HTTP response leaves only when the Slack function returns,
 * and anything still running after that is frozen); in the local stack the worker runs in process.
 */
export interface Handoff {
  dispatch(job: WorkerJob): Promise<void>;
}

/**
 * The worker invoked asynchronously (`InvocationType: 'Event'`) through Lambda's API, signed with
 * the function's own credentials (`lib/aws/lambda-invoke.ts`). Resolves only once Lambda accepted
 * the event; anything else throws, so no caller says "handed off" for a job that was not.
 */
export class LambdaHandoff implements Handoff {
  #invoker: LambdaInvoker | undefined;

  constructor(
    private readonly functionName: string,
    private readonly env: Record<string, string | undefined> = process.env,
  ) {}

  async dispatch(job: WorkerJob): Promise<void> {
    this.#invoker ??= createLambdaInvoker({ ...lambdaTarget(this.env), ...INVOKE_DEFAULTS });
    await this.#invoker.invokeEvent(this.functionName, JSON.stringify(job));
  }
}
