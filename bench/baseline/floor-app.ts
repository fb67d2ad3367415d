import { App, AwsLambdaReceiver, LogLevel } from '@slack/bolt';
import { FLOOR_ANSWER } from './answer.js';

/**
 * The Bolt app every floor variant shares: the minimal Bolt app, answering `/cloud` only after
 * claiming the delivery as the bot does (`command:<team>:<trigger_id>`). The variants differ only
 * in how they read the configuration and how they make the claim, so what each saves is that part.
 */

export interface FloorAppOptions {
  readonly signingSecret: string;
  readonly botToken: string | undefined;
  readonly slackApiUrl: string | undefined;
  readonly claimOnce: (key: string) => Promise<boolean>;
}

export function floorHandler(options: FloorAppOptions): ReturnType<AwsLambdaReceiver['toHandler']> {
  const receiver = new AwsLambdaReceiver({
    signingSecret: options.signingSecret,
    logLevel: LogLevel.ERROR,
  });
  const botToken = options.botToken ?? '';
  const app = new App({
    // As the bot and the minimal app: the bot token directly, so no auth.test.
    authorize: async () => ({ botToken }),
    ignoreSelf: false,
    receiver,
    logLevel: LogLevel.ERROR,
    ...(options.slackApiUrl ? { clientOptions: { slackApiUrl: options.slackApiUrl } } : {}),
  });
  app.command('/cloud', async ({ command, ack }) => {
    const first = await options.claimOnce(`command:${command.team_id}:${command.trigger_id}`);
    await ack(first ? { response_type: 'ephemeral', text: FLOOR_ANSWER } : undefined);
  });
  return receiver.toHandler();
}
