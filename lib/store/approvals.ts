import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { StoreError } from './errors.js';
import { getParsed, isConditionFailure, parseItem, updateReturning } from './items.js';
import { COMMAND_NAME_PATTERN, keys } from './keys.js';
import { epochSeconds, type StoreContext } from './store-context.js';
import type { ReadAhead } from './table.js';
import { TABLE_DEFINITION } from './table-definition.js';
import { EnvelopeSchema, type TokenCipher } from './token-cipher.js';
import '../zod-settings.js';

/**
 * Approval requests for destructive operations. Every change is one conditional write, so however
 * many clicks, retries and workers race, each transition happens once:
 *
 *   pending ──> approved ──> executing ──> executed | failed
 *      │           │             └──> in_doubt ──> executed | failed | unknown
 *      │           └──> not_run (never picked up by a worker)
 *      └──────> denied | expired | cancelled
 *
 * Every state that waits on something has a way out: a pending request has its deadline, an
 * approved one a grace period to be claimed, an executing one a lease, and an in-doubt one its
 * next check. While it waits, the request sits in the shared sparse index (`gsi1`) under
 * `APPROVALS`, sorted by when it needs attention, so the reporter's sweep finds every stuck
 * request of every team with one query; a finished request leaves the index.
 *
 * The operation's input is stored encrypted like a token (bound to team and requester): it may
 * hold passwords, and it is only needed by the one execution that wins `claimExecution`.
 */

export type ApprovalStatus =
  | 'pending'
  | 'approved'
  | 'denied'
  | 'expired'
  | 'cancelled'
  | 'executing'
  /** The operation was sent and no clear answer came back: it may have happened. */
  | 'in_doubt'
  | 'executed'
  | 'failed'
  /** Still not known whether it happened when the bot stopped checking. */
  | 'unknown'
  /** Approved, but no worker ever started it: nothing was run. */
  | 'not_run';

export type ApprovalOutcome = 'executed' | 'failed' | 'unknown' | 'not_run';

export const APPROVAL_STATUSES = [
  'pending',
  'approved',
  'denied',
  'expired',
  'cancelled',
  'executing',
  'in_doubt',
  'executed',
  'failed',
  'unknown',
  'not_run',
] as const satisfies readonly ApprovalStatus[];

/** How a vote was proved besides the click: a passkey, an authenticator code, or not at all. */
export const VOTE_METHODS = ['passkey', 'code', 'none'] as const;
export type VoteMethod = (typeof VOTE_METHODS)[number];

export interface ApprovalVote {
  readonly user: string;
  readonly at: Date;
  /** `none` also for votes recorded before step-up existed. */
  readonly method: VoteMethod;
}

export interface Approval {
  readonly id: string;
  readonly team: string;
  readonly requester: string;
  readonly operationId: string;
  /** What the card shows about the input; written by the caller without secrets. */
  readonly summary: string;
  /** What will change, as read when the request was made (mrkdwn lines, outside text escaped). */
  readonly preview: readonly string[];
  /** The target as it was previewed; a different one at execution time means it changed. */
  readonly fingerprint: string | null;
  /** Run without waiting for approvals, by whom and why. */
  readonly breakGlass: { readonly user: string; readonly reason: string } | null;
  /**
   * The requester's own break-glass, waiting for their step-up proof: nobody else votes on it,
   * and it runs only when they prove it (`approveBreakGlass`), or expires.
   */
  readonly awaitingRequester: boolean;
  /** Why the requester asked (`--reason`), as they typed it (escaped where shown). */
  readonly reason: string | null;
  /** The alias (`/cloud NAME args`) the requester typed that expanded to this request, if any. */
  readonly viaAlias?: string | null;
  /** The agent that asked for the requester, when one did (MCP): its client's name and grant. */
  readonly viaAgent?: ApprovalAgent | null;
  /** The runbook run whose step this request is, when it is one. */
  readonly viaRunbook?: ApprovalRunbookStep | null;
  readonly channel: string;
  /** The card's message, once posted (also the thread of the audit trail). */
  readonly messageTs: string | null;
  /**
   * Where copies of the card were posted besides its own channel (a break-glass announcement in
   * the audit channel): each is updated with the card, so every copy says how the request ended.
   */
  readonly copies?: readonly CardCopy[];
  /** `expired` also when the deadline passed and nobody has written that down yet. */
  readonly status: ApprovalStatus;
  readonly requiredApprovals: number;
  readonly approvals: readonly ApprovalVote[];
  readonly deniedBy: ApprovalVote | null;
  readonly cancelledBy: ApprovalVote | null;
  readonly decideBy: Date;
  readonly createdAt: Date;
  /** While executing: until when the worker that claimed it holds it. */
  readonly leaseUntil: Date | null;
  /**
   * When a worker claimed it to run it: before the API call, so the in-doubt checks count the
   * account events from then on. Absent on requests never claimed (and on older items).
   */
  readonly claimedAt?: Date | null;
  /** When the outcome first became uncertain. */
  readonly doubtSince: Date | null;
  /** What the in-doubt checks have found so far, for the card. */
  readonly doubtNote: string | null;
  readonly result: {
    readonly outcome: ApprovalOutcome;
    readonly detail: string;
    readonly at: Date;
  } | null;
}

