import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { request } from 'undici';
import { type AgentsApp, createAgentsApp } from '../../lib/agents/app.js';
import { MCP_PATH } from '../../lib/agents/mcp.js';
import { oauthRoutesFor } from '../../lib/agents/oauth/routes.js';
import { agentOAuthUrls } from '../../lib/agents/oauth/urls.js';
import type { RequestDispatcher } from '../../lib/api/client.js';
import type { OutcomeCheckSettings } from '../../lib/changes/outcomes.js';
import type { Config, SlackAuth } from '../../lib/config.js';
import { createLogger } from '../../lib/observability/logger.js';
import type { PasskeyLinkContext } from '../../lib/passkeys/links.js';
import { APP_QR_PATH, PASSKEY_PATH, relyingPartyOf } from '../../lib/passkeys/paths.js';
import type { DescribeProof, OnVerifiedAssertion } from '../../lib/passkeys/routes.js';
import { openTable } from '../../lib/runtime.js';
import type { SlackHandler } from '../../lib/slack/bot.js';
import { createSlackApp } from '../../lib/slack/bot.js';
import { INSTALL_PATH, OAUTH_REDIRECT_PATH } from '../../lib/slack/oauth.js';
import {
  passkeyApprovalRecorder,
  passkeyFactorRecorder,
  passkeyProofDescriber,
} from '../../lib/slack/passkey-approvals.js';
import { runWorkerJob, type WorkerDeps } from '../../lib/slack/worker-handlers.js';
import { createSlackAccess } from '../../lib/slack-access.js';
import { inSlackTeam } from '../../lib/slack-kit/web-client.js';
import { createStore, type Store } from '../../lib/store/index.js';
import { LocalKeyTokenCipher } from '../../lib/store/token-cipher.js';
import { createTable } from '../table.js';
import { localDynamoDbClientConfig } from './dynamodb.js';
import { InProcessHandoff } from './in-process-handoff.js';
import { serveLambdas } from './lambda-adapter.js';
import type { SlackTeam } from './slack/oauth.js';
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
  readonly apiDispatcher?: RequestDispatcher;
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
  /**
   * `one` (default): the stand-in's bot token, as a single-workspace deployment. `many`: a
   * distributed app; workspaces install it through "Add to Slack" and each request is authorised
   * from its team's installation.
   */
  readonly workspaces?: 'one' | 'many';
  /** With `workspaces: 'many'`: token rotation on, bot tokens expiring this long after issue. */
  readonly tokenExpiresInSeconds?: number;
  /**
   * What records a passkey approval once its assertion checks out. By default the bot's own
   * (`passkeyApprovalRecorder`: the step-up challenge's vote), as in AWS; tests of the page alone
   * give a stand-in.
   */
  readonly onPasskeyAssertion?: OnVerifiedAssertion;
  /** What the passkey page shows an approval link proves; by default read from the store and Slack. */
  readonly describePasskeyProof?: DescribeProof;
}

export interface BotStack {
  /** The bot's request URL (slash commands and interactivity). */
  readonly botUrl: string;
  /** The MCP endpoint agents connect to (`http://localhost:<port>/mcp`). */
  readonly mcpUrl: string;
  /** The agents' function, as wired here. */
  readonly agents: AgentsApp;
  readonly signingSecret: string;
  readonly standIn: SlackStandIn;
  readonly workspace: SlackWorkspace;
  /** A person's side of Slack in another workspace of the stand-in. */
  workspaceFor(team: SlackTeam): SlackWorkspace;
  /** With `workspaces: 'many'`: the "Add to Slack" page. */
  readonly installUrl?: string | undefined;
  /** With `workspaces: 'many'`: installs the app into `team` as a person's browser would. */
  install(team: string): Promise<void>;
  readonly store: Store;
  /**
   * Mints passkey links, as the mfa command and step-up challenges do. The page is served on
   * `http://localhost:<port>` (WebAuthn's relying party must be a host name, not 127.0.0.1).
   */
  readonly passkeyLinks: PasskeyLinkContext;
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
  const storeTable = openTable({ DYNAMODB_ENDPOINT: options.dynamoEndpoint }, 'background');
  const slackStorage = options.slackStorage ?? LOCAL_SLACK_STORAGE;
  const slackTable = openTable({ ...slackStorage, DYNAMODB_ENDPOINT: options.dynamoEndpoint }, 'slack');
  const store = createStore({ table: storeTable, tableName, now }, cipher);
  const slackStore = createStore({ table: slackTable, tableName, now }, cipher);

