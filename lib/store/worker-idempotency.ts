import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TABLE_DEFINITION } from './table-definition.js';

/**
 * Powertools' DynamoDB persistence layer, keeping its records in the bot's table
 * (`pk = IDEMPOTENCY#worker`, `sk = <hashed idempotency key>`, TTL on `expires_at`).
 *
 * Lambda delivers asynchronous invocations of the worker at least once and retries failures.
 * Replaying the first run's result to a repeat is what Powertools' `makeIdempotent` does, so the
 * worker wraps its job handling in it, keyed on the job id. (Slack deliveries need a different
 * answer, see `delivery-claims.ts`.) A module of its own, so the Slack function does not load it.
 */
export function workerIdempotencyPersistence(
  client: DynamoDBClient,
  tableName: string,
): DynamoDBPersistenceLayer {
  return new DynamoDBPersistenceLayer({
    tableName,
    awsSdkV3Client: client,
    keyAttr: TABLE_DEFINITION.partitionKey,
    sortKeyAttr: TABLE_DEFINITION.sortKey,
    staticPkValue: 'IDEMPOTENCY#worker',
    expiryAttr: TABLE_DEFINITION.ttlAttribute,
  });
}