/** The agent behind a request: the name its client gives itself, and the grant it acted under. */
export interface ApprovalAgent {
  readonly name: string;
  readonly grantId: string;
}

/** A runbook's step that asked for approval: which runbook, which run, step `step` of `steps` (from 1). */
export interface ApprovalRunbookStep {
  readonly runbook: string;
  readonly runId: string;
  readonly step: number;
  readonly steps: number;
}

/** A copy of a request's card: the channel and timestamp of its message. */
export interface CardCopy {
  readonly channel: string;
  readonly ts: string;
}

/** A request the sweep should look at: its key, as found in the index. */
export interface DueApproval {
  readonly team: string;
  readonly id: string;
}

export interface NewApproval {
  readonly team: string;
  readonly requester: string;
  readonly operationId: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly summary: string;
  readonly preview?: readonly string[];
  readonly fingerprint?: string | null;
  readonly reason?: string | undefined;
  /** An alias name as `lib/commands/aliases.ts` accepts it; any other value is not stored. */
  readonly viaAlias?: string | undefined;
  readonly viaAgent?: ApprovalAgent | undefined;
  readonly viaRunbook?: ApprovalRunbookStep | undefined;
  readonly channel: string;
  readonly requiredApprovals: number;
  readonly expiryMinutes: number;
  /** A break-glass that waits for its requester's step-up proof (`Approval.awaitingRequester`). */
  readonly awaitingRequester?: boolean;
}

/**
 * A request as a vote reads it: what the voting rules look at (`castVote` in
 * `lib/changes/votes.ts`), and the state a vote's write is conditioned on.
 */
export interface VoteView {
  readonly approval: Approval;
  /**
   * Pending as stored. A request past its deadline is still pending here until the sweep writes
   * it expired, while `approval.status` already says `expired`.
   */
  readonly pending: boolean;
  /** Approvals counted so far: a vote is written only if no other landed since this was read. */
  readonly voteCount: number;
  readonly voters: ReadonlySet<string>;
}

/** One Approve or Deny to write; `attempt` lets a resent write whose answer was lost find it. */
export interface NewVote {
  readonly decision: 'approve' | 'deny';
  readonly user: string;
  readonly method: VoteMethod;
  readonly at: Date;
  readonly attempt: string;
}

export type VoteWrite =
  | { readonly kind: 'written'; readonly approval: Approval }
  /** Its condition failed: the request as it is now, or undefined when it is gone. */
  | { readonly kind: 'not_written'; readonly current: VoteView | undefined };

export type CancelResult =
  | { readonly outcome: 'not_found' }
  | {
      readonly outcome: 'cancelled' | 'not_requester' | 'already_decided' | 'expired';
      readonly approval: Approval;
    };

export type ExecutionClaim =
  | { readonly claimed: true; readonly approval: Approval; readonly input: Record<string, unknown> }
  | { readonly claimed: false; readonly approval: Approval | undefined };

const VoteSchema = z.object({
  user: z.string(),
  at: z.iso.datetime(),
  method: z.enum(VOTE_METHODS).optional(),
  /** The attempt that wrote the vote: a resent write whose first answer was lost finds its own. */
  attempt: z.string().optional(),
});

const ApprovalItemSchema = z.object({
  kind: z.literal('approval'),
  id: z.string(),
  team_id: z.string(),
  requester_user: z.string(),
  operation_id: z.string(),
  summary: z.string(),
  preview: z.array(z.string()).optional(),
  fingerprint: z.string().nullable().optional(),
  break_glass: z.object({ user: z.string(), reason: z.string() }).optional(),
  awaiting_requester: z.boolean().optional(),
  reason: z.string().optional(),
  via_alias: z.string().regex(COMMAND_NAME_PATTERN).optional(),
  via_agent: z.object({ name: z.string(), grant_id: z.string() }).optional(),
  via_runbook: z
    .object({ runbook: z.string(), run_id: z.string(), step: z.number().int(), steps: z.number().int() })
    .optional(),
  input_ciphertext: EnvelopeSchema,
  channel_id: z.string(),
  message_ts: z.string().nullable(),
  copies: z.array(z.object({ channel: z.string(), ts: z.string() })).optional(),
  status: z.enum(APPROVAL_STATUSES),
  required_approvals: z.number().int().min(1),
  vote_count: z.number().int().min(0),
  /** The same users as `approvals`, as a set, so a condition can test membership. */
  voter_ids: z.set(z.string()).optional(),
  approvals: z.array(VoteSchema),
  denied_by: VoteSchema.optional(),
  cancelled_by: VoteSchema.optional(),
  decide_by: z.iso.datetime(),
  created_at: z.iso.datetime(),
  approved_at: z.iso.datetime().optional(),
  lease_until: z.iso.datetime().optional(),
  /** When a worker claimed it: the latest time before the API call that the store knows of. */
  claimed_at: z.iso.datetime().optional(),
  doubt_since: z.iso.datetime().optional(),
  doubt_note: z.string().optional(),
  result_outcome: z.enum(['executed', 'failed', 'unknown', 'not_run']).optional(),
  result_detail: z.string().optional(),
  finished_at: z.iso.datetime().optional(),
  /** The id of the last conditional write (`namedUpdate`), by which a resent write finds its own. */
  write_id: z.string().optional(),
});
type ApprovalItem = z.infer<typeof ApprovalItemSchema>;

