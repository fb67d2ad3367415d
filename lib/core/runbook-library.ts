import type { CardAccess, ChangeDeps, ChannelRefusal } from '../changes/ports.js';
import {
  type ArgumentFault,
  parameterCount,
  type RunbookNameFault,
  type RunbookSurface,
  requestCancel,
  runbookNameFault,
  type StepFault,
  stepFaults,
  substituteArgs,
  threadRun,
} from '../changes/runbooks.js';
import type { Runbook, RunbookRun, Store } from '../store/index.js';
import { type AdminDeps, isPolicyAdmin } from './admins.js';
import type { Caller } from './caller.js';

/**
 * Runbooks as a person uses them, whichever surface they come through: a channel's and the
 * workspace's runbooks (adding, removing, reading them), starting a run, and cancelling one. The
 * workspace's runbooks run in every channel, so only a policy admin adds or removes them; a run is
 * cancelled by whoever started it or by a policy admin. How a run then moves, step by step, is the
 * state machine in `lib/changes/runbooks.ts`.
 */

export interface RunbookLibraryDeps extends AdminDeps {
  readonly store: Pick<Store, 'runbooks' | 'approvalPolicy'>;
}

/** Which runbook a change is to: the caller's channel's, or the workspace's (`workspace`). */
export interface RunbookScope {
  readonly name: string;
  readonly workspace: boolean;
}

/** Workspace runbooks run in every channel: only policy admins add or remove them. */
async function mayChangeWorkspaceRunbooks(deps: RunbookLibraryDeps, caller: Caller): Promise<boolean> {
  const policy = await deps.store.approvalPolicy.get(caller.team);
  return isPolicyAdmin(deps, caller, policy);
}

export type RunbookChangeCheck =
  | { readonly kind: 'invalid_name'; readonly fault: RunbookNameFault }
  /** A workspace runbook, and the caller is no policy admin. */
  | { readonly kind: 'not_allowed' }
  | { readonly kind: 'allowed' };

/**
 * Whether the caller may add or remove this runbook, by its name and whose it is; asked before a
 * surface asks for a runbook's steps, and again by `addRunbook` and `removeRunbook`.
 */
export async function checkRunbookChange(
  deps: RunbookLibraryDeps,
  caller: Caller,
  scope: RunbookScope,
): Promise<RunbookChangeCheck> {
  const fault = runbookNameFault(scope.name);
  if (fault) return { kind: 'invalid_name', fault };
  if (scope.workspace && !(await mayChangeWorkspaceRunbooks(deps, caller))) return { kind: 'not_allowed' };
  return { kind: 'allowed' };
}

// ---------------------------------------------------------------------------------------------
// adding and removing

export type AddRunbookOutcome =
  | Exclude<RunbookChangeCheck, { kind: 'allowed' }>
  | { readonly kind: 'invalid_steps'; readonly faults: readonly StepFault[] }
  /** The channel (or the workspace) has a runbook of that name, which has to be removed first. */
  | { readonly kind: 'exists' }
  | { readonly kind: 'added'; readonly steps: number };

/**
 * Adds a runbook to the caller's channel or to the workspace, once each step reads as an API
 * operation; never in place of one of the same name.
 */
export async function addRunbook(
  deps: RunbookLibraryDeps,
  caller: Caller,
  request: RunbookScope & { readonly steps: readonly string[] },
): Promise<AddRunbookOutcome> {
  const check = await checkRunbookChange(deps, caller, request);
  if (check.kind !== 'allowed') return check;
  const faults = stepFaults(request.steps);
  if (faults.length > 0) return { kind: 'invalid_steps', faults };
  const added = await deps.store.runbooks.add({
    team: caller.team,
    channel: request.workspace ? null : caller.channel,
    name: request.name,
    steps: request.steps,
    createdBy: caller.user,
  });
  return added ? { kind: 'added', steps: request.steps.length } : { kind: 'exists' };
}

export type RemoveRunbookOutcome =
  | Exclude<RunbookChangeCheck, { kind: 'allowed' }>
  | { readonly kind: 'not_found' }
  | { readonly kind: 'removed' };

/** Removes a runbook of the caller's channel, or of the workspace. */
export async function removeRunbook(
  deps: RunbookLibraryDeps,
  caller: Caller,
  request: RunbookScope,
): Promise<RemoveRunbookOutcome> {
  const check = await checkRunbookChange(deps, caller, request);
  if (check.kind !== 'allowed') return check;
  const removed = await deps.store.runbooks.remove(
    caller.team,
    request.workspace ? null : caller.channel,
    request.name,
  );
  return removed ? { kind: 'removed' } : { kind: 'not_found' };
}

// ---------------------------------------------------------------------------------------------
// reading

export type FindRunbookOutcome =
  | { readonly kind: 'invalid_name'; readonly fault: RunbookNameFault }
  | { readonly kind: 'not_found' }
  /** The channel's runbook of that name, else the workspace's (`channel` null). */
  | { readonly kind: 'found'; readonly runbook: Runbook };

/** The runbook `name` as the caller's channel sees it. */
export async function findRunbook(
  deps: Pick<RunbookLibraryDeps, 'store'>,
  caller: Caller,
  request: { readonly name: string },
): Promise<FindRunbookOutcome> {
  const fault = runbookNameFault(request.name);
  if (fault) return { kind: 'invalid_name', fault };
  const runbook = await deps.store.runbooks.find(caller.team, caller.channel, request.name);
  return runbook ? { kind: 'found', runbook } : { kind: 'not_found' };
}

export interface RunbookSummary {
  readonly name: string;
  readonly steps: number;
  /** How many arguments a run of it takes. */
  readonly parameters: number;
}

