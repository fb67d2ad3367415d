import { StoreError } from './errors.js';

/**
 * The key layout of the single table (see `infra/table.ts`). Every part that comes from outside
 * is checked first, so a `#` in a profile name cannot reach into another item's key.
 */

/** Slack ids (`T…`, `E…`, `U…`, `W…`) and our own generated ids. */
const ID = '[A-Za-z0-9_-]{1,64}';
const ID_PATTERN = new RegExp(`^${ID}$`);
const USER_PARTITION_PATTERN = new RegExp(`^TEAM#(${ID})#USER#(${ID})$`);
/**
 * The names people give to aliases and runbooks: lowercase ASCII letters, digits and dashes,
 * starting with a letter, at most 32: typed easily, never markup. Checked where a name is typed,
 * again where it becomes a key, and where a stored one is read back.
 */
export const COMMAND_NAME_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;
const TEAM_PARTITION_PATTERN = new RegExp(`^TEAM#(${ID})$`);
/** Profile names as people type them after `--profile`. */
export const PROFILE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;
export const DEFAULT_PROFILE = 'default';

function checkedId(kind: string, value: string): string {
  if (!ID_PATTERN.test(value)) throw new StoreError('invalid_key_part', `Invalid ${kind} id.`);
  return value;
}

function checkedVersion(version: number): number {
  if (!Number.isSafeInteger(version) || version < 1 || version >= 1e10) {
    throw new StoreError('invalid_key_part', 'Invalid settings version.');
  }
  return version;
}

export function checkedProfile(profile: string): string {
  if (!PROFILE_NAME_PATTERN.test(profile)) {
    throw new StoreError(
      'invalid_key_part',
      'A profile name is 1 to 32 letters, digits, dots, dashes or underscores, starting with a letter or digit.',
    );
  }
  return profile;
}

function checkedCommandName(kind: 'alias' | 'runbook', name: string): string {
  if (!COMMAND_NAME_PATTERN.test(name)) throw new StoreError('invalid_key_part', `Invalid ${kind} name.`);
  return name;
}

