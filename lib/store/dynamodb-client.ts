import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type StorageConfig, type StorageRole, storageSettings } from '../config.js';

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
