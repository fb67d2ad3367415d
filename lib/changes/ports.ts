import type { Logger } from '@aws-lambda-powertools/logger';
import type { ApiCallEvent, ApiClient } from '../api/client.js';
import type { ApiSettings } from '../api/client-factory.js';
import type { ApiError } from '../api/errors.js';
import type { AnyOperation } from '../api/operation.js';
import type {
  Approval,
  ApprovalOutcome,
  ApprovalPolicy,
  CardCopy,
  Store,
  VoteMethod,
} from '../store/index.js';

/**
 * What the change workflow needs from the place it is shown (Slack today), as interfaces the
 * workflow owns. The workflow decides and writes; a surface only shows: it posts and updates the
 * card, writes the thread, words what is stored for the card to show, and runs an operation the
 * way a command would (so an approved change answers like any other).
 */

/** Every step of the workflow reads the store, may call the API, and logs. */
export interface ChangeDeps {
  readonly store: Store;
  readonly api: ApiSettings;
  readonly logger: Logger;
}

/** A message the surface rendered; the workflow passes it on without looking inside. */
export interface RenderedAnswer {
  readonly text: string;
  readonly blocks: readonly unknown[];
}

/** Why the surface cannot show anything in a channel (the bot is not in it, it is private or archived). */
export type ChannelRefusal = 'not_in_channel' | 'private' | 'archived';

/** Whether a card can go in a channel, asked before anything is stored for it. */
export type CardAccess =
  | { readonly kind: 'open' }
  | { readonly kind: 'refused'; readonly refusal: ChannelRefusal };

export type PostedCard =
  | { readonly kind: 'posted'; readonly ts: string | undefined }
  /**
   * Not posted. `certain` when the surface refused it outright (it is certainly not on screen);
   * otherwise the answer was lost and the card may be up after all.
   */
  | { readonly kind: 'not_posted'; readonly certain: boolean; readonly refusal: ChannelRefusal | undefined };

/**
 * Who is in the approver group, as far as the surface says. A group it would not list is not an
 * empty group: the person deciding is told why it cannot be told, not that they may not approve.
 */
export type GroupMembers =
  | { readonly kind: 'members'; readonly users: readonly string[] }
  /** The workspace's plan has no user groups. */
  | { readonly kind: 'plan' }
  | { readonly kind: 'no_such_group' }
  | { readonly kind: 'rate_limited'; readonly retryAfterSeconds: number }
  | { readonly kind: 'unreadable' };

/** What happened to a request, for its thread: each is one line under the card. */
export type ApprovalEvent =
  | { readonly kind: 'expired' }
  | { readonly kind: 'cancelled'; readonly by: string }
  | { readonly kind: 'denied'; readonly by: string; readonly method: VoteMethod; readonly at: Date }
  | {
      readonly kind: 'vote_counted';
      readonly by: string;
      readonly method: VoteMethod;
      readonly at: Date;
      readonly count: number;
      readonly required: number;
    }
  | { readonly kind: 'approved'; readonly by: string; readonly method: VoteMethod; readonly at: Date }
  /** The run's answer was unclear: the target is being read back. */
  | { readonly kind: 'checking'; readonly op: AnyOperation; readonly error: ApiError }
  /** The sweep found a run whose worker stopped before writing how it ended. */
  | { readonly kind: 'worker_stopped' }
  /** The approved request's input could not be read, so it was closed unrun. */
  | { readonly kind: 'could_not_start' }
  | { readonly kind: 'closed'; readonly outcome: ApprovalOutcome; readonly detail: string };

/** A break-glass use, for the loud announcement beside its card. */
export interface BreakGlassAnnouncement {
  readonly by: string;
  readonly reason: string;
  /** The policy it bypassed: its approvers are told. */
  readonly policy: ApprovalPolicy;
  /** Where the channel's policy sends break-glass notices besides the channel itself. */
  readonly auditChannel: string | undefined;
}

/** The card and thread of approval requests. */
export interface ApprovalSurface {
  /** Whether the request's card can be posted in `channel`. */
  canPostCard(channel: string): Promise<CardAccess>;
  postCard(approval: Approval): Promise<PostedCard>;
  /** The card is up but its request could not be linked to it: it must not keep live buttons. */
  markCardUnsaved(channel: string, ts: string): Promise<void>;
  /**
   * True when the card shows the request as it now stands (or there is no card). Its copies
   * (`Approval.copies`) are updated too, each on a best effort.
   */
  showCard(approval: Approval): Promise<boolean>;
  /**
   * A copy was posted that the request could not keep (storage failed): it will never be
   * updated, so it must stop saying how the request stands. Never throws.
   */
  copyNotFollowed(approval: Approval, copy: CardCopy): Promise<void>;
  /** One line in the card's thread; never throws. */
  tell(approval: Approval, event: ApprovalEvent): Promise<void>;
  /**
   * The break-glass alarm in the card's thread, and a copy of the card in the audit channel,
   * which it returns (when it posted one) for the request to keep. Never throws.
   */
  announceBreakGlass(approval: Approval, announcement: BreakGlassAnnouncement): Promise<CardCopy | undefined>;
  approverGroupMembers(group: string): Promise<GroupMembers>;
  /**
   * Whether the deployment or the workspace makes `user` an admin (asked only of a request that
   * admins decide, `decidedByAdmins`). A lookup that fails throws: it is never taken for "no".
   */
  isAdmin(user: string): Promise<boolean>;
  /**
   * The request was made, voted on, decided or closed: the people it concerns see it as it now
   * stands wherever the surface shows them their own requests and votes (Slack: their Home tab).
   * Never throws.
   */
  requestChanged(team: string, approvalId: string): Promise<void>;
  /** Runs `work` as the request's workspace (its surface calls carry that workspace's credentials). */
  withinTeam<T>(team: string, work: () => Promise<T>): Promise<T>;
}

/** What a change request is, as the runner takes it. */
export interface ChangeRequest {
  readonly team: string;
  readonly user: string;
  readonly channel: string;
  readonly op: AnyOperation;
  readonly input: Readonly<Record<string, unknown>>;
  readonly approvalId?: string | undefined;
  /** The agent that asked for the person (its client's name), when one did. */
  readonly viaAgent?: string | undefined;
}

export interface RunHooks {
  /** Receives the API's parsed result of a successful call. */
  readonly onOutput: (output: unknown) => void;
  /** Runs with the caller's client just before the call (a create reads its list's baseline). */
  readonly beforeCall: (client: ApiClient) => Promise<void>;
  /** Sees every call the run makes to the API, retries included, with how each was answered. */
  readonly onApiCall?: ((event: ApiCallEvent) => void) | undefined;
}

/** Runs an operation as a command would and renders its answer; API refusals are thrown. */
export interface OperationRunner<Request extends ChangeRequest, Answer extends RenderedAnswer> {
  run(request: Request, hooks: RunHooks): Promise<Answer>;
  /** The answer when the API answered but showing its answer failed: it went through. */
  wentThrough(op: AnyOperation): Answer;
}

/** The worker's job of running an approved request. */
export interface ApprovalRun {
  readonly kind: 'approval';
  readonly correlationId: string;
  readonly team: string;
  readonly approvalId: string;
}

/** Hands an approved request to the worker, which runs it past the surface's answer deadline. */
export interface ApprovalHandoff {
  dispatch(job: ApprovalRun): Promise<void>;
}
