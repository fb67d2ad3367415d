import type { WebClient } from '@slack/web-api';
import type { SlackAuth } from './config.js';
import type { SlackInstallKind } from './reports/history-budget.js';
import { type BotInstaller, createInstaller } from './slack/oauth.js';
import {
  type BotTokens,
  createBackgroundSlackClient,
  createSlackWebClient,
  installedBotTokens,
} from './slack-kit/web-client.js';
import type { Store } from './store/index.js';

/**
 * How a function reaches Slack, in a module of its own: importing it loads the Slack packages
 * (`@slack/web-api`, and `@slack/oauth` for many workspaces), so a function that reaches Slack only
 * on some requests loads it on first use (`slackAccessOnFirstUse` in `runtime.ts`).
 */

/** How a function reaches Slack in the configured mode (see `SlackAuth`). */
export interface SlackAccess {
  /** One workspace: the token the Slack function answers with. */
  readonly botToken?: string | undefined;
  /** Many workspaces: OAuth and per-team authorisation for the Slack function. */
  readonly installer?: BotInstaller | undefined;
  /** The bot token of a team, cached per warm container. */
  readonly botTokens: BotTokens;
  /** The worker's and the reporter's client: each call carries its team's token (`inSlackTeam`). */
  readonly client: WebClient;
  /** Which of Slack's history limits apply: one workspace is an internal app, "Add to Slack" distributed. */
  readonly install: SlackInstallKind;
}

export function createSlackAccess(auth: SlackAuth, store: Store, slackApiUrl?: string): SlackAccess {
  if (auth.mode === 'single') {
    return {
      botToken: auth.botToken,
      botTokens: { tokenFor: async () => auth.botToken, forget: () => undefined },
      client: createSlackWebClient(auth.botToken, slackApiUrl),
      install: 'internal',
    };
  }
  const installer = createInstaller(auth, store, slackApiUrl);
  const botTokens = installedBotTokens((team) =>
    installer.authorize({ teamId: team, enterpriseId: undefined, isEnterpriseInstall: false }),
  );
  return {
    installer,
    botTokens,
    client: createBackgroundSlackClient(botTokens, slackApiUrl),
    install: 'distributed',
  };
}
