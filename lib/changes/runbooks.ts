import { ApiError } from '../api/errors.js';
import type { AnyOperation } from '../api/operation.js';
import { registry } from '../commands/operation-registry.js';
import { parseCommand } from '../commands/parse.js';
import { isPrototypeKey } from '../prototype-keys.js';
import type {
  Approval,
  AuditResult,
  RunbookRun,
  RunbookStep,
  RunbookStepLink,
  RunbookStepState,
  WatchOutcome,
} from '../store/index.js';
import { COMMAND_NAME_PATTERN } from '../store/keys.js';
import { channelGuard, type GuardrailRefusal } from './guardrails.js';
import type { ChangeAttempt } from './outcomes.js';
import type { ChangeDeps, RenderedAnswer } from './ports.js';

/**
 * Runbooks: a named, ordered list of operation commands with `$1`…`$9` parameters, run one step at
 * a time in one thread. A step starts only when the one before it has a known outcome — its
 * answer, its status watch settling, its approval decided and run — and each goes through the
 * channel's guardrails and approvals as if typed. The first failure, refusal or outcome in doubt
 * stops the run. Every move of a run is a versioned replace of its record (`replaceRun`): of two
 * events that race to start the same step (a watch settling twice, a duplicated delivery) only
 * one lands, so a step starts exactly once.
 */

export const MAX_RUNBOOK_STEPS = 10;
/** A step is one command line; a longer one is not a command anyone types. */
const MAX_STEP_LENGTH = 500;
const PLACEHOLDER = /\$([1-9])/g;
/** What stands in for `$N` when a step is checked at add time: an id-shaped word parses anywhere. */
const PLACEHOLDER_STAND_IN = '1';
const MAX_ARG_LENGTH = 100;
/** Arguments are single words: a space or a flag would change the command's shape. */
const ARG_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:@/-]*$/;

// ---------------------------------------------------------------------------------------------
// definitions

/** Why a name cannot be a runbook's. */
export type RunbookNameFault =
  /** Not 1 to 32 lowercase letters, digits or dashes, starting with a letter. */
  | 'shape'
  /** A name that reaches an object's prototype, such as `constructor`. */
  | 'reserved'
  /** A word the bot answers to at its top level: a command or one of their aliases. */
  | 'command';

/** Why a name cannot be a runbook's, or undefined when it can. */
export function runbookNameFault(name: string): RunbookNameFault | undefined {
  if (!COMMAND_NAME_PATTERN.test(name)) return 'shape';
  if (isPrototypeKey(name)) return 'reserved';
  // A runbook is run as `runbook run NAME`, but its name must not read as a command either.
  // Aliases too: `findTopic` knows every word the top level answers to.
  if (registry.findTopic(name).found) return 'command';
  return undefined;
}

/** The `$N` numbers a step uses, in order. */
function placeholdersOf(step: string): number[] {
  return [...step.matchAll(PLACEHOLDER)].map((match) => Number(match[1]));
}

/** Why steps cannot be a runbook's; `step` counts from 1. */
export type StepFault =
  | { readonly kind: 'no_steps' }
  | { readonly kind: 'too_many_steps'; readonly max: number }
  | { readonly kind: 'too_long'; readonly step: number; readonly max: number }
  /** A `$` that is not `$1` to `$9`. */
  | { readonly kind: 'bad_parameter'; readonly step: number }
  /** The command parser refused it, saying why in `parserMessage`. */
  | { readonly kind: 'unparsed'; readonly step: number; readonly parserMessage: string }
  /** A command of the bot's own, not an API operation. */
  | { readonly kind: 'not_an_operation'; readonly step: number }
  | { readonly kind: 'breaks_glass'; readonly step: number };

/**
 * Each step checked by the real parser with its placeholders filled in: a fault a step (or one
 * for the list), empty when every step is a command that could run.
 */
