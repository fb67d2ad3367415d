import { loadConfig } from '../../lib/config.js';
import { openTable } from '../../lib/runtime.js';
import { DeliveryClaims } from '../../lib/store/delivery-claims.js';
import { floorHandler } from './floor-app.js';

/**
 * The floor of the bot's cold start: the minimal Bolt app plus only what the bot cannot answer
 * `/cloud help` without — its configuration, checked by the bot's own `loadConfig`, and the
 * delivery claim, one conditional write through the bot's table client. Neither the commands,
 * the operations table nor the help text: whatever the bot's `/cloud help` costs above this
 * floor is what loading less of the bot could still save.
 */

const config = loadConfig(process.env);
const claims = new DeliveryClaims({
  table: openTable(config, 'slack'),
  tableName: config.TABLE_NAME,
  now: () => new Date(),
});

export const handler = floorHandler({
  signingSecret: config.SLACK_SIGNING_SECRET,
  botToken: config.slackAuth.mode === 'single' ? config.slackAuth.botToken : undefined,
  slackApiUrl: config.SLACK_API_URL,
  claimOnce: (key) => claims.claimOnce(key),
});
