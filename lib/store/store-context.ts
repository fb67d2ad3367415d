import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** What every repository needs: the table, and a clock the tests can move. */
export interface StoreContext {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly now: () => Date;
}

/** DynamoDB TTL wants whole epoch seconds. */
export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
