import * as z from 'zod';
import { StoreError } from './errors.js';
import { listPrefixed } from './items.js';
import { keys } from './keys.js';
import { epochSeconds, type StoreContext } from './store-context.js';
import '../zod-settings.js';

/**
 * Snoozes of an alerts subscription, one item per snoozed issue or service, in the partition of
 * the subscription's alert claims. A timed snooze ends at `until`; one "until resolved" has none and
 * ends when its issue is no longer open or its service no longer has a problem, which the reporter
 * sees (`lib/reports/deliver.ts`). The table's TTL takes each item some time after it can matter.
 */

export type SnoozeTarget = { readonly kind: 'issue' | 'service'; readonly id: number };

export interface AlertSnooze {
  readonly team: string;
  readonly subscription: string;
  readonly target: SnoozeTarget;
  /** When it ends; null: when its issue or service is resolved. */
  readonly until: Date | null;
  readonly by: string;
  readonly at: Date;
}

/** Kept a day past a timed snooze's end; an "until resolved" one at most this long, then it is gone. */
const AFTER_END_SECONDS = 24 * 3600;
export const UNTIL_RESOLVED_MAX_MS = 7 * 24 * 3600_000;

const SnoozeItemSchema = z.object({
  kind: z.literal('alert_snooze'),
  team_id: z.string(),
  subscription_id: z.string(),
  target_kind: z.enum(['issue', 'service']),
  target_id: z.number().int(),
  until_ms: z.number().nullable(),
  snoozed_by: z.string(),
  snoozed_at: z.iso.datetime(),
  expires_at: z.number(),
});

const SNOOZE_PREFIX = 'SNOOZE#';

function keyOf(team: string, subscription: string, target: SnoozeTarget) {
  if (!Number.isSafeInteger(target.id) || target.id < 0)
    throw new StoreError('invalid_key_part', 'Invalid id.');
  return {
    pk: `${keys.team(team)}#${keys.report(subscription)}`,
    sk: `${SNOOZE_PREFIX}${target.kind}#${target.id}`,
  };
}

export class AlertSnoozeRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /**
   * Records a snooze, replacing one of the same issue or service: writing it again (a click Slack
   * delivered twice) leaves the same snooze.
   */
  async put(snooze: Omit<AlertSnooze, 'at'>): Promise<AlertSnooze> {
    const now = this.#ctx.now();
    const ends = snooze.until ?? new Date(now.getTime() + UNTIL_RESOLVED_MAX_MS);
    await this.#ctx.table.put({
      TableName: this.#ctx.tableName,
      Item: {
        ...keyOf(snooze.team, snooze.subscription, snooze.target),
        kind: 'alert_snooze',
        team_id: snooze.team,
        subscription_id: snooze.subscription,
        target_kind: snooze.target.kind,
        target_id: snooze.target.id,
        until_ms: snooze.until === null ? null : snooze.until.getTime(),
        snoozed_by: snooze.by,
        snoozed_at: now.toISOString(),
        expires_at: epochSeconds(ends) + AFTER_END_SECONDS,
      },
    });
    return { ...snooze, at: now };
  }

  /** The subscription's snoozes that have not ended by `now` (an "until resolved" one has not). */
  async active(team: string, subscription: string, now: Date): Promise<AlertSnooze[]> {
    const items = await listPrefixed(
      this.#ctx,
      { pk: `${keys.team(team)}#${keys.report(subscription)}`, prefix: SNOOZE_PREFIX },
      SnoozeItemSchema,
      'alert snooze',
    );
    return items
      .map(
        (item): AlertSnooze => ({
          team: item.team_id,
          subscription: item.subscription_id,
          target: { kind: item.target_kind, id: item.target_id },
          until: item.until_ms === null ? null : new Date(item.until_ms),
          by: item.snoozed_by,
          at: new Date(item.snoozed_at),
        }),
      )
      .filter((snooze) =>
        snooze.until === null
          ? now.getTime() - snooze.at.getTime() <= UNTIL_RESOLVED_MAX_MS
          : snooze.until.getTime() > now.getTime(),
      );
  }

  /** Ends a snooze; false when there was none. */
  async remove(team: string, subscription: string, target: SnoozeTarget): Promise<boolean> {
    const result = await this.#ctx.table.delete({
      TableName: this.#ctx.tableName,
      Key: keyOf(team, subscription, target),
      ReturnValues: 'ALL_OLD',
    });
    return result.Attributes !== undefined;
  }
}
