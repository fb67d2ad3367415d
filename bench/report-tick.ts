import { Logger } from '@aws-lambda-powertools/logger';
import { type RunningEmulator, startEmulator } from '../infra/local/emulator/server.js';
import { startSlackStandIn } from '../infra/local/slack/server.js';
import { settleWithConcurrency } from '../lib/concurrency.js';
import { DEFAULT_PACER_OPTIONS } from '../lib/reports/pacer.js';
import { DEFAULT_ACCOUNT_CONCURRENCY, runReporterTick, type TickSummary } from '../lib/reports/tick.js';
import { slackReporterSurface } from '../lib/slack/reporter-surface.js';
import { createSlackWebClient } from '../lib/slack-kit/web-client.js';
import { createBenchTable } from './bench-table.js';
import type { BenchmarkResult, Row } from './benchmark.js';
import { BENCH_TEAM } from './slash-command-event.js';
import { ratio, type Summary, summarize } from './stats.js';
import { formatDuration, formatRatio } from './table.js';

/**
 * One reporter tick at scale: issue-digest subscriptions over many linked accounts, latency on
 * every API call, and the Slack stand-in enforcing about one message per second per channel. The
 * tick is `runReporterTick` as the scheduled reporter runs it; each run gets a fresh table (with
 * every subscription due) and a fresh stand-in (with quiet channels).
 */

const BENCHMARK = 'Report tick';
const ISSUES_LIST = 'managed.issues-list';
const SERVICES_LIST = 'managed.services-list';
/** Writes to DynamoDB Local in flight while arranging a run. */
const SETUP_CONCURRENCY = 16;

export interface ReportTickOptions {
  readonly dynamoEndpoint: string;
  readonly accounts: number;
  readonly subscriptions: number;
  readonly latencyMs: number;
  readonly runs: number;
}

interface Spread {
  readonly name: string;
  readonly description: string;
  /**
   * Whether the wall-time target applies. With one message per channel the posting limit allows
   * next to nothing and the tick is all fan-out, which the target is not about.
   */
  readonly postingBound: boolean;
  /** The channel of account `account`'s `index`-th subscription. */
  channelOf(account: number, index: number): string;
}

/** Channels with their number of subscriptions, busiest first. */
function channelLoad(spread: Spread, accounts: number, perAccount: number): Map<string, number> {
  const load = new Map<string, number>();
  for (let account = 0; account < accounts; account++) {
    for (let index = 0; index < perAccount; index++) {
      const channel = spread.channelOf(account, index);
      load.set(channel, (load.get(channel) ?? 0) + 1);
    }
  }
  return new Map([...load].sort((a, b) => b[1] - a[1]));
}

function spreads(accounts: number, perAccount: number): Spread[] {
  const sharedChannels = 20;
  return [
    {
      name: `${sharedChannels} shared channels`,
      description: `each account's ${perAccount} subscriptions in ${perAccount} different channels out of ${sharedChannels} team channels, so every channel follows ${(accounts * perAccount) / sharedChannels} accounts`,
      postingBound: true,
      channelOf: (account, index) => `C0SHARED${(account * perAccount + index) % sharedChannels}`,
    },
    {
      name: 'a channel per subscription',
      description: `${accounts * perAccount} channels with one subscription each`,
      postingBound: false,
      channelOf: (account, index) => `C0OWN${account}X${index}`,
    },
  ];
}

interface RunMeasurement {
  readonly wallMs: number;
  readonly summary: TickSummary;
  readonly emulatorCalls: Record<string, number>;
  readonly messagesSeen: number;
}

function slackUserOf(account: number): string {
  return `U0ACCOUNT${account}`;
}

