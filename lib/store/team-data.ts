import { keys } from './keys.js';
import type { StoreContext } from './store-context.js';

/**
 * What has to go when a workspace removes the app and is spread over one partition per user:
 * the users' linked API tokens (with their active-profile pointers and reminders). The table has
 * no index by team for them, and an uninstall is rare, so a filtered scan finds them rather than
 * an index that every link write would pay for.
 */
export class TeamUserData {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Deletes every item under the team's user partitions; the number of token links among them. */
  async deleteUserItems(team: string): Promise<number> {
    const prefix = `${keys.team(team)}#USER#`;
    let links = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.#ctx.table.scan({
        TableName: this.#ctx.tableName,
        FilterExpression: 'begins_with(pk, :prefix)',
        ExpressionAttributeValues: { ':prefix': prefix },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      });
      const found = (page.Items ?? []).map((item) => ({ pk: String(item.pk), sk: String(item.sk) }));
      links += found.filter((key) => key.sk.startsWith(keys.linkPrefix)).length;
      for (let i = 0; i < found.length; i += 25) await this.#deleteBatch(found.slice(i, i + 25));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return links;
  }

  async #deleteBatch(batch: { pk: string; sk: string }[]): Promise<void> {
    let requests = batch.map((Key) => ({ DeleteRequest: { Key } }));
    // Unprocessed items come back under load; they are sent again until none are left.
    while (requests.length > 0) {
      const result = await this.#ctx.table.batchWrite({ RequestItems: { [this.#ctx.tableName]: requests } });
      requests = (result.UnprocessedItems?.[this.#ctx.tableName] ?? []) as typeof requests;
    }
  }
}