const InputSchema = z.record(z.string(), z.unknown());

/** Result details are for the card and thread; the API's full answer does not belong in the table. */
const MAX_DETAIL_LENGTH = 3_000;
const DEFAULT_RETENTION_DAYS = 30;
/** The worker function's timeout (120 s) with room to spare: a live worker never loses its lease. */
const DEFAULT_LEASE_MS = 180_000;
/** An asynchronous invoke starts within seconds; five minutes without a claim means it never will. */
const DEFAULT_CLAIM_GRACE_MS = 300_000;
const { partitionKey: DUE_PK, sortKey: DUE_SK, name: DUE_INDEX } = TABLE_DEFINITION.dueReportsIndex;
/** Leaving the sweep's index: the request needs nobody's attention any more. */
const LEAVE_INDEX = [DUE_PK, DUE_SK] as const;

export class ApprovalRepository {
  readonly #ctx: StoreContext;
  readonly #cipher: TokenCipher;
  readonly #retentionSeconds: number;
  readonly #leaseMs: number;
  readonly #claimGraceMs: number;

  /**
   * `retentionDays`: how long after its deadline TTL removes a request (the audit log keeps the
   * trail). `leaseMs`: how long a worker holds an execution it claimed; past it, the worker is
   * taken to have died. `claimGraceMs`: how long an approved request may wait for a worker.
   */
  constructor(
    ctx: StoreContext,
    cipher: TokenCipher,
    options: { retentionDays?: number; leaseMs?: number; claimGraceMs?: number } = {},
  ) {
    this.#ctx = ctx;
    this.#cipher = cipher;
    this.#retentionSeconds = (options.retentionDays ?? DEFAULT_RETENTION_DAYS) * 86_400;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#claimGraceMs = options.claimGraceMs ?? DEFAULT_CLAIM_GRACE_MS;
  }

  /** The store's clock: leases, deadlines and checks are all measured on it. */
  now(): Date {
    return this.#ctx.now();
  }

