import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeliveryClaims } from '../../lib/store/delivery-claims.js';
import { floorHandler } from './floor-app.js';
import { loadPlainConfig } from './plain-config.js';
import { sdkTable } from './sdk-table.js';

/**
 * Floor variant: the configuration checked by hand (`plain-config.ts`) instead of with zod, the
 * delivery claim through the bot's DynamoDB client as in the floor.
 */

const config = loadPlainConfig(process.env);
// As `createDynamoDbClient` in lib/runtime.ts builds it, which cannot be imported here: it reads
// its settings through lib/config.ts, and loading that module loads zod with the schema.
const client = new DynamoDBClient({
  ...(config.dynamoEndpoint
    ? {
        endpoint: config.dynamoEndpoint,
        region: 'local',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }
    : {}),
  maxAttempts: config.storage.maxAttempts,
  requestHandler: {
    connectionTimeout: config.storage.connectTimeoutMs,
    requestTimeout: config.storage.requestTimeoutMs,
    throwOnRequestTimeout: true,
    socketTimeout: config.storage.requestTimeoutMs,
  },
});
const claims = new DeliveryClaims({
  table: sdkTable(client),
  tableName: config.tableName,
  now: () => new Date(),
});

export const handler = floorHandler({
  signingSecret: config.signingSecret,
  botToken: config.botToken,
  slackApiUrl: config.slackApiUrl,
  claimOnce: (key) => claims.claimOnce(key),
});
