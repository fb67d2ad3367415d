import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { WebClient } from '@slack/web-api';
import type { RequestDispatcher } from './api/client.js';
import type { ApiSettings } from './api/client-factory.js';
import {
  type Config,
  type SlackAuth,
  type StorageConfig,
  type StorageRole,
  storageSettings,
} from './config.js';
import { createMetrics, recordApiCall } from './observability/metrics.js';
import type { SlackInstallKind } from './reports/history-budget.js';
import { type BotInstaller, createInstaller } from './slack/oauth.js';
import {
  type BotTokens,
  createBackgroundSlackClient,
  createSlackWebClient,
  installedBotTokens,
} from './slack-kit/web-client.js';
import { createHttpTable, type HttpTable, tableTarget } from './store/http-table.js';
import { createStore, createTokenCipher, type Store } from './store/index.js';

/**
 * Builds the long-lived dependencies of a Lambda instance (or of the local stack) from the parsed
 * configuration. Entry points call this once, outside the handler, so warm invocations reuse
 * connections.
 */

/**
 * The repositories' table (`lib/store/http-table.ts`): bounded attempts as `role` sets them, the
 * request's storage budget, outages as `StoreError`. `env` supplies the region and the role's
 * credentials in AWS.
 */
export function openTable(
  config: StorageConfig,
  role: StorageRole,
  env: Record<string, string | undefined> = process.env,
): HttpTable {
  const settings = storageSettings(config, role);
  return createHttpTable({
    ...tableTarget(config.DYNAMODB_ENDPOINT, env),
    connectTimeoutMs: settings.connectTimeoutMs,
    requestTimeoutMs: settings.requestTimeoutMs,
    maxAttempts: settings.maxAttempts,
  });
}

export function createStoreFromConfig(
  config: Config,
  role: StorageRole,
  now: () => Date = () => new Date(),
): Store {
  return createStore(
    { table: openTable(config, role), tableName: config.TABLE_NAME, now },
    createTokenCipher(config),
  );
}

export interface CoreDeps {
  readonly store: Store;
  readonly api: ApiSettings;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

export function createCoreDeps(
  config: Config,
  logger: Logger,
  options: { readonly role: StorageRole; readonly dispatcher?: RequestDispatcher | undefined },
): CoreDeps {
  const { role, dispatcher } = options;
  const metrics = createMetrics();
  return {
    store: createStoreFromConfig(config, role),
    api: {
      baseUrl: config.CLOUD_API_URL,
      timeoutMs: config.API_TIMEOUT_MS,
      dispatcher,
      onCall: (event) => recordApiCall(metrics, event),
    },
    logger,
    metrics,
  };
}

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