  const standIn = await startSlackStandIn(options.slack ?? {});
  const api = {
    baseUrl: options.apiBaseUrl,
    timeoutMs: options.apiTimeoutMs ?? 10_000,
    dispatcher: options.apiDispatcher,
  };
  const core = { store, api, logger, approvalAdmins: options.approvalAdmins ?? [] };
  // Each function gets its own server and resolver, as in AWS; the late-bound handler lets the
  // redirect URL name the server's port.
  let slackHandler: SlackHandler | undefined;
  const route: SlackHandler = (event, context) => {
    if (!slackHandler) throw new Error('the Slack function is not wired yet');
    return slackHandler(event, context);
  };
  let agentsApp: AgentsApp | undefined;
  const agentsRoute = (event: Parameters<SlackHandler>[0]) => {
    if (!agentsApp) throw new Error('the agents function is not wired yet');
    return agentsApp.handler(event);
  };
  const server = await serveLambdas(
    {
      [SLACK_EVENTS_PATH]: route,
      [INSTALL_PATH]: route,
      [OAUTH_REDIRECT_PATH]: route,
      [`${PASSKEY_PATH}/*`]: route,
      [`${APP_QR_PATH}/*`]: route,
      // The agents' function (functions/mcp): the MCP endpoint and the pages agents sign in through.
      [MCP_PATH]: agentsRoute,
      [`${MCP_PATH}/*`]: agentsRoute,
      '/.well-known/*': agentsRoute,
      '/oauth/*': agentsRoute,
    },
    options.port ?? 0,
  );
  const many = options.workspaces === 'many';
  const relyingParty = relyingPartyOf(server.url.replace('//127.0.0.1:', '//localhost:'));
  const auth: SlackAuth = many
    ? {
        mode: 'multi',
        clientId: 'local.client',
        clientSecret: randomBytes(16).toString('hex'),
        stateSecret: randomBytes(16).toString('hex'),
        redirectUri: `${server.url}${OAUTH_REDIRECT_PATH}`,
      }
    : { mode: 'single', botToken: standIn.botToken };
  if (auth.mode === 'multi') {
    standIn.oauth.register({
      clientId: auth.clientId,
      clientSecret: auth.clientSecret,
      redirectUri: `${server.url}${OAUTH_REDIRECT_PATH}`,
      ...(options.tokenExpiresInSeconds === undefined
        ? {}
        : { tokenExpiresInSeconds: options.tokenExpiresInSeconds }),
    });
  }
  const publicUrl = server.url.replace('//127.0.0.1:', '//localhost:');
  // The app's credentials for Sign in with Slack, through which agents sign people in: the same
  // pair as "Add to Slack"'s for many workspaces, the app's own beside the bot token for one.
  const slackApp =
    auth.mode === 'multi'
      ? { clientId: auth.clientId, clientSecret: auth.clientSecret }
      : { clientId: 'local.client', clientSecret: randomBytes(16).toString('hex') };
  standIn.openId.register({ ...slackApp, redirectUris: [agentOAuthUrls(publicUrl).callback] });
  const slackAccess = createSlackAccess(auth, store, standIn.apiUrl);
  const slack = slackAccess.client;
  const worker: WorkerDeps = {
    ...core,
    slack,
    outcomeChecks: options.outcomeChecks,
    slackInstall: slackAccess.install,
  };
  const handoff = new InProcessHandoff(
    (job) => inSlackTeam(job.team, () => runWorkerJob(worker, job)),
    (error, job) => logger.error('worker job failed', { correlationId: job.correlationId, error }),
  );
  const access = createSlackAccess(auth, slackStore, standIn.apiUrl);
  const { handler } = createSlackApp({
    ...core,
    store: slackStore,
    storageBudgetMs: slackStorage.SLACK_STORAGE_BUDGET_MS,
    signingSecret,
    botToken: access.botToken,
    installer: access.installer,
    botTokens: access.botTokens,
    slackApiUrl: standIn.apiUrl,
    inlineBudgetMs: options.inlineBudgetMs ?? 1500,
    handoff,
    passkeys: {
      relyingParty,
      onVerifiedAssertion:
        options.onPasskeyAssertion ??
        passkeyApprovalRecorder({ ...core, store: slackStore, handoff }, access.client),
      factors: passkeyFactorRecorder(
        {
          ...core,
          store: slackStore,
          passkeyLinks: { store: slackStore, relyingParty },
        },
        access.client,
      ),
      describeProof:
        options.describePasskeyProof ?? passkeyProofDescriber({ ...core, store: slackStore }, access.client),
    },
  });
  slackHandler = handler;
  const oauth = oauthRoutesFor({
    store,
    logger,
    publicUrl,
    slackApp,
    slackApiUrl: standIn.apiUrl,
    botTokens: slackAccess.botTokens,
    // Agents on this machine serve their metadata documents on http://localhost; never in AWS.
    clientMetadata: { allowLoopbackHttp: true },
  });
  agentsApp = createAgentsApp(
    { ...core, slack: async () => access.client, handoff, publicUrl, signingSecret, now },
    oauth,
  );
  const botUrl = `${server.url}${SLACK_EVENTS_PATH}`;
  const workspace = new SlackWorkspace({ standIn, botUrl, signingSecret });

