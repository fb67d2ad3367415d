import type { WebClient } from '@slack/web-api';
import { ApiError } from '../api/errors.js';
import type { AnyOperation } from '../api/operation.js';
import { findOperation } from '../api/operations/index.js';
import { checkCommandFor } from '../api/outcome.js';
import { attemptChange, type ChangeAttempt, type OutcomeCheckSettings } from '../changes/outcomes.js';
import type { OperationRunner } from '../changes/ports.js';
import { watchPlanFor } from '../changes/status-watch.js';
import { concludeJobInDoubt, firstDelivery, plainJobRefusal } from '../changes/worker-checks.js';
import { exchange } from '../http-exchange.js';
import { answersWithChart } from '../reports/chart-operations.js';
import type { SlackInstallKind } from '../reports/history-budget.js';
import { sectionBlock } from '../slack-kit/blocks.js';
import { channelRefusalHint, ensureBotCanPost } from '../slack-kit/channel-access.js';
import { notice, type Reply, visibilityOf } from '../slack-kit/reply.js';
import { codeSpan } from '../slack-kit/text.js';
import type { OperationJob } from '../worker/jobs.js';
import { routeWorkerJob, type WorkerHandlers } from '../worker/router.js';
import { withAliasLine } from './alias-line.js';
import { runApprovalJob } from './approval-answers.js';
import { answerOperation, type OperationRequest, type RunnerDeps } from './operation-runner.js';
import { renderError } from './render/errors.js';
import { checkingText, verdictText } from './render/outcome.js';
import { cardResourceOf, followResourceCards, rememberResourceCard } from './resource-cards.js';
import { postStatusWatch } from './status-watch.js';

/**
 * The worker's jobs as Slack shows them: each runs what the Slack function handed off, without
 * Slack's 3-second deadline, and posts the answer to the command's `response_url` (or with the Web
 * API). The router that checks a job and picks its handler is `lib/worker/router.ts`.
 */

export interface WorkerDeps extends RunnerDeps {
  /** Slack's Web API with the bot token: approval cards, threads and status updates. */
  readonly slack: WebClient;
  /** Posts a reply to a response_url; injectable so tests can observe it. */
  readonly postToResponseUrl?: (url: string, body: unknown) => Promise<void>;
  /** How long and how often a change in doubt is read back. */
  readonly outcomeChecks?: OutcomeCheckSettings | undefined;
  /** Which of Slack's history limits apply to `/cloud reports run` (the stricter when unknown). */
  readonly slackInstall?: SlackInstallKind | undefined;
}

/** Runs one job the worker was given, with the Slack handlers (see `routeWorkerJob`). */
export function runWorkerJob(deps: WorkerDeps, event: unknown): Promise<void> {
  return routeWorkerJob(slackWorkerHandlers(deps), deps.logger, event);
}

/** Each kind of job, run and answered in Slack. */
export function slackWorkerHandlers(deps: WorkerDeps): WorkerHandlers {
  return {
    operation: (job) => runOperationJob(deps, job),
    approval: (job) => runApprovalJob(deps, job),
    'report-run': async (job) => {
      // Loaded on first use, as in the Slack function: charts and schedules come with it.
      const { answerReportRun } = await import('./bot-commands/reports.js');
      const { outcome, reply } = await answerReportRun(deps, job);
      await deliverSafely(deps, job, reply);
      // The run is the report's last run now: its owner's Home and the asker's show it.
      const owner = outcome.kind === 'gone' ? undefined : outcome.subscription?.owner;
      const { refreshHomes } = await import('./home.js');
      return refreshHomes(deps, deps.slack, job.team, [job.user, ...(owner ? [owner] : [])]);
    },
    'home-refresh': async (job) => {
      const { refreshHomes } = await import('./home.js');
      return refreshHomes(deps, deps.slack, job.team, job.users);
    },
    'request-homes': async (job) => {
      const { refreshHomesFor } = await import('./home.js');
      return refreshHomesFor(deps, deps.slack, job.team, job.approvalId);
    },
    'resource-cards': async (job) => {
      const op = findOperation(job.operationId);
      if (!op || op.method === 'GET') return;
      await followResourceCards(deps, { team: job.team, user: job.user, op, input: job.input });
    },
    'runbook-step': async (job) => {
      const { runRunbookStepJob } = await import('./runbook-runs.js');
      return runRunbookStepJob(deps, job);
    },
  };
}

