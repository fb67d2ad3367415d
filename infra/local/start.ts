import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { createServer } from 'node:net';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type App, LogLevel, type ReceiverEvent, SocketModeReceiver } from '@slack/bolt';
import { request } from 'undici';
import * as z from 'zod';
import { runReports } from '../../functions/reporter/handler.js';
import { SLACKBOT_MCP_PATH } from '../../lib/agents/slackbot.js';
import { helpFitFor } from '../../lib/changes/guardrails.js';
import { createLogger } from '../../lib/observability/logger.js';
import type { ReporterDeps } from '../../lib/reports/tick.js';
import { openTable } from '../../lib/runtime.js';
import { createSlackApp } from '../../lib/slack/bot.js';
import { slackReporterSurface } from '../../lib/slack/reporter-surface.js';
import { runWorkerJob } from '../../lib/slack/worker-handlers.js';
import { signedHeaders } from '../../lib/slack-kit/signing.js';
import { createSlackWebClient } from '../../lib/slack-kit/web-client.js';
import { createStore } from '../../lib/store/index.js';
import { LocalKeyTokenCipher } from '../../lib/store/token-cipher.js';
import { createTable } from '../table.js';
import { type BotStack, SLACK_EVENTS_PATH, startBotStack } from './bot-stack.js';
import { type DynamoDbLocal, localDynamoDbClientConfig, startDynamoDbLocal } from './dynamodb.js';
import { createClock } from './emulator/clock.js';
import { type RunningEmulator, startEmulator } from './emulator/server.js';
import { InProcessHandoff } from './in-process-handoff.js';
import { serveLambdas } from './lambda-adapter.js';
import { type PageServer, startPageServer } from './slack/page/server.js';
import type { SlackChannel } from './slack/store.js';

/**
 * `npm start`: the whole bot on this machine with nothing to configure. DynamoDB Local, the cloud
 * API emulator with demo data, the Slack function behind the local API Gateway adapter with the
 * worker in process, the reporter on a timer, the Slack stand-in, and the sandbox page to use it
 * from a browser.
 *
 * The sandbox runs the bot as a distributed app (many workspaces), as the Slack stand-in has two:
 * the seeded workspace is installed at start through the same "Add to Slack" flow a person goes
 * through, and the second one from the page's "Add to Slack" link.
 *
 * With `SLACK_BOT_TOKEN`, `SLACK_APP_TOKEN` and `CLOUD_API_URL` set, the same handlers serve a real
 * workspace over Socket Mode instead (Slack's way for local development: no public URL needed).
 *
 * Ctrl-C stops everything, DynamoDB Local's Java process included, and exits 0.
 */

const PortSchema = z.coerce.number().int().min(0).max(65_535);

const LocalEnvSchema = z.object({
  /** The sandbox page; a free port when taken. */
  PORT: PortSchema.default(3000),
  /** The cloud API emulator; a free port when taken. */
  EMULATOR_PORT: PortSchema.default(3001),
  /** DynamoDB Local; a free port when taken. */
  DYNAMODB_PORT: PortSchema.default(8000),
  /** The Slack stand-in (its Web API and the authorize page); a free port when taken. */
  SLACK_PORT: PortSchema.default(3002),
  /** The bot's request URL and install pages (the local API Gateway); a free port when taken. */
  BOT_PORT: PortSchema.default(3003),
  /**
   * `fast` (default): emulated work (provisioning, captures, restores) finishes SANDBOX_PROGRESS_SPEED
   * times sooner; `real`: it takes its documented time. The clock itself is real time either way.
   */
  EMULATOR_CLOCK: z.enum(['fast', 'real']).default('fast'),
  SLACK_BOT_TOKEN: z.string().min(1).optional(),
  SLACK_APP_TOKEN: z.string().startsWith('xapp-', 'must be an app-level token (xapp-…)').optional(),
  CLOUD_API_URL: z.url().optional(),
  SLACK_API_URL: z.url().optional(),
  /** A 32-byte base64 key for the stored tokens; a fresh one per run by default. */
  TOKEN_ENCRYPTION_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
    .optional(),
  APPROVAL_ADMINS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean),
    ),
});

export type LocalEnv = z.infer<typeof LocalEnvSchema>;

const REAL_WORKSPACE_KEYS = ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'CLOUD_API_URL'] as const;