  return {
    botUrl,
    mcpUrl: agentsApp.resource,
    agents: agentsApp,
    signingSecret,
    standIn,
    workspace,
    workspaceFor: (team) => new SlackWorkspace({ standIn, botUrl, signingSecret, team }),
    installUrl: many ? `${server.url}${INSTALL_PATH}` : undefined,
    install: async (team) => {
      if (!many) throw new Error('A single-workspace bot is not installed through "Add to Slack".');
      const done = await installThroughBrowser(`${server.url}${INSTALL_PATH}`, team);
      if (done.status !== 200) throw new Error(`Installing into ${team} failed: HTTP ${done.status}`);
    },
    store,
    passkeyLinks: { store: slackStore, relyingParty },
    tableName,
    worker,
    drain: () => handoff.drain(),
    close: async () => {
      await handoff.drain();
      await server.close();
      await standIn.close();
      dynamo.destroy();
      storeTable.destroy();
      slackTable.destroy();
    },
  };
}

/** Where a browser ends up after "Add to Slack": the bot's answer to Slack's redirect. */
export interface InstallOutcome {
  readonly status: number;
  readonly html: string;
}

/** Slack's redirect back to the bot, and the state cookie the install page set in that browser. */
export interface InstallRedirect {
  readonly url: string;
  readonly cookie: string;
}

/**
 * The first half of "Add to Slack" as a browser goes through it: the bot's install page (which
 * sets the state cookie), Slack's authorize page, and "Allow" for `team`. Tests stop here to
 * tamper with or replay the redirect.
 */
export async function allowInstall(installUrl: string, team: string): Promise<InstallRedirect> {
  const landing = await request(installUrl);
  const setCookie = landing.headers['set-cookie'];
  const cookie = String(Array.isArray(setCookie) ? setCookie[0] : setCookie).split(';')[0] ?? '';
  const landingHtml = await landing.body.text();
  const href = /id="add-to-slack" href="([^"]+)"/.exec(landingHtml)?.[1];
  if (landing.statusCode !== 200 || !href)
    throw new Error(
      `The install page has no "Add to Slack" link (HTTP ${landing.statusCode}: ${landingHtml.slice(0, 200)}).`,
    );
  const authorizeUrl = new URL(href.replaceAll('&#38;', '&'));
  const page = await request(authorizeUrl);
  await page.body.text();
  if (page.statusCode !== 200)
    throw new Error(`Slack's authorize page did not open (HTTP ${page.statusCode}).`);
  const form = new URLSearchParams(authorizeUrl.searchParams);
  form.set('team', team);
  form.set('decision', 'allow');
  const allowed = await request(authorizeUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  await allowed.body.text();
  const location = allowed.headers.location;
  if (allowed.statusCode !== 302 || typeof location !== 'string')
    throw new Error(`Slack's authorize page refused the install (HTTP ${allowed.statusCode}).`);
  return { url: location, cookie };
}

/**
 * "Add to Slack" as a browser goes through it: `allowInstall`, then the redirect back to the bot
 * with the code. `npm start` installs the seeded workspace this way, through the same code path as
 * a person.
 */
export async function installThroughBrowser(installUrl: string, team: string): Promise<InstallOutcome> {
  const redirect = await allowInstall(installUrl, team);
  const back = await request(redirect.url, { headers: { cookie: redirect.cookie } });
  return { status: back.statusCode, html: await back.body.text() };
}
