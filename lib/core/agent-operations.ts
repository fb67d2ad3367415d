import type { AnyOperation } from '../api/operation.js';
import { helpFitFor } from '../changes/guardrails.js';
import type { CommandOperation } from '../commands/registry.js';
import type { ReadAhead, Store } from '../store/index.js';
import type { Caller } from './caller.js';

/**
 * Which operations an agent may reach for its person, and how: what `tools/list` needs, kept apart
 * from running them (`agent-calls.ts`) so that listing the tools loads neither the API client nor
 * the change workflow.
 */

export type AgentOperationKind = 'read' | 'change' | 'destructive';

/** How an operation is reached by an agent: a read, a change, or a destructive change. */
export function agentKindOf(op: Pick<AnyOperation, 'method' | 'destructive'>): AgentOperationKind {
  if (op.method === 'GET') return 'read';
  return op.destructive ? 'destructive' : 'change';
}

/**
 * The operations the person's token and the home channel allow, or all when nothing narrows them.
 * `read`: the caller's items, if they were already being read (`callerKeys`).
 */
export async function operationsFor<Op extends CommandOperation>(
  deps: { readonly store: Store },
  caller: Caller,
  all: readonly Op[],
  read?: ReadAhead,
): Promise<readonly Op[]> {
  const fit = await helpFitFor(deps.store, caller.team, caller.user, caller.channel, read);
  return fit ? all.filter((op) => fit.allows(op)) : all;
}
