import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import type { BotStackOptions } from '../../../infra/local/bot-stack.js';
import type { EmulatorOptions } from '../../../infra/local/emulator/server.js';
import { InProcessHandoff } from '../../../infra/local/in-process-handoff.js';
import type { StallRule } from '../../../infra/local/slack/server.js';
import type { StoredMessage } from '../../../infra/local/slack/store.js';
import { ApiClient } from '../../../lib/api/client.js';
import { getOperation } from '../../../lib/api/operations/index.js';
import { parseCommand } from '../../../lib/commands/parse.js';
import { ChannelPacer } from '../../../lib/reports/pacer.js';
import {
  type ReporterDeps,
  runReporterTick,
  type TickOptions,
  type TickSummary,
} from '../../../lib/reports/tick.js';
import { handleReportsCommand } from '../../../lib/slack/bot-commands/reports.js';
import type { BotDeps } from '../../../lib/slack/context.js';
import { slackReporterSurface } from '../../../lib/slack/reporter-surface.js';
import { runWorkerJob } from '../../../lib/slack/worker-handlers.js';
import type { Reply } from '../../../lib/slack-kit/reply.js';
import { createSlackWebClient } from '../../../lib/slack-kit/web-client.js';
import type { ReportSubscription } from '../../../lib/store/index.js';
import { type E2E, startE2E } from '../../support/e2e.js';

/**
 * The reporter end to end: the emulator (whose frozen clock is the clock of everything: the
 * store's, the schedules', the reporter's), DynamoDB Local and the Slack stand-in, with the bot's
 * reports command and one reporter run at a time under the test's control.
 */

export const TEAM = 'T0LOCAL';

export interface ReporterHarness {
  readonly e2e: E2E;
  readonly deps: ReporterDeps;
  /** The emulator's time, which the store and the reporter read too. */
  now(): Date;
  /** Moves the shared clock (and the emulator's timed transitions) forward. */
  advance(ms: number): void;
  /** One reporter run at the current time. */
  tick(options?: TickOptions): Promise<TickSummary>;
  /**
   * One reporter run with a deadline `ms` from now, posting paced fast so the deadline is what
   * stops it: a run cut off as a Lambda's timeout cuts it.
   */
  tickWithDeadline(ms: number): Promise<TickSummary>;
  /**
   * `tickWithDeadline` while the Slack stand-in stalls the calls `rule` picks (a post whose answer
   * is lost, or that never arrives), which it stops stalling after.
   */
  tickStalled(rule: StallRule, ms: number): Promise<TickSummary>;
  /**
   * `/cloud <text>` for a reports command, answered by its handler as the Slack function would;
   * work it hands off runs in the worker (see `drain`) and answers through a stand-in response_url.
   */
  reports(user: string, channel: string, text: string): Promise<Reply>;
  /** Waits for the work `reports` handed to the worker. */
  drain(): Promise<void>;
  /** What the worker told `user` through response_urls in `channel`, oldest first. */
  replies(user: string, channel: string): StoredMessage[];
  /** Links an emulator user's new token for a Slack user, as a completed login would. */
  link(
    slackUser: string,
    apiUsername: string,
    options?: { scopes?: string; expiry?: Date | null; profile?: string },
  ): Promise<string>;
  /** Messages the bot posted in a channel (or a user's direct messages), oldest first. */
  posted(channel: string): StoredMessage[];
  /** Deletes every subscription of the team, so one test's reports do not run in the next. */
  clearSubscriptions(): Promise<void>;
  subscriptions(): Promise<ReportSubscription[]>;
  /** An API client with the demo token, to read what the reports should show. */
  api(): ApiClient;
  close(): Promise<void>;
}

