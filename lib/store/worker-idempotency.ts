import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TABLE_DEFINITION } from '../../infra/table.js';
import { type StorageRole, storageSettings } from '../config.js';
import type { StorageConfig } from '../runtime.js';

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

/**
 * A DynamoDB client whose calls cannot hang: without a request timeout the SDK waits for a hung
 * DynamoDB (or a half-open connection) indefinitely. Powertools needs the SDK's client; the
 * repositories use `http-table.ts`, with the same settings. `role` picks the timeouts and
 * attempts (see `storageSettings` for the arithmetic).
 */
export function createDynamoDbClient(config: StorageConfig, role: StorageRole): DynamoDBClient {
  const settings = storageSettings(config, role);
  return new DynamoDBClient({
    ...(config.DYNAMODB_ENDPOINT
      ? {
          endpoint: config.DYNAMODB_ENDPOINT,
          region: 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : {}),
    maxAttempts: settings.maxAttempts,
    requestHandler: {
      connectionTimeout: settings.connectTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      // Without it a request timeout is only logged as a warning, and the call goes on waiting.
      throwOnRequestTimeout: true,
      // Bounds a response that stalls after its headers, which the request timeout no longer covers.
      socketTimeout: settings.requestTimeoutMs,
    },
  });
}