async function runOnce(
  options: ReportTickOptions,
  emulator: RunningEmulator,
  tokens: readonly string[],
  spread: Spread,
): Promise<RunMeasurement> {
  const perAccount = options.subscriptions / options.accounts;
  const table = await createBenchTable(options.dynamoEndpoint);
  // The spread's channels exist with the bot in them, as the reporter's do in a real workspace
  // (which refuses a post to a channel that does not exist).
  const channels = [...channelLoad(spread, options.accounts, perAccount).keys()].map((id) => ({
    id,
    name: id.toLowerCase(),
    is_private: false,
    is_im: false,
  }));
  const slack = await startSlackStandIn({ rateLimit: true, channels });
  try {
    const { store } = table;
    const now = new Date();
    const due = new Date(now.getTime() - 60_000);
    const linked = await settleWithConcurrency([...tokens.entries()], SETUP_CONCURRENCY, ([account, token]) =>
      store.tokenLinks.saveLink({
        team: BENCH_TEAM,
        user: slackUserOf(account),
        token,
        label: `bench ${account}`,
        apiUsername: `bench${account}`,
        scopes: 'account:read_only',
        expiry: null,
      }),
    );
    const subscriptions = tokens.flatMap((_, account) =>
      Array.from({ length: perAccount }, (_, index) => ({
        account,
        channel: spread.channelOf(account, index),
      })),
    );
    const created = await settleWithConcurrency(subscriptions, SETUP_CONCURRENCY, ({ account, channel }) =>
      store.reports.create({
        team: BENCH_TEAM,
        kind: 'issues',
        channel,
        owner: slackUserOf(account),
        profile: 'default',
        schedule: { type: 'every', minutes: 60 },
        nextRunAt: due,
      }),
    );
    const failed = [...linked, ...created].find((outcome) => outcome.status === 'rejected');
    if (failed) throw new Error('Arranging the links and subscriptions failed', { cause: failed.reason });

    emulator.control.resetRequestCounts();
    const started = performance.now();
    const reporterSlack = createSlackWebClient(slack.botToken, slack.apiUrl);
    const logger = new Logger({ serviceName: 'bench', logLevel: 'SILENT' });
    const summary = await runReporterTick(
      {
        store,
        api: { baseUrl: emulator.url, timeoutMs: 10_000 },
        slack: reporterSlack,
        logger,
        surface: slackReporterSurface(
          { store, api: { baseUrl: emulator.url, timeoutMs: 10_000 }, slack: reporterSlack, logger },
          { followRunbooks: false },
        ),
      },
      now,
    );
    const wallMs = performance.now() - started;
    const channels = new Set(subscriptions.map((s) => s.channel));
    const messagesSeen = [...channels].reduce(
      (sum, channel) => sum + slack.store.messages(channel).filter((m) => m.botId !== undefined).length,
      0,
    );
    return { wallMs, summary, emulatorCalls: emulator.control.requestCounts(), messagesSeen };
  } finally {
    await slack.close();
    table.close();
  }
}

