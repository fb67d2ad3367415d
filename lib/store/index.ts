import { AlertClaimRepository } from './alert-claims.js';
import { ApprovalPolicyRepository } from './approval-policy.js';
import { ApprovalRepository } from './approvals.js';
import { AuditLogRepository } from './audit-log.js';
import { ChannelPolicyRepository } from './channel-policy.js';
import { DeliveryClaims } from './delivery-claims.js';
import { StoreError } from './errors.js';
import { InstallationRepository, OAuthStateStore } from './installations.js';
import { KmsTokenCipher, kmsClientOnFirstUse } from './kms-token-cipher.js';
import { ReportSubscriptionRepository } from './report-subscriptions.js';
import { StatusWatchRepository } from './status-watches.js';
import type { StoreContext } from './store-context.js';
import { TeamUserData } from './team-data.js';
import { LocalKeyTokenCipher, type TokenCipher } from './token-cipher.js';
import { TokenLinkRepository } from './token-links.js';

export type { AlertClaim, ClaimResult } from './alert-claims.js';
export type { ApprovalPolicy } from './approval-policy.js';
export type {
  Approval,
  ApprovalOutcome,
  ApprovalStatus,
  DecisionOutcome,
  DecisionResult,
  DueApproval,
  ExecutionClaim,
} from './approvals.js';
export type { AuditEntry, AuditResult, NewAuditEntry } from './audit-log.js';
export type { ApprovalRule, ChannelPolicy, StoredChannelPolicy } from './channel-policy.js';
export { SecretDecryptionError, StoreError } from './errors.js';
export {
  InstallationNotFoundError,
  InstallationRepository,
  OAuthStateError,
  OAuthStateStore,
  type SlackInstallation,
} from './installations.js';
export type { ReportKind, ReportSchedule, ReportSubscription } from './report-subscriptions.js';
export type { NewStatusWatch, StatusWatch, WatchOutcome } from './status-watches.js';
export type { StoreContext } from './store-context.js';
export type { CipherContext, Envelope, TokenCipher } from './token-cipher.js';
export type { TokenLink, TokenLookup } from './token-links.js';

/** Every repository over one table, wired once per Lambda instance by the entry points. */
export interface Store {
  readonly tokenLinks: TokenLinkRepository;
  readonly approvals: ApprovalRepository;
  readonly approvalPolicy: ApprovalPolicyRepository;
  readonly channelPolicy: ChannelPolicyRepository;
  readonly reports: ReportSubscriptionRepository;
  readonly audit: AuditLogRepository;
  readonly deliveries: DeliveryClaims;
  readonly statusWatches: StatusWatchRepository;
  readonly alertClaims: AlertClaimRepository;
  readonly installations: InstallationRepository;
  readonly oauthStates: OAuthStateStore;
  readonly teamUserData: TeamUserData;
}

export function createStore(ctx: StoreContext, cipher: TokenCipher): Store {
  return {
    tokenLinks: new TokenLinkRepository(ctx, cipher),
    approvals: new ApprovalRepository(ctx, cipher),
    approvalPolicy: new ApprovalPolicyRepository(ctx),
    channelPolicy: new ChannelPolicyRepository(ctx),
    reports: new ReportSubscriptionRepository(ctx),
    audit: new AuditLogRepository(ctx),
    deliveries: new DeliveryClaims(ctx),
    statusWatches: new StatusWatchRepository(ctx),
    alertClaims: new AlertClaimRepository(ctx),
    installations: new InstallationRepository(ctx, cipher),
    oauthStates: new OAuthStateStore(ctx),
    teamUserData: new TeamUserData(ctx),
  };
}

/**
 * The cipher the configuration asks for: KMS when a key id is set (AWS), otherwise the local key
 * (local stack and tests). Takes the parsed `KMS_KEY_ID` / `TOKEN_ENCRYPTION_KEY` of `lib/config.ts`.
 */
export function createTokenCipher(config: {
  KMS_KEY_ID?: string | undefined;
  TOKEN_ENCRYPTION_KEY?: string | undefined;
}): TokenCipher {
  if (config.KMS_KEY_ID) return new KmsTokenCipher(kmsClientOnFirstUse(), config.KMS_KEY_ID);
  if (config.TOKEN_ENCRYPTION_KEY) return LocalKeyTokenCipher.fromBase64(config.TOKEN_ENCRYPTION_KEY);
  throw new StoreError(
    'invalid_key_material',
    'Set KMS_KEY_ID (AWS) or TOKEN_ENCRYPTION_KEY (local) to store tokens.',
  );
}
