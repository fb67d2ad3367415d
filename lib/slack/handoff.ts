import type { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { z } from 'zod';

/** Slack ids and the bot's own generated ids, as the table's keys accept them. */
const SLACK_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Work that cannot finish inside Slack's inline budget is handed to the worker. In AWS that is
 * an asynchronous Lambda invoke (the HTTP response leaves only when the Slack function returns,
 * and anything still running after that is frozen); in the local stack the worker runs in process.
 */
export const OperationJobSchema = z.object({
  kind: z.literal('operation'),
  correlationId: z.string(),
  team: z.string(),
  user: z.string(),
  channel: z.string(),
  /** Absent for work started from a modal, which has no response_url: the Web API posts then. */
  responseUrl: z.url().optional(),
  operationId: z.string(),
  input: z.record(z.string(), z.unknown()),
  options: z.object({
    all: z.boolean().default(false),
    page: z.number().int().optional(),
    pageSize: z.number().int().optional(),
    json: z.boolean().default(false),
    filter: z.record(z.string(), z.unknown()).optional(),
  }),
  /** Replace the message the request came from (paging) instead of posting a new one. */
  replaceOriginal: z.boolean().default(false),
});
export type OperationJob = z.infer<typeof OperationJobSchema>;

/** Run an approved request (the worker claims it; a second delivery finds it claimed). */
export const ApprovalJobSchema = z.object({
  kind: z.literal('approval'),
  correlationId: z.string(),
  team: z.string().regex(SLACK_ID),
  approvalId: z.string().regex(SLACK_ID),
});
export type ApprovalJob = z.infer<typeof ApprovalJobSchema>;

/** `/cloud reports run ID`: posting goes at one message a second, so it never runs inline. */
export const ReportRunJobSchema = z.object({
  kind: z.literal('report-run'),
  correlationId: z.string(),
  team: z.string().regex(SLACK_ID),
  user: z.string().regex(SLACK_ID),
  channel: z.string().regex(SLACK_ID),
  responseUrl: z.url().optional(),
  subscriptionId: z.string().regex(SLACK_ID),
});
export type ReportRunJob = z.infer<typeof ReportRunJobSchema>;

export const WorkerJobSchema = z.discriminatedUnion('kind', [
  OperationJobSchema,
  ApprovalJobSchema,
  ReportRunJobSchema,
]);
export type WorkerJob = z.infer<typeof WorkerJobSchema>;

export interface Handoff {
  dispatch(job: WorkerJob): Promise<void>;
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

/** Runs the worker in this process without waiting for it, as an async invoke would. */
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
