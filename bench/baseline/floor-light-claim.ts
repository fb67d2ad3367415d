import { loadConfig, storageSettings } from '../../lib/config.js';
import { floorHandler } from './floor-app.js';
import { createLightClaims, lightClaimTarget } from './light-claim.js';

/**
 * Floor variant: the configuration parsed with the bot's schema (zod) as in the floor, the
 * delivery claim as one signed HTTP request (`light-claim.ts`) instead of through the AWS SDK.
 */

const config = loadConfig(process.env);
const storage = storageSettings(config, 'slack');
const claims = createLightClaims({
  ...lightClaimTarget(config.DYNAMODB_ENDPOINT, process.env),
  tableName: config.TABLE_NAME,
  requestTimeoutMs: storage.requestTimeoutMs,
  maxAttempts: storage.maxAttempts,
  now: () => new Date(),
});

export const handler = floorHandler({
  signingSecret: config.SLACK_SIGNING_SECRET,
  botToken: config.slackAuth.mode === 'single' ? config.slackAuth.botToken : undefined,
  slackApiUrl: config.SLACK_API_URL,
  claimOnce: (key) => claims.claimOnce(key),
});
