import type { ViewOutput } from '@slack/bolt';
import type { ActionsBlock, KnownBlock, View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import { findOperation } from '../api/operations/index.js';
import type { ChangeAttempt } from '../changes/outcomes.js';
import { attemptChange } from '../changes/outcomes.js';
import { requestApproval } from '../changes/requests.js';
import {
  type ApprovalEnd,
  approvalEnded,
  approvedStepRan,
  parameterCount,
  type RequestFollower,
  type RunbookEvent,
  type RunbookSurface,
  requestCancel,
  runbookNameProblem,
  startStep,
  stepProblems,
  substituteArgs,
  watchEnded,
} from '../changes/runbooks.js';
import { type StatusWatchSurface, startStatusWatch } from '../changes/status-watch.js';
import type { ParsedCommand } from '../commands/parse.js';
import type { ChannelPacer } from '../reports/pacer.js';
import type { Approval, RunbookRun, RunbookStep } from '../store/index.js';
import { slackApprovalSurface, slackChangeRunner } from './approval-surface.js';
import { channelRefusalHint, ensureBotCanPost } from './channel-access.js';
import type { BotCommandContext } from './context.js';
import { ActionId, CallbackId } from './interaction-ids.js';
import { openModal } from './modals.js';
import type { RunnerDeps } from './operation-runner.js';
import { isPolicyAdmin } from './policy-admins.js';
import { previewTarget } from './preview.js';
import { confirmDialog, sectionBlock } from './render/blocks.js';
import { renderError } from './render/errors.js';
import { guardrailRefusalText } from './render/guardrails.js';
import { codeSpan, escapeMrkdwn } from './render/text.js';
import { notice, type Reply } from './reply.js';
import { slackStatusWatchSurface } from './status-watch.js';
import { resolveToken } from './token-resolution.js';
import type { RunbookStepJob } from './worker-jobs.js';

/**
 * Runbooks as Slack shows them (`lib/changes/runbooks.ts` decides): `/cloud runbook …`, and a
 * run as one channel message listing its steps, whose thread says each step's moves. Approval
 * cards go in the channel as any request's do; the thread says which step waits on which.
 */

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;

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
  const name = `Runbook ${codeSpan(run.runbook)} (run ${codeSpan(run.id)}) by <@${run.user}>`;
  switch (run.state) {
    case 'running':
      return `:arrow_forward: ${name} is running. Stop it before its next step with ${codeSpan(`/cloud runbook cancel ${run.id}`)}.`;
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

function runMessage(run: RunbookRun) {
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
    async requestApproval(run, op, input) {
      const token = await resolveToken(deps.store, run.team, run.user, op);
      if (!token.ok) return { kind: 'refused', detail: token.reply.text };
      const outcome = await requestApproval(
        { ...deps, previewTarget },
        slackApprovalSurface(deps.slack, deps, runbookRequestFollower(deps)),
        { team: run.team, user: run.user, channel: run.channel, op, input },
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

// ---------------------------------------------------------------------------------------------
// `/cloud runbook …`

export async function handleRunbookCommand(
  context: BotCommandContext,
  parsed: BotParsed,
): Promise<Reply | undefined> {
  const { deps, ctx } = context;
  const name = parsed.args[0] ?? '';
  switch (parsed.subcommand) {
    case 'add':
      return addRunbook(context, name, parsed.flags.steps);
    case 'list': {
      const runbooks = await deps.store.runbooks.list(ctx.team, ctx.channel);
      if (runbooks.length === 0)
        return notice('This channel has no runbooks. Add one with `/cloud runbook add NAME`.');
      return notice(
        runbooks
          .map(
            (r) =>
              `${codeSpan(r.name)}: ${r.steps.length} step${r.steps.length === 1 ? '' : 's'}, ${parameterCount(r.steps)} argument(s)`,
          )
          .join('\n'),
      );
    }
    case 'show': {
      const problem = runbookNameProblem(name);
      if (problem) return notice(problem);
      const runbook = await deps.store.runbooks.get(ctx.team, ctx.channel, name);
      if (!runbook) return notice(`This channel has no runbook ${codeSpan(name)}.`);
      return notice(
        [`Runbook ${codeSpan(name)}:`, ...runbook.steps.map((s, i) => `${i + 1}. ${codeSpan(s)}`)].join('\n'),
      );
    }
    case 'remove': {
      const problem = runbookNameProblem(name);
      if (problem) return notice(problem);
      const removed = await deps.store.runbooks.remove(ctx.team, ctx.channel, name);
      return notice(
        removed ? `Removed runbook ${codeSpan(name)}.` : `This channel has no runbook ${codeSpan(name)}.`,
      );
    }
    case 'run':
      return startRun(context, name, parsed.args.slice(1));
    case 'cancel':
      return cancelRunAs(context, name);
    default:
      return notice('`/cloud runbook` needs one of: add, list, show, remove, run, cancel.');
  }
}

const RUN_ID_PATTERN = /^[A-Za-z0-9-]{1,64}$/;

/**
 * `/cloud runbook cancel RUN` and the run message's Cancel button: the person who started the run
 * or a policy admin stops it before its next step.
 */
export async function cancelRunAs(context: BotCommandContext, runId: string): Promise<Reply> {
  const { deps, ctx } = context;
  if (!RUN_ID_PATTERN.test(runId)) return notice('That is not a run id.');
  const run = await deps.store.runbooks.getRun(ctx.team, runId);
  if (!run || run.channel !== ctx.channel)
    return notice(`There is no run ${codeSpan(runId)} in this channel.`);
  if (run.state !== 'running') return notice(`Run ${codeSpan(runId)} has already ended.`);
  if (run.user !== ctx.user) {
    const policy = await deps.store.approvalPolicy.get(ctx.team);
    if (!(await isPolicyAdmin(context, policy))) {
      return notice(
        `Run ${codeSpan(runId)} was started by <@${run.user}>; only they or a workspace admin (or an admin named in the approval policy) can cancel it.`,
      );
    }
  }
  const cancelled = await requestCancel(
    deps,
    slackRunbookSurface({ ...deps, slack: context.client }),
    ctx.team,
    runId,
    ctx.user,
  );
  if (cancelled.kind === 'not_running') return notice(`Run ${codeSpan(runId)} has already ended.`);
  return notice(
    cancelled.runningStep === undefined
      ? `Cancelled run ${codeSpan(runId)}; no further step will start.`
      : `Cancelled run ${codeSpan(runId)}. Step ${cancelled.runningStep + 1} is under way and is not interrupted; no step after it will start.`,
  );
}

async function addRunbook(
  context: BotCommandContext,
  name: string,
  stepsFlag: unknown,
): Promise<Reply | undefined> {
  const { deps, ctx, client } = context;
  const problem = runbookNameProblem(name);
  if (problem) return notice(problem);
  if (typeof stepsFlag !== 'string') {
    if (!ctx.triggerId) {
      return notice('Give the steps with `--steps "COMMAND; COMMAND; …"`, one command each, in order.');
    }
    const again = `Run ${codeSpan(`/cloud runbook add ${name}`)} again.`;
    await openModal(client, ctx.triggerId, runbookModal(ctx.channel, name), again);
    return undefined;
  }
  const steps = stepsFlag
    .split(';')
    .map((step) => step.trim())
    .filter((step) => step.length > 0);
  const where = { team: ctx.team, channel: ctx.channel, user: ctx.user };
  const saved = await saveRunbook(deps, where, name, steps);
  if (!saved.ok) return notice(saved.problem);
  return { ...notice(saved.text), visibility: 'in_channel' };
}

type Saved = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly problem: string };

/** Checks a runbook's steps with the parser and stores it; the same from the flag and the modal. */
async function saveRunbook(
  deps: Pick<RunnerDeps, 'store'>,
  where: { readonly team: string; readonly channel: string; readonly user: string },
  name: string,
  steps: readonly string[],
): Promise<Saved> {
  const problem = runbookNameProblem(name);
  if (problem) return { ok: false, problem };
  const problems = stepProblems(steps);
  if (problems.length > 0) {
    return { ok: false, problem: `Runbook ${codeSpan(name)} was not added:\n${problems.join('\n')}` };
  }
  const added = await deps.store.runbooks.add({
    team: where.team,
    channel: where.channel,
    name,
    steps,
    createdBy: where.user,
  });
  if (!added) {
    return { ok: false, problem: `This channel has a runbook ${codeSpan(name)} already; remove it first.` };
  }
  const run = codeSpan(`/cloud runbook run ${name}`);
  return {
    ok: true,
    text: `<@${where.user}> added runbook ${codeSpan(name)} with ${steps.length} step${steps.length === 1 ? '' : 's'}. Run it with ${run}.`,
  };
}

// ---------------------------------------------------------------------------------------------
// the modal of `runbook add NAME`

const STEPS_BLOCK = 'steps';
const STEPS_INPUT = 'steps_input';
/** Slack's limit for a `plain_text_input`. */
const STEPS_MAX_LENGTH = 3000;
const RunbookModalMetadataSchema = z.object({ channel: z.string(), name: z.string() });

export function runbookModal(channel: string, name: string): View {
  return {
    type: 'modal',
    callback_id: CallbackId.runbookAdd,
    title: { type: 'plain_text', text: 'Add a runbook' },
    submit: { type: 'plain_text', text: 'Add runbook' },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: JSON.stringify({ channel, name }),
    blocks: [
      sectionBlock(
        `Steps of ${codeSpan(name)}, one command a line, without \`/cloud\`, in the order they run. ` +
          'Use `$1` to `$9` for the arguments given to `/cloud runbook run`.',
      ),
      {
        type: 'input',
        block_id: STEPS_BLOCK,
        label: { type: 'plain_text', text: 'Steps' },
        element: {
          type: 'plain_text_input',
          action_id: STEPS_INPUT,
          multiline: true,
          max_length: STEPS_MAX_LENGTH,
          placeholder: { type: 'plain_text', text: 'nodes shutdown $1' },
        },
      },
    ],
  };
}

export type RunbookModalAck = { response_action: 'errors'; errors: Record<string, string> } | undefined;

/** The modal's steps, checked and stored; a problem is shown under the steps field. */
export async function handleRunbookSubmission(
  deps: RunbookDeps,
  submission: { readonly team: string; readonly user: string; readonly view: ViewOutput },
): Promise<RunbookModalAck> {
  const metadata = RunbookModalMetadataSchema.safeParse(jsonOrUndefined(submission.view.private_metadata));
  if (!metadata.success) {
    return {
      response_action: 'errors',
      errors: { [STEPS_BLOCK]: 'This form is out of date; run the command again.' },
    };
  }
  const text = submission.view.state.values[STEPS_BLOCK]?.[STEPS_INPUT]?.value ?? '';
  const steps = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const where = { team: submission.team, channel: metadata.data.channel, user: submission.user };
  const saved = await saveRunbook(deps, where, metadata.data.name, steps);
  if (!saved.ok)
    return { response_action: 'errors', errors: { [STEPS_BLOCK]: saved.problem.slice(0, 2000) } };
  await deps.slack.chat
    .postMessage({ channel: where.channel, text: saved.text })
    .catch((error: unknown) => deps.logger.warn('runbook confirmation not posted', { error }));
  return undefined;
}

function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function startRun(context: BotCommandContext, name: string, args: readonly string[]): Promise<Reply> {
  const { deps, ctx, client } = context;
  const problem = runbookNameProblem(name);
  if (problem) return notice(problem);
  const runbook = await deps.store.runbooks.get(ctx.team, ctx.channel, name);
  if (!runbook) return notice(`This channel has no runbook ${codeSpan(name)}.`);
  const substituted = substituteArgs(runbook.steps, args);
  if (!substituted.ok) return notice(substituted.problem);
  const access = await ensureBotCanPost(client, ctx.channel);
  if (access.kind === 'refused')
    return notice(`A run needs its thread here. ${channelRefusalHint(access.refusal)}`);
  const run = await deps.store.runbooks.createRun({
    team: ctx.team,
    channel: ctx.channel,
    runbook: name,
    args,
    user: ctx.user,
    commands: substituted.commands,
  });
  const message = runMessage(run);
  const posted = await client.chat.postMessage({
    channel: ctx.channel,
    text: message.text,
    blocks: message.blocks,
  });
  if (!posted.ts) return notice('The run message could not be posted, so the run did not start.');
  const threaded = { ...run, threadTs: posted.ts, version: run.version + 1 };
  if (!(await deps.store.runbooks.replaceRun(threaded))) {
    return notice('The run could not be saved, so it did not start.');
  }
  await deps.handoff.dispatch({
    kind: 'runbook-step',
    correlationId: ctx.correlationId,
    team: ctx.team,
    runId: run.id,
    step: 0,
  });
  return notice(
    `:arrow_forward: Started run ${codeSpan(run.id)} of ${codeSpan(name)}; its thread follows each step.`,
  );
}
