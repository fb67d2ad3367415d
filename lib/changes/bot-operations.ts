/**
 * Changes the bot makes itself rather than through the API, reviewed like any change: stored as an
 * approval request under an id of their own, decided under the workspace's approval policy (no
 * channel rule names them), and run by the handler the surface gives for that id
 * (`ApprovedRunSurface.botOperations` in `execution.ts`). An id here is never an API operation id.
 */
export const BOT_OPERATION_IDS = [
  /** Removing every step-up method of someone else, asked for by a policy admin. */
  'mfa.reset',
  /** A workspace's settings document (an import or a rollback), kept as a proposal until approved. */
  'settings.apply',
] as const;

export type BotOperationId = (typeof BOT_OPERATION_IDS)[number];

export function botOperationOf(operationId: string): BotOperationId | undefined {
  return BOT_OPERATION_IDS.find((id) => id === operationId);
}

/** The request's summary (its audit target) for a reset of `user`'s step-up methods. */
export function resetSummary(user: string): string {
  return `user ${user}`;
}

/**
 * The person a request changes for themself, who may never decide it: a reset of their step-up
 * methods approved by them would let whoever holds their Slack session enroll a first method of
 * their own afterwards.
 */
export function subjectOf(approval: {
  readonly operationId: string;
  readonly summary: string;
}): string | undefined {
  if (botOperationOf(approval.operationId) !== 'mfa.reset') return undefined;
  return /^user ([UW][A-Z0-9]+)$/.exec(approval.summary)?.[1];
}

/**
 * Whether only admins may decide the request: a change to the workspace's settings is decided by
 * those who may change them (the policy's admins, the workspace's, the deployment's).
 */
export function decidedByAdmins(approval: { readonly operationId: string }): boolean {
  return botOperationOf(approval.operationId) === 'settings.apply';
}