async function runOperationJob(deps: WorkerDeps, job: OperationJob): Promise<void> {
  const op = findOperation(job.operationId);
  if (!op) {
    await deliverSafely(deps, job, notice('That command is no longer available.'));
    return;
  }
  if (plainJobRefusal(deps, job, op) === 'needs_approval') {
    await deliverSafely(
      deps,
      job,
      notice(
        `${codeSpan(`${op.group} ${op.action}`)} needs approval, so it was not run. Ask for it with ${codeSpan(`/cloud ${op.group} ${op.action}`)} in a channel.`,
      ),
    );
    return;
  }
  let reply: Reply;
  try {
    if (!(await firstDelivery(deps, job, op))) {
      // The first delivery's answer took the working note's place already: it stays.
      await deliverSafely(
        deps,
        { ...job, note: undefined },
        notice(
          `${codeSpan(`${op.group} ${op.action}`)} reached the worker twice; it was sent once already, so not again. ` +
            `Check with ${codeSpan(checkCommandFor(op, job.input))} before running it again.`,
        ),
      );
      return;
    }
    const request = {
      team: job.team,
      user: job.user,
      channel: job.channel,
      op,
      input: job.input,
      options: job.options,
    };
    const attempt =
      op.method === 'GET'
        ? await readOnly(deps, request)
        : await attemptChange(deps, plainRunner(deps), request);
    if (attempt.kind === 'in_doubt') {
      const verdict = await settleJobInDoubt(deps, job, op, attempt);
      if (verdict === 'executed') await followResourceCards(deps, request);
      return;
    }
    reply = job.aliasLine ? withAliasLine(attempt.reply, job.aliasLine) : attempt.reply;
    const followed = await followStatus(deps, job, op, attempt.output, reply);
    if (followed) {
      // The message just posted shows the resource as this change left it already.
      if (op.method !== 'GET') await followResourceCards(deps, { ...request, except: followed.posted });
      return;
    }
    if (op.method !== 'GET') {
      const ts = await deliverSafely(deps, job, reply);
      // The answer shows the resource where the bot can update it: later changes follow it there.
      const resource = cardResourceOf(op, job.input, attempt.output);
      if (ts && resource)
        await rememberResourceCard(deps, { team: job.team, channel: job.channel, ts, resource });
      // After the answer: the person is not kept waiting for the cards.
      return followResourceCards(deps, request);
    }
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
    if (job.aliasLine) reply = withAliasLine(reply, job.aliasLine);
    // The runner marked the token rejected: the person's Home says so without being opened again.
    if (error instanceof ApiError && error.code === 'unauthorized') {
      const { refreshHomes } = await import('./home.js');
      await refreshHomes(deps, deps.slack, job.team, [job.user]);
    }
  }
  await deliverSafely(deps, job, reply);
}

async function readOnly(deps: WorkerDeps, request: Parameters<typeof answerOperation>[1]) {
  if (request.options.export && request.op.paginated) {
    const { sendListFile } = await import('./list-export.js');
    const reply = await sendListFile(deps, request, request.options.export, new Date());
    return { kind: 'answered' as const, reply, output: undefined };
  }
  let output: unknown;
  const reply = await answerOperation(deps, request, { onOutput: (value) => (output = value) });
  if (output !== undefined && answersWithChart(request.op)) {
    // Loaded on first use: the rasteriser (wasm and font) is needed by this answer alone.
    const { answerWithChart } = await import('../reports/stats-answer.js');
    const withChart = await answerWithChart(deps.slack, reply, output, new Date(), {
      user: request.user,
      channel: request.channel,
    });
    return { kind: 'answered' as const, reply: withChart, output };
  }
  return { kind: 'answered' as const, reply, output };
}

/** A handed-off change runs as it would have inline: the same runner, the same answer. */
function plainRunner(deps: RunnerDeps): OperationRunner<OperationRequest, Reply> {
  return {
    run: (request, hooks) => answerOperation(deps, request, hooks),
    wentThrough: (op) => notice(`Done: ${codeSpan(`${op.group} ${op.action}`)} went through.`),
  };
}

/** Says "may have happened; checking", reads the target back, then says how it ended. */
async function settleJobInDoubt(
  deps: WorkerDeps,
  job: OperationJob,
  op: AnyOperation,
  attempt: Extract<ChangeAttempt, { kind: 'in_doubt' }>,
): Promise<string> {
  await deliverSafely(deps, job, notice(checkingText(op, attempt.error)));
  const request = { team: job.team, user: job.user, op, input: job.input };
  const verdict = await concludeJobInDoubt(deps, request, attempt, (v) => verdictText(op, job.input, v));
  const icon = verdict.outcome === 'executed' ? ':white_check_mark:' : ':warning:';
  const text = `${icon} ${verdictText(op, job.input, verdict)}`;
  await deliverSafely(deps, job, { ...notice(text), visibility: visibilityOf(op) });
  return verdict.outcome;
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
): Promise<{ readonly posted: readonly string[] } | undefined> {
  if (reply.visibility !== 'in_channel' || !watchPlanFor(op, job.input, output)) return undefined;
  // The watch lives in the bot's own message: in a channel it cannot post in, the person gets
  // the result through the response_url (or a direct message) and is told why nothing follows it.
  const access = await ensureBotCanPost(deps.slack, job.channel);
  if (access.kind === 'refused') {
    const note = `I cannot follow its status here. ${channelRefusalHint(access.refusal)}`;
    await deliverSafely(deps, job, {
      ...reply,
      text: `${reply.text}\n${note}`,
      blocks: [...reply.blocks, sectionBlock(note)],
    });
    return { posted: [] };
  }
  const started = await postStatusWatch(deps, {
    team: job.team,
    user: job.user,
    channel: job.channel,
    op,
    input: job.input,
    result: output,
    message: reply,
  });
  if (started.status === 'not_posted') return undefined;
  if (job.responseUrl) {
    const posted = notice(':eyes: Posted in the channel; that message follows the status until it settles.');
    await deliverSafely(deps, job, job.aliasLine ? withAliasLine(posted, job.aliasLine) : posted);
  }
  return { posted: [started.ts] };
}

