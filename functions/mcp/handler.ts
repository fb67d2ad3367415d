import { createAgentsApp } from '../../lib/agents/app.js';
import { oauthRoutesOnFirstUse } from '../../lib/agents/oauth/routes-on-first-use.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/observability/logger.js';
import { createCoreDeps, slackAccessOnFirstUse } from '../../lib/runtime.js';
import { withSecretsFromSsm } from '../../lib/secrets.js';
import { AgentGrantRepository } from '../../lib/store/agent-grants.js';
import { LambdaHandoff } from '../../lib/worker/handoff.js';

/**
 * Agents over MCP (`/mcp`), and the pages they sign people in through, via API Gateway. The
 * approval cards their changes become are posted with the bot's Slack token; the worker runs them
 * once approved, as it runs every approved request.
 */
const config = loadConfig(await withSecretsFromSsm(process.env));
const logger = createLogger('mcp');
if (!config.WORKER_FUNCTION_NAME)
  throw new Error('Invalid configuration: WORKER_FUNCTION_NAME is required in AWS');
if (!config.BOT_PUBLIC_URL) throw new Error('Invalid configuration: BOT_PUBLIC_URL is required in AWS');
const slackApp =
  config.SLACK_CLIENT_ID && config.SLACK_CLIENT_SECRET
    ? { clientId: config.SLACK_CLIENT_ID, clientSecret: config.SLACK_CLIENT_SECRET }
    : undefined;
// Slackbot and agents already signed in are served without them; only new sign-ins wait.
if (!slackApp)
  logger.warn('SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are not set: agents cannot sign in with Slack');

// Every agent's call checks its token first: the grants' repository comes with the function's start,
// so a first call's lookup reaches the table while the request is still being built
// (`createAgentsApp`), not after the turns spent loading a module.
// A read's repositories load with the read's code, in one module (`lib/agents/read-path.ts`).
const core = createCoreDeps(config, logger, {
  role: 'background',
  loaded: { agentGrants: AgentGrantRepository, readPath: () => import('../../lib/agents/read-path.js') },
});
// The Slack clients load on first use: a list or a read posts nothing to Slack, and their packages
// were most of what this function loaded before its first answer (`npm run bench -- --only mcp`).
const slack = slackAccessOnFirstUse(config.slackAuth, core.store, config.SLACK_API_URL);
// The pages agents sign people in through (the bot is the authorization server of its MCP resource),
// loaded on the first sign-in, not by a cold start that serves an agent's call.
const oauth = oauthRoutesOnFirstUse({
  store: core.store,
  logger,
  publicUrl: config.BOT_PUBLIC_URL,
  slackApp,
  slackApiUrl: config.SLACK_API_URL,
  botTokens: slack.botTokens,
});
const app = createAgentsApp(
  {
    ...core,
    slack: slack.client,
    handoff: new LambdaHandoff(config.WORKER_FUNCTION_NAME),
    publicUrl: config.BOT_PUBLIC_URL,
    // Slackbot's calls are signed with the app's signing secret, as every Slack request is.
    signingSecret: config.SLACK_SIGNING_SECRET,
  },
  oauth,
);

export const handler = app.handler;
