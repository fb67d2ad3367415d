import type { AgentAuthorizationStore } from './agent-authorizations.js';
import type { AgentClientRepository } from './agent-clients.js';
import type { AgentGrantRepository } from './agent-grants.js';
import type { AlertClaimRepository } from './alert-claims.js';
import type { AlertSnoozeRepository } from './alert-snoozes.js';
import type { AliasRepository } from './aliases.js';
import type { ApprovalPolicyRepository } from './approval-policy.js';
import type { ApprovalRepository } from './approvals.js';
import type { AuditLogRepository } from './audit-log.js';
import type { ChannelPolicyRepository } from './channel-policy.js';
import { DeliveryClaims } from './delivery-claims.js';
import { StoreError } from './errors.js';
import type { InstallationRepository, OAuthStateStore } from './installations.js';
import { loadAhead, type OnFirstUse, onFirstUse } from './lazy.js';
import type { PasskeyLinkStore } from './passkey-links.js';
import type { PasskeyRepository } from './passkeys.js';
import { type HelpScope, type ItemKey, type ReadAhead, readAhead, readHelpScope } from './read-ahead.js';
import type { ReportSubscriptionRepository } from './report-subscriptions.js';
import type { ResourceCardRepository } from './resource-cards.js';
import type { RunbookRepository } from './runbooks.js';
import type { SettingsVersionRepository } from './settings-versions.js';
import type { StatusWatchRepository } from './status-watches.js';
import type { StepUpRepository } from './step-up.js';
import type { StoreContext } from './store-context.js';
import type { TeamUserData } from './team-data.js';
import type { TokenCipher } from './token-cipher.js';
import type { TokenLinkRepository } from './token-links.js';

export type {
  AuthorizationCode,
  AuthorizationRequest,
  OfferedChannel,
  PendingSignIn,
  SignedInPerson,
  SignInRefusal,
} from './agent-authorizations.js';
export type { RegisteredClient } from './agent-clients.js';
export type {
  AgentGrant,
  AgentScope,
  IssuedTokens,
  NewAgentGrant,
  TokenRefusal,
  VerifiedAgentToken,
} from './agent-grants.js';
export type { AlertClaim, ClaimResult } from './alert-claims.js';
export type { AliasScope, StoredAlias } from './aliases.js';
export type { ApprovalPolicy, StepUpRequirement } from './approval-policy.js';
export type {
  Approval,
  ApprovalAgent,
  ApprovalOutcome,
  ApprovalRunbookStep,
  ApprovalStatus,
  ApprovalVote,
  CardCopy,
  DueApproval,
  ExecutionClaim,
  NewVote,
  VoteMethod,
  VoteView,
  VoteWrite,
} from './approvals.js';
export type { AuditEntry, AuditResult, NewAuditEntry } from './audit-log.js';
export type { ApprovalRule, ChannelPolicy, StoredChannelPolicy } from './channel-policy.js';
export { SecretDecryptionError, StoreError } from './errors.js';
export type {
  InstallationNotFoundError,
  InstallationRepository,
  OAuthStateError,
  OAuthStateStore,
  SlackInstallation,
} from './installations.js';
export { loadAhead } from './lazy.js';
export type { HelpScope, ItemKey, ReadAhead } from './read-ahead.js';
export { approvalClickKeys, callerKeys } from './read-ahead.js';
export type { ReportKind, ReportSchedule, ReportSubscription } from './report-subscriptions.js';
export type { ResourceCard, ResourceDeletion } from './resource-cards.js';
export type {
  Runbook,
  RunbookRun,
  RunbookRunState,
  RunbookStep,
  RunbookStepLink,
  RunbookStepState,
} from './runbooks.js';
export type { SettingsProposal, SettingsSource, SettingsVersion } from './settings-versions.js';
export type { NewStatusWatch, StatusWatch, WatchOutcome } from './status-watches.js';
export type {
  ChallengeDecision,
  ChallengeMethods,
  ChallengeUse,
  CodeEnrollment,
  FactorChallenge,
  FactorChange,
  StepUpChallenge,
} from './step-up.js';
export type { StoreContext } from './store-context.js';
export type { CipherContext, Envelope, TokenCipher } from './token-cipher.js';
export type { TokenLink, TokenLookup } from './token-links.js';

/**
 * Every repository over one table, wired once per Lambda instance by the entry points. Each
 * repository's module loads on its first call (`lazy.ts`), except the delivery claim, which every
 * Slack request makes first.
 */
