import type { ActionsBlock, KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { findOperation } from '../api/operations/index.js';
import type { ChangeAttempt } from '../changes/outcomes.js';
import { attemptChange } from '../changes/outcomes.js';
import { requestApproval } from '../changes/requests.js';
import {
  type ApprovalEnd,
  approvalEnded,
  approvedStepRan,
  type RequestFollower,
  type RunbookEvent,
  type RunbookSurface,
  startStep,
  watchEnded,
} from '../changes/runbooks.js';
import { type StatusWatchSurface, startStatusWatch } from '../changes/status-watch.js';
import type { ChannelPacer } from '../reports/pacer.js';
import { confirmDialog, sectionBlock } from '../slack-kit/blocks.js';
import { shortId } from '../slack-kit/field-words.js';
import { ActionId } from '../slack-kit/interaction-ids.js';
import { codeSpan, escapeMrkdwn } from '../slack-kit/text.js';
import type { Approval, RunbookRun, RunbookStep } from '../store/index.js';
import type { RunbookStepJob } from '../worker/jobs.js';
import { slackApprovalSurface } from './approval-surface.js';
import { slackChangeRunner } from './approved-run-surface.js';
import type { RunnerDeps } from './operation-runner.js';
import { previewTarget } from './preview.js';
import { renderError } from './render/errors.js';
import { guardrailRefusalText } from './render/guardrails.js';
import { slackStatusWatchSurface } from './status-watch.js';
import { resolveToken } from './token-resolution.js';

/**
 * A runbook's run as Slack shows it (`lib/changes/runbooks.ts` decides how a run moves): one
 * channel message listing its steps, whose thread says each step's moves, and the points where a
 * request or a status watch a step waits on lets the run go on. Approval cards go in the channel
 * as any request's do; the thread says which step waits on which. The command that adds, lists,
 * starts and cancels runbooks is `bot-commands/runbook.ts`.
 */

export interface RunbookDeps extends RunnerDeps {
  readonly slack: WebClient;
}

const STEP_ICONS: Record<RunbookStep['state'], string> = {
  pending: ':white_circle:',
  starting: ':arrow_forward:',
  awaiting_approval: ':lock:',
  running: ':hourglass_flowing_sand:',
  succeeded: ':white_check_mark:',
  failed: ':x:',
  in_doubt: ':warning:',
  cancelled: ':no_entry_sign:',
  skipped: ':heavy_minus_sign:',
};

const STEP_WORDS: Record<RunbookStep['state'], string> = {
  pending: 'waits for the step before it',
  starting: 'started',
  awaiting_approval: 'waits for approval: its card is in the channel',
  running: 'sent; following its status until it settles',
  succeeded: 'done',
  failed: 'failed',
  in_doubt: 'in doubt',
  cancelled: 'cancelled',
  skipped: 'not run',
};

function stepLine(step: RunbookStep, index: number): string {
  const detail = step.detail && step.state !== 'succeeded' ? ` ${escapeMrkdwn(step.detail)}` : '';
  return `${STEP_ICONS[step.state]} Step ${index + 1} ${codeSpan(step.command)}: ${STEP_WORDS[step.state]}.${detail}`;
}

function runHeadline(run: RunbookRun): string {
  const name = `Runbook ${codeSpan(run.runbook)} (run ${codeSpan(shortId(run.id))}) by <@${run.user}>`;
  switch (run.state) {
    case 'running':
      return `:arrow_forward: ${name} is running. Stop it before its next step with ${codeSpan(`/cloud runbook cancel ${shortId(run.id)}`)}.`;
    case 'succeeded':
      return `:white_check_mark: ${name} finished: all ${run.steps.length} steps done.`;
    case 'cancelled':
      return `:no_entry_sign: ${name} was cancelled by <@${run.cancelledBy ?? run.user}>.`;
    case 'failed': {
      const stopped = run.steps.findIndex((s) => s.state === 'failed' || s.state === 'in_doubt');
      const step = run.steps[stopped];
      const why = step
        ? ` at step ${stopped + 1} (${codeSpan(step.command)}): ${step.detail ?? step.state}`
        : '';
      return `:octagonal_sign: ${name} stopped${why}. The steps after it were not run.`;
    }
  }
}

/** A run's Cancel button, on its message while it runs: the same as `/cloud runbook cancel RUN`. */
function cancelButton(run: RunbookRun): ActionsBlock {
  return {
    type: 'actions',
    elements: [
      {
        type: 'button',
        action_id: ActionId.runbookCancel,
        text: { type: 'plain_text', text: 'Cancel run' },
        value: run.id,
        style: 'danger',
        confirm: confirmDialog({
          title: 'Cancel this run?',
          text: 'No step after the one under way will start. A step under way is not interrupted.',
          confirm: 'Cancel run',
          deny: 'Keep running',
          style: 'danger',
        }),
      },
    ],
  };
}

export function runMessage(run: RunbookRun) {
  const lines = [runHeadline(run), ...run.steps.map(stepLine)];
  const blocks: KnownBlock[] = [sectionBlock(lines.join('\n'))];
  if (run.state === 'running') blocks.push(cancelButton(run));
  return { text: lines[0] ?? '', blocks };
}

function eventText(run: RunbookRun, event: RunbookEvent): string {
  switch (event.kind) {
    case 'step': {
      const step = run.steps[event.index];
      return step ? stepLine(step, event.index) : '';
    }
    case 'finished':
      return runHeadline(run);
    case 'cancel_requested':
      return event.runningStep === undefined
        ? `:no_entry_sign: <@${event.by}> cancelled the run; no further step will start.`
        : `:no_entry_sign: <@${event.by}> cancelled the run. Step ${event.runningStep + 1} is under way and is not interrupted; no step after it will start.`;
  }
}

/** The run's thread and message, the command runner and the approval cards, on one Web API client. */
export function slackRunbookSurface(deps: RunbookDeps): RunbookSurface {
  return {
    async tell(run, event) {
      if (!run.threadTs) return;
      const message = runMessage(run);
      await deps.slack.chat
        .update({ channel: run.channel, ts: run.threadTs, text: message.text, blocks: message.blocks })
        .catch((error: unknown) => deps.logger.warn('runbook message not updated', { runId: run.id, error }));
      await deps.slack.chat
        .postMessage({ channel: run.channel, thread_ts: run.threadTs, text: eventText(run, event) })
        .catch((error: unknown) => deps.logger.warn('runbook thread not updated', { runId: run.id, error }));
    },
    refusalText: guardrailRefusalText,
    errorText: (error, op) => renderError(error, { operationId: op.id, referenceId: 'runbook' }).text,
    async requestApproval(run, index, op, input) {
      const token = await resolveToken(deps.store, run.team, run.user, op);
      if (!token.ok) return { kind: 'refused', detail: token.reply.text };
      const outcome = await requestApproval(
        { ...deps, previewTarget },
        slackApprovalSurface(deps.slack, deps, runbookRequestFollower(deps)),
        {
          team: run.team,
          user: run.user,
          channel: run.channel,
          op,
          input,
          viaRunbook: { runbook: run.runbook, runId: run.id, step: index + 1, steps: run.steps.length },
        },
        token.token,
      );
      if (outcome.kind === 'requested') return { kind: 'requested', approvalId: outcome.approval.id };
      if (outcome.kind === 'refused' && outcome.reason === 'target_not_found')
        return { kind: 'refused', detail: 'Its target does not exist, so there was nothing to approve.' };
      return { kind: 'refused', detail: 'Its approval card could not be posted, so it was not requested.' };
    },
    runChange: (run, op, input) =>
      attemptChange(deps, slackChangeRunner(deps), {
        team: run.team,
        user: run.user,
        channel: run.channel,
        op,
        input,
      }),
    async follow(run, op, input, output, answer) {
      const surface = slackStatusWatchSurface({ ...deps, threadTs: run.threadTs ?? undefined });
      const started = await startStatusWatch(deps, surface, {
        team: run.team,
        user: run.user,
        channel: run.channel,
        op,
        input,
        result: output,
        message: answer,
      });
      if (started.status === 'watching') return { kind: 'watching', watchId: started.watch.id };
      return started.status === 'posted' ? { kind: 'settled' } : { kind: 'not_posted' };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// completion points (called by the approval and status-watch surfaces)

/** What a request hears when it ends, for the runbook step that may wait on it. */
export function runbookRequestFollower(deps: RunbookDeps): RequestFollower {
  return {
    requestEnded: (approval, end) => continueAfterApproval(deps, approval, end),
    approvedRan: (approval, input, attempt) => continueAfterApprovedRun(deps, approval, attempt, input),
  };
}

/** A status watch ended; never throws: the watch itself is done either way. */
export function continueAfterWatch(
  deps: RunbookDeps,
  team: string,
  watchId: string,
  outcome: Parameters<typeof watchEnded>[4],
  status: string | null,
): Promise<void> {
  return watchEnded(deps, slackRunbookSurface(deps), team, watchId, outcome, status).catch((error: unknown) =>
    deps.logger.error('runbook not continued after its watch', { watchId, error }),
  );
}

/** A request a step waited on ended without a clean run; never throws. */
export function continueAfterApproval(
  deps: RunbookDeps,
  approval: Approval,
  end: ApprovalEnd,
): Promise<void> {
  return approvalEnded(deps, slackRunbookSurface(deps), approval.team, approval.id, end).catch(
    (error: unknown) =>
      deps.logger.error('runbook not continued after its approval', { approvalId: approval.id, error }),
  );
}

/** An approved request ran and answered; true when a runbook's step took its answer over. */
export async function continueAfterApprovedRun(
  deps: RunbookDeps,
  approval: Approval,
  attempt: Extract<ChangeAttempt, { kind: 'answered' }>,
  input: Readonly<Record<string, unknown>>,
): Promise<boolean> {
  const op = findOperation(approval.operationId);
  if (!op) return false;
  return approvedStepRan(
    deps,
    slackRunbookSurface(deps),
    approval.team,
    approval.id,
    op,
    input,
    attempt.output,
    attempt.reply,
  ).catch((error: unknown) => {
    deps.logger.error('runbook not continued after its approved step', { approvalId: approval.id, error });
    return true;
  });
}

/**
 * The reporter's status watches, each of which lets the runbook step waiting on it go on when it
 * ends (in place of `slackStatusWatches` where runbooks run).
 */
export function slackStatusWatchesFollowingRunbooks(
  deps: Omit<RunbookDeps, 'pacer'>,
): (pacer: ChannelPacer) => StatusWatchSurface {
  return (pacer) =>
    slackStatusWatchSurface({
      ...deps,
      pacer,
      onEnded: (watch, outcome, status) => continueAfterWatch(deps, watch.team, watch.id, outcome, status),
    });
}

/** The worker's job: start one step (a second delivery finds it claimed and does nothing). */
export function runRunbookStepJob(deps: RunbookDeps, job: RunbookStepJob): Promise<void> {
  return startStep(deps, slackRunbookSurface(deps), job.team, job.runId, job.step);
}
