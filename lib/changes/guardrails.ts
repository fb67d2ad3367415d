import type { AnyOperation, OperationClass, Scope } from '../api/operation.js';
import type { HelpFit } from '../commands/help-topics.js';
import type { CommandOperation } from '../commands/registry.js';
import type { ApprovalPolicy, ApprovalRule, ReadAhead, Store, StoredChannelPolicy } from '../store/index.js';

/**
 * Channel guardrails: what may run in a channel and who must approve it there. The rule for an
 * operation id wins over the rule for its class, which wins over the workspace policy; each sets
 * only what it names. Checked before any API call.
 */

export const CLASS_WORDS: Record<OperationClass, string> = {
  read: 'read',
  change: 'change',
  costs: 'costs money',
  destructive: 'destructive',
};

/** Where the policy in force comes from. */
export type PolicySource =
  | { readonly kind: 'workspace' }
  | { readonly kind: 'operation_rule'; readonly operationId: string; readonly setBy: string }
  | { readonly kind: 'class_rule'; readonly opClass: OperationClass; readonly setBy: string };

export interface EffectivePolicy {
  readonly policy: ApprovalPolicy;
  /** Where the policy comes from, for the card and `/cloud policy`. */
  readonly source: PolicySource;
}

/** The approval policy in force for `op` in `channel`. */
export async function effectiveApprovalPolicy(
  store: Store,
  team: string,
  channel: string,
  op: AnyOperation,
  /** The policies, if they were already being read. */
  read?: ReadAhead,
): Promise<EffectivePolicy> {
  const [workspace, channelPolicy] = await Promise.all([
    store.approvalPolicy.get(team, read),
    store.channelPolicy.get(team, channel, read),
  ]);
  return applyRules(workspace, channelPolicy, op);
}

export function applyRules(
  workspace: ApprovalPolicy,
  channelPolicy: StoredChannelPolicy | undefined,
  op: AnyOperation,
): EffectivePolicy {
  if (!channelPolicy) return { policy: workspace, source: { kind: 'workspace' } };
  const byClass = ownRule(channelPolicy.rules, op.class);
  const byOperation = ownRule(channelPolicy.rules, op.id);
  if (!byClass && !byOperation) return { policy: workspace, source: { kind: 'workspace' } };
  const policy = { ...workspace, ...defined(byClass), ...defined(byOperation) };
  const setBy = channelPolicy.updatedBy;
  const source: PolicySource = byOperation
    ? { kind: 'operation_rule', operationId: op.id, setBy }
    : { kind: 'class_rule', opClass: op.class, setBy };
  return { policy, source };
}

/** Why `op` may not run in a channel: the class it is, what the channel allows, and where it may run. */
export interface GuardrailRefusal {
  readonly op: AnyOperation;
  readonly allowedClasses: readonly OperationClass[];
  readonly setBy: string;
  readonly setAt: Date;
  /** Channels whose policy allows it, the first few. */
  readonly allowedIn: readonly string[];
  /** How many channels' policies allow it in all (`allowedIn` names the first few). */
  readonly allowedInCount: number;
}

export interface ChannelGuard {
  /** Why `op` may not run here, naming the rule and where it is allowed. */
  readonly refusal?: GuardrailRefusal;
  /** A channel rule asks for approval of this change although it is not destructive. */
  readonly approvalRequired: boolean;
}

/**
 * What the channel says about `op`, from the store alone: nothing reaches the API before this
 * says yes. Destructive operations always need approval; a channel rule for a class or an
 * operation makes other changes need it too.
 */
export async function channelGuard(
  store: Store,
  team: string,
  channel: string,
  op: AnyOperation,
  /** The caller's items, if they were already being read. */
  read?: ReadAhead,
): Promise<ChannelGuard> {
  const policy = await store.channelPolicy.get(team, channel, read);
  const refusal = await guardrailRefusal(store, team, op, policy);
  const ruled =
    policy !== undefined &&
    op.method !== 'GET' &&
    (Object.hasOwn(policy.rules, op.id) || Object.hasOwn(policy.rules, op.class));
  return { ...(refusal && { refusal }), approvalRequired: op.destructive !== undefined || ruled };
}

/** Channels a refusal names as allowing the operation; more would not help anyone read it. */
const ALLOWED_ELSEWHERE_SHOWN = 8;

async function guardrailRefusal(
  store: Store,
  team: string,
  op: AnyOperation,
  policy: StoredChannelPolicy | undefined,
): Promise<GuardrailRefusal | undefined> {
  if (!policy || policy.allowedClasses.includes(op.class)) return undefined;
  const allowedIn = (await store.channelPolicy.list(team))
    .filter((p) => p.allowedClasses.includes(op.class))
    .map((p) => p.channel);
  return {
    op,
    allowedClasses: policy.allowedClasses,
    setBy: policy.updatedBy,
    setAt: policy.updatedAt,
    allowedIn: allowedIn.slice(0, ALLOWED_ELSEWHERE_SHOWN),
    allowedInCount: allowedIn.length,
  };
}

function ownRule(rules: Readonly<Record<string, ApprovalRule>>, key: string): ApprovalRule | undefined {
  return Object.hasOwn(rules, key) ? rules[key] : undefined;
}

function defined(rule: ApprovalRule | undefined): Partial<ApprovalPolicy> {
  if (!rule) return {};
  return Object.fromEntries(
    Object.entries(rule).filter(([, value]) => value !== undefined),
  ) as Partial<ApprovalPolicy>;
}

/**
 * Help fitted to the caller, or undefined when nothing narrows it (no linked token with known
 * scopes, no channel policy) or storage cannot say: then help lists everything.
 */
export async function helpFitFor(
  store: Store,
  team: string,
  user: string,
  channel: string,
  /** The caller's items, if they were already being read. */
  read?: ReadAhead,
): Promise<HelpFit | undefined> {
  try {
    // Read without the repositories, so a cold `/cloud help` loads neither them nor zod.
    const { scopes, channelPolicy: policy } = await store.helpScope(team, user, channel, read);
    if (!scopes && !policy) return undefined;
    const why = [scopes && "your token's scopes", policy && "this channel's policy"]
      .filter(Boolean)
      .join(' and ');
    const allowedClasses = policy?.allowedClasses;
    return {
      why,
      allows: (op) =>
        (!allowedClasses || allowedClasses.includes(op.class)) && (!scopes || tokenCovers(scopes, op)),
    };
  } catch {
    return undefined;
  }
}

/** Whether a token with `scopes` may call `op`: `*` covers all, read_write covers read_only. */
export function tokenCovers(
  scopes: readonly string[],
  op: Pick<CommandOperation, 'access' | 'scopes'>,
): boolean {
  if (op.access !== 'scoped') return true;
  return op.scopes.every((needed: Scope) => {
    if (scopes.includes('*') || scopes.includes(needed)) return true;
    const [area, level] = needed.split(':');
    return level === 'read_only' && scopes.includes(`${area}:read_write`);
  });
}
