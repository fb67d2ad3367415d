import { App, AwsLambdaReceiver, LogLevel } from '@slack/bolt';
import { loadConfig } from '../../lib/config.js';
import { createDocumentClient } from '../../lib/runtime.js';
import { DeliveryClaims } from '../../lib/store/delivery-claims.js';
import { FLOOR_ANSWER } from './answer.js';

/**
 * The floor of the bot's cold start: the minimal Bolt app plus only what the bot cannot answer
 * `/cloud help` without — its configuration parsed with the bot's own schema (zod) and the
 * delivery claim, one conditional write through the bot's DynamoDB client. Neither the commands,
 * the operations table nor the help text: whatever the bot's `/cloud help` costs above this
 * floor is what loading less of the bot could still save.
 */

const config = loadConfig(process.env);
const claims = new DeliveryClaims({
  doc: createDocumentClient(config, 'slack'),
  tableName: config.TABLE_NAME,
  now: () => new Date(),
});

const receiver = new AwsLambdaReceiver({
  signingSecret: config.SLACK_SIGNING_SECRET,
  logLevel: LogLevel.ERROR,
});

const app = new App({
  // As the bot and the minimal app: the bot token directly, so no auth.test.
  authorize: async () => ({ botToken: config.slackAuth.mode === 'single' ? config.slackAuth.botToken : '' }),
  ignoreSelf: false,
  receiver,
  logLevel: LogLevel.ERROR,
  ...(config.SLACK_API_URL ? { clientOptions: { slackApiUrl: config.SLACK_API_URL } } : {}),
});

app.command('/cloud', async ({ command, ack }) => {
  const first = await claims.claimOnce(`command:${command.team_id}:${command.trigger_id}`);
  await ack(first ? { response_type: 'ephemeral', text: FLOOR_ANSWER } : undefined);
});

export const handler = receiver.toHandler();