export interface RunbookList {
  readonly channel: readonly RunbookSummary[];
  /** `shadowed`: the channel has one of the same name, which is the one that runs there. */
  readonly workspace: readonly (RunbookSummary & { readonly shadowed: boolean })[];
}

/** The caller's channel's runbooks and the workspace's. */
export async function listRunbooks(
  deps: Pick<RunbookLibraryDeps, 'store'>,
  caller: Caller,
): Promise<RunbookList> {
  const [own, workspace] = await Promise.all([
    deps.store.runbooks.list(caller.team, caller.channel),
    deps.store.runbooks.list(caller.team, null),
  ]);
  const ownNames = new Set(own.map((runbook) => runbook.name));
  return {
    channel: own.map(summaryOf),
    workspace: workspace.map((runbook) => ({ ...summaryOf(runbook), shadowed: ownNames.has(runbook.name) })),
  };
}

function summaryOf(runbook: Runbook): RunbookSummary {
  return { name: runbook.name, steps: runbook.steps.length, parameters: parameterCount(runbook.steps) };
}

// ---------------------------------------------------------------------------------------------
// runs

/** What starting a run needs of its surface: the run's message, and its first step handed on. */
export interface RunStartSurface {
  /** Whether the run's message (and its thread) can go in `channel`, asked before the run is stored. */
  access(channel: string): Promise<CardAccess>;
  /** Posts the message of a new run; its id (Slack: its ts), or undefined when it was not posted. */
  post(run: RunbookRun): Promise<string | undefined>;
  /** Hands the run's first step to whatever starts steps (the worker). */
  startFirstStep(run: RunbookRun): Promise<void>;
}

export type StartRunOutcome =
  | { readonly kind: 'invalid_name'; readonly fault: RunbookNameFault }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'arguments_do_not_fit'; readonly fault: ArgumentFault }
  /** The run's thread cannot go in the channel: nothing was stored. */
  | { readonly kind: 'channel_refused'; readonly refusal: ChannelRefusal }
  /** The run's message was not posted, so no step starts. */
  | { readonly kind: 'not_posted' }
  /** The run's message is up but the run could not record it, so no step starts. */
  | { readonly kind: 'not_saved' }
  | { readonly kind: 'started'; readonly runId: string };

/**
 * Starts a run of the runbook `name` as the caller's channel sees it, with `args` in place of its
 * `$N`: the run is stored, its message posted, the run replaced by one that knows its thread, and
 * its first step handed on.
 */
export async function startRunbookRun(
  deps: Pick<RunbookLibraryDeps, 'store'>,
  surface: RunStartSurface,
  caller: Caller,
  request: { readonly name: string; readonly args: readonly string[] },
): Promise<StartRunOutcome> {
  const found = await findRunbook(deps, caller, request);
  if (found.kind !== 'found') return found;
  const substituted = substituteArgs(found.runbook.steps, request.args);
  if (!substituted.ok) return { kind: 'arguments_do_not_fit', fault: substituted.fault };
  const access = await surface.access(caller.channel);
  if (access.kind === 'refused') return { kind: 'channel_refused', refusal: access.refusal };
  const run = await deps.store.runbooks.createRun({
    team: caller.team,
    channel: caller.channel,
    runbook: request.name,
    args: request.args,
    user: caller.user,
    commands: substituted.commands,
  });
  const threadTs = await surface.post(run);
  if (!threadTs) return { kind: 'not_posted' };
  const threaded = threadRun(run, threadTs);
  if (!(await deps.store.runbooks.replaceRun(threaded))) return { kind: 'not_saved' };
  await surface.startFirstStep(threaded);
  return { kind: 'started', runId: run.id };
}

/**
 * What a run id looks like: the whole id, or at least the 8 characters people are shown (fewer
 * could pick a run nobody meant); anything else is refused before the store is asked.
 */
const RUN_ID_PATTERN = /^[A-Za-z0-9-]{8,64}$/;

export type CancelRunOutcome =
  | { readonly kind: 'invalid_run_id' }
  /** No such run in the caller's channel. */
  | { readonly kind: 'not_found' }
  | { readonly kind: 'ended' }
  /** Someone else started it, and the caller is no policy admin. */
  | { readonly kind: 'not_allowed'; readonly startedBy: string }
  /** No step after `runningStep` (the one under way, which is not interrupted) will start. */
  | { readonly kind: 'cancelled'; readonly runningStep: number | undefined };

/** Stops a run of the caller's channel before its next step: the person who started it, or a policy admin. */
export async function cancelRunbookRun(
  deps: ChangeDeps & AdminDeps,
  surface: RunbookSurface,
  caller: Caller,
  request: { readonly runId: string },
): Promise<CancelRunOutcome> {
  if (!RUN_ID_PATTERN.test(request.runId)) return { kind: 'invalid_run_id' };
  // People see a run's first 8 characters; the whole id (a button's value) is found the same way.
  const run = await deps.store.runbooks.findRun(caller.team, request.runId);
  if (!run || run.channel !== caller.channel) return { kind: 'not_found' };
  if (run.state !== 'running') return { kind: 'ended' };
  if (run.user !== caller.user) {
    const policy = await deps.store.approvalPolicy.get(caller.team);
    if (!(await isPolicyAdmin(deps, caller, policy))) return { kind: 'not_allowed', startedBy: run.user };
  }
  const cancelled = await requestCancel(deps, surface, caller.team, run.id, caller.user);
  return cancelled.kind === 'not_running'
    ? { kind: 'ended' }
    : { kind: 'cancelled', runningStep: cancelled.runningStep };
}