export function stepFaults(steps: readonly string[]): StepFault[] {
  if (steps.length === 0) return [{ kind: 'no_steps' }];
  if (steps.length > MAX_RUNBOOK_STEPS) return [{ kind: 'too_many_steps', max: MAX_RUNBOOK_STEPS }];
  return steps.flatMap((text, index): StepFault[] => {
    const step = index + 1;
    if (text.length > MAX_STEP_LENGTH) return [{ kind: 'too_long', step, max: MAX_STEP_LENGTH }];
    if (/\$(0|[^1-9])|\$$/.test(text)) return [{ kind: 'bad_parameter', step }];
    const parsed = parseCommand(text.replace(PLACEHOLDER, PLACEHOLDER_STAND_IN));
    if (parsed.kind === 'error') return [{ kind: 'unparsed', step, parserMessage: parsed.message }];
    if (parsed.kind !== 'operation') return [{ kind: 'not_an_operation', step }];
    if (parsed.breakGlass !== undefined) return [{ kind: 'breaks_glass', step }];
    return [];
  });
}

/** One line of a runbook's steps that cannot be, for every surface that adds runbooks. */
export function stepProblem(fault: StepFault): string {
  switch (fault.kind) {
    case 'no_steps':
      return 'A runbook has at least one step.';
    case 'too_many_steps':
      return `A runbook has at most ${fault.max} steps.`;
    case 'too_long':
      return `Step ${fault.step} is longer than ${fault.max} characters.`;
    case 'bad_parameter':
      return `Step ${fault.step}: parameters are \`$1\` to \`$9\`.`;
    case 'unparsed':
      return `Step ${fault.step}: ${fault.parserMessage.split('\n')[0]}`;
    case 'not_an_operation':
      return `Step ${fault.step} is not an API operation.`;
    case 'breaks_glass':
      return `Step ${fault.step}: a runbook step cannot break glass.`;
  }
}

/** How many arguments a runbook takes: its highest `$N`. */
export function parameterCount(steps: readonly string[]): number {
  return Math.max(0, ...steps.flatMap(placeholdersOf));
}

/** Why a run's arguments do not fit its runbook. */
export type ArgumentFault =
  | { readonly kind: 'count'; readonly needed: number; readonly given: number }
  /** An argument that is not one word of letters, digits and `_ . : @ / -`, or too long. */
  | { readonly kind: 'not_a_word' };

export type Substitution =
  | { readonly ok: true; readonly commands: readonly string[] }
  | { readonly ok: false; readonly fault: ArgumentFault };

/** The steps with the run's arguments in place, or why the arguments do not fit. */
export function substituteArgs(steps: readonly string[], args: readonly string[]): Substitution {
  const needed = parameterCount(steps);
  if (args.length !== needed) return { ok: false, fault: { kind: 'count', needed, given: args.length } };
  const bad = args.find((arg) => arg.length > MAX_ARG_LENGTH || !ARG_PATTERN.test(arg));
  if (bad !== undefined) return { ok: false, fault: { kind: 'not_a_word' } };
  return {
    ok: true,
    commands: steps.map((step) => step.replace(PLACEHOLDER, (_, n) => args[Number(n) - 1] ?? '')),
  };
}

// ---------------------------------------------------------------------------------------------
// the surface

/** What the thread says: a step moved, or the run ended. */
export type RunbookEvent =
  | { readonly kind: 'step'; readonly index: number }
  | { readonly kind: 'finished' }
  | { readonly kind: 'cancel_requested'; readonly by: string; readonly runningStep: number | undefined };

export type StepApproval =
  | { readonly kind: 'requested'; readonly approvalId: string }
  | { readonly kind: 'refused'; readonly detail: string };

export type StepFollow =
  | { readonly kind: 'watching'; readonly watchId: string }
  | { readonly kind: 'settled' }
  | { readonly kind: 'not_posted' };

