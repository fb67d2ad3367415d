import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Dispatcher } from 'undici';
import type { Config } from './config.js';
import { createMetrics, recordApiCall } from './observability/metrics.js';
import type { ApiSettings } from './slack/runner.js';
import { createStore, createTokenCipher, type Store } from './store/index.js';

/**
 * Builds the long-lived dependencies of a Lambda instance (or of the local stack) from the parsed
 * configuration. Entry points call this once, outside the handler, so warm invocations reuse
 * connections.
 */

export function createDocumentClient(config: Pick<Config, 'DYNAMODB_ENDPOINT'>): DynamoDBDocumentClient {
  const client = new DynamoDBClient(
    config.DYNAMODB_ENDPOINT
      ? {
          endpoint: config.DYNAMODB_ENDPOINT,
          region: 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : {},
  );
  return DynamoDBDocumentClient.from(client);
}

export function createStoreFromConfig(config: Config, now: () => Date = () => new Date()): Store {
  return createStore(
    { doc: createDocumentClient(config), tableName: config.TABLE_NAME, now },
    createTokenCipher(config),
  );
}

export interface CoreDeps {
  readonly store: Store;
  readonly api: ApiSettings;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

export function createCoreDeps(config: Config, logger: Logger, dispatcher?: Dispatcher): CoreDeps {
  const metrics = createMetrics();
  return {
    store: createStoreFromConfig(config),
    api: {
      baseUrl: config.CLOUD_API_URL,
      timeoutMs: config.API_TIMEOUT_MS,
      dispatcher,
      onCall: (event) => recordApiCall(metrics, event),
    },
    logger,
    metrics,
  };
}
