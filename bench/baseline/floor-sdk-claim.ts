import { loadConfig } from '../../lib/config.js';
import { createDynamoDbClient } from '../../lib/store/dynamodb-client.js';
import { floorHandler } from './floor-app.js';
import { sdkTable } from './sdk-table.js';

/**
 * Floor variant: the floor with its delivery claim through the AWS SDK's document client, as the
 * bot's store made it before `lib/store/http-table.ts`: what that client costs the first answer.
 */
const config = loadConfig(process.env);
export const handler = floorHandler(config, sdkTable(createDynamoDbClient(config, 'slack')));
