import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { StoreError } from './errors.js';
import { isConditionFailure, itemOfFailedCondition, parseItem, updateIf, updateReturning } from './items.js';
import { keys } from './keys.js';
import { epochSeconds, type StoreContext } from './store-context.js';
import '../zod-settings.js';

/**
 * One item per (subscription, issue) alert, written before the alert is posted, so that of two
 * runs (a scheduled one and `/cloud reports run`, or a run and the retry of a run that died) only
 * one posts it.
 *
 * `posting` → `posted`: a run claims the alert with a conditional put, posts it, and marks it
 * posted with the message's ts. A run that dies or loses Slack's answer in between leaves the claim
 * `posting`: the alert is in doubt. Its lease says how long the run that holds it may still be
 * working on it (every run stops well before its Lambda's timeout, which the lease exceeds); after
 * that another run may take the claim over, and must then look for the message in the channel
 * before posting (see `lib/reports/deliver.ts`). The claim's token tells the holder's writes from
 * those of a run that took it over.
 *
 * A takeover keeps where the chain of doubt began (`doubtSince`), how far the channel was searched
 * (`checkedBefore`) and the claim's expiry, so a check cut short by Slack's history limits resumes
 * in a later run and never starts after a post an earlier holder made.
 *
 * Claims go with the table's TTL. A `posted` one lives long after the subscription has remembered
 * the issue as seen. A `posting` one that nobody could resolve (the channel's history cannot be
 * read) expires after a day and the alert is then claimed afresh and posted: a possible duplicate
 * rather than an alert lost forever.
 *
 * Flapping: the API's issue has no open or closed state, so an issue is closed when the feed no
 * longer lists it. A `posted` claim then records `closedAt`; listed again within the subscription's
 * window, its `reopenCount` goes up by one and `closedAt` is cleared in one conditional update (so
 * two runs count a reopening once), and `toldCount` says up to which reopening the channel was told
 * in the alert's thread. Listed again after the window, the claim is removed and the issue is alerted
 * afresh under a new one.
 */

export type AlertClaimStatus = 'posting' | 'posted';

export interface AlertClaimKey {
  readonly team: string;
  readonly subscription: string;
  readonly issue: number;
}

export interface AlertClaim extends AlertClaimKey {
  readonly status: AlertClaimStatus;
  readonly claimedAt: Date;
  /** Until then the run that claimed it may still be posting; afterwards the alert is in doubt. */
  readonly leaseUntil: Date;
  /** Identifies the holder: only it marks or releases the claim. */
  readonly token: string;
  /** The posted message (`posted` only). */
  readonly messageTs: string | null;
  /**
   * When the alert first went into doubt's chain: the claim time of the first holder, kept through
   * every takeover, so a check always searches from before the first possible post.
   */
  readonly doubtSince: Date;
  /** How far down the channel's history earlier checks searched (exclusive ts), if they stopped part-way. */
  readonly checkedBefore: string | null;
  /** The thread the posted alert is in (a group's message), when it is a reply; else its own ts. */
  readonly threadTs: string | null;
  /** When a run found the issue no longer listed (`posted` only); cleared when it is listed again. */
  readonly closedAt: Date | null;
  /** How often the issue came back within the flapping window since it was alerted. */
  readonly reopenCount: number;
  /** Up to which reopening the channel was told (or a run took on telling it). */
  readonly toldCount: number;
}

export type ClaimResult =
  /** This run may post the alert; `inDoubt` is the expired claim it took over, if any. */
  | { readonly status: 'claimed'; readonly claim: AlertClaim; readonly inDoubt?: AlertClaim }
  /** Posted already, or another run is posting it within its lease. */
  | { readonly status: 'held'; readonly by: AlertClaim };

/** Longer than any run may hold a claim: the reporter stops before 240 s, the worker before 120 s. */
export const ALERT_CLAIM_LEASE_MS = 5 * 60_000;
const IN_DOUBT_TTL_SECONDS = 24 * 3600;
const POSTED_TTL_SECONDS = 30 * 24 * 3600;

const AlertClaimItemSchema = z.object({
  kind: z.literal('alert_claim'),
  team_id: z.string(),
  subscription_id: z.string(),
  issue_id: z.number().int(),
  status: z.enum(['posting', 'posted']),
  claimed_at: z.iso.datetime(),
  lease_until_ms: z.number(),
  claim_token: z.string(),
  message_ts: z.string().optional(),
  doubt_since: z.iso.datetime().optional(),
  checked_before: z.string().optional(),
  expires_at: z.number().optional(),
  thread_ts: z.string().optional(),
  closed_at: z.iso.datetime().optional(),
  reopen_count: z.number().int().nonnegative().optional(),
  told_count: z.number().int().nonnegative().optional(),
});
type AlertClaimItem = z.infer<typeof AlertClaimItemSchema>;

const ALERT_PREFIX = 'ALERT#';

function partitionOf(team: string, subscription: string): string {
  return `${keys.team(team)}#${keys.report(subscription)}`;
}

