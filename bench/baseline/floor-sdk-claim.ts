import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { loadConfig, storageSettings } from '../../lib/config.js';
import { DeliveryClaims } from '../../lib/store/delivery-claims.js';
import { floorHandler } from './floor-app.js';
import { sdkTable } from './sdk-table.js';

/**
 * Floor variant: the floor with its delivery claim through the AWS SDK's document client, as the
 * bot's store made it before `lib/store/http-table.ts`: what that client costs the first answer.
 */
const config = loadConfig(process.env);
const storage = storageSettings(config, 'slack');
const client = new DynamoDBClient({
  ...(config.DYNAMODB_ENDPOINT
    ? {
        endpoint: config.DYNAMODB_ENDPOINT,
        region: 'local',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }
    : {}),
  maxAttempts: storage.maxAttempts,
  requestHandler: {
    connectionTimeout: storage.connectTimeoutMs,
    requestTimeout: storage.requestTimeoutMs,
    throwOnRequestTimeout: true,
    socketTimeout: storage.requestTimeoutMs,
  },
});
const claims = new DeliveryClaims({
  table: sdkTable(client),
  tableName: config.TABLE_NAME,
  now: () => new Date(),
});

export const handler = floorHandler({
  signingSecret: config.SLACK_SIGNING_SECRET,
  botToken: config.slackAuth.mode === 'single' ? config.slackAuth.botToken : undefined,
  slackApiUrl: config.SLACK_API_URL,
  claimOnce: (key) => claims.claimOnce(key),
});
