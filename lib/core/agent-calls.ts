import type { AnyOperation } from '../api/operation.js';
import { loadOperation } from '../api/operations/by-group.js';
import { targetOf } from '../changes/audit.js';
import { channelGuard, type GuardrailRefusal } from '../changes/guardrails.js';
import { type RequestStanding, type RunStanding, standingOf } from '../changes/request-standing.js';
import type { TokenProblem } from '../changes/tokens.js';
import type { Approval, ReadAhead } from '../store/index.js';
import { type AgentOperationKind, agentKindOf } from './agent-operations.js';
import type { Caller } from './caller.js';
import { type OperationDeps, runOperation } from './operations.js';

/**
 * What an agent may do for the person it acts for, by the rules a person's own commands obey: the
 * home channel's guardrails, the person's token, and approval. Two rules are the agent's own:
 * every change it asks for waits for people in the home channel (even one a person could run at
 * once there), and it never decides a request: approving, denying, cancelling and break-glass are
 * not offered to it at all. Outcomes are data; the agent surface words them. Asking for a change
 * is `agent-changes.ts`, so a read loads none of the change path.
 */

/** Why nothing was run, before any API call. */
export type AgentRefusal =
  | { readonly kind: 'unknown_operation'; readonly operation: string }
  /** The operation is not of the kind the tool runs (a change through the read tool). */
  | { readonly kind: 'wrong_tool'; readonly op: AnyOperation; readonly expected: AgentOperationKind }
  | { readonly kind: 'invalid_input'; readonly op: AnyOperation; readonly problems: readonly string[] }
  | { readonly kind: 'channel_refused'; readonly refusal: GuardrailRefusal }
  | { readonly kind: 'no_token'; readonly problem: TokenProblem; readonly profile: string };

export interface AgentCall {
  readonly operation: string;
  readonly arguments: unknown;
}

export type AgentReadOutcome =
  | AgentRefusal
  | { readonly kind: 'answered'; readonly op: AnyOperation; readonly output: unknown };

export interface AgentReadControl {
  readonly signal?: AbortSignal | undefined;
  readonly deadline?: number | undefined;
  readonly page?: number | undefined;
  /** The caller's items, if they were already being read (`callerKeys`): the guard and the token take theirs from it. */
  readonly callerRead?: ReadAhead | undefined;
  /**
   * Takes the read's audit entry to finish beside the answer: the surface waits for it before its
   * answer leaves. Without it, the read waits for the entry itself.
   */
  readonly afterwards?: Afterwards | undefined;
}

/**
 * Takes work that finishes beside a surface's answer. The read goes on once it returns: a surface
 * that answers with a burst of work of its own may hold the read until the write is on its way.
 */
export type Afterwards = (work: Promise<void>) => Promise<void> | void;

/**
 * Runs a read for the person with their own token, where the home channel allows it. API
 * failures are thrown (an `ApiError`), after the audit line (or with it handed to `afterwards`).
 */
export async function agentRead(
  deps: OperationDeps,
  caller: Caller,
  call: AgentCall,
  control: AgentReadControl = {},
): Promise<AgentReadOutcome> {
  const { callerRead } = control;
  // Started with the checks, so the token's repository and cipher load while the guard reads.
  const tokenLookup =
    callerRead && deps.store.tokenLinks.getToken(caller.team, caller.user, undefined, callerRead);
  tokenLookup?.catch(() => undefined);
  const checked = await checkCall(deps, caller, call, ['read'], callerRead);
  if (checked.kind !== 'checked') return checked;
  const { op, input } = checked;
  const request = { team: caller.team, user: caller.user, channel: caller.channel, op, input };
  try {
    const outcome = await runOperation(
      deps,
      { ...request, options: { page: control.page } },
      {
        signal: control.signal,
        deadline: control.deadline,
        tokenLookup,
      },
    );
    if (outcome.kind === 'no_token') return outcome;
    await audited(auditRead(deps, caller, op, input, 'succeeded'), control);
    return { kind: 'answered', op, output: outcome.output };
  } catch (error) {
    await audited(auditRead(deps, caller, op, input, 'failed'), control);
    throw error;
  }
}

/** Where a request an agent asked for stands, as every surface shows it. */
export type AgentRequestState =
  | 'waiting_for_approval'
  | 'approved'
  | 'running'
  | 'done'
  | 'failed'
  | 'in_doubt'
  | 'unknown'
  | 'not_run'
  | 'denied'
  | 'expired'
  | 'cancelled';