/** Where a reply goes: the request's response_url, its channel and person, and its working note. */
export interface ReplyTarget {
  readonly responseUrl?: string | undefined;
  readonly channel: string;
  readonly user: string;
  readonly replaceOriginal?: boolean;
  /** The channel message saying the work is under way (`OperationJob.note`): the first answer takes its place. */
  readonly note?:
    | { readonly channel: string; readonly ts: string; readonly toPerson?: true | undefined }
    | undefined;
}

/** Working notes already replaced or deleted: a job's later replies go the usual way. */
const usedNotes = new WeakSet<object>();

/**
 * To the working note first, if the job has one not yet used: an answer to the channel takes its
 * place (`chat.update`), one for the person alone comes the usual way once the note is deleted. Then
 * to the response_url when there is one; otherwise with the Web API (work started from a modal).
 * `replaceOriginal` is for a response_url of a click, which may replace the message clicked. A
 * slash command's response_url has no message of its own to replace: Slack posts each response as
 * a new message, so the answer comes as one new message. The channel message's ts when the answer
 * is one the bot knows (the note, or a post with the Web API).
 */
export async function deliverReply(
  deps: WorkerDeps,
  target: ReplyTarget,
  reply: Reply,
): Promise<string | undefined> {
  const { note } = target;
  if (note && !usedNotes.has(note)) {
    usedNotes.add(note);
    if (reply.visibility === 'in_channel' || note.toPerson) {
      try {
        await deps.slack.chat.update({
          channel: note.channel,
          ts: note.ts,
          text: reply.text,
          blocks: reply.blocks,
        });
        return note.toPerson ? undefined : note.ts;
      } catch (error) {
        // Someone deleted the note, or Slack refused: the answer comes the usual way.
        deps.logger.warn('working note not replaced by the answer', { error });
      }
    } else {
      await deps.slack.chat
        .delete({ channel: note.channel, ts: note.ts })
        .catch((error: unknown) => deps.logger.warn('working note not deleted', { error }));
    }
  }
  if (target.responseUrl) {
    const post = deps.postToResponseUrl ?? postJson;
    await post(target.responseUrl, {
      response_type: reply.visibility,
      replace_original: target.replaceOriginal === true,
      text: reply.text,
      blocks: reply.blocks,
    });
    return undefined;
  }
  const message = { channel: target.channel, text: reply.text, blocks: reply.blocks };
  if (reply.visibility === 'ephemeral') {
    await deps.slack.chat.postEphemeral({ ...message, user: target.user });
    return undefined;
  }
  return (await deps.slack.chat.postMessage(message)).ts;
}

/**
 * Delivers a reply however it can, after the operation ran: a stale or used-up response_url must
 * not hide the outcome. Falls back to the Web API in the channel, then to a direct message.
 * Never throws: the job is done, and throwing would make Lambda run it again. The channel
 * message's ts when `deliverReply` knows it.
 */
export async function deliverSafely(
  deps: WorkerDeps,
  target: ReplyTarget,
  reply: Reply,
): Promise<string | undefined> {
  try {
    return await deliverReply(deps, target, reply);
  } catch (error) {
    deps.logger.warn('reply not delivered; trying the Web API', { error });
  }
  if (target.responseUrl) {
    try {
      return await deliverReply(deps, { channel: target.channel, user: target.user }, reply);
    } catch (error) {
      deps.logger.warn('reply not posted in the channel; trying a direct message', { error });
    }
  }
  try {
    await deps.slack.chat.postMessage({
      channel: target.user,
      text: reply.text,
      blocks: reply.blocks,
    });
  } catch (error) {
    deps.logger.error('reply lost: no way to reach the user', { error });
  }
  return undefined;
}

export async function postJson(url: string, body: unknown): Promise<void> {
  const response = await exchange({
    url: new URL(url),
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    service: 'response_url',
    connectTimeoutMs: 10_000,
    answerTimeoutMs: 10_000,
  });
  if (response.status >= 400) {
    throw new Error(`response_url answered ${response.status}`);
  }
}
