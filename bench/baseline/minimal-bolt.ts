import { App, AwsLambdaReceiver, LogLevel } from '@slack/bolt';
import { BASELINE_ANSWER } from './answer.js';

/**
 * The cold-start baseline: the smallest Bolt app a team would write for a slash command on
 * Lambda. It is bundled by the same build as the bot's functions, so the comparison measures what
 * the bot adds on top of Bolt, not differences in bundling.
 */

const receiver = new AwsLambdaReceiver({
  signingSecret: process.env.SLACK_SIGNING_SECRET ?? '',
  logLevel: LogLevel.ERROR,
});

const botToken = process.env.SLACK_BOT_TOKEN ?? '';
const app = new App({
  // Configured as the bot is: the token handed to Bolt directly, so neither app asks Slack's
  // auth.test who the bot is (with a plain `token` Bolt does, on the first event of a process:
  // a round trip to Slack on Lambda that the bot does not make).
  authorize: async () => ({ botToken }),
  ignoreSelf: false,
  receiver,
  logLevel: LogLevel.ERROR,
  // The benchmark points both apps at the local Slack stand-in, which answers that auth.test.
  ...(process.env.SLACK_API_URL ? { clientOptions: { slackApiUrl: process.env.SLACK_API_URL } } : {}),
});

app.command('/cloud', async ({ ack }) => {
  await ack({ response_type: 'ephemeral', text: BASELINE_ANSWER });
});

export const handler = receiver.toHandler();