export const keys = {
  team: (team: string) => `TEAM#${checkedId('team', team)}`,
  user: (team: string, user: string) => `TEAM#${checkedId('team', team)}#USER#${checkedId('user', user)}`,
  /**
   * Under `team`: a user who has (or had) items under `user(team, user)`. Written before the
   * user's first item, so removing a workspace finds every user partition by key, without a scan.
   */
  member: (user: string) => `MEMBER#${checkedId('user', user)}`,
  memberPrefix: 'MEMBER#',
  link: (profile: string) => `LINK#${checkedProfile(profile)}`,
  linkPrefix: 'LINK#',
  active: 'ACTIVE',
  approval: (id: string) => `APPROVAL#${checkedId('approval', id)}`,
  policy: 'POLICY',
  channelPolicy: (channel: string) => `CHANNEL#${checkedId('channel', channel)}#POLICY`,
  channelPolicyPrefix: 'CHANNEL#',
  /** Break-glass uses of one user in one hour, for the rate limit. */
  breakGlassUses: (user: string, hour: string) => `BREAKGLASS#${checkedId('user', user)}#${hour}`,
  report: (id: string) => `REPORT#${checkedId('report', id)}`,
  reportPrefix: 'REPORT#',
  audit: (at: Date, id: string) => `AUDIT#${at.toISOString()}#${id}`,
  auditPrefix: 'AUDIT#',
  dueReports: 'DUE',
  dueReportSort: (nextRunAt: Date, id: string) => `${nextRunAt.toISOString()}#${id}`,
  /** Marks that the owner of a token was reminded of its expiry (one item per token expiry). */
  expiryReminder: (profile: string, expiry: Date) =>
    `REMINDER#EXPIRY#${checkedProfile(profile)}#${expiry.toISOString()}`,
  watch: (id: string) => `WATCH#${checkedId('watch', id)}`,
  /** Approvals that will need attention at a known time (expiry, lease, next check) in gsi1. */
  approvalsDue: 'APPROVALS',
  approvalDueSort: (dueAt: Date, team: string, id: string) =>
    `${dueAt.toISOString()}#${checkedId('team', team)}#${checkedId('approval', id)}`,
  /** A workspace's installation (under `team`), or an org-wide one (under `enterprise`). */
  installation: 'INSTALLATION',
  enterprise: (enterprise: string) => `ENTERPRISE#${checkedId('enterprise', enterprise)}`,
  /** Under `team`: the enterprise whose org-wide installation serves this workspace. */
  servedByEnterprise: 'SERVED_BY',
  /** One OAuth state parameter, until it is used or expires. */
  oauthState: (state: string) => `OAUTH_STATE#${checkedId('OAuth state', state)}`,
  /**
   * Aliases under `team`: one of a channel, or of the whole workspace. Not under `CHANNEL#`, where
   * the channel policies are listed by prefix. Names are checked by `lib/commands/aliases.ts`.
   */
  channelAlias: (channel: string, name: string) =>
    `ALIAS#CHANNEL#${checkedId('channel', channel)}#${checkedCommandName('alias', name)}`,
  channelAliasPrefix: (channel: string) => `ALIAS#CHANNEL#${checkedId('channel', channel)}#`,
  workspaceAlias: (name: string) => `ALIAS#WORKSPACE#${checkedCommandName('alias', name)}`,
  workspaceAliasPrefix: 'ALIAS#WORKSPACE#',
  /** Every alias of the team, the channels' and the workspace's. */
  aliasPrefix: 'ALIAS#',
  /**
   * One passkey link (`lib/passkeys/links.ts`), by the SHA-256 of its token (base64url): the
   * token itself is never stored.
   */
  passkeyLink: (tokenHash: string) => `PASSKEY_LINK#${checkedId('passkey link', tokenHash)}`,
  /** Under `user`: one registered passkey, by the SHA-256 of its credential id (base64url). */
  passkey: (credentialHash: string) => `PASSKEY#${checkedId('passkey', credentialHash)}`,
  passkeyPrefix: 'PASSKEY#',
  /** A channel's runbook (under `team`), and the prefix that lists the channel's runbooks. */
  runbook: (channel: string, name: string) =>
    `RUNBOOK#${checkedId('channel', channel)}#${checkedCommandName('runbook', name)}`,
  runbookPrefix: (channel: string) => `RUNBOOK#${checkedId('channel', channel)}#`,
  /** Every channel's runbooks (not the workspace's, nor runs: `RUNBOOKRUN#` sorts apart). */
  channelRunbooksPrefix: 'RUNBOOK#',
  /** A runbook of the whole workspace (under `team`), found in every channel; and their prefix. */
  workspaceRunbook: (name: string) => `RUNBOOK_WORKSPACE#${checkedCommandName('runbook', name)}`,
  workspaceRunbookPrefix: 'RUNBOOK_WORKSPACE#',
  runbookRun: (id: string) => `RUNBOOKRUN#${checkedId('runbook run', id)}`,
  runbookRunPrefix: 'RUNBOOKRUN#',
  /** Under `team`: the run step an approval request or a status watch belongs to. */
  runbookLink: (target: 'approval' | 'watch', id: string) =>
    `RUNBOOKLINK#${target.toUpperCase()}#${checkedId(target, id)}`,
  activeWatches: 'WATCH',
  activeWatchSort: (startedAt: Date, id: string) => `${startedAt.toISOString()}#${id}`,
  stepUpPrefix: 'STEPUP#',
  /** A person's authenticator-app enrollment for step-up approvals (under `team`). */
  stepUpCode: (user: string) => `STEPUP#CODE#${checkedId('user', user)}`,
  /** A person's wrong step-up codes in one lockout window. */
  stepUpFailures: (user: string, windowStart: string) =>
    `STEPUP#FAILURES#${checkedId('user', user)}#${windowStart}`,
  /** One step-up challenge, until a proof uses it or it expires. */
  stepUpChallenge: (id: string) => `STEPUP#CHALLENGE#${checkedId('challenge', id)}`,
  /** Under `user`: one agent a person let act for them (`agent-grants.ts`), by grant id. */
  agentGrant: (id: string) => `AGENT#${checkedId('agent grant', id)}`,
  agentGrantPrefix: 'AGENT#',
  /** One agent access or refresh token, by the SHA-256 of the token: the token is never stored. */
  agentToken: (tokenHash: string) => `AGENT_TOKEN#${checkedId('agent token', tokenHash)}`,
  /** An agent's sign-in in progress (`agent-authorizations.ts`), by the SHA-256 of its id. */
  agentSignIn: (idHash: string) => `AGENT_SIGN_IN#${checkedId('agent sign-in', idHash)}`,
  /** One authorization code for an agent, by the SHA-256 of the code. */
  agentCode: (codeHash: string) => `AGENT_CODE#${checkedId('agent code', codeHash)}`,
  /** Under `team`: the newest version of the settings document, its versions, and proposals. */
  settingsHead: 'SETTINGS#HEAD',
  settingsVersion: (version: number) => `SETTINGS#V#${String(checkedVersion(version)).padStart(10, '0')}`,
  settingsVersionPrefix: 'SETTINGS#V#',
  settingsProposal: (id: string) => `SETTINGS#PROPOSAL#${checkedId('settings proposal', id)}`,
  /** An agent registered through Dynamic Client Registration (`agent-clients.ts`), by client id. */
  agentClient: (clientId: string) => `AGENT_CLIENT#${checkedId('agent client', clientId)}`,
} as const;

/** A team and one of its users, as a user partition or a member item names them. */
export interface TeamUser {
  readonly team: string;
  readonly user: string;
}

/** The team and user of a user partition key (`keys.user`); undefined for any other key. */
export function parseUserPartition(pk: string): TeamUser | undefined {
  const match = USER_PARTITION_PATTERN.exec(pk);
  return match?.[1] && match[2] ? { team: match[1], user: match[2] } : undefined;
}

/** The team and user a member item's key names (`keys.team` and `keys.member`); undefined for any other. */
export function parseMemberKey(pk: string, sk: string): TeamUser | undefined {
  const team = TEAM_PARTITION_PATTERN.exec(pk)?.[1];
  if (team === undefined || !sk.startsWith(keys.memberPrefix)) return undefined;
  const user = sk.slice(keys.memberPrefix.length);
  return ID_PATTERN.test(user) ? { team, user } : undefined;
}