export async function startReporterHarness(
  options: { emulator?: EmulatorOptions; stack?: Partial<BotStackOptions> } = {},
): Promise<ReporterHarness> {
  let e2e: E2E | undefined;
  const now = () => new Date(e2e?.emulator.control.now() ?? Date.now());
  e2e = await startE2E({
    // The emulator limits each token per window; these tests make many calls on purpose.
    emulator: { rateLimit: false, ...options.emulator },
    // The stand-in keeps the same clock, so Slack's processing of uploads and its per-minute limits
    // move when the test moves time.
    stack: { now, ...options.stack, slack: { now: () => now().getTime(), ...options.stack?.slack } },
  });
  const started = e2e;
  const { stack, emulator } = started;
  const logger = new Logger({ serviceName: 'reporter-test', logLevel: 'SILENT' });
  const slack = createSlackWebClient(stack.standIn.botToken, stack.standIn.apiUrl);
  const api = { baseUrl: emulator.url, timeoutMs: 10_000 };
  // The stand-in's own token is an internal app unless the test makes it a distributed one.
  const slackInstall = options.stack?.slack?.botTokenInstall ?? 'internal';
  const deps: ReporterDeps = {
    store: stack.store,
    api,
    slack,
    logger,
    slackInstall,
    surface: slackReporterSurface({ store: stack.store, slack, logger, api }, { followRunbooks: true }),
  };
  const handoff = new InProcessHandoff((job) => runWorkerJob(deps, job));
  const botDeps: BotDeps = {
    store: stack.store,
    api,
    logger,
    signingSecret: stack.signingSecret,
    botToken: stack.standIn.botToken,
    slackApiUrl: stack.standIn.apiUrl,
    inlineBudgetMs: 1500,
    handoff,
    approvalAdmins: [],
  };
  let users = 0;
  const tickWithDeadline = (ms: number) =>
    runReporterTick({ ...deps, pacer: new ChannelPacer({ minIntervalMs: 0 }) }, now(), {
      deadline: Date.now() + ms,
    });

  return {
    e2e: started,
    deps,
    now,
    advance: (ms) => {
      emulator.control.advance(ms);
    },
    tick: (tickOptions) => runReporterTick(deps, now(), tickOptions),
    tickWithDeadline,
    tickStalled: async (rule, ms) => {
      stack.standIn.stall(rule);
      try {
        return await tickWithDeadline(ms);
      } finally {
        stack.standIn.stall(undefined);
      }
    },
    reports: async (user, channel, text) => {
      const parsed = parseCommand(text);
      if (parsed.kind !== 'bot' || parsed.command !== 'reports') {
        throw new Error(`not a reports command: ${JSON.stringify(parsed)}`);
      }
      const responseUrl = stack.standIn.responseUrlFor(channel, user);
      const ctx = { team: TEAM, user, channel, responseUrl, correlationId: randomUUID() };
      return handleReportsCommand({ deps: botDeps, ctx, client: slack }, parsed);
    },
    drain: () => handoff.drain(),
    replies: (user, channel) =>
      stack.standIn.store
        .messages(channel, { seenBy: user })
        .filter((m) => m.via === 'response_url' && m.visibleTo === user),
    link: async (slackUser, apiUsername, linkOptions = {}) => {
      if (!emulator.control.world.userByName(apiUsername))
        emulator.control.createUser({ username: apiUsername });
      const scopes = linkOptions.scopes ?? 'account:read_only';
      const expiry = linkOptions.expiry ?? null;
      const { token } = emulator.control.createToken(apiUsername, {
        scopes,
        expiry: expiry === null ? null : expiry.getTime(),
        label: `reports ${++users}`,
      });
      await stack.store.tokenLinks.saveLink({
        team: TEAM,
        user: slackUser,
        profile: linkOptions.profile ?? 'default',
        token,
        label: `reports ${users}`,
        apiUsername,
        scopes,
        expiry,
      });
      return token;
    },
    posted: (channel) => stack.standIn.store.messages(channel).filter((m) => m.botId !== undefined),
    clearSubscriptions: async () => {
      for (const sub of await stack.store.reports.list(TEAM)) await stack.store.reports.delete(TEAM, sub.id);
    },
    subscriptions: () => stack.store.reports.list(TEAM),
    api: () => new ApiClient({ baseUrl: emulator.url, token: emulator.demoToken }),
    close: () => started.close(),
  };
}

/** The demo account's current stats series, read the way the reporter reads them. */
export async function currentStats(harness: ReporterHarness) {
  return harness.api().call(getOperation('managed.stats'), {});
}