export interface Store {
  readonly tokenLinks: OnFirstUse<TokenLinkRepository>;
  readonly approvals: OnFirstUse<ApprovalRepository>;
  readonly approvalPolicy: OnFirstUse<ApprovalPolicyRepository>;
  readonly channelPolicy: OnFirstUse<ChannelPolicyRepository>;
  readonly reports: OnFirstUse<ReportSubscriptionRepository>;
  readonly audit: OnFirstUse<AuditLogRepository>;
  readonly deliveries: DeliveryClaims;
  readonly statusWatches: OnFirstUse<StatusWatchRepository>;
  readonly alertClaims: OnFirstUse<AlertClaimRepository>;
  /** Where resources' cards were posted, and resources deleted through the bot, for a day. */
  readonly resourceCards: OnFirstUse<ResourceCardRepository>;
  readonly alertSnoozes: OnFirstUse<AlertSnoozeRepository>;
  readonly installations: OnFirstUse<InstallationRepository>;
  readonly oauthStates: OnFirstUse<OAuthStateStore>;
  readonly teamUserData: OnFirstUse<TeamUserData>;
  readonly aliases: OnFirstUse<AliasRepository>;
  /** Registered passkeys (sealed), per person. */
  readonly passkeys: OnFirstUse<PasskeyRepository>;
  /** One-time links to the passkey page. */
  readonly passkeyLinks: OnFirstUse<PasskeyLinkStore>;
  readonly runbooks: OnFirstUse<RunbookRepository>;
  /** The versions of the workspace's settings document, and documents waiting for approval. */
  readonly settingsVersions: OnFirstUse<SettingsVersionRepository>;
  readonly stepUp: OnFirstUse<StepUpRepository>;
  /** Agents people let act for them, and their tokens (hashed). */
  readonly agentGrants: OnFirstUse<AgentGrantRepository>;
  /** Agents' sign-ins in progress and their authorization codes (hashed). */
  readonly agentAuthorizations: OnFirstUse<AgentAuthorizationStore>;
  /** Agents registered through Dynamic Client Registration. */
  readonly agentClients: OnFirstUse<AgentClientRepository>;
  /** The store's clock (the tests move it). */
  readonly now: () => Date;
  /**
   * Sends one batch read of `keys` at once, without loading the repositories that parse the items
   * (`read-ahead.ts`); they take it as `read` (`callerKeys`, `approvalClickKeys`).
   */
  readAhead(keys: readonly ItemKey[]): ReadAhead;
  /** What `/cloud help` is fitted to, read without loading the repositories (`read-ahead.ts`). */
  helpScope(team: string, user: string, channel: string, read?: ReadAhead): Promise<HelpScope>;
}

/**
 * Repository classes a function loads with its start, for the store to make at once instead of on
 * first use: what every request of that function calls first, whose first call should not wait
 * for a module (the agents' function checks a token on every call).
 */
export interface LoadedRepositories {
  readonly agentGrants?: typeof AgentGrantRepository | undefined;
  /**
   * Where the repositories a read uses load from, together with the code that reads, instead of
   * each from its own module: one module to load for a first read, not one per repository.
   */
  readonly readPath?: (() => Promise<ReadPathRepositories>) | undefined;
}

/** The repositories a read uses: the person's token, the home channel's policy and the audit. */
export interface ReadPathRepositories {
  readonly TokenLinkRepository: typeof TokenLinkRepository;
  readonly ChannelPolicyRepository: typeof ChannelPolicyRepository;
  readonly AuditLogRepository: typeof AuditLogRepository;
}

