import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Dispatcher } from 'undici';
import type { Config } from '../../lib/config.js';
import { createLogger } from '../../lib/observability/logger.js';
import { createDocumentClient } from '../../lib/runtime.js';
import { createSlackApp } from '../../lib/slack/bot.js';
import { InProcessHandoff } from '../../lib/slack/handoff.js';
import type { OutcomeCheckSettings } from '../../lib/slack/outcomes.js';
import { createSlackWebClient } from '../../lib/slack/web-client.js';
import { runWorkerJob, type WorkerDeps } from '../../lib/slack/worker.js';
import { createStore, type Store } from '../../lib/store/index.js';
import { LocalKeyTokenCipher } from '../../lib/store/token-cipher.js';
import { createTable } from '../table.js';
import { localDynamoDbClientConfig } from './dynamodb.js';
import { serveLambdas } from './lambda-adapter.js';
import { type SlackStandIn, type SlackStandInOptions, startSlackStandIn } from './slack/server.js';
import { SlackWorkspace } from './slack/workspace.js';

/**
 * The bot as it runs in AWS, on this machine: the Slack function behind a local HTTP adapter that
 * produces API Gateway events, the worker in process, the Slack stand-in for the Web API, and
 * DynamoDB Local for the table. `npm start` and the end-to-end tests both build it here.
 */

export const SLACK_EVENTS_PATH = '/slack/events';

export interface BotStackOptions {
  /** DynamoDB Local (already running). */
  readonly dynamoEndpoint: string;
  /** A table to create; a fresh random name by default. */
  readonly tableName?: string;
  /** The cloud API (the emulator's `/v4` base URL). */
  readonly apiBaseUrl: string;
  readonly apiDispatcher?: Dispatcher;
  readonly apiTimeoutMs?: number;
  readonly slack?: SlackStandInOptions;
  readonly inlineBudgetMs?: number;
  readonly approvalAdmins?: readonly string[];
  /** Port of the bot's endpoint; a free one by default. */
  readonly port?: number;
  readonly now?: () => Date;
  /**
   * The Slack function's DynamoDB limits, as its environment would set them. Omitted: roomier
   * limits than production's (`LOCAL_SLACK_STORAGE`); `{}`: production's defaults.
   */
  readonly slackStorage?: SlackStorageConfig;
  /** How long and how often the worker reads back a change in doubt. */
  readonly outcomeChecks?: OutcomeCheckSettings;
}

export interface BotStack {
  /** The bot's request URL (slash commands and interactivity). */
  readonly botUrl: string;
  readonly signingSecret: string;
  readonly standIn: SlackStandIn;
  readonly workspace: SlackWorkspace;
  readonly store: Store;
  readonly tableName: string;
  /** The worker's dependencies, for tests that hand it jobs directly or run the approval sweep. */
  readonly worker: WorkerDeps;
  /** Waits until every job handed to the worker has finished. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

export type SlackStorageConfig = Partial<
  Pick<
    Config,
    | 'DYNAMODB_CONNECT_TIMEOUT_MS'
    | 'DYNAMODB_REQUEST_TIMEOUT_MS'
    | 'DYNAMODB_MAX_ATTEMPTS'
    | 'SLACK_STORAGE_BUDGET_MS'
  >
>;

/**
 * A freshly started DynamoDB Local on a busy laptop or CI runner takes hundreds of milliseconds per
 * call until its JVM has warmed up; production's limits would turn that into storage errors.
 */
const LOCAL_SLACK_STORAGE: SlackStorageConfig = {
  DYNAMODB_REQUEST_TIMEOUT_MS: 1000,
  SLACK_STORAGE_BUDGET_MS: 1500,
};

export async function startBotStack(options: BotStackOptions): Promise<BotStack> {
  const logger = createLogger('local');
  const signingSecret = randomBytes(16).toString('hex');
  const tableName = options.tableName ?? `chatops-${randomBytes(4).toString('hex')}`;
  const dynamo = new DynamoDBClient(localDynamoDbClientConfig(options.dynamoEndpoint));
  await createTable(dynamo, tableName);
  const now = options.now ?? (() => new Date());
  const cipher = new LocalKeyTokenCipher(randomBytes(32));
  // Each function with its own client settings, as in AWS: the Slack function's are tight.
  const storeDoc = createDocumentClient({ DYNAMODB_ENDPOINT: options.dynamoEndpoint }, 'background');
  const slackStorage = options.slackStorage ?? LOCAL_SLACK_STORAGE;
  const slackDoc = createDocumentClient(
    { ...slackStorage, DYNAMODB_ENDPOINT: options.dynamoEndpoint },
    'slack',
  );
  const store = createStore({ doc: storeDoc, tableName, now }, cipher);
  const slackStore = createStore({ doc: slackDoc, tableName, now }, cipher);

  const standIn = await startSlackStandIn(options.slack ?? {});
  const api = {
    baseUrl: options.apiBaseUrl,
    timeoutMs: options.apiTimeoutMs ?? 10_000,
    dispatcher: options.apiDispatcher,
  };
  const core = { store, api, logger };
  const slack = createSlackWebClient(standIn.botToken, standIn.apiUrl);
  const worker: WorkerDeps = { ...core, slack, outcomeChecks: options.outcomeChecks };
  const handoff = new InProcessHandoff(
    (job) => runWorkerJob(worker, job),
    (error, job) => logger.error('worker job failed', { correlationId: job.correlationId, error }),
  );
  const { handler } = createSlackApp({
    ...core,
    store: slackStore,
    storageBudgetMs: slackStorage.SLACK_STORAGE_BUDGET_MS,
    signingSecret,
    botToken: standIn.botToken,
    slackApiUrl: standIn.apiUrl,
    inlineBudgetMs: options.inlineBudgetMs ?? 1500,
    handoff,
    approvalAdmins: options.approvalAdmins ?? [],
  });
  const server = await serveLambdas({ [SLACK_EVENTS_PATH]: handler }, options.port ?? 0);
  const botUrl = `${server.url}${SLACK_EVENTS_PATH}`;
  const workspace = new SlackWorkspace({ standIn, botUrl, signingSecret });

  return {
    botUrl,
    signingSecret,
    standIn,
    workspace,
    store,
    tableName,
    worker,
    drain: () => handoff.drain(),
    close: async () => {
      await handoff.drain();
      await server.close();
      await standIn.close();
      dynamo.destroy();
      storeDoc.destroy();
      slackDoc.destroy();
    },
  };
}