function keyOf({ team, subscription, issue }: AlertClaimKey) {
  if (!Number.isSafeInteger(issue) || issue < 0) {
    throw new StoreError('invalid_key_part', 'Invalid issue id.');
  }
  return { pk: partitionOf(team, subscription), sk: `${ALERT_PREFIX}${issue}` };
}

export class AlertClaimRepository {
  readonly #ctx: StoreContext;
  readonly #leaseMs: number;

  constructor(ctx: StoreContext, options: { leaseMs?: number } = {}) {
    this.#ctx = ctx;
    this.#leaseMs = options.leaseMs ?? ALERT_CLAIM_LEASE_MS;
  }

  /**
   * Claims an alert: succeeds when nobody has, when an earlier claim expired, or when a `posting`
   * claim's lease ran out (then `inDoubt` is that claim, and the caller must check the channel).
   */
  async claim(key: AlertClaimKey): Promise<ClaimResult> {
    const now = this.#ctx.now();
    const fresh = {
      ...keyOf(key),
      kind: 'alert_claim',
      team_id: key.team,
      subscription_id: key.subscription,
      issue_id: key.issue,
      status: 'posting',
      claimed_at: now.toISOString(),
      lease_until_ms: now.getTime() + this.#leaseMs,
      claim_token: randomUUID(),
      expires_at: epochSeconds(now) + IN_DOUBT_TTL_SECONDS,
    } satisfies AlertClaimItem & Record<string, unknown>;
    const held = await this.#putIf(fresh, 'attribute_not_exists(pk) OR expires_at <= :nowSeconds', {
      ':nowSeconds': epochSeconds(now),
    });
    if (held === undefined) return { status: 'claimed', claim: toClaim(fresh) };
    const previous = toClaim(held);
    if (previous.status !== 'posting' || previous.leaseUntil.getTime() > now.getTime()) {
      return { status: 'held', by: previous };
    }
    // A takeover: the alert is in doubt. Where the chain of doubt began, how far it was checked and
    // when it expires stay as they were, so no check starts after a post an earlier holder made.
    const takeover = {
      ...fresh,
      doubt_since: previous.doubtSince.toISOString(),
      ...(previous.checkedBefore === null ? {} : { checked_before: previous.checkedBefore }),
      expires_at: typeof held.expires_at === 'number' ? held.expires_at : fresh.expires_at,
    } satisfies AlertClaimItem & Record<string, unknown>;
    const taken = await this.#putIf(takeover, 'claim_token = :heldToken AND lease_until_ms <= :nowMs', {
      ':heldToken': previous.token,
      ':nowMs': now.getTime(),
    });
    if (taken === undefined) return { status: 'claimed', claim: toClaim(takeover), inDoubt: previous };
    // Another run took it over first.
    return { status: 'held', by: toClaim(taken) };
  }

  /**
   * Writes `item` if `condition` holds; otherwise answers the item that stood in the way (parsed
   * loosely: the caller reads the claim from it). Undefined when the item is there already, this
   * same claim (its token): a resend whose first answer was lost.
   */
  async #putIf(
    item: Record<string, unknown>,
    condition: string,
    values: Record<string, unknown>,
  ): Promise<AlertClaimItem | undefined> {
    try {
      await this.#ctx.table.put({
        TableName: this.#ctx.tableName,
        Item: item,
        ConditionExpression: condition,
        ExpressionAttributeValues: values,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return undefined;
    } catch (error) {
      const held = itemOfFailedCondition(error);
      if (held === undefined) throw error;
      if (held === null) throw new StoreError('malformed_item', 'An alert claim vanished while held.');
      // This claim's own token: a resend after a lost answer found the claim it wrote.
      if (held.claim_token === item.claim_token) return undefined;
      return parseItem(AlertClaimItemSchema, held, 'alert claim');
    }
  }

  /**
   * Leaves the alert in doubt for the next run, after a check that could not finish (Slack's
   * history limits): the lease ends now, so the next run may take it over at once, and
   * `checkedBefore` records how far down the history was searched. False when no longer held.
   */
  async leaveInDoubt(claim: AlertClaim, checkedBefore: string | null): Promise<boolean> {
    const now = this.#ctx.now();
    return updateIf(this.#ctx, keyOf(claim), {
      UpdateExpression:
        checkedBefore === null
          ? 'SET lease_until_ms = :now'
          : 'SET lease_until_ms = :now, checked_before = :checkedBefore',
      ConditionExpression: 'claim_token = :token AND #status = :posting',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':now': now.getTime(),
        ':token': claim.token,
        ':posting': 'posting',
        ...(checkedBefore === null ? {} : { ':checkedBefore': checkedBefore }),
      },
    });
  }

  /**
   * Records the posted message (`threadTs`: the group message whose thread it is in); false when
   * the claim is no longer this holder's.
   */
  async markPosted(claim: AlertClaim, messageTs: string, threadTs?: string): Promise<boolean> {
    const now = this.#ctx.now();
    const thread = threadTs !== undefined && threadTs !== messageTs;
    return updateIf(this.#ctx, keyOf(claim), {
      UpdateExpression: `SET #status = :posted, message_ts = :ts, posted_at = :now, expires_at = :expires${thread ? ', thread_ts = :thread' : ''}`,
      ConditionExpression: 'claim_token = :token',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':posted': 'posted',
        ':ts': messageTs,
        ':now': now.toISOString(),
        ':expires': epochSeconds(now) + POSTED_TTL_SECONDS,
        ':token': claim.token,
        ...(thread ? { ':thread': threadTs } : {}),
      },
    });
  }

  /**
   * Records that the feed no longer lists a posted alert's issue. Idempotent: the first run to see
   * it closed sets the time. False when there is no posted claim, or it is closed already.
   */
  async recordClosed(key: AlertClaimKey): Promise<boolean> {
    return updateIf(this.#ctx, keyOf(key), {
      UpdateExpression: 'SET closed_at = :now',
      ConditionExpression: '#status = :posted AND attribute_not_exists(closed_at)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':now': this.#ctx.now().toISOString(), ':posted': 'posted' },
    });
  }

  /**
   * An issue listed again: counts a reopening if its claim was closed at or after `since` (the
   * start of the flapping window), clearing `closedAt`, once however many runs try. Answers the
   * claim as it stands afterwards (with `closedAt` still set when it was closed before `since`),
   * or undefined when the issue has no claim.
   */
  async reopen(key: AlertClaimKey, since: Date): Promise<AlertClaim | undefined> {
    const now = this.#ctx.now();
    const answer = await updateReturning(this.#ctx, keyOf(key), {
      UpdateExpression:
        'SET reopen_count = if_not_exists(reopen_count, :zero) + :one, expires_at = :expires REMOVE closed_at',
      ConditionExpression: '#status = :posted AND closed_at >= :since',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':zero': 0,
        ':one': 1,
        ':expires': epochSeconds(now) + POSTED_TTL_SECONDS,
        ':posted': 'posted',
        ':since': since.toISOString(),
      },
    });
    return answer.item === null ? undefined : toClaim(answer.item);
  }

  /**
   * Takes on telling the channel of reopening `count`, before the reply is posted, so that of two
   * runs only one tells it, and a run that dies after posting is not followed by a second reply.
   * False when that reopening is told already (or not counted).
   */
  async takeTelling(key: AlertClaimKey, count: number): Promise<boolean> {
    return updateIf(this.#ctx, keyOf(key), {
      UpdateExpression: 'SET told_count = :count',
      ConditionExpression:
        'reopen_count >= :count AND (attribute_not_exists(told_count) OR told_count < :count)',
      ExpressionAttributeValues: { ':count': count },
    });
  }

  /** Gives back the telling of reopening `count` after Slack refused its reply (nothing was posted). */
  async giveBackTelling(key: AlertClaimKey, count: number): Promise<boolean> {
    return updateIf(this.#ctx, keyOf(key), {
      UpdateExpression: 'SET told_count = :before',
      ConditionExpression: 'told_count = :count',
      ExpressionAttributeValues: { ':count': count, ':before': count - 1 },
    });
  }

  /**
   * Removes the claim of an issue that came back after the flapping window (`closedAt` as read),
   * so that it is claimed and alerted afresh as a new occurrence. False when another run changed it.
   */
  async forgetClosed(claim: AlertClaim): Promise<boolean> {
    if (claim.closedAt === null) return false;
    try {
      await this.#ctx.table.delete({
        TableName: this.#ctx.tableName,
        Key: keyOf(claim),
        ConditionExpression: '#status = :posted AND closed_at = :closedAt',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':posted': 'posted', ':closedAt': claim.closedAt.toISOString() },
      });
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Gives the alert back after Slack refused it (nothing was posted): the next run tries again at once. */
  async release(claim: AlertClaim): Promise<boolean> {
    try {
      await this.#ctx.table.delete({
        TableName: this.#ctx.tableName,
        Key: keyOf(claim),
        ConditionExpression: 'claim_token = :token AND #status = :posting',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':token': claim.token, ':posting': 'posting' },
      });
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** A subscription's claims, for inspection (tests, support). */
  async listForSubscription(team: string, subscription: string): Promise<AlertClaim[]> {
    const claims: AlertClaim[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.#ctx.table.query({
        TableName: this.#ctx.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': partitionOf(team, subscription), ':prefix': ALERT_PREFIX },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      });
      for (const raw of page.Items ?? []) claims.push(toClaim(raw));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return claims;
  }
}

function toClaim(raw: unknown): AlertClaim {
  const item = parseItem(AlertClaimItemSchema, raw, 'alert claim');
  return {
    team: item.team_id,
    subscription: item.subscription_id,
    issue: item.issue_id,
    status: item.status,
    claimedAt: new Date(item.claimed_at),
    leaseUntil: new Date(item.lease_until_ms),
    token: item.claim_token,
    messageTs: item.message_ts ?? null,
    doubtSince: new Date(item.doubt_since ?? item.claimed_at),
    checkedBefore: item.checked_before ?? null,
    threadTs: item.thread_ts ?? null,
    closedAt: item.closed_at === undefined ? null : new Date(item.closed_at),
    reopenCount: item.reopen_count ?? 0,
    toldCount: item.told_count ?? 0,
  };
}