export interface AgentRequestView {
  readonly id: string;
  readonly operation: string;
  readonly target: string;
  /** How it stands, as every surface reads it; `state` is its machine name. */
  readonly standing: RequestStanding;
  readonly state: AgentRequestState;
  /** True when it ran through break-glass rather than approvals. */
  readonly breakGlass: boolean;
  readonly approvals: number;
  readonly requiredApprovals: number;
  readonly approvers: readonly string[];
  readonly decidedBy?: string | undefined;
  readonly decideBy: Date;
  readonly channel: string;
  /** What the run's end says (an error's words, what the in-doubt checks found). */
  readonly detail?: string | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A request of the person's, as it stands now. Only their own: an agent cannot read what others
 * asked for, whatever id it guesses.
 */
export async function agentRequestStatus(
  deps: Pick<OperationDeps, 'store'>,
  caller: Caller,
  id: string,
): Promise<{ readonly kind: 'not_found' } | { readonly kind: 'found'; readonly request: AgentRequestView }> {
  if (!UUID.test(id)) return { kind: 'not_found' };
  const approval = await deps.store.approvals.get(caller.team, id);
  if (!approval || approval.requester !== caller.user) return { kind: 'not_found' };
  return { kind: 'found', request: requestView(approval) };
}

export function requestView(approval: Approval): AgentRequestView {
  const standing = standingOf(approval);
  const decided = approval.deniedBy ?? approval.cancelledBy;
  const detail = approval.result?.detail ?? approval.doubtNote ?? undefined;
  return {
    id: approval.id,
    operation: approval.operationId,
    target: approval.summary,
    standing,
    state: stateOf(standing),
    breakGlass: approval.breakGlass !== null,
    approvals: approval.approvals.length,
    requiredApprovals: approval.requiredApprovals,
    approvers: approval.approvals.map((vote) => vote.user),
    ...(decided ? { decidedBy: decided.user } : {}),
    decideBy: approval.decideBy,
    channel: approval.channel,
    ...(detail ? { detail } : {}),
  };
}

/** The machine state of a request: its standing (`standingOf`), as every surface reads it. */
function stateOf(standing: RequestStanding): AgentRequestState {
  switch (standing.kind) {
    case 'waiting':
    case 'awaiting_requester':
      return 'waiting_for_approval';
    case 'denied':
    case 'cancelled':
    case 'expired':
      return standing.kind;
    case 'let_run':
      return AGENT_RUN_STATE[standing.run];
  }
}

const AGENT_RUN_STATE: Record<RunStanding, AgentRequestState> = {
  starting: 'approved',
  running: 'running',
  done: 'done',
  failed: 'failed',
  in_doubt: 'in_doubt',
  unknown: 'unknown',
  not_run: 'not_run',
};

export type CheckedCall =
  | { readonly kind: 'checked'; readonly op: AnyOperation; readonly input: Readonly<Record<string, unknown>> }
  | AgentRefusal;

/**
 * The operation exists, is of the tool's kind, its input is valid, and the home channel allows it.
 * Only the called operation's group of the table is loaded: a cold start serving one call would
 * spend more building every row than on the call.
 */
export async function checkCall(
  deps: Pick<OperationDeps, 'store'>,
  caller: Caller,
  call: AgentCall,
  kinds: readonly AgentOperationKind[],
  callerRead: ReadAhead | undefined,
): Promise<CheckedCall> {
  const op = typeof call.operation === 'string' ? await loadOperation(call.operation) : undefined;
  if (!op) return { kind: 'unknown_operation', operation: String(call.operation).slice(0, 100) };
  const kind = agentKindOf(op);
  if (!kinds.includes(kind)) return { kind: 'wrong_tool', op, expected: kind };
  const parsed = op.request.safeParse(call.arguments ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 10)
      .map((issue) => `${issue.path.map(String).join('.') || '(arguments)'}: ${issue.message}`);
    return { kind: 'invalid_input', op, problems };
  }
  const guard = await channelGuard(deps.store, caller.team, caller.channel, op, callerRead);
  if (guard.refusal) return { kind: 'channel_refused', refusal: guard.refusal };
  return { kind: 'checked', op, input: parsed.data as Readonly<Record<string, unknown>> };
}

/** The audit entry handed to `afterwards`, or waited for here. */
async function audited(entry: Promise<void>, control: AgentReadControl): Promise<void> {
  if (control.afterwards) await control.afterwards(entry);
  else await entry;
}

async function auditRead(
  deps: OperationDeps,
  caller: Caller,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  result: 'succeeded' | 'failed',
): Promise<void> {
  await deps.store.audit
    .append({
      team: caller.team,
      actor: caller.user,
      action: op.id,
      target: targetOf(op, input),
      result,
      ...(caller.agent ? { viaAgent: caller.agent.name } : {}),
    })
    .catch((error: unknown) => deps.logger.error('audit entry not written', { operationId: op.id, error }));
}
