import type { ApprovalSurface } from '../changes/ports.js';
import { type RequestOutcome, requestApproval, type TargetPreviewer } from '../changes/requests.js';
import { requesterToken } from '../changes/tokens.js';
import type { ReadAhead } from '../store/index.js';
import { type AgentCall, type AgentRefusal, checkCall } from './agent-calls.js';
import type { AgentOperationKind } from './agent-operations.js';
import type { Caller } from './caller.js';
import type { OperationDeps } from './operations.js';

/**
 * What an agent asks for when it asks for a change: the rules of `agent-calls.ts` first, then
 * the approval card. Apart from the reads, which load none of it.
 */

export type AgentChangeOutcome = AgentRefusal | RequestOutcome;

export interface AgentChange extends AgentCall {
  readonly reason?: string | undefined;
}

/**
 * Asks for a change for the person: the same approval card a person's command would post, in the
 * agent's home channel, naming the agent. Nothing runs until people approve it there.
 */
export async function agentChange(
  deps: OperationDeps & { readonly previewTarget: TargetPreviewer },
  surface: ApprovalSurface,
  caller: Caller,
  change: AgentChange,
  kind: Exclude<AgentOperationKind, 'read'>,
  /** The caller's items, if they were already being read (`callerKeys`). */
  callerRead?: ReadAhead,
): Promise<AgentChangeOutcome> {
  const checked = await checkCall(deps, caller, change, [kind], callerRead);
  if (checked.kind !== 'checked') return checked;
  const { op, input } = checked;
  const token = await requesterToken(
    deps.store,
    caller.team,
    caller.user,
    op,
    callerRead && deps.store.tokenLinks.getToken(caller.team, caller.user, undefined, callerRead),
  );
  if (!token.ok) return { kind: 'no_token', problem: token.problem, profile: token.profile };
  return requestApproval(
    { ...deps, previewTarget: deps.previewTarget },
    surface,
    {
      team: caller.team,
      user: caller.user,
      channel: caller.channel,
      op,
      input,
      reason: change.reason,
      ...(caller.agent ? { viaAgent: { name: caller.agent.name, grantId: caller.agent.grantId } } : {}),
    },
    token.token,
  );
}