/** Where a run is shown and how its steps reach the API (Slack: a thread, the command runner). */
export interface RunbookSurface {
  /** Shows the run as it now stands, and one line in its thread for `event`; never throws. */
  tell(run: RunbookRun, event: RunbookEvent): Promise<void>;
  /** Words for a step the channel's guardrails refuse. */
  refusalText(refusal: GuardrailRefusal): string;
  /** Words for an API refusal of a step. */
  errorText(error: ApiError, op: AnyOperation): string;
  /** Asks for approval of step `index` of `run` (its card names the runbook and the step). */
  requestApproval(
    run: RunbookRun,
    index: number,
    op: AnyOperation,
    input: Readonly<Record<string, unknown>>,
  ): Promise<StepApproval>;
  /** Runs the step's change as the command would; API refusals are thrown. */
  runChange(
    run: RunbookRun,
    op: AnyOperation,
    input: Readonly<Record<string, unknown>>,
  ): Promise<ChangeAttempt>;
  /** Posts the step's answer in the run's thread and follows its status when it has one to follow. */
  follow(
    run: RunbookRun,
    op: AnyOperation,
    input: Readonly<Record<string, unknown>>,
    output: unknown,
    answer: RenderedAnswer,
  ): Promise<StepFollow>;
}

// ---------------------------------------------------------------------------------------------
// the state machine

const WAITING: ReadonlySet<RunbookStepState> = new Set(['starting', 'awaiting_approval', 'running']);
const STOPPING: ReadonlySet<RunbookStepState> = new Set(['failed', 'in_doubt', 'cancelled']);

function withStep(run: RunbookRun, index: number, patch: Partial<RunbookStep>): RunbookStep[] {
  return run.steps.map((step, i) => (i === index ? { ...step, ...patch } : step));
}

/** A new run with the message its thread hangs from, in place of the run as created. */
export function threadRun(run: RunbookRun, threadTs: string): RunbookRun {
  return { ...run, threadTs, version: run.version + 1 };
}

/** The claim on starting step `index`: only from pending, only while the run goes on, only once. */
export function claimStep(run: RunbookRun, index: number): RunbookRun | undefined {
  const step = run.steps[index];
  if (run.state !== 'running' || run.current !== index || step?.state !== 'pending') return undefined;
  return { ...run, steps: withStep(run, index, { state: 'starting' }), version: run.version + 1 };
}

/** A started step now waits on an approval or a status watch. */
export function markWaiting(
  run: RunbookRun,
  index: number,
  patch: Pick<RunbookStep, 'state'> & Partial<Pick<RunbookStep, 'approvalId' | 'watchId'>>,
): RunbookRun | undefined {
  const step = run.steps[index];
  if (!step || !WAITING.has(step.state)) return undefined;
  return { ...run, steps: withStep(run, index, patch), version: run.version + 1 };
}

/**
 * A step's outcome, once: a step that has ended already is left as it is. Success moves the run
 * to the next step (or ends it); anything else ends the run and skips the steps not started.
 */
export function settleStep(
  run: RunbookRun,
  index: number,
  state: Extract<RunbookStepState, 'succeeded' | 'failed' | 'in_doubt' | 'cancelled'>,
  detail: string,
): RunbookRun | undefined {
  const step = run.steps[index];
  if (!step || !WAITING.has(step.state)) return undefined;
  const steps = withStep(run, index, { state, detail });
  const next = { ...run, steps, version: run.version + 1 };
  if (run.state !== 'running') return next;
  if (STOPPING.has(state)) {
    return {
      ...next,
      state: 'failed',
      steps: steps.map((s) => (s.state === 'pending' ? { ...s, state: 'skipped' as const } : s)),
    };
  }
  const last = index === run.steps.length - 1;
  return last ? { ...next, state: 'succeeded' } : { ...next, current: index + 1 };
}

