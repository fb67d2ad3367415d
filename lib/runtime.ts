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
import type { SlackAccess } from './slack-access.js';
import type { BotTokens } from './slack-kit/web-client.js';
import { createHttpTable, type HttpTable, tableTarget } from './store/http-table.js';
import { createStore, createTokenCipher, type LoadedRepositories, type Store } from './store/index.js';

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
  loaded: LoadedRepositories = {},
): Store {
  return createStore(
    { table: openTable(config, role), tableName: config.TABLE_NAME, now },
    createTokenCipher(config),
    loaded,
  );
}

export interface CoreDeps {
  readonly store: Store;
  readonly api: ApiSettings;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** The deployment's admins (`APPROVAL_ADMINS`): every function decides and shows as they may. */
  readonly approvalAdmins: readonly string[];
}

export function createCoreDeps(
  config: Config,
  logger: Logger,
  options: {
    readonly role: StorageRole;
    readonly dispatcher?: RequestDispatcher | undefined;
    /** Repositories the function loads with its start (`LoadedRepositories`). */
    readonly loaded?: LoadedRepositories | undefined;
  },
): CoreDeps {
  const { role, dispatcher, loaded } = options;
  const metrics = createMetrics();
  return {
    store: createStoreFromConfig(config, role, undefined, loaded),
    api: {
      baseUrl: config.CLOUD_API_URL,
      timeoutMs: config.API_TIMEOUT_MS,
      dispatcher,
      onCall: (event) => recordApiCall(metrics, event),
    },
    logger,
    metrics,
    approvalAdmins: config.APPROVAL_ADMINS,
  };
}

/**
 * Slack access made on first use, for a function that reaches Slack only on some requests (the
 * agents' function posts a card only when a change is asked for): the Slack packages load then,
 * not before its first answer. A failed load is tried again on the next use.
 */
export interface SlackAccessOnFirstUse {
  client(): Promise<WebClient>;
  readonly botTokens: BotTokens;
}

export function slackAccessOnFirstUse(
  auth: SlackAuth,
  store: Store,
  slackApiUrl?: string,
): SlackAccessOnFirstUse {
  let access: Promise<SlackAccess> | undefined;
  const load = (): Promise<SlackAccess> =>
    (access ??= import('./slack-access.js')
      .then(({ createSlackAccess }) => createSlackAccess(auth, store, slackApiUrl))
      .catch((error: unknown) => {
        access = undefined;
        throw error;
      }));
  return {
    client: async () => (await load()).client,
    botTokens: {
      tokenFor: async (team) => (await load()).botTokens.tokenFor(team),
      forget: (team) => {
        // Nothing is cached before the first use, so there is nothing to forget then.
        access?.then((loaded) => loaded.botTokens.forget(team)).catch(() => undefined);
      },
    },
  };
}