export function createStore(
  ctx: StoreContext,
  cipher: TokenCipher | OnFirstUse<TokenCipher>,
  loaded: LoadedRepositories = {},
): Store {
  const { readPath } = loaded;
  return {
    tokenLinks: onFirstUse(async () => {
      // Every use of a link seals or opens a token: the cipher's module loads alongside.
      loadAhead(cipher);
      const { TokenLinkRepository } = await (readPath?.() ?? import('./token-links.js'));
      return new TokenLinkRepository(ctx, cipher);
    }),
    approvals: onFirstUse(async () => new (await import('./approvals.js')).ApprovalRepository(ctx, cipher)),
    approvalPolicy: onFirstUse(
      async () => new (await import('./approval-policy.js')).ApprovalPolicyRepository(ctx),
    ),
    channelPolicy: onFirstUse(async () => {
      const { ChannelPolicyRepository } = await (readPath?.() ?? import('./channel-policy.js'));
      return new ChannelPolicyRepository(ctx);
    }),
    reports: onFirstUse(
      async () => new (await import('./report-subscriptions.js')).ReportSubscriptionRepository(ctx),
    ),
    audit: onFirstUse(async () => {
      const { AuditLogRepository } = await (readPath?.() ?? import('./audit-log.js'));
      return new AuditLogRepository(ctx);
    }),
    deliveries: new DeliveryClaims(ctx),
    statusWatches: onFirstUse(
      async () => new (await import('./status-watches.js')).StatusWatchRepository(ctx),
    ),
    alertClaims: onFirstUse(async () => new (await import('./alert-claims.js')).AlertClaimRepository(ctx)),
    resourceCards: onFirstUse(
      async () => new (await import('./resource-cards.js')).ResourceCardRepository(ctx),
    ),
    alertSnoozes: onFirstUse(async () => new (await import('./alert-snoozes.js')).AlertSnoozeRepository(ctx)),
    installations: onFirstUse(
      async () => new (await import('./installations.js')).InstallationRepository(ctx, cipher),
    ),
    oauthStates: onFirstUse(async () => new (await import('./installations.js')).OAuthStateStore(ctx)),
    runbooks: onFirstUse(async () => new (await import('./runbooks.js')).RunbookRepository(ctx)),
    settingsVersions: onFirstUse(
      async () => new (await import('./settings-versions.js')).SettingsVersionRepository(ctx),
    ),
    teamUserData: onFirstUse(async () => new (await import('./team-data.js')).TeamUserData(ctx)),
    aliases: onFirstUse(async () => new (await import('./aliases.js')).AliasRepository(ctx)),
    passkeys: onFirstUse(async () => new (await import('./passkeys.js')).PasskeyRepository(ctx, cipher)),
    passkeyLinks: onFirstUse(async () => new (await import('./passkey-links.js')).PasskeyLinkStore(ctx)),
    stepUp: onFirstUse(async () => new (await import('./step-up.js')).StepUpRepository(ctx, cipher)),
    agentGrants: loaded.agentGrants
      ? new loaded.agentGrants(ctx)
      : onFirstUse(async () => new (await import('./agent-grants.js')).AgentGrantRepository(ctx)),
    agentAuthorizations: onFirstUse(
      async () => new (await import('./agent-authorizations.js')).AgentAuthorizationStore(ctx),
    ),
    agentClients: onFirstUse(async () => new (await import('./agent-clients.js')).AgentClientRepository(ctx)),
    now: ctx.now,
    readAhead: (itemKeys) => readAhead(ctx, itemKeys),
    helpScope: (team, user, channel, read) => readHelpScope(ctx, team, user, channel, read),
  };
}

/**
 * The cipher the configuration asks for: KMS when a key id is set (AWS), otherwise the local key
 * (local stack and tests). Takes the parsed `KMS_KEY_ID` / `TOKEN_ENCRYPTION_KEY` of `lib/config.ts`.
 */
export function createTokenCipher(config: {
  KMS_KEY_ID?: string | undefined;
  TOKEN_ENCRYPTION_KEY?: string | undefined;
}): OnFirstUse<TokenCipher> {
  const { KMS_KEY_ID: keyId, TOKEN_ENCRYPTION_KEY: localKey } = config;
  if (keyId) {
    return onFirstUse(async () => {
      const { KmsTokenCipher, kmsClientOnFirstUse } = await import('./kms-token-cipher.js');
      return new KmsTokenCipher(kmsClientOnFirstUse(), keyId);
    });
  }
  if (localKey) {
    // Checked at start, as the configuration is, though the cipher loads on first use.
    if (Buffer.from(localKey, 'base64').length !== 32 || !/^[A-Za-z0-9+/]+={0,2}$/.test(localKey)) {
      throw new StoreError('invalid_key_material', 'TOKEN_ENCRYPTION_KEY must be base64 of 32 random bytes.');
    }
    return onFirstUse(async () =>
      (await import('./token-cipher.js')).LocalKeyTokenCipher.fromBase64(localKey),
    );
  }
  throw new StoreError(
    'invalid_key_material',
    'Set KMS_KEY_ID (AWS) or TOKEN_ENCRYPTION_KEY (local) to store tokens.',
  );
}
