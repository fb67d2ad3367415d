import { floorHandler } from './floor-app.js';
import { createLightClaims, lightClaimTarget } from './light-claim.js';
import { loadPlainConfig } from './plain-config.js';

/**
 * Floor variant: neither zod nor the AWS SDK — the configuration checked by hand
 * (`plain-config.ts`) and the claim as one signed HTTP request (`light-claim.ts`).
 */

const config = loadPlainConfig(process.env);
const claims = createLightClaims({
  ...lightClaimTarget(config.dynamoEndpoint, process.env),
  tableName: config.tableName,
  requestTimeoutMs: config.storage.requestTimeoutMs,
  maxAttempts: config.storage.maxAttempts,
  now: () => new Date(),
});

export const handler = floorHandler({
  signingSecret: config.signingSecret,
  botToken: config.botToken,
  slackApiUrl: config.slackApiUrl,
  claimOnce: (key) => claims.claimOnce(key),
});
