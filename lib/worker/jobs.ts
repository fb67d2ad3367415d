import * as z from 'zod';
import '../zod-settings.js';

/** Slack ids and the bot's own generated ids, as the table's keys accept them. */
const SLACK_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The jobs the worker runs (`handoff.ts` hands them over), checked where they arrive: the worker
 * trusts no event. A module of their own, so the Slack function, which only writes them, does not
 * load their schemas (and zod) before its first answer.
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
    start: z.number().int().min(0).optional(),
    previousStart: z.number().int().min(0).optional(),
    export: z.enum(['csv', 'json']).optional(),
    pageSize: z.number().int().optional(),
    json: z.boolean().default(false),
    filter: z.record(z.string(), z.unknown()).optional(),
  }),
  /** Replace the message the request came from (paging) instead of posting a new one. */
  replaceOriginal: z.boolean().default(false),
  /** When an alias asked for it: the line that says so, on top of the worker's answer too. */
  aliasLine: z.string().min(1).max(1000).optional(),
  /**
   * The message that says the work is under way: an answer to the channel takes its place, and so
   * does any answer when the note is in the person's direct messages (`toPerson`).
   */
  note: z
    .object({
      channel: z.string().regex(SLACK_ID),
      ts: z.string().regex(/^\d{1,12}\.\d{1,9}$/),
      toPerson: z.literal(true).optional(),
    })
    .optional(),
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

/** Start one step of a runbook run (the run's record says whether it is still this job's to start). */
export const RunbookStepJobSchema = z.object({
  kind: z.literal('runbook-step'),
  correlationId: z.string(),
  team: z.string().regex(SLACK_ID),
  runId: z.string().regex(SLACK_ID),
  step: z.number().int().min(0).max(9),
});
export type RunbookStepJob = z.infer<typeof RunbookStepJobSchema>;

/**
 * Publish again the Homes of people whose profiles or reports just changed: outside the command's
 * answer, which an asynchronous invoke does not hold up. At most 10 people (`views.publish` is Tier 4).
 */
export const HomeRefreshJobSchema = z.object({
  kind: z.literal('home-refresh'),
  correlationId: z.string(),
  team: z.string().regex(SLACK_ID),
  users: z.array(z.string().regex(SLACK_ID)).min(1).max(10),
});
export type HomeRefreshJob = z.infer<typeof HomeRefreshJobSchema>;

/**
 * Publish again the Homes of the people of one request (who asked, who voted, who may vote) after
 * it changed: who they are takes reads of the request, its policy and an approver group, which a
 * click's answer should not wait for.
 */
export const RequestHomesJobSchema = z.object({
  kind: z.literal('request-homes'),
  correlationId: z.string(),
  team: z.string().regex(SLACK_ID),
  approvalId: z.string().regex(/^[A-Za-z0-9-]{1,64}$/),
});
export type RequestHomesJob = z.infer<typeof RequestHomesJobSchema>;

/**
 * A change that ran in the Slack function (within its answer's budget) touched a resource: its
 * cards in channels are updated here, after the answer, not before it.
 */
export const ResourceCardsJobSchema = z.object({
  kind: z.literal('resource-cards'),
  correlationId: z.string(),
  team: z.string().regex(SLACK_ID),
  user: z.string().regex(SLACK_ID),
  operationId: z.string().max(100),
  input: z.record(z.string(), z.unknown()),
});
export type ResourceCardsJob = z.infer<typeof ResourceCardsJobSchema>;

export const WorkerJobSchema = z.discriminatedUnion('kind', [
  OperationJobSchema,
  ApprovalJobSchema,
  ReportRunJobSchema,
  RunbookStepJobSchema,
  HomeRefreshJobSchema,
  RequestHomesJobSchema,
  ResourceCardsJobSchema,
]);
export type WorkerJob = z.infer<typeof WorkerJobSchema>;