  async create(input: NewApproval): Promise<Approval> {
    const id = randomUUID();
    const now = this.#ctx.now();
    const decideBy = new Date(now.getTime() + input.expiryMinutes * 60_000);
    const item = {
      pk: keys.team(input.team),
      sk: keys.approval(id),
      kind: 'approval',
      id,
      team_id: input.team,
      requester_user: input.requester,
      operation_id: input.operationId,
      summary: input.summary,
      preview: [...(input.preview ?? [])],
      fingerprint: input.fingerprint ?? null,
      ...(input.reason === undefined ? {} : { reason: input.reason }),
      ...(input.awaitingRequester ? { awaiting_requester: true } : {}),
      ...(input.viaAlias !== undefined && COMMAND_NAME_PATTERN.test(input.viaAlias)
        ? { via_alias: input.viaAlias }
        : {}),
      ...(input.viaAgent === undefined
        ? {}
        : { via_agent: { name: input.viaAgent.name.slice(0, 100), grant_id: input.viaAgent.grantId } }),
      ...(input.viaRunbook === undefined
        ? {}
        : {
            via_runbook: {
              runbook: input.viaRunbook.runbook.slice(0, 100),
              run_id: input.viaRunbook.runId,
              step: input.viaRunbook.step,
              steps: input.viaRunbook.steps,
            },
          }),
      input_ciphertext: await this.#cipher.encrypt(JSON.stringify(input.input), {
        team: input.team,
        user: input.requester,
      }),
      channel_id: input.channel,
      message_ts: null,
      status: 'pending',
      required_approvals: input.requiredApprovals,
      vote_count: 0,
      approvals: [],
      decide_by: decideBy.toISOString(),
      created_at: now.toISOString(),
      expires_at: epochSeconds(decideBy) + this.#retentionSeconds,
      // At its deadline the sweep expires it and takes the buttons off its card.
      [DUE_PK]: keys.approvalsDue,
      [DUE_SK]: keys.approvalDueSort(decideBy, input.team, id),
    } satisfies ApprovalItem & Record<string, unknown>;
    await this.#ctx.table.put({
      TableName: this.#ctx.tableName,
      Item: item,
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    return this.#toApproval(item);
  }

  /** Requests of a workspace still waiting for decisions (lapsed ones left out), oldest first. */
  async listPending(team: string, limit = 50): Promise<Approval[]> {
    const pending: Approval[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await this.#ctx.table.query({
        TableName: this.#ctx.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pk': keys.team(team),
          ':prefix': 'APPROVAL#',
          ':pending': 'pending',
        },
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      });
      for (const raw of result.Items ?? []) {
        const approval = this.#toApproval(parseItem(ApprovalItemSchema, raw, 'approval'));
        if (approval.status === 'pending') pending.push(approval);
      }
      startKey = result.LastEvaluatedKey;
    } while (startKey && pending.length < limit);
    return pending.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).slice(0, limit);
  }

  /**
   * What one person's Home shows of a workspace's requests: those still waiting (any requester;
   * the caller decides whose vote they wait for), the person's own, in any state, and the others'
   * that concern them once decided (`others`: those they voted on or denied, and every
   * break-glass run, whose alarm the caller decides they heard). One query of
   * the team's requests, read `pageSize` items at a time for at most `maxPages` pages, so a
   * workspace with years of closed requests costs a bounded read; `complete` says whether every
   * request was looked at.
   */
  async listForPerson(
    team: string,
    user: string,
    bounds: { readonly pageSize?: number; readonly maxPages?: number } = {},
  ): Promise<{ pending: Approval[]; own: Approval[]; others: Approval[]; complete: boolean }> {
    const pageSize = bounds.pageSize ?? 250;
    const maxPages = bounds.maxPages ?? 4;
    const pending: Approval[] = [];
    const own: Approval[] = [];
    const others: Approval[] = [];
    let startKey: Record<string, unknown> | undefined;
    let pages = 0;
    do {
      const result = await this.#ctx.table.query({
        TableName: this.#ctx.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression:
          '#status = :pending OR requester_user = :user OR contains(voter_ids, :user) OR ' +
          'denied_by.#user = :user OR attribute_exists(break_glass)',
        // `user` is a reserved word in expressions.
        ExpressionAttributeNames: { '#status': 'status', '#user': 'user' },
        ExpressionAttributeValues: {
          ':pk': keys.team(team),
          ':prefix': 'APPROVAL#',
          ':pending': 'pending',
          ':user': user,
        },
        Limit: pageSize,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      });
      for (const raw of result.Items ?? []) {
        const approval = this.#toApproval(parseItem(ApprovalItemSchema, raw, 'approval'));
        if (approval.requester === user) own.push(approval);
        else if (approval.status !== 'pending') others.push(approval);
        if (approval.status === 'pending') pending.push(approval);
      }
      startKey = result.LastEvaluatedKey;
      pages += 1;
    } while (startKey && pages < maxPages);
    const oldestFirst = (a: Approval, b: Approval) => a.createdAt.getTime() - b.createdAt.getTime();
    return {
      pending: pending.sort(oldestFirst),
      own: own.sort((a, b) => -oldestFirst(a, b)),
      others: others.sort((a, b) => -oldestFirst(a, b)),
      complete: startKey === undefined,
    };
  }

  /** The request; from `read` when it asked for it (`Store.readAhead`). */
  async get(team: string, id: string, read?: ReadAhead): Promise<Approval | undefined> {
    const item = await this.#getItem(team, id, read);
    return item && this.#toApproval(item);
  }

  /**
   * Removes a request whose card could not be posted: nobody saw it, so nothing may act on it.
   * Only a pending request without a card goes; false when there is none such.
   */
  async discardUnposted(team: string, id: string): Promise<boolean> {
    try {
      await this.#ctx.table.delete({
        TableName: this.#ctx.tableName,
        Key: { pk: keys.team(team), sk: keys.approval(id) },
        ConditionExpression: '#status = :pending AND attribute_type(message_ts, :null)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': 'pending', ':null': 'NULL' },
      });
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Records where the card was posted. False when the request does not exist. */
  async setMessage(team: string, id: string, channel: string, messageTs: string): Promise<boolean> {
    const result = await this.#update(team, id, {
      set: ['channel_id = :channel', 'message_ts = :ts'],
      condition: 'attribute_exists(pk)',
      values: { ':channel': channel, ':ts': messageTs },
    });
    return result.ok;
  }

  /**
   * Records a copy of the card (channel and timestamp), so that whoever shows the request next
   * updates it too. A resend of this write after a lost answer adds the same copy again, which
   * readers drop. False when the request does not exist.
   */
  async addCopy(team: string, id: string, copy: CardCopy): Promise<boolean> {
    const result = await this.#update(team, id, {
      set: ['copies = list_append(if_not_exists(copies, :none), :copy)'],
      condition: 'attribute_exists(pk)',
      values: { ':none': [], ':copy': [{ channel: copy.channel, ts: copy.ts }] },
    });
    return result.ok;
  }

  /** The request as a vote reads it (see `VoteView`); undefined when there is none. */
  async readForVote(team: string, id: string, read?: ReadAhead): Promise<VoteView | undefined> {
    const item = await this.#getItem(team, id, read);
    return item && this.#toVoteView(item);
  }

  /**
   * Writes one Approve or Deny on the request as `seen`: it lands only while the request is still
   * pending, before its deadline, with exactly `seen.voteCount` votes and none by this user, so a
   * vote that another vote overtook changes nothing. An approval that `completes` the count also
   * approves the request, due for a worker's claim (the sweep closes it if none comes). A write
   * whose answer was lost, and which the table client sent again, counts as written when the
   * request holds this vote's attempt. Which votes may count is the workflow's rule
   * (`castVote` in `lib/changes/votes.ts`); this only writes.
   */
  async writeVote(
    team: string,
    id: string,
    vote: NewVote,
    seen: VoteView,
    completes: boolean,
  ): Promise<VoteWrite> {
    const now = vote.at.toISOString();
    const stored = { user: vote.user, at: now, method: vote.method, attempt: vote.attempt };
    const result =
      vote.decision === 'deny'
        ? await this.#update(team, id, {
            set: ['#status = :denied', 'denied_by = :vote'],
            remove: LEAVE_INDEX,
            condition: '#status = :pending AND decide_by > :now',
            values: { ':denied': 'denied', ':vote': stored, ':pending': 'pending', ':now': now },
          })
        : await this.#update(team, id, {
            set: [
              'vote_count = :next',
              'approvals = list_append(approvals, :votes)',
              ...(completes ? ['#status = :approved', 'approved_at = :now', `${DUE_SK} = :due`] : []),
            ],
            add: 'voter_ids :voter',
            condition:
              '#status = :pending AND decide_by > :now AND vote_count = :seen AND NOT contains(voter_ids, :user)',
            values: {
              ':next': seen.voteCount + 1,
              ':votes': [stored],
              ':voter': new Set([vote.user]),
              ':pending': 'pending',
              ':now': now,
              ':seen': seen.voteCount,
              ':user': vote.user,
              ...(completes
                ? {
                    ':approved': 'approved',
                    ':due': keys.approvalDueSort(new Date(vote.at.getTime() + this.#claimGraceMs), team, id),
                  }
                : {}),
            },
          });
    // A vote whose answer was lost is recognised by `#update` (its write id); if another
    // approver's vote landed between it and its resend, the vote found in the item is its own.
    if (result.ok) return { kind: 'written', approval: this.#toApproval(result.item) };
    if (result.item === null) return { kind: 'not_written', current: undefined };
    if (hasVote(result.item, vote.decision, vote.attempt)) {
      return { kind: 'written', approval: this.#toApproval(result.item) };
    }
    return { kind: 'not_written', current: this.#toVoteView(result.item) };
  }

  /**
   * pending → approved by the requester alone, with a reason: break-glass. The caller has checked
   * that the channel allows it and that this user may use it.
   */
  async approveBreakGlass(
    team: string,
    id: string,
    user: string,
    reason: string,
    method: VoteMethod = 'none',
  ): Promise<Approval | undefined> {
    const nowDate = this.#ctx.now();
    const now = nowDate.toISOString();
    const result = await this.#update(team, id, {
      set: [
        '#status = :approved',
        'approved_at = :now',
        'vote_count = :one',
        'approvals = :votes',
        'break_glass = :breakGlass',
        `${DUE_SK} = :due`,
      ],
      remove: ['awaiting_requester'],
      condition: '#status = :pending AND requester_user = :user',
      values: {
        ':approved': 'approved',
        ':pending': 'pending',
        ':now': now,
        ':one': 1,
        ':votes': [{ user, at: now, method }],
        ':breakGlass': { user, reason },
        ':user': user,
        ':due': keys.approvalDueSort(new Date(nowDate.getTime() + this.#claimGraceMs), team, id),
      },
    });
    return result.ok ? this.#toApproval(result.item) : undefined;
  }

  /** The requester withdraws a pending request. */
  async cancel(team: string, id: string, user: string): Promise<CancelResult> {
    const now = this.#ctx.now().toISOString();
    const result = await this.#update(team, id, {
      set: ['#status = :cancelled', 'cancelled_by = :vote'],
      remove: LEAVE_INDEX,
      condition: '#status = :pending AND decide_by > :now AND requester_user = :user',
      values: {
        ':cancelled': 'cancelled',
        ':vote': { user, at: now },
        ':pending': 'pending',
        ':now': now,
        ':user': user,
      },
    });
    if (result.ok) return { outcome: 'cancelled', approval: this.#toApproval(result.item) };
    if (result.item === null) return { outcome: 'not_found' };
    const approval = this.#toApproval(result.item);
    if (result.item.status !== 'pending') return { outcome: 'already_decided', approval };
    if (approval.status === 'expired') return { outcome: 'expired', approval };
    return { outcome: 'not_requester', approval };
  }

  /**
   * Requests of a workspace that have not started: pending, or approved and not yet claimed by a
   * worker. What an uninstall has to close, oldest first.
   */
  async listUnstarted(team: string, limit = 50): Promise<Approval[]> {
    const found: Approval[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await this.#ctx.table.query({
        TableName: this.#ctx.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: '#status IN (:pending, :approved)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pk': keys.team(team),
          ':prefix': 'APPROVAL#',
          ':pending': 'pending',
          ':approved': 'approved',
        },
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      });
      for (const raw of result.Items ?? []) {
        found.push(this.#toApproval(parseItem(ApprovalItemSchema, raw, 'approval')));
      }
      startKey = result.LastEvaluatedKey;
    } while (startKey && found.length < limit);
    return found.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).slice(0, limit);
  }

  /**
   * The app was uninstalled: nothing of the team can run any more (the bot token is gone, and the
   * requesters' API tokens with it). A pending request ends as expired whatever its deadline (its
   * card's buttons go nowhere); an approved one no worker has claimed ends as not run (the claim
   * and this are conditional on `approved`, so exactly one of them wins). One already executing
   * is not touched: its worker finishes it, or the sweep does. The status it ended in, for the
   * one caller that moved it.
   */
  async closeOnUninstall(
    team: string,
    id: string,
    detail: string,
  ): Promise<'expired' | 'not_run' | undefined> {
    const expired = await this.#update(team, id, {
      set: ['#status = :expired'],
      remove: LEAVE_INDEX,
      condition: '#status = :pending',
      values: { ':expired': 'expired', ':pending': 'pending' },
    });
    if (expired.ok) return 'expired';
    const notRun = await this.#update(team, id, {
      set: ['#status = :notRun', 'result_outcome = :notRun', 'result_detail = :detail', 'finished_at = :now'],
      remove: LEAVE_INDEX,
      condition: '#status = :approved',
      values: {
        ':notRun': 'not_run',
        ':approved': 'approved',
        ':detail': detail.slice(0, MAX_DETAIL_LENGTH),
        ':now': this.#ctx.now().toISOString(),
      },
    });
    return notRun.ok ? 'not_run' : undefined;
  }

  /** Writes down that a pending request ran out of time; true for the one caller that did. */
  async expire(team: string, id: string): Promise<boolean> {
    const result = await this.#update(team, id, {
      set: ['#status = :expired'],
      remove: LEAVE_INDEX,
      condition: '#status = :pending AND decide_by <= :now',
      values: { ':expired': 'expired', ':pending': 'pending', ':now': this.#ctx.now().toISOString() },
    });
    return result.ok;
  }

  /**
   * approved → executing, for exactly one caller: the one that runs the operation. It gets the
   * decrypted input and a lease; everyone else gets `claimed: false`.
   */
  async claimExecution(team: string, id: string): Promise<ExecutionClaim> {
    const claimedAt = this.#ctx.now();
    const leaseUntil = new Date(claimedAt.getTime() + this.#leaseMs);
    const result = await this.#update(team, id, {
      set: ['#status = :executing', 'lease_until = :lease', 'claimed_at = :claimed', `${DUE_SK} = :due`],
      condition: '#status = :approved',
      values: {
        ':executing': 'executing',
        ':approved': 'approved',
        ':lease': leaseUntil.toISOString(),
        ':claimed': claimedAt.toISOString(),
        ':due': keys.approvalDueSort(leaseUntil, team, id),
      },
    });
    if (!result.ok)
      return { claimed: false, approval: result.item ? this.#toApproval(result.item) : undefined };
    const approval = this.#toApproval(result.item);
    try {
      return { claimed: true, approval, input: await this.#decryptInput(result.item) };
    } catch (error) {
      // The claim is spent and nothing was sent: close the request rather than leave it executing.
      await this.finish(
        team,
        id,
        'not_run',
        'The stored input of this request could not be read; nothing was run.',
      );
      throw error;
    }
  }

  /** The decrypted input of a request, for the sweep's checks of one in doubt. */
  async readInput(team: string, id: string): Promise<Record<string, unknown> | undefined> {
    const item = await this.#getItem(team, id);
    return item && this.#decryptInput(item);
  }

  /**
   * executing (or in_doubt) → in_doubt: the operation was sent and no clear answer came back.
   * `nextCheckAt` is when the sweep should read the target next; `note` what the checks saw.
   * `takeOverExpired`: only if the executing worker's lease has run out (the sweep finding a
   * worker that died); otherwise only the worker holding the request calls this.
   */
  async markInDoubt(
    team: string,
    id: string,
    nextCheckAt: Date,
    note: string,
    options: { takeOverExpired?: boolean } = {},
  ): Promise<Approval | undefined> {
    const now = this.#ctx.now().toISOString();
    const result = await this.#update(team, id, {
      set: [
        '#status = :inDoubt',
        'doubt_since = if_not_exists(doubt_since, :now)',
        'doubt_note = :note',
        `${DUE_SK} = :due`,
      ],
      condition: options.takeOverExpired
        ? '(#status = :executing AND lease_until <= :now) OR (#status = :inDoubt AND ' +
          `${DUE_SK} <= :dueNow)`
        : '#status IN (:executing, :inDoubt)',
      values: {
        ':inDoubt': 'in_doubt',
        ':executing': 'executing',
        ':now': now,
        ':note': note.slice(0, MAX_DETAIL_LENGTH),
        ':due': keys.approvalDueSort(nextCheckAt, team, id),
        ...(options.takeOverExpired ? { ':dueNow': `${now}#~` } : {}),
      },
    });
    return result.ok ? this.#toApproval(result.item) : undefined;
  }

  /** approved → not_run, when no worker claimed it within the grace period. True for the one caller that did. */
  async abandonUnclaimed(team: string, id: string, detail: string): Promise<Approval | undefined> {
    const now = this.#ctx.now();
    const result = await this.#update(team, id, {
      set: ['#status = :notRun', 'result_outcome = :notRun', 'result_detail = :detail', 'finished_at = :now'],
      remove: LEAVE_INDEX,
      condition: '#status = :approved AND approved_at <= :claimedBy',
      values: {
        ':notRun': 'not_run',
        ':approved': 'approved',
        ':detail': detail.slice(0, MAX_DETAIL_LENGTH),
        ':now': now.toISOString(),
        ':claimedBy': new Date(now.getTime() - this.#claimGraceMs).toISOString(),
      },
    });
    return result.ok ? this.#toApproval(result.item) : undefined;
  }

  /** executing | in_doubt → a final outcome, once. */
  async finish(team: string, id: string, outcome: ApprovalOutcome, detail: string): Promise<boolean> {
    const result = await this.#update(team, id, {
      set: [
        '#status = :outcome',
        'result_outcome = :outcome',
        'result_detail = :detail',
        'finished_at = :now',
      ],
      remove: LEAVE_INDEX,
      condition: '#status IN (:executing, :inDoubt)',
      values: {
        ':outcome': outcome,
        ':detail': detail.slice(0, MAX_DETAIL_LENGTH),
        ':now': this.#ctx.now().toISOString(),
        ':executing': 'executing',
        ':inDoubt': 'in_doubt',
      },
    });
    return result.ok;
  }

  /**
   * Requests of every team whose time for attention has come (deadline passed, lease run out,
   * check due), oldest first. Keys only: the sweep reads each one consistently before acting.
   */
  async listDue(limit = 100): Promise<DueApproval[]> {
    const due: DueApproval[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const result = await this.#ctx.table.query({
        TableName: this.#ctx.tableName,
        IndexName: DUE_INDEX,
        KeyConditionExpression: '#pk = :pk AND #sk <= :now',
        ExpressionAttributeNames: { '#pk': DUE_PK, '#sk': DUE_SK },
        ExpressionAttributeValues: {
          ':pk': keys.approvalsDue,
          ':now': `${this.#ctx.now().toISOString()}#~`,
        },
        Limit: limit,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      });
      for (const raw of result.Items ?? []) {
        const team = typeof raw.team_id === 'string' ? raw.team_id : undefined;
        const id = typeof raw.id === 'string' ? raw.id : undefined;
        if (team && id) due.push({ team, id });
      }
      startKey = result.LastEvaluatedKey;
    } while (startKey && due.length < limit);
    return due.slice(0, limit);
  }

  async #decryptInput(item: ApprovalItem): Promise<Record<string, unknown>> {
    try {
      const plain = await this.#cipher.decrypt(item.input_ciphertext, {
        team: item.team_id,
        user: item.requester_user,
      });
      return InputSchema.parse(JSON.parse(plain));
    } catch (error) {
      throw error instanceof StoreError
        ? error
        : new StoreError('malformed_item', 'The stored input of an approval request is malformed.');
    }
  }

  async #getItem(team: string, id: string, read?: ReadAhead): Promise<ApprovalItem | undefined> {
    return getParsed(
      this.#ctx,
      { pk: keys.team(team), sk: keys.approval(id) },
      ApprovalItemSchema,
      'approval',
      read,
    );
  }

  /** A conditional update; on a failed condition, the item as it was (`null` if there was none). */
  async #update(
    team: string,
    id: string,
    change: {
      set: readonly string[];
      add?: string;
      remove?: readonly string[];
      condition: string;
      values: Record<string, unknown>;
    },
  ): Promise<{ ok: true; item: ApprovalItem } | { ok: false; item: ApprovalItem | null }> {
    const set = ['updated_at = :updatedAt', ...change.set].join(', ');
    const remove = change.remove?.length ? ` REMOVE ${change.remove.join(', ')}` : '';
    // Named (`updateReturning`): a resend after a lost answer is this write, landed, not a lost race.
    const result = await updateReturning(
      this.#ctx,
      { pk: keys.team(team), sk: keys.approval(id) },
      {
        UpdateExpression: `SET ${set}${change.add ? ` ADD ${change.add}` : ''}${remove}`,
        ConditionExpression: change.condition,
        // `status` is a reserved word in expressions.
        ...(`${set} ${change.condition}`.includes('#status')
          ? { ExpressionAttributeNames: { '#status': 'status' } }
          : {}),
        ExpressionAttributeValues: { ...change.values, ':updatedAt': this.#ctx.now().toISOString() },
      },
    );
    if (result.ok) return { ok: true, item: parseItem(ApprovalItemSchema, result.item, 'approval') };
    return { ok: false, item: result.item && parseItem(ApprovalItemSchema, result.item, 'approval') };
  }

  #toVoteView(item: ApprovalItem): VoteView {
    return {
      approval: this.#toApproval(item),
      pending: item.status === 'pending',
      voteCount: item.vote_count,
      voters: item.voter_ids ?? new Set(),
    };
  }

  #toApproval(item: ApprovalItem): Approval {
    const decideBy = new Date(item.decide_by);
    const lapsed = item.status === 'pending' && decideBy.getTime() <= this.#ctx.now().getTime();
    const vote = (v: z.infer<typeof VoteSchema> | undefined) =>
      v ? { user: v.user, at: new Date(v.at), method: v.method ?? 'none' } : null;
    return {
      id: item.id,
      team: item.team_id,
      requester: item.requester_user,
      operationId: item.operation_id,
      summary: item.summary,
      preview: item.preview ?? [],
      fingerprint: item.fingerprint ?? null,
      breakGlass: item.break_glass ?? null,
      awaitingRequester: item.awaiting_requester === true,
      reason: item.reason ?? null,
      viaAlias: item.via_alias ?? null,
      viaAgent: item.via_agent ? { name: item.via_agent.name, grantId: item.via_agent.grant_id } : null,
      viaRunbook: item.via_runbook
        ? {
            runbook: item.via_runbook.runbook,
            runId: item.via_runbook.run_id,
            step: item.via_runbook.step,
            steps: item.via_runbook.steps,
          }
        : null,
      channel: item.channel_id,
      messageTs: item.message_ts,
      copies: distinctCopies(item.copies ?? []),
      status: lapsed ? 'expired' : item.status,
      requiredApprovals: item.required_approvals,
      approvals: item.approvals.map((v) => ({
        user: v.user,
        at: new Date(v.at),
        method: v.method ?? 'none',
      })),
      deniedBy: vote(item.denied_by),
      cancelledBy: vote(item.cancelled_by),
      decideBy,
      createdAt: new Date(item.created_at),
      leaseUntil: item.lease_until ? new Date(item.lease_until) : null,
      claimedAt: item.claimed_at ? new Date(item.claimed_at) : null,
      doubtSince: item.doubt_since ? new Date(item.doubt_since) : null,
      doubtNote: item.doubt_note ?? null,
      result:
        item.result_outcome && item.finished_at
          ? { outcome: item.result_outcome, detail: item.result_detail ?? '', at: new Date(item.finished_at) }
          : null,
    };
  }
}

/** Whether `item` holds the vote that attempt `attempt` wrote. */
function hasVote(item: ApprovalItem, decision: 'approve' | 'deny', attempt: string): boolean {
  return decision === 'deny'
    ? item.denied_by?.attempt === attempt
    : item.approvals.some((vote) => vote.attempt === attempt);
}

/** Each copy once, in the order first recorded (a resent write may have added one twice). */
function distinctCopies(copies: readonly CardCopy[]): CardCopy[] {
  const seen = new Set<string>();
  return copies.filter((copy) => {
    const key = `${copy.channel} ${copy.ts}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