/** Parses the environment once; names the key that is wrong, never its value. */
export function loadLocalEnv(env: Record<string, string | undefined> = process.env): LocalEnv {
  const parsed = LocalEnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid environment for npm start: ${problems.join('; ')}`);
  }
  const given = REAL_WORKSPACE_KEYS.filter((key) => parsed.data[key] !== undefined);
  if (given.length > 0 && given.length < REAL_WORKSPACE_KEYS.length) {
    const missing = REAL_WORKSPACE_KEYS.filter((key) => parsed.data[key] === undefined);
    throw new Error(
      `To serve a real Slack workspace set ${REAL_WORKSPACE_KEYS.join(', ')}; missing: ${missing.join(', ')}. ` +
        `Unset ${given.join(', ')} to use the local sandbox.`,
    );
  }
  return parsed.data;
}

export function wantsRealWorkspace(env: LocalEnv): boolean {
  return REAL_WORKSPACE_KEYS.every((key) => env[key] !== undefined);
}

/** `preferred` when nothing listens there, otherwise 0 (any free port). */
async function portOrAnyFree(preferred: number): Promise<number> {
  if (preferred === 0) return 0;
  const probe = createServer();
  const free = await new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(preferred, '127.0.0.1', () => resolve(true));
  });
  if (free) await new Promise<void>((resolve) => probe.close(() => resolve()));
  return free ? preferred : 0;
}

/** Stops what was started, newest first; every part is stopped even when one fails. */
class Shutdown {
  readonly #steps: Array<{ name: string; stop: () => Promise<void> }> = [];

  add(name: string, stop: () => Promise<void>): void {
    this.#steps.unshift({ name, stop });
  }

  async run(): Promise<void> {
    const failures: string[] = [];
    for (const step of this.#steps.splice(0)) {
      try {
        await step.stop();
      } catch (error) {
        failures.push(`${step.name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (failures.length > 0) throw new Error(`Some parts did not stop cleanly: ${failures.join('; ')}`);
  }
}

