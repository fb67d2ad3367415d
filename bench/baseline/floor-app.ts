import { App, AwsLambdaReceiver, LogLevel } from '@slack/bolt';
import type { Config } from '../../lib/config.js';
import { DeliveryClaims } from '../../lib/store/delivery-claims.js';
import type { Table } from '../../lib/store/table.js';
import { FLOOR_ANSWER } from './answer.js';

/**
 * The Bolt app every floor variant shares: the minimal Bolt app, answering `/cloud` only after
 * claiming the delivery as the bot does (`command:<team>:<trigger_id>`, `DeliveryClaims`) with
 * the bot's configuration. The floors differ only in the table client the claim goes through.
 */

export function floorHandler(config: Config, table: Table): ReturnType<AwsLambdaReceiver['toHandler']> {
  const claims = new DeliveryClaims({ table, tableName: config.TABLE_NAME, now: () => new Date() });
  const receiver = new AwsLambdaReceiver({
    signingSecret: config.SLACK_SIGNING_SECRET,
    logLevel: LogLevel.ERROR,
  });
  const botToken = config.slackAuth.mode === 'single' ? config.slackAuth.botToken : '';
  const app = new App({
    // As the bot and the minimal app: the bot token directly, so no auth.test.
    authorize: async () => ({ botToken }),
    ignoreSelf: false,
    receiver,
    logLevel: LogLevel.ERROR,
    ...(config.SLACK_API_URL ? { clientOptions: { slackApiUrl: config.SLACK_API_URL } } : {}),
  });
  app.command('/cloud', async ({ command, ack }) => {
    const first = await claims.claimOnce(`command:${command.team_id}:${command.trigger_id}`);
    await ack(first ? { response_type: 'ephemeral', text: FLOOR_ANSWER } : undefined);
  });
  return receiver.toHandler();
}