/** Stops a run before its next step; a step under way runs on and its outcome is still recorded. */
export function cancelRun(run: RunbookRun, by: string): RunbookRun | undefined {
  if (run.state !== 'running') return undefined;
  return {
    ...run,
    state: 'cancelled',
    cancelledBy: by,
    steps: run.steps.map((s) => (s.state === 'pending' ? { ...s, state: 'cancelled' as const } : s)),
    version: run.version + 1,
  };
}

/** Reads the run, applies `move`, writes it under the version it read; again when another writer won. */
async function moveRun(
  deps: ChangeDeps,
  team: string,
  runId: string,
  move: (run: RunbookRun) => RunbookRun | undefined,
): Promise<RunbookRun | undefined> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const run = await deps.store.runbooks.getRun(team, runId);
    if (!run) return undefined;
    const next = move(run);
    if (!next) return undefined;
    if (await deps.store.runbooks.replaceRun(next)) return next;
  }
  deps.logger.warn('runbook run not moved: too many writers', { runId });
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// running

const AUDIT_OF: Partial<Record<RunbookStepState, AuditResult>> = {
  succeeded: 'succeeded',
  failed: 'failed',
  in_doubt: 'in_doubt',
  cancelled: 'not_run',
};

/** One audit entry a step outcome: which runbook, which step, what it ran, how it ended. */
async function auditStep(deps: ChangeDeps, run: RunbookRun, index: number): Promise<void> {
  const step = run.steps[index];
  const result = step && AUDIT_OF[step.state];
  if (!step || !result) return;
  await deps.store.audit
    .append({
      team: run.team,
      actor: run.user,
      action: 'runbook.step',
      target: `${run.runbook} step ${index + 1}: ${step.command}`.slice(0, 300),
      ...(step.approvalId ? { approvalId: step.approvalId } : {}),
      result,
      // People are shown a run's first 8 characters (`/cloud runbook cancel` takes them).
      ...(step.detail ? { detail: `run ${run.id.slice(0, 8)}: ${step.detail}`.slice(0, 500) } : {}),
    })
    .catch((error: unknown) => deps.logger.error('audit entry not written', { runId: run.id, error }));
}

/** Records a step's outcome, says so in the thread, and starts the next step when it may. */
export async function endStep(
  deps: ChangeDeps,
  surface: RunbookSurface,
  team: string,
  runId: string,
  index: number,
  state: Parameters<typeof settleStep>[2],
  detail: string,
): Promise<void> {
  const ended = await moveRun(deps, team, runId, (run) => settleStep(run, index, state, detail));
  if (!ended) return;
  await auditStep(deps, ended, index);
  await surface.tell(ended, { kind: 'step', index });
  if (ended.state !== 'running') {
    await surface.tell(ended, { kind: 'finished' });
    return;
  }
  await startStep(deps, surface, team, runId, ended.current);
}

/**
 * Starts step `index` if it is this caller's to start (see `claimStep`), through the channel's
 * guardrails and approvals as the command typed would go.
 */
export async function startStep(
  deps: ChangeDeps,
  surface: RunbookSurface,
  team: string,
  runId: string,
  index: number,
): Promise<void> {
  const run = await moveRun(deps, team, runId, (current) => claimStep(current, index));
  if (!run) return;
  const step = run.steps[index];
  if (!step) return;
  await surface.tell(run, { kind: 'step', index });
  const end = (state: Parameters<typeof settleStep>[2], detail: string) =>
    endStep(deps, surface, team, runId, index, state, detail);

  const parsed = parseCommand(step.command);
  if (parsed.kind !== 'operation' || parsed.breakGlass !== undefined) {
    return end('failed', 'It no longer reads as an operation command; nothing was sent.');
  }
  const { op, input } = parsed;
  try {
    const guard = await channelGuard(deps.store, team, run.channel, op);
    if (guard.refusal) return end('failed', surface.refusalText(guard.refusal));
    if (guard.approvalRequired) {
      const asked = await surface.requestApproval(run, index, op, input);
      if (asked.kind === 'refused') return end('failed', asked.detail);
      await deps.store.runbooks.link(team, 'approval', asked.approvalId, { runId, step: index });
      const waiting = await moveRun(deps, team, runId, (current) =>
        markWaiting(current, index, { state: 'awaiting_approval', approvalId: asked.approvalId }),
      );
      if (waiting) await surface.tell(waiting, { kind: 'step', index });
      return;
    }
    const attempt = await surface.runChange(run, op, input);
    if (attempt.kind === 'in_doubt') {
      return end('in_doubt', 'The API gave no clear answer; it may or may not have happened.');
    }
    await followStep(deps, surface, run, index, op, input, attempt.output, attempt.reply);
  } catch (error) {
    if (error instanceof ApiError) return end('failed', surface.errorText(error, op));
    deps.logger.error('runbook step not started', { runId, step: index, error });
    return end('failed', 'It could not be started (the bot could not read what it needs); nothing was sent.');
  }
}

