import { randomUUID } from 'node:crypto';
import { StoreError } from './errors.js';
import { itemOfFailedCondition } from './items.js';
import { epochSeconds, type StoreContext } from './store-context.js';

/**
 * Exactly-once handling of Slack deliveries.
 *
 * Slack retries a delivery it thinks failed, and people double-click. The Slack layer claims each
 * delivery by a stable id before acting on it (`team:trigger_id` for a command,
 * `team:action_ts:action_id:user` for a click) and drops it when the claim is not the first.
 *
 * Powertools' idempotency utility was considered for the claims and fits the table (key and
 * expiry attribute names are configurable), but not the job: it makes a function idempotent by
 * storing its result and replaying it to repeats, so a repeat cannot learn that it is one; it
 * takes two writes (in progress, then completed) on the path that must answer Slack in 3 s; it
 * reads the wall clock, so expiry cannot be tested with the store's clock; and it warns on every
 * call that is not handed the Lambda context. A claim is one conditional put, so it is written here.
 *
 * Where replaying the result is the point — the worker, which Lambda invokes asynchronously and
 * at least once — Powertools is the tool: see `worker-idempotency.ts`.
 */

const CLAIM_SORT_KEY = 'CLAIM';
/** Slack retries within minutes; an hour covers them with room to spare. */
const DEFAULT_CLAIM_SECONDS = 60 * 60;
const MAX_KEY_LENGTH = 512;

export class DeliveryClaims {
  readonly #ctx: StoreContext;
  readonly #ttlSeconds: number;

  constructor(ctx: StoreContext, options: { ttlSeconds?: number } = {}) {
    this.#ctx = ctx;
    this.#ttlSeconds = options.ttlSeconds ?? DEFAULT_CLAIM_SECONDS;
  }

  /**
   * True for the first claim of `key` within the claim period, false for every repeat, however
   * they interleave. An expired claim counts as absent even before TTL removes it.
   */
  async claimOnce(key: string): Promise<boolean> {
    // Control characters would make keys that look alike in logs differ in the table.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting them is the point
    if (key.length === 0 || key.length > MAX_KEY_LENGTH || /[\u0000-\u001f]/.test(key)) {
      throw new StoreError('invalid_key_part', 'Invalid delivery key.');
    }
    const now = epochSeconds(this.#ctx.now());
    // Tells this claim from another's when a retry finds the item: an attempt whose answer was
    // lost may have written it.
    const claimId = randomUUID();
    try {
      await this.#ctx.table.put({
        TableName: this.#ctx.tableName,
        Item: {
          pk: `CLAIM#${key}`,
          sk: CLAIM_SORT_KEY,
          kind: 'delivery_claim',
          claimed_at: this.#ctx.now().toISOString(),
          expires_at: now + this.#ttlSeconds,
          claim_id: claimId,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now',
        ExpressionAttributeValues: { ':now': now },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return true;
    } catch (error) {
      const existing = itemOfFailedCondition(error);
      if (existing === undefined) throw error;
      return existing?.claim_id === claimId;
    }
  }
}
