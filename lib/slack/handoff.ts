import type { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { WorkerJob } from './worker-jobs.js';

export type { ApprovalJob, OperationJob, ReportRunJob, WorkerJob } from './worker-jobs.js';

/**
 * Work that cannot finish inside Slack's inline budget is handed to the worker. In AWS that is
 * an asynchronous Lambda invoke (the HTTP response leaves only when the Slack function returns,
 * and anything still running after that is frozen); in the local stack the worker runs in process.
 */
export interface Handoff {
  dispatch(job: WorkerJob): Promise<void>;
  /**
   * Starts loading what `dispatch` needs, without waiting for it: called once a hand-off is sure
   * to follow, so the loading overlaps the reads and writes that come before it.
   */
  prepare?(): void;
}

export class LambdaHandoff implements Handoff {
  #lambda: Promise<{ client: LambdaClient; InvokeCommand: typeof InvokeCommand }> | undefined;

  constructor(private readonly functionName: string) {}

  /** The Lambda client loads on the first hand-off: most commands answer inline and never need it. */
  async #client() {
    this.#lambda ??= import('@aws-sdk/client-lambda').then((sdk) => ({
      client: new sdk.LambdaClient({}),
      InvokeCommand: sdk.InvokeCommand,
    }));
    return this.#lambda;
  }

  /**
   * A failed load is not reported here: `dispatch` awaits the same promise and fails with it. The
   * handler attached here only keeps the rejection from counting as unhandled in the meantime.
   */
  prepare(): void {
    this.#client().catch(() => undefined);
  }

  async dispatch(job: WorkerJob): Promise<void> {
    const { client, InvokeCommand } = await this.#client();
    await client.send(
      new InvokeCommand({
        FunctionName: this.functionName,
        InvocationType: 'Event',
        Payload: new TextEncoder().encode(JSON.stringify(job)),
      }),
    );
  }
}