/** The step's change went through: its answer goes in the thread, and its status decides when it is done. */
async function followStep(
  deps: ChangeDeps,
  surface: RunbookSurface,
  run: RunbookRun,
  index: number,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  output: unknown,
  answer: RenderedAnswer,
): Promise<void> {
  const followed = await surface.follow(run, op, input, output, answer);
  const end = (state: Parameters<typeof settleStep>[2], detail: string) =>
    endStep(deps, surface, run.team, run.id, index, state, detail);
  switch (followed.kind) {
    case 'settled':
      return end('succeeded', 'Done.');
    case 'not_posted':
      // The API took it, but nothing will say when it settles: the next step must not guess.
      return end('in_doubt', 'It was sent, but its status could not be followed in the thread.');
    case 'watching': {
      await deps.store.runbooks.link(run.team, 'watch', followed.watchId, { runId: run.id, step: index });
      await moveRun(deps, run.team, run.id, (current) =>
        markWaiting(current, index, { state: 'running', watchId: followed.watchId }),
      );
      // A reporter tick may have ended the watch between its creation and the link above, and
      // then found no step waiting on it: read it again now that the link is there. When both
      // this and the tick see it ended, `settleStep` lets only one of them move the run on.
      const watch = await deps.store.statusWatches.get(run.team, followed.watchId);
      if (watch?.finished && watch.outcome) {
        await endStepByWatch(
          deps,
          surface,
          run.team,
          { runId: run.id, step: index },
          watch.outcome,
          watch.lastStatus,
        );
      }
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// completion points

const WATCH_ENDS: Record<WatchOutcome, { state: Parameters<typeof settleStep>[2]; detail: string }> = {
  final: { state: 'succeeded', detail: 'Settled.' },
  failed: { state: 'failed', detail: 'It settled in a failed status.' },
  gone: { state: 'in_doubt', detail: 'It disappeared before it settled.' },
  timed_out: { state: 'in_doubt', detail: 'It did not settle before the watch gave up.' },
  token_rejected: {
    state: 'in_doubt',
    detail: "The API stopped accepting the runner's token while it was followed.",
  },
};

/** A status watch ended: when a run's step waited on it, that step is done. */
export async function watchEnded(
  deps: ChangeDeps,
  surface: RunbookSurface,
  team: string,
  watchId: string,
  outcome: WatchOutcome,
  status: string | null,
): Promise<void> {
  const link = await deps.store.runbooks.linkOf(team, 'watch', watchId);
  if (!link) return;
  await endStepByWatch(deps, surface, team, link, outcome, status);
}

function endStepByWatch(
  deps: ChangeDeps,
  surface: RunbookSurface,
  team: string,
  link: RunbookStepLink,
  outcome: WatchOutcome,
  status: string | null,
): Promise<void> {
  const end = WATCH_ENDS[outcome];
  const detail = status === null ? end.detail : `${end.detail} Status \`${status}\`.`;
  return endStep(deps, surface, team, link.runId, link.step, end.state, detail);
}

/**
 * What the approval workflow tells whatever follows its requests (a runbook's run): the surfaces
 * that show requests call it, so they need not know about runbooks.
 */
export interface RequestFollower {
  /** The request ended without a clean run (denied, cancelled, expired, in doubt, failed). */
  requestEnded(approval: Approval, end: ApprovalEnd): Promise<void>;
  /** The approved request ran and answered; true when the follower took its answer over. */
  approvedRan(
    approval: Approval,
    input: Readonly<Record<string, unknown>>,
    attempt: Extract<ChangeAttempt, { kind: 'answered' }>,
  ): Promise<boolean>;
}

/** How a request a step waited on ended, when it ended without running (or in doubt). */
export type ApprovalEnd =
  | { readonly kind: 'denied' | 'cancelled'; readonly by: string }
  | { readonly kind: 'expired' }
  | { readonly kind: 'in_doubt' }
  | { readonly kind: 'closed'; readonly outcome: 'failed' | 'unknown' | 'not_run'; readonly detail: string };

function approvalEndWords(end: ApprovalEnd): [Parameters<typeof settleStep>[2], string] {
  switch (end.kind) {
    case 'denied':
      return ['failed', `Its approval request was denied by <@${end.by}>.`];
    case 'cancelled':
      return ['failed', `Its approval request was cancelled by <@${end.by}>.`];
    case 'expired':
      return ['failed', 'Its approval request expired unanswered.'];
    case 'in_doubt':
      return ['in_doubt', 'It was approved and sent, but the API gave no clear answer.'];
    case 'closed':
      if (end.outcome === 'failed') return ['failed', `It was approved and failed: ${end.detail}`];
      return [
        'in_doubt',
        `It was approved but ${end.outcome === 'not_run' ? 'not run' : 'its outcome is unknown'}: ${end.detail}`,
      ];
  }
}

/** The request a step waited on will not run (or ran in doubt): the run stops there. */
export async function approvalEnded(
  deps: ChangeDeps,
  surface: RunbookSurface,
  team: string,
  approvalId: string,
  end: ApprovalEnd,
): Promise<void> {
  const link = await deps.store.runbooks.linkOf(team, 'approval', approvalId);
  if (!link) return;
  const [state, detail] = approvalEndWords(end);
  await endStep(deps, surface, team, link.runId, link.step, state, detail);
}

/**
 * An approved request ran and answered. True when it was a run's step: its answer then goes in
 * the run's thread, followed there until it settles, instead of a message of its own.
 */
export async function approvedStepRan(
  deps: ChangeDeps,
  surface: RunbookSurface,
  team: string,
  approvalId: string,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  output: unknown,
  answer: RenderedAnswer,
): Promise<boolean> {
  const link = await deps.store.runbooks.linkOf(team, 'approval', approvalId);
  if (!link) return false;
  const run = await moveRun(deps, team, link.runId, (current) =>
    markWaiting(current, link.step, { state: 'running' }),
  );
  if (!run) return true;
  await surface.tell(run, { kind: 'step', index: link.step });
  await followStep(deps, surface, run, link.step, op, input, output, answer);
  return true;
}

/** `runbook cancel RUN`: stops before the next step. */
export async function requestCancel(
  deps: ChangeDeps,
  surface: RunbookSurface,
  team: string,
  runId: string,
  by: string,
): Promise<
  { readonly kind: 'cancelled'; readonly runningStep: number | undefined } | { readonly kind: 'not_running' }
> {
  const cancelled = await moveRun(deps, team, runId, (run) => cancelRun(run, by));
  if (!cancelled) return { kind: 'not_running' };
  const under = cancelled.steps.findIndex((s) => WAITING.has(s.state));
  const runningStep = under === -1 ? undefined : under;
  await surface.tell(cancelled, { kind: 'cancel_requested', by, runningStep });
  if (runningStep === undefined) await surface.tell(cancelled, { kind: 'finished' });
  return { kind: 'cancelled', runningStep };
}
