import { sendUntilProcessed } from './batch-rounds.js';
import { keys } from './keys.js';
import type { StoreContext } from './store-context.js';
import type { ItemKey, TableItem } from './table.js';

/**
 * What has to go when a workspace removes the app and is spread over one partition per user:
 * the users' linked API tokens (with their active-profile pointers and reminders). Each of those
 * users has a member item under the team's partition (`keys.member`), written before the user's
 * first item, so the removal queries the team's members and then each member's partition: every
 * read is by key, and the functions' roles need no `dynamodb:Scan`.
 */

/** Members whose partitions are emptied at once; keeps a large workspace's removal short. */
const MEMBERS_AT_ONCE = 8;
/** BatchWriteItem takes at most 25 requests. */
const BATCH_SIZE = 25;
/** Rounds of resending what DynamoDB left unprocessed before the removal gives up (and is retried). */
const UNPROCESSED_ROUNDS = 5;
const UNPROCESSED_BASE_DELAY_MS = 50;

/**
 * Notes that `user` has items under the team's user partition. Idempotent (a put of a fixed item),
 * so every write that may create the partition's first item makes it first.
 */
export async function recordTeamMember(ctx: StoreContext, team: string, user: string): Promise<void> {
  await ctx.table.put({ TableName: ctx.tableName, Item: teamMemberItem(team, user) });
}

/** The member item of `user` under `team` (also written by `infra/backfill-team-members.ts`). */
export function teamMemberItem(team: string, user: string) {
  return { pk: keys.team(team), sk: keys.member(user), kind: 'team_member', user_id: user } as const;
}

export class TeamUserData {
  readonly #ctx: StoreContext;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(ctx: StoreContext, sleep: (ms: number) => Promise<void> = defaultSleep) {
    this.#ctx = ctx;
    this.#sleep = sleep;
  }

  /**
   * Deletes every item under the team's user partitions, and their member items; the number of
   * token links among them. A member item goes only after its partition is empty, so a removal that
   * fails part-way (it throws) leaves the rest findable, and running it again finishes the work.
   */
  async deleteUserItems(team: string): Promise<number> {
    let links = 0;
    let startKey: TableItem | undefined;
    do {
      const page = await this.#ctx.table.query({
        TableName: this.#ctx.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :member)',
        ExpressionAttributeValues: { ':pk': keys.team(team), ':member': keys.memberPrefix },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      });
      const members = (page.Items ?? []).map(keyOf);
      for (let i = 0; i < members.length; i += MEMBERS_AT_ONCE) {
        const counts = await Promise.all(
          members.slice(i, i + MEMBERS_AT_ONCE).map((member) => this.#emptyPartition(team, member)),
        );
        links += counts.reduce((sum, count) => sum + count, 0);
      }
      await this.#deleteAll(members);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return links;
  }

  /** Deletes everything under one member's partition; the number of token links among it. */
  async #emptyPartition(team: string, member: ItemKey): Promise<number> {
    const pk = keys.user(team, member.sk.slice(keys.memberPrefix.length));
    let links = 0;
    let startKey: TableItem | undefined;
    do {
      const page = await this.#ctx.table.query({
        TableName: this.#ctx.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      });
      const found = (page.Items ?? []).map(keyOf);
      links += found.filter((key) => key.sk.startsWith(keys.linkPrefix)).length;
      await this.#deleteAll(found);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return links;
  }

  async #deleteAll(found: readonly ItemKey[]): Promise<void> {
    for (let i = 0; i < found.length; i += BATCH_SIZE)
      await this.#deleteBatch(found.slice(i, i + BATCH_SIZE));
  }

  async #deleteBatch(batch: readonly ItemKey[]): Promise<void> {
    const tableName = this.#ctx.tableName;
    const requests = batch.map((key) => ({ DeleteRequest: { Key: { pk: key.pk, sk: key.sk } } }));
    // Unprocessed items come back under load; they are sent again, with backoff, a bounded number
    // of times. Past that the removal fails as unavailable storage, and its retry resumes here.
    await sendUntilProcessed(
      requests,
      async (undone) => {
        const result = await this.#ctx.table.batchWrite({ RequestItems: { [tableName]: [...undone] } });
        return (result.UnprocessedItems?.[tableName] ?? []) as typeof requests;
      },
      {
        resends: UNPROCESSED_ROUNDS,
        delayMs: (resend) => UNPROCESSED_BASE_DELAY_MS * 2 ** (resend - 1),
        sleep: this.#sleep,
        undone: (count) =>
          `DynamoDB left ${count} deletion(s) unprocessed after ${UNPROCESSED_ROUNDS} resends.`,
      },
    );
  }
}

function keyOf(item: TableItem): ItemKey {
  return { pk: String(item.pk), sk: String(item.sk) };
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
