import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { WebClient } from '@slack/web-api';
import type { RelyingParty } from '../passkeys/paths.js';
import type { DescribeProof, OnVerifiedAssertion, PasskeyFactorEvents } from '../passkeys/routes.js';
import type { BotTokens } from '../slack-kit/web-client.js';
import type { ReadAhead, TokenLookup } from '../store/index.js';
import type { Handoff } from '../worker/handoff.js';
import type { BotInstaller } from './oauth.js';
import type { RunnerDeps } from './operation-runner.js';

/**
 * What a Slack request carries to the code that answers it: the bot's dependencies and the
 * request's team, user and channel. Types only, so the wiring (`bot.ts`), the listeners and the
 * feature modules can all import it without importing each other.
 */

export interface BotDeps extends RunnerDeps {
  /** CloudWatch embedded metrics; absent locally. */
  readonly metrics?: Metrics | undefined;
  readonly signingSecret: string;
  /** One workspace: its bot token. */
  readonly botToken?: string | undefined;
  /** Many workspaces: requests are authorised from their team's installation ("Add to Slack"). */
  readonly installer?: BotInstaller | undefined;
  /** The worker's and reporter's token cache, told when a workspace removes the app. */
  readonly botTokens?: BotTokens | undefined;
  /** Base URL of Slack's Web API (the local stand-in in tests and the local stack). */
  readonly slackApiUrl?: string | undefined;
  readonly inlineBudgetMs: number;
  readonly handoff: Handoff;
  /** Slack users who may change the approval policy, besides workspace admins. */
  readonly approvalAdmins: readonly string[];
  /** How long all storage calls of one Slack request may take together (`SLACK_STORAGE_BUDGET_MS`). */
  readonly storageBudgetMs?: number | undefined;
  /**
   * Requests come one at a time and nothing else runs in the process (Lambda): each request's
   * storage budget then lives in the process instead of an async context (`withStorageBudget`).
   */
  readonly oneRequestAtATime?: boolean | undefined;
  /** The passkey page (`lib/passkeys/`); absent when the bot has no public URL to serve it on. */
  readonly passkeys?: PasskeySettings | undefined;
}

export interface PasskeySettings {
  readonly relyingParty: RelyingParty;
  /** Records a step-up proof once an approval link's assertion checks out. */
  readonly onVerifiedAssertion: OnVerifiedAssertion;
  /** A passkey added, and a change to the person's own methods proved with one. */
  readonly factors: PasskeyFactorEvents;
  /** What an approval link proves, for its page to show before the passkey is touched. */
  readonly describeProof: DescribeProof;
}

export interface RequestContext {
  readonly team: string;
  readonly user: string;
  readonly channel: string;
  /** Absent for modal submissions. */
  readonly responseUrl?: string | undefined;
  readonly triggerId?: string | undefined;
  readonly correlationId: string;
  /**
   * The alias (`/cloud NAME args`) this request's command came from, and the line that says what
   * it ran, so a request it asks for and an answer that comes later can say so.
   */
  readonly viaAlias?: { readonly name: string; readonly line: string } | undefined;
  /**
   * The caller's items (active profile, default link, this channel's policy), read while the
   * request's delivery claim was in flight: an operation's command reads them next anyway, so the
   * guard, the token lookup and the reply's buttons use this read instead of reading again.
   */
  readonly callerRead?: ReadAhead | undefined;
  /** The caller's token, looked up from `callerRead` while the command's modules load. */
  readonly tokenLookup?: Promise<TokenLookup> | undefined;
}

export interface BotCommandContext {
  readonly deps: BotDeps;
  readonly ctx: RequestContext;
  readonly client: WebClient;
}
