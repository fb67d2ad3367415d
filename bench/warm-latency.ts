import { randomBytes } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { startEmulator } from '../infra/local/emulator/server.js';
import { startSlackStandIn } from '../infra/local/slack/server.js';
import { helpFor } from '../lib/commands/help.js';
import { createSlackApp, type SlackHandler } from '../lib/slack/bot.js';
import { renderHelp } from '../lib/slack/render/help.js';
import type { Handoff } from '../lib/worker/handoff.js';
import { createBenchTable, linkBenchUser } from './bench-table.js';
import type { BenchmarkResult, Row } from './benchmark.js';
import { ackText, BENCH_TEAM, slashCommandEvent } from './slash-command-event.js';
import { percentile, summarize } from './stats.js';
import { formatDuration } from './table.js';

/**
 * Warm answer latency: one process, the Slack function built once by `createSlackApp` as the
 * Lambda entry point builds it (a real table on DynamoDB Local, the emulator as the API, the Slack
 * stand-in), then signed slash commands one after another straight into the handler. Each
 * command's time runs from the call to the returned answer; building and signing the event is
 * outside it.
 */

const BENCHMARK = 'Warm answer';
const USER = 'U0BENCH';
const WARM_UP = 200;

interface Command {
  readonly name: string;
  readonly text: string;
  readonly detail: string;
  /** `volumes.list` calls the emulator must see per command: each answer came from the API. */
  readonly volumeListCalls: number;
}

const COMMANDS: readonly Command[] = [
  {
    name: '/cloud help',
    text: 'help',
    detail: 'parse and render; one DynamoDB write (the delivery claim)',
    volumeListCalls: 0,
  },
  {
    name: '/cloud volumes list',
    text: 'volumes list',
    detail: 'the claim, the token lookup and decryption, one API call to the emulator, rendering',
    volumeListCalls: 1,
  },
];

export interface WarmLatencyOptions {
  readonly dynamoEndpoint: string;
  /** Commands of each kind per run. */
  readonly commands: number;
  readonly runs: number;
}

/** Sends `count` commands one after another; the latency of each, in ms. */
async function timeCommands(
  handler: SlackHandler,
  signingSecret: string,
  text: string,
  count: number,
  check: (answer: string | undefined) => void,
): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const event = slashCommandEvent({ signingSecret, text, user: USER });
    const started = performance.now();
    const result = await handler(event, { awsRequestId: event.requestContext.requestId });
    latencies.push(performance.now() - started);
    check(ackText(result));
  }
  return latencies;
}

export async function runWarmLatency(options: WarmLatencyOptions): Promise<BenchmarkResult> {
  const emulator = await startEmulator({ rateLimit: false });
  const slack = await startSlackStandIn();
  const table = await createBenchTable(options.dynamoEndpoint);
  let handedOff = 0;
  const handoff: Handoff = {
    dispatch: async () => {
      handedOff += 1;
    },
  };
  try {
    const signingSecret = randomBytes(16).toString('hex');
    const { handler } = createSlackApp({
      store: table.store,
      api: { baseUrl: emulator.url, timeoutMs: 10_000 },
      logger: new Logger({ serviceName: 'bench', logLevel: 'SILENT' }),
      signingSecret,
      botToken: slack.botToken,
      slackApiUrl: slack.apiUrl,
      inlineBudgetMs: 1500,
      handoff,
      approvalAdmins: [],
    });
    await linkBenchUser(table.store, BENCH_TEAM, USER, emulator.demoToken);

    const helpText = renderHelp(helpFor(undefined)).text;
    const firstVolume = [...emulator.control.world.volumes.values()][0]?.label;
    const expected = new Map<string, string>();
    const checkerFor = (command: Command) => (answer: string | undefined) => {
      const known = expected.get(command.name);
      if (answer !== undefined && known === undefined) {
        // The list's heading names the volumes; an error or a login prompt does not.
        const plausible = command.text === 'help' ? answer === helpText : /volumes/i.test(answer);
        if (plausible) expected.set(command.name, answer);
      }
      if (answer === undefined || answer !== expected.get(command.name)) {
        throw new Error(`${command.name} answered unexpectedly: ${answer ?? '(no answer)'}`);
      }
    };

    const perRun = new Map<string, { p50: number[]; p99: number[]; max: number[] }>();
    for (const command of COMMANDS) perRun.set(command.name, { p50: [], p99: [], max: [] });
    for (const command of COMMANDS) {
      await timeCommands(handler, signingSecret, command.text, WARM_UP, checkerFor(command));
    }
    for (let run = 0; run < options.runs; run++) {
      for (const command of COMMANDS) {
        const callsBefore = emulator.control.requestCount('volumes.list');
        const latencies = await timeCommands(
          handler,
          signingSecret,
          command.text,
          options.commands,
          checkerFor(command),
        );
        const calls = emulator.control.requestCount('volumes.list') - callsBefore;
        if (calls !== command.volumeListCalls * options.commands) {
          throw new Error(`${options.commands} × ${command.name} made ${calls} volumes.list calls`);
        }
        const stats = perRun.get(command.name);
        stats?.p50.push(percentile(latencies, 50));
        stats?.p99.push(percentile(latencies, 99));
        stats?.max.push(percentile(latencies, 100));
      }
    }
    if (handedOff > 0) throw new Error(`${handedOff} commands were handed off instead of answered inline`);

    const rows: Row[] = COMMANDS.flatMap((command) => {
      const stats = perRun.get(command.name);
      if (!stats) return [];
      return [
        { metric: 'p50', samples: stats.p50 },
        { metric: 'p99', samples: stats.p99 },
        { metric: 'max', samples: stats.max },
      ].map(({ metric, samples }) => ({
        benchmark: BENCHMARK,
        variant: command.name,
        metric: `${metric} of ${options.commands}`,
        unit: 'ms' as const,
        summary: summarize(samples),
      }));
    });
    const p99Of = (command: Command) => summarize(perRun.get(command.name)?.p99 ?? []).median;

    return {
      title: 'Warm answer latency',
      setup: [
        `\`createSlackApp\` built once in this process, as \`functions/slack\` builds it; a fresh table on DynamoDB Local, the emulator (no injected latency, rate limits off) as the API, the Slack stand-in for Bolt's \`auth.test\`.`,
        `Per run, ${options.commands} signed commands of each kind, one after another, straight into the handler; ${WARM_UP} of each first, uncounted. ${options.runs} runs; the table gives the median, min and max over the runs of each run's percentile (nearest rank).`,
        ...COMMANDS.map((command) => `\`${command.name}\`: ${command.detail}.`),
        firstVolume === undefined
          ? 'The emulator has no volumes.'
          : `Every answer is checked: help against its rendered text, \`volumes list\` against the first answer (a list of the seeded volumes, e.g. \`${firstVolume}\`) and by the emulator's count of \`volumes.list\` calls, one per command.`,
      ],
      rows,
      targets: COMMANDS.map((command) => ({
        name: `Warm p99, ${command.name}`,
        requirement: '≤ 20 ms',
        measured: p99Of(command),
        limit: 20,
        direction: 'at-most' as const,
        format: formatDuration,
        whyMissed: `p99 ${formatDuration(p99Of(command))}, p50 ${formatDuration(summarize(perRun.get(command.name)?.p50 ?? []).median)}: ${command.detail}; DynamoDB Local (a JVM on the same two cores) answers each call in a few milliseconds.`,
      })),
      notes: [],
    };
  } finally {
    table.close();
    await slack.close();
    await emulator.close();
  }
}