export async function runReportTick(options: ReportTickOptions): Promise<BenchmarkResult> {
  if (options.subscriptions % options.accounts !== 0) {
    throw new RangeError('Subscriptions must divide evenly over the accounts');
  }
  const perAccount = options.subscriptions / options.accounts;
  const emulator = await startEmulator({ rateLimit: false });
  try {
    const tokens = Array.from({ length: options.accounts }, (_, account) => {
      const username = `bench${account}`;
      emulator.control.createUser({ username });
      return emulator.control.createToken(username, { scopes: 'account:read_only', label: 'reports' }).token;
    });
    emulator.control.setLatency(options.latencyMs);

    const rows: Row[] = [];
    const setup: string[] = [
      `${options.subscriptions} \`issues\` subscriptions over ${options.accounts} accounts (${perAccount} each): ${options.accounts} emulator users, each with its own token linked for its own Slack user, so the reporter sees ${options.accounts} accounts. Every subscription is due.`,
      `${options.latencyMs} ms latency on every API call (emulator in process, rate limits off); the Slack stand-in with its per-channel limit on (about 1 message a second, burst 3, 429 with Retry-After beyond). Reporter settings as deployed (${DEFAULT_ACCOUNT_CONCURRENCY} accounts at a time, the pacer's ${DEFAULT_PACER_OPTIONS.minIntervalMs} ms per channel).`,
      `Wall time of \`runReporterTick\` alone; each of the ${options.runs} runs has a fresh table and a fresh stand-in. API calls per account are the emulator's request counts over the number of accounts, checked against the tick's own per-account counts.`,
      '"Allowed by the posting limit" is the measure the issue sets: the messages of the busiest channel at one a second. The last of k messages can leave k − 1 seconds after the first, so a tick can finish just under it; "× baseline" is the wall time against it.',
    ];
    const targets: BenchmarkResult['targets'][number][] = [];
    const notes: string[] = [];

    for (const spread of spreads(options.accounts, perAccount)) {
      const busiest = [...channelLoad(spread, options.accounts, perAccount).values()][0] ?? 0;
      const allowedMs = busiest * 1000;
      const measurements: RunMeasurement[] = [];
      for (let run = 0; run < options.runs; run++) {
        measurements.push(await runOnce(options, emulator, tokens, spread));
      }
      for (const m of measurements) {
        if (m.summary.failures.length > 0 || m.summary.run !== options.subscriptions) {
          throw new Error(
            `${spread.name}: ${m.summary.run} of ${options.subscriptions} ran, failures: ${JSON.stringify(m.summary.failures.slice(0, 3))}`,
          );
        }
        const counted = Object.values(m.summary.apiCalls).reduce(
          (sum, calls) => sum + (calls[ISSUES_LIST] ?? 0),
          0,
        );
        if (counted !== m.emulatorCalls[ISSUES_LIST]) {
          throw new Error(
            `${spread.name}: the tick counted ${counted} issues fetches, the emulator saw ${m.emulatorCalls[ISSUES_LIST]}`,
          );
        }
      }
      const of = (pick: (m: RunMeasurement) => number): Summary => summarize(measurements.map(pick));
      const wall = of((m) => m.wallMs);
      const issuesPerAccount = of((m) => (m.emulatorCalls[ISSUES_LIST] ?? 0) / options.accounts);
      const servicesPerAccount = of((m) => (m.emulatorCalls[SERVICES_LIST] ?? 0) / options.accounts);
      const mostIssuesFetches = of((m) =>
        Math.max(0, ...Object.values(m.summary.apiCalls).map((calls) => calls[ISSUES_LIST] ?? 0)),
      );
      const row = (metric: string, unit: Row['unit'], summary: Summary, vsBaseline?: number): Row => ({
        benchmark: BENCHMARK,
        variant: spread.name,
        metric,
        unit,
        summary,
        ...(vsBaseline !== undefined && { vsBaseline }),
      });
      rows.push(
        row('wall time', 'ms', wall, ratio(wall.median, allowedMs)),
        row(
          `allowed by the posting limit (${busiest} ${busiest === 1 ? 'message' : 'messages'} in the busiest channel)`,
          'ms',
          summarize([allowedMs]),
        ),
        row('issues fetches per account', 'count', issuesPerAccount),
        row('service-label fetches per account', 'count', servicesPerAccount),
        row(
          'messages posted',
          'count',
          of((m) => m.summary.messagesPosted),
        ),
        row(
          'messages in the stand-in',
          'count',
          of((m) => m.messagesSeen),
        ),
        row(
          '429s from Slack, waited out',
          'count',
          of((m) => m.summary.slackRateLimited),
        ),
      );
      setup.push(`Spread "${spread.name}": ${spread.description}.`);
      targets.push({
        name: `Report tick, issues fetches per account (${spread.name})`,
        requirement: 'one per account per tick (the most any account made)',
        measured: mostIssuesFetches.max,
        limit: 1,
        direction: 'at-most',
        format: (value) => value.toFixed(0),
        whyMissed: `The tick's own counts show up to ${mostIssuesFetches.max} issues fetches for one account.`,
      });
      const wallRatio = ratio(wall.median, allowedMs);
      if (spread.postingBound) {
        targets.push({
          name: `Report tick, wall time (${spread.name})`,
          requirement: `within 1.2× of what the per-channel limit allows (${formatDuration(allowedMs)})`,
          measured: wallRatio,
          limit: 1.2,
          direction: 'at-most',
          format: formatRatio,
          whyMissed: `Median ${formatDuration(wall.median)} against ${formatDuration(allowedMs)}; the time beyond the busiest channel's pacing is the fan-out before the first post (claims, token lookups, ${options.latencyMs} ms API calls for ${DEFAULT_ACCOUNT_CONCURRENCY} accounts at a time) and the run records after the last.`,
        });
      } else {
        notes.push(
          `"${spread.name}": no channel gets more than ${busiest === 1 ? 'one message' : `${busiest} messages`}, so the posting limit is no constraint; the tick's ${formatDuration(wall.median)} (median) is the fan-out itself: ${options.subscriptions} claims and run records in DynamoDB Local, ${options.accounts} token lookups, and two API calls per account, one after the other (the issues, then the service labels for the digest), at ${options.latencyMs} ms each and ${DEFAULT_ACCOUNT_CONCURRENCY} accounts at a time: ${formatDuration(Math.ceil(options.accounts / DEFAULT_ACCOUNT_CONCURRENCY) * 2 * options.latencyMs)} of latency alone.`,
        );
      }
    }
    return { title: 'Report tick', setup, rows, targets, notes };
  } finally {
    await emulator.close();
  }
}
