import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/observability/logger.js';
import { type RelyingParty, relyingPartyOf } from '../../lib/passkeys/paths.js';
import { createCoreDeps } from '../../lib/runtime.js';
import { withSecretsFromSsm } from '../../lib/secrets.js';
import { createSlackApp } from '../../lib/slack/bot.js';
import type { PasskeySettings } from '../../lib/slack/context.js';
import {
  passkeyApprovalRecorder,
  passkeyFactorRecorder,
  passkeyProofDescriber,
} from '../../lib/slack/passkey-approvals.js';
import { createSlackAccess } from '../../lib/slack-access.js';
import { LambdaHandoff } from '../../lib/worker/handoff.js';

/**
 * Slack's requests (slash commands, buttons, modals, events) and, for a distributed app, the
 * "Add to Slack" pages, through API Gateway.
 */
const config = loadConfig(await withSecretsFromSsm(process.env));
const logger = createLogger('slack');
if (!config.WORKER_FUNCTION_NAME)
  throw new Error('Invalid configuration: WORKER_FUNCTION_NAME is required in AWS');

const core = createCoreDeps(config, logger, { role: 'slack' });
const { botToken, installer, botTokens, client } = createSlackAccess(
  config.slackAuth,
  core.store,
  config.SLACK_API_URL,
);
const handoff = new LambdaHandoff(config.WORKER_FUNCTION_NAME);
const { handler: slackHandler } = createSlackApp({
  ...core,
  storageBudgetMs: config.SLACK_STORAGE_BUDGET_MS,
  // Lambda runs one invocation at a time in an execution environment.
  oneRequestAtATime: true,
  signingSecret: config.SLACK_SIGNING_SECRET,
  botToken,
  installer,
  botTokens,
  slackApiUrl: config.SLACK_API_URL,
  inlineBudgetMs: config.INLINE_BUDGET_MS,
  handoff,
  ...(config.BOT_PUBLIC_URL
    ? {
        passkeys: passkeySettings(relyingPartyOf(config.BOT_PUBLIC_URL)),
      }
    : {}),
});

function passkeySettings(relyingParty: RelyingParty): PasskeySettings {
  return {
    relyingParty,
    // A verified passkey approval records the vote as the code modal's submission does.
    onVerifiedAssertion: passkeyApprovalRecorder({ ...core, handoff }, client),
    factors: passkeyFactorRecorder({ ...core, passkeyLinks: { store: core.store, relyingParty } }, client),
    describeProof: passkeyProofDescriber(core, client),
  };
}

export const handler = slackHandler;