async function startOrUndo<T>(shutdown: Shutdown, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    await shutdown.run().catch(() => undefined);
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// The sandbox: everything local

/**
 * Ports: the page, the emulator and DynamoDB Local default to 3000, 3001 and 8000; the Slack
 * stand-in and the bot to a free port (npm start asks for 3002 and 3003). 0 is any free port, and
 * a port that is taken falls back to a free one.
 */
export interface SandboxOptions {
  readonly pagePort?: number;
  readonly emulatorPort?: number;
  readonly dynamoPort?: number;
  readonly slackPort?: number;
  readonly botPort?: number;
  /** Use a DynamoDB Local that is already running (the tests' one) instead of starting one. */
  readonly dynamoEndpoint?: string;
  readonly approvalAdmins?: readonly string[];
  /** How often the reporter runs; 60 s by default, 10 s when emulated work is fast. */
  readonly reportIntervalMs?: number;
  /** How many times sooner emulated work finishes; SANDBOX_PROGRESS_SPEED by default, 1 for its documented time. */
  readonly progressSpeed?: number;
}

export interface Sandbox {
  readonly pageUrl: string;
  readonly emulator: RunningEmulator;
  readonly stack: BotStack;
  readonly dynamoEndpoint: string;
  readonly progressSpeed: number;
  close(): Promise<void>;
}

export const REPORT_INTERVAL_MS = 60_000;
/** A demo database (20 emulated minutes) provisions in 20 s, and its card follows within the next tick. */
export const SANDBOX_PROGRESS_SPEED = 60;
const FAST_REPORT_INTERVAL_MS = 10_000;
const API_TIMEOUT_MS = 10_000;

/**
 * Runs `tick` every `intervalMs`, never two at once (a slow tick delays the next one). Failures
 * are logged and the timer goes on, as the scheduled function would run again on its next event.
 */
export function everyInterval(
  tick: () => Promise<void>,
  intervalMs: number,
  onError: (error: unknown) => void,
): () => Promise<void> {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = tick()
      .catch(onError)
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/**
 * The scheduled reporter on a timer, as EventBridge runs it in AWS; returns how to stop it. A run
 * that found nothing to do logs nothing, so the banner and the demo token stay on the screen.
 */
function startReporter(deps: ReporterDeps, intervalMs: number): () => Promise<void> {
  return everyInterval(
    async () => {
      await runReports(deps, new Date(), { quietWhenIdle: true });
    },
    intervalMs,
    (error) => deps.logger.error('reporter run failed', { error }),
  );
}

/**
 * Besides #general and #ops (the bot in both): channels as a real workspace has them, where the
 * bot is not a member until someone types `/invite @cloud`. #random is public (the bot may join
 * it by itself where the app has `channels:join`); #leads is private (only an invite lets it in).
 */
const SANDBOX_CHANNELS: readonly SlackChannel[] = [
  {
    id: 'C0RANDOM',
    name: 'random',
    is_private: false,
    is_im: false,
    members: ['U0ADMIN', 'U0ALICE', 'U0BOB'],
  },
  { id: 'G0LEADS', name: 'leads', is_private: true, is_im: false, members: ['U0ADMIN', 'U0ALICE'] },
];

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const shutdown = new Shutdown();

  let dynamoEndpoint = options.dynamoEndpoint;
  if (dynamoEndpoint === undefined) {
    const dynamoPort = await portOrAnyFree(options.dynamoPort ?? 8000);
    const dynamo: DynamoDbLocal = await startDynamoDbLocal({
      ...(dynamoPort === 0 ? {} : { port: dynamoPort }),
      tableName: null,
    });
    shutdown.add('DynamoDB Local', () => dynamo.stop());
    dynamoEndpoint = dynamo.endpoint;
  }
  const endpoint = dynamoEndpoint;
  const progressSpeed = options.progressSpeed ?? SANDBOX_PROGRESS_SPEED;

  const emulator = await startOrUndo(shutdown, async () =>
    startEmulator({
      port: await portOrAnyFree(options.emulatorPort ?? 3001),
      // Real time, the one clock a person sees: the API's created/updated times, expiries and 2FA
      // codes agree with Slack's message times and with an authenticator app. Only emulated work
      // (a database provisioning) finishes sooner, fast enough to watch.
      clock: createClock({ mode: 'real-time', progressSpeed }),
    }),
  );
  shutdown.add('the cloud API emulator', () => emulator.close());

  const stack = await startOrUndo(shutdown, async () =>
    startBotStack({
      dynamoEndpoint: endpoint,
      apiBaseUrl: emulator.url,
      approvalAdmins: options.approvalAdmins ?? [],
      workspaces: 'many',
      port: await portOrAnyFree(options.botPort ?? 0),
      slack: { channels: SANDBOX_CHANNELS, port: await portOrAnyFree(options.slackPort ?? 0) },
    }),
  );
  shutdown.add('the bot and the Slack stand-in', () => stack.close());
  await startOrUndo(shutdown, () => stack.install(stack.workspace.teamId));
  const installUrl = stack.installUrl;
  if (installUrl === undefined) throw new Error('the sandbox bot has no install page');

  const page: PageServer = await startOrUndo(shutdown, () =>
    startPageServer({
      workspace: stack.workspace,
      port: options.pagePort ?? 3000,
      fallbackToFreePort: true,
      // Completion offers what help lists for that person in that channel.
      completionFit: async (user, channel, team) =>
        (await helpFitFor(stack.store, team, user, channel))?.allows,
      workspaces: {
        teams: stack.standIn.oauth.teams,
        workspaceFor: (team) => stack.workspaceFor(team),
        // Slack's own record, as the real client shows it: not the bot's table, so the page keeps
        // working while DynamoDB is down (the bot's answers then say what is wrong).
        installed: async (team) => stack.standIn.oauth.installedIn(team),
        installUrl,
      },
      monitoring: {
        read: () => emulator.control.managedMonitoring(),
        raise: (service, summary) =>
          emulator.control.createManagedIssue({
            services: [service],
            ...(summary ? { label: summary } : {}),
          }),
        resolve: (issue) => {
          emulator.control.resolveManagedIssue(issue);
        },
      },
      // Slackbot's side of the app's MCP server: Slack holds the signing secret, as the page's
      // server does here; the browser only ever sees the answers.
      slackbot: {
        url: new URL(SLACKBOT_MCP_PATH, stack.mcpUrl).href,
        signingSecret: stack.signingSecret,
      },
    }),
  );
  shutdown.add('the sandbox page', () => page.close());
  // "Open Slack" on the bot's success page comes back to this page, in the installed workspace.
  stack.standIn.openClientAt(page.url);

  const reporterLogger = createLogger('reporter');
  shutdown.add(
    'the reporter',
    startReporter(
      {
        store: stack.store,
        api: { baseUrl: emulator.url, timeoutMs: API_TIMEOUT_MS },
        // Routed per team: each account's reports go out with its workspace's installed token.
        slack: stack.worker.slack,
        slackInstall: stack.worker.slackInstall,
        logger: reporterLogger,
        surface: slackReporterSurface(
          {
            store: stack.store,
            slack: stack.worker.slack,
            logger: reporterLogger,
            api: { baseUrl: emulator.url, timeoutMs: API_TIMEOUT_MS },
          },
          { followRunbooks: true },
        ),
      },
      options.reportIntervalMs ?? (progressSpeed > 1 ? FAST_REPORT_INTERVAL_MS : REPORT_INTERVAL_MS),
    ),
  );

  return {
    pageUrl: page.url,
    emulator,
    stack,
    dynamoEndpoint: endpoint,
    progressSpeed,
    close: () => shutdown.run(),
  };
}

export function sandboxBanner(sandbox: Sandbox): string {
  return [
    '',
    '  Cloud ChatOps is running locally.',
    '',
    `  Slack sandbox:  ${sandbox.pageUrl}`,
    `  Cloud API:      ${sandbox.emulator.url}  (emulator with demo data)`,
    sandbox.progressSpeed > 1
      ? `  Emulator:       real-time clock; work finishes ${sandbox.progressSpeed}x sooner (a database provisions in about ${Math.round(1200 / sandbox.progressSpeed)} s; EMULATOR_CLOCK=real for real durations)`
      : '  Emulator:       real-time clock, real durations',
    `  DynamoDB Local: ${sandbox.dynamoEndpoint}`,
    `  Slack stand-in: ${sandbox.stack.standIn.url}  (Web API and the "Add to Slack" authorize page)`,
    `  Bot:            ${sandbox.stack.botUrl}  (install page: ${sandbox.stack.installUrl ?? 'none'})`,
    `  MCP endpoint:   ${sandbox.stack.mcpUrl}  (agents sign in with OAuth; Slackbot at ${sandbox.stack.mcpUrl}/slack)`,
    '',
    '  Log in as the demo user:',
    `    1. open ${sandbox.pageUrl}`,
    '    2. type /cloud login and press Enter',
    '    3. paste this token into "Personal access token" and press Link token:',
    '',
    `       ${sandbox.emulator.demoToken}`,
    '',
    '  Then try /cloud nodes list, /cloud volumes list or /cloud help. Pick another user under',
    '  "You are" to approve a deletion someone else asked for.',
    '',
    '  An alert: /cloud reports add alerts in #ops, then "Raise issue" under Cloud monitoring in the',
    "  page's sidebar.",
    '',
    '  Step-up: as Ada, /cloud policy --rule destructive --step-up passkey (or code). Then',
    '  /cloud mfa enroll passkey answers you alone with a link to the passkey page, served by the bot',
    `  at ${sandbox.stack.passkeyLinks.relyingParty.baseUrl}/passkey/… (a browser with a passkey, or DevTools' WebAuthn`,
    '  panel); an Approve click answers the same way. With --step-up code, it opens the code modal.',
    '',
    '  An agent (Claude Code, Cursor, any MCP client) acting for you under the same rules:',
    `    claude mcp add --transport http cloud-chatops ${sandbox.stack.mcpUrl}`,
    '  It signs you in with Slack in your browser (pick your user, then a home channel and what it may',
    '  do). Its reads use your linked token; every change it asks for is an approval card in its home',
    '  channel that someone else approves. /cloud agents lists and revokes your agents.',
    '',
    '  Slackbot: "Slackbot" under Apps in the page calls those tools as Slackbot would for the person',
    '  you are (the page signs each call as Slack does). It may act for you once you allow it with',
    '  /cloud agents slackbot change in the channel that becomes its home.',
    '',
    '  A second workspace: click "Add to Slack" beside "Second workspace" on the page, allow the app',
    '  there, then "Open Slack" brings you back to the page in that workspace.',
    '',
    '  Ctrl-C stops everything. The sandbox keeps everything in memory: stopping npm start forgets',
    '  logins, policies, reports, requests and messages, and the demo data starts afresh.',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// A real workspace over Socket Mode

/**
 * Socket Mode hands the app each request as JSON over a WebSocket, and takes the answer as the
 * envelope's acknowledgement. The bridge turns each one back into the HTTP request Slack would
 * have sent (form-encoded, signed) and posts it to the Slack function behind the local API
 * Gateway adapter, so the very same handler answers, and acknowledges with what it returned.
 */
export function socketModeRequestBody(body: Readonly<Record<string, unknown>>): string | undefined {
  if (typeof body.command === 'string' && body.type === undefined) {
    const fields = Object.entries(body).flatMap(
      ([key, value]): Array<[string, string]> =>
        value === undefined || value === null
          ? []
          : [[key, typeof value === 'string' ? value : String(value)]],
    );
    return new URLSearchParams(fields).toString();
  }
  // Interactivity (block_actions, view_submission, view_closed…); events are not subscribed to.
  if (typeof body.type === 'string' && body.type !== 'event_callback') {
    return new URLSearchParams({ payload: JSON.stringify(body) }).toString();
  }
  return undefined;
}

export interface RealWorkspace {
  readonly dynamoEndpoint: string;
  /** Waits until every job handed to the worker has finished. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

export interface RealWorkspaceOptions {
  /** Use a DynamoDB Local that is already running (the tests' one) instead of starting one. */
  readonly dynamoEndpoint?: string;
  /** The table to create there; `cloud-chatops-local` by default. */
  readonly tableName?: string;
}

export async function startRealWorkspace(
  env: LocalEnv,
  options: RealWorkspaceOptions = {},
): Promise<RealWorkspace> {
  const { SLACK_BOT_TOKEN: botToken, SLACK_APP_TOKEN: appToken, CLOUD_API_URL: apiBaseUrl } = env;
  if (!botToken || !appToken || !apiBaseUrl)
    throw new Error('Socket Mode needs SLACK_BOT_TOKEN, SLACK_APP_TOKEN and CLOUD_API_URL.');
  const shutdown = new Shutdown();
  const logger = createLogger('local');

  let dynamoEndpoint = options.dynamoEndpoint;
  if (dynamoEndpoint === undefined) {
    const dynamoPort = await portOrAnyFree(env.DYNAMODB_PORT);
    const dynamo = await startDynamoDbLocal({
      ...(dynamoPort === 0 ? {} : { port: dynamoPort }),
      tableName: null,
    });
    shutdown.add('DynamoDB Local', () => dynamo.stop());
    dynamoEndpoint = dynamo.endpoint;
  }
  const endpoint = dynamoEndpoint;
  let drainWorker: () => Promise<void> = async () => undefined;

  const receiver = await startOrUndo(shutdown, async () => {
    const dynamoClient = new DynamoDBClient(localDynamoDbClientConfig(endpoint));
    shutdown.add('the DynamoDB client', async () => dynamoClient.destroy());
    const tableName = options.tableName ?? 'cloud-chatops-local';
    await createTable(dynamoClient, tableName);
    const key = env.TOKEN_ENCRYPTION_KEY ? Buffer.from(env.TOKEN_ENCRYPTION_KEY, 'base64') : randomBytes(32);
    // Bounded calls and the storage message, as deployed, with the worker's roomier limits: this
    // DynamoDB Local starts cold and serves the Slack side, the worker and the reporter at once.
    const table = openTable({ DYNAMODB_ENDPOINT: endpoint }, 'background');
    shutdown.add('the table client', async () => table.destroy());
    const store = createStore({ table, tableName, now: () => new Date() }, new LocalKeyTokenCipher(key));
    const core = { store, api: { baseUrl: apiBaseUrl, timeoutMs: API_TIMEOUT_MS }, logger };
    const slack = createSlackWebClient(botToken, env.SLACK_API_URL);
    const handoff = new InProcessHandoff(
      (job) => runWorkerJob({ ...core, slack, slackInstall: 'internal' }, job),
      (error, job) => logger.error('worker job failed', { correlationId: job.correlationId, error }),
    );
    shutdown.add('the worker', () => handoff.drain());
    drainWorker = () => handoff.drain();
    const reporterLogger = createLogger('reporter');
    shutdown.add(
      'the reporter',
      startReporter(
        {
          ...core,
          slack,
          slackInstall: 'internal',
          logger: reporterLogger,
          surface: slackReporterSurface(
            {
              store: core.store,
              slack,
              logger: reporterLogger,
              api: core.api,
            },
            { followRunbooks: true },
          ),
        },
        REPORT_INTERVAL_MS,
      ),
    );
    // Only the bridge below signs with it: requests reach the handler from this process alone.
    const signingSecret = randomBytes(16).toString('hex');
    const { handler } = createSlackApp({
      ...core,
      signingSecret,
      botToken,
      slackApiUrl: env.SLACK_API_URL,
      inlineBudgetMs: 1500,
      storageBudgetMs: 1500,
      handoff,
      approvalAdmins: env.APPROVAL_ADMINS,
    });
    const server = await serveLambdas({ [SLACK_EVENTS_PATH]: handler }, 0);
    shutdown.add('the local API Gateway adapter', () => server.close());
    const botUrl = `${server.url}${SLACK_EVENTS_PATH}`;

    // apps.connections.open goes where the Web API is: Slack, or the stand-in when SLACK_API_URL names it.
    const socket = new SocketModeReceiver({
      appToken,
      logLevel: LogLevel.WARN,
      ...(env.SLACK_API_URL === undefined
        ? {}
        : { installerOptions: { clientOptions: { slackApiUrl: env.SLACK_API_URL } } }),
    });
    const bridge = {
      async processEvent(event: ReceiverEvent): Promise<void> {
        const rawBody = socketModeRequestBody(event.body);
        if (rawBody === undefined) {
          await event.ack();
          return;
        }
        const response = await request(botUrl, {
          method: 'POST',
          headers: signedHeaders(signingSecret, rawBody),
          body: rawBody,
        });
        const text = await response.body.text();
        if (response.statusCode !== 200) {
          logger.warn('the bot refused a Socket Mode request', { status: response.statusCode });
          await event.ack();
          return;
        }
        await event.ack(text === '' ? undefined : JSON.parse(text));
      },
    };
    // The receiver only ever calls `processEvent`; the bridge is that much of an App.
    socket.init(bridge as unknown as App);
    await socket.start();
    return socket;
  });
  // The receiver's stop() does not wait for the closing handshake; its client's disconnect() does,
  // so nothing stopped after this cuts the connection mid-handshake.
  shutdown.add('the Socket Mode connection', () => receiver.client.disconnect());

  return { dynamoEndpoint: endpoint, drain: () => drainWorker(), close: () => shutdown.run() };
}

// ---------------------------------------------------------------------------------------------
// The command

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** Past this, shutting down is given up on and the process exits anyway. */
const SHUTDOWN_TIMEOUT_MS = 20_000;

async function main(): Promise<void> {
  // This machine's Node is the one the project supports locally; the deployed functions run on
  // a current Lambda runtime (serverless.yml), so the SDK's notice about Node 20 is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const env = loadLocalEnv();
  let running: { close(): Promise<void> };
  if (wantsRealWorkspace(env)) {
    const workspace = await startRealWorkspace(env);
    running = workspace;
    console.log(
      [
        '',
        '  Cloud ChatOps is serving your Slack workspace over Socket Mode.',
        `  Cloud API:      ${env.CLOUD_API_URL}`,
        `  DynamoDB Local: ${workspace.dynamoEndpoint} (linked tokens last until you stop)`,
        '  In Slack, type /cloud login to link your token. Ctrl-C stops everything.',
        '',
      ].join('\n'),
    );
  } else {
    const sandbox = await startSandbox({
      pagePort: env.PORT,
      emulatorPort: env.EMULATOR_PORT,
      dynamoPort: env.DYNAMODB_PORT,
      slackPort: env.SLACK_PORT,
      botPort: env.BOT_PORT,
      approvalAdmins: env.APPROVAL_ADMINS,
      progressSpeed: env.EMULATOR_CLOCK === 'real' ? 1 : SANDBOX_PROGRESS_SPEED,
    });
    running = sandbox;
    console.log(sandboxBanner(sandbox));
  }

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      console.error('Stopping at once.');
      process.exit(1);
    }
    stopping = true;
    console.log(`\nStopping (${signal})…`);
    setTimeout(() => {
      console.error('Stopping took too long; exiting anyway.');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS).unref();
    running.close().then(
      () => {
        console.log('Stopped.');
        process.exit(0);
      },
      (error: unknown) => {
        console.error(error instanceof Error ? error.message : String(error));
        process.exit(1);
      },
    );
  };
  for (const signal of STOP_SIGNALS) process.on(signal, stop);
}

function runDirectly(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}

if (runDirectly()) {
  main().catch((error: unknown) => {
    console.error(`npm start failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
