import type { WebClient } from '@slack/web-api';
import { request } from 'undici';
import { ApiError } from '../api/errors.js';
import type { AnyOperation } from '../api/operation.js';
import { findOperation } from '../api/operations/index.js';
import { startStatusWatch, watchPlanFor } from '../reports/status-watch.js';
import { executeApproval } from './approvals.js';
import type { OperationJob, WorkerJob } from './handoff.js';
import { renderError } from './render/errors.js';
import { notice, type Reply, type RunnerDeps, runOperation } from './runner.js';

/**
 * The worker: runs what the Slack function handed off, without Slack's 3-second deadline, and
 * posts the answer to the command's `response_url`.
 */

export interface WorkerDeps extends RunnerDeps {
  /** Slack's Web API with the bot token: approval cards, threads and status updates. */
  readonly slack: WebClient;
  /** Posts a reply to a response_url; injectable so tests can observe it. */
  readonly postToResponseUrl?: (url: string, body: unknown) => Promise<void>;
}

export async function runWorkerJob(deps: WorkerDeps, job: WorkerJob): Promise<void> {
  switch (job.kind) {
    case 'operation':
      return runOperationJob(deps, job);
    case 'approval':
      return executeApproval(deps, job);
  }
}

async function runOperationJob(deps: WorkerDeps, job: OperationJob): Promise<void> {
  const op = findOperation(job.operationId);
  let reply: Reply;
  if (!op) {
    reply = notice('That command is no longer available.');
  } else {
    try {
      let output: unknown;
      reply = await runOperation(
        deps,
        { team: job.team, user: job.user, channel: job.channel, op, input: job.input, options: job.options },
        { onOutput: (value) => (output = value) },
      );
      if (await followStatus(deps, job, op, output, reply)) return;
    } catch (error) {
      if (!(error instanceof ApiError)) {
        deps.logger.error('worker job failed', {
          correlationId: job.correlationId,
          operationId: op.id,
          error,
        });
      }
      reply = {
        ...renderError(error, {
          operationId: op.id,
          referenceId: job.correlationId.slice(0, 8),
          input: job.input,
        }),
        visibility: 'ephemeral',
      };
    }
  }
  await deliverReply(deps, job, reply);
}

/**
 * Long operations (a database provisions for 15–30 minutes) get a channel message that the
 * reporter updates as the status changes. True when that message was posted; the person who
 * asked is then told where to look instead of getting the result twice.
 */
async function followStatus(
  deps: WorkerDeps,
  job: OperationJob,
  op: AnyOperation,
  output: unknown,
  reply: Reply,
): Promise<boolean> {
  if (reply.visibility !== 'in_channel' || !watchPlanFor(op, job.input, output)) return false;
  const started = await startStatusWatch(deps, {
    team: job.team,
    user: job.user,
    channel: job.channel,
    op,
    input: job.input,
    result: output,
    message: reply,
  });
  if (started.status === 'not_posted') return false;
  if (job.responseUrl) {
    await deliverReply(
      deps,
      job,
      notice(':eyes: Posted in the channel; that message follows the status until it settles.'),
    );
  }
  return true;
}

/** To the response_url when there is one; otherwise with the Web API (work started from a modal). */
export async function deliverReply(
  deps: WorkerDeps,
  target: { responseUrl?: string | undefined; channel: string; user: string; replaceOriginal?: boolean },
  reply: Reply,
): Promise<void> {
  if (target.responseUrl) {
    const post = deps.postToResponseUrl ?? postJson;
    await post(target.responseUrl, {
      response_type: reply.visibility,
      // The "working…" note was ephemeral: an ephemeral result replaces it, a channel-visible
      // result is a new message.
      replace_original: target.replaceOriginal === true || reply.visibility === 'ephemeral',
      text: reply.text,
      blocks: reply.blocks,
    });
    return;
  }
  const message = { channel: target.channel, text: reply.text, blocks: reply.blocks as never[] };
  if (reply.visibility === 'ephemeral')
    await deps.slack.chat.postEphemeral({ ...message, user: target.user });
  else await deps.slack.chat.postMessage(message);
}

export async function postJson(url: string, body: unknown): Promise<void> {
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  await response.body.text();
  if (response.statusCode >= 400) {
    throw new Error(`response_url answered ${response.statusCode}`);
  }
}
