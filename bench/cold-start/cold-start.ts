import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { type SlackStandIn, startSlackStandIn } from '../../infra/local/slack/server.js';
import { helpFor } from '../../lib/commands/help.js';
import { renderHelp } from '../../lib/slack/render/help.js';
import { BASELINE_ANSWER } from '../baseline/answer.js';
import { type BenchTable, createBenchTable } from '../bench-table.js';
import type { BenchmarkResult, Row } from '../benchmark.js';
import { collectTail, stopChild } from '../child-processes.js';
import { ackText, slashCommandEvent } from '../slash-command-event.js';
import { ratio, type Summary, summarize } from '../stats.js';
import { formatBytes, formatRatio } from '../table.js';
import { compositionDifference } from './bundle-composition.js';
import { type BuiltFunction, type ColdStartArtifacts, type FileSet, prepareColdStart } from './bundles.js';
import { type DriverResult, RESULT_PREFIX } from './driver-protocol.js';

/**
 * Cold start to first answer: a new `node` process loads a function bundle and answers one signed
 * slash command, for the bot (`/cloud help`, which needs no API call) and for the minimal Bolt
 * app. The bot claims each delivery in DynamoDB before it answers, so its processes talk to
 * DynamoDB Local, as they would to DynamoDB in AWS. Runs alternate between the two, in alternating
 * order, so drift on a busy machine falls on both alike; one pair runs first to warm the file
 * cache and is not counted.
 */

const BENCHMARK = 'Cold start';
const PROCESS_TIMEOUT_MS = 30_000;

interface Sample {
  /** From just before `spawn` until the answer line arrived. */
  readonly spawnToAnswerMs: number;
  readonly bootMs: number;
  readonly importMs: number;
  readonly answerMs: number;
}

interface Contender {
  readonly name: 'ours' | 'baseline';
  readonly build: BuiltFunction;
  readonly env: NodeJS.ProcessEnv;
  readonly expectedText: string;
}

function functionEnv(
  signingSecret: string,
  slack: SlackStandIn,
  table: BenchTable,
  dynamoEndpoint: string,
): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1',
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_API_URL: slack.apiUrl,
    TABLE_NAME: table.tableName,
    TOKEN_ENCRYPTION_KEY: table.encryptionKey,
    // The bot claims every delivery in DynamoDB before answering, `help` included.
    DYNAMODB_ENDPOINT: dynamoEndpoint,
    WORKER_FUNCTION_NAME: 'chatops-bench-worker',
  };
}

async function runOnce(driver: string, contender: Contender): Promise<Sample> {
  const signingSecret = contender.env.SLACK_SIGNING_SECRET ?? '';
  const event = slashCommandEvent({ signingSecret, text: 'help', user: 'U0BENCH' });
  const started = performance.now();
  const child = spawn(process.execPath, [driver, contender.build.entry], {
    env: { ...contender.env, BENCH_EVENT: JSON.stringify(event) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr = collectTail(child);
  const exited = once(child, 'exit');
  const timer = setTimeout(() => void stopChild(child), PROCESS_TIMEOUT_MS);
  try {
    let report: { result: DriverResult; at: number } | undefined;
    const logged: string[] = [];
    for await (const line of createInterface({ input: child.stdout })) {
      if (!line.startsWith(RESULT_PREFIX)) {
        logged.push(line);
        continue;
      }
      report = {
        at: performance.now(),
        result: JSON.parse(line.slice(RESULT_PREFIX.length)) as DriverResult,
      };
    }
    const [code] = (await exited) as [number | null];
    if (!report || code !== 0) {
      throw new Error(`The ${contender.name} cold-start process failed (exit ${code}):\n${stderr()}`);
    }
    const text = ackText(report.result.result);
    if (text !== contender.expectedText) {
      throw new Error(
        `The ${contender.name} bundle did not give the expected answer: ${JSON.stringify(report.result.result)}\n${logged.slice(-10).join('\n')}\n${stderr()}`,
      );
    }
    return {
      spawnToAnswerMs: report.at - started,
      bootMs: report.result.bootMs,
      importMs: report.result.importMs,
      answerMs: report.result.answerMs,
    };
  } finally {
    clearTimeout(timer);
  }
}

export interface ColdStartOptions {
  /** Counted runs of each bundle. */
  readonly runs: number;
  /** Scratch directory for the bundles. */
  readonly workDir: string;
  /** DynamoDB Local, for the bot's delivery claim. */
  readonly dynamoEndpoint: string;
}

export async function runColdStart(options: ColdStartOptions): Promise<BenchmarkResult> {
  const artifacts = await prepareColdStart(options.workDir);
  const slack = await startSlackStandIn();
  const table = await createBenchTable(options.dynamoEndpoint);
  try {
    return await measure(options, artifacts, slack, table);
  } finally {
    table.close();
    await slack.close();
  }
}

async function measure(
  options: ColdStartOptions,
  artifacts: ColdStartArtifacts,
  slack: SlackStandIn,
  table: BenchTable,
): Promise<BenchmarkResult> {
  const signingSecret = randomBytes(16).toString('hex');
  const contenders: Record<Contender['name'], Contender> = {
    ours: {
      name: 'ours',
      build: artifacts.ours,
      env: functionEnv(signingSecret, slack, table, options.dynamoEndpoint),
      expectedText: renderHelp(helpFor(undefined)).text,
    },
    baseline: {
      name: 'baseline',
      build: artifacts.baseline,
      env: functionEnv(signingSecret, slack, table, options.dynamoEndpoint),
      expectedText: BASELINE_ANSWER,
    },
  };

  const samples: Record<Contender['name'], Sample[]> = { ours: [], baseline: [] };
  const authTestsBefore = slack.store.callsTo('auth.test').length;
  for (let pair = 0; pair <= options.runs; pair++) {
    const order = pair % 2 === 0 ? (['ours', 'baseline'] as const) : (['baseline', 'ours'] as const);
    for (const name of order) {
      const sample = await runOnce(artifacts.driver, contenders[name]);
      if (pair > 0) samples[name].push(sample);
    }
  }

  const processes = 2 * (options.runs + 1);
  const authTests = slack.store.callsTo('auth.test').length - authTestsBefore;

  const summaries = (name: Contender['name']) => {
    const of = (pick: (s: Sample) => number) => summarize(samples[name].map(pick));
    return {
      spawnToAnswer: of((s) => s.spawnToAnswerMs),
      importAndAnswer: of((s) => s.importMs + s.answerMs),
      import: of((s) => s.importMs),
      answer: of((s) => s.answerMs),
      boot: of((s) => s.bootMs),
    };
  };
  const ours = summaries('ours');
  const baseline = summaries('baseline');
  const single = (value: number): Summary => ({ runs: 1, median: value, min: value, max: value });

  const timeRows = (variant: string, s: typeof ours, compare: boolean): Row[] =>
    (
      [
        ['spawn → answer', s.spawnToAnswer, baseline.spawnToAnswer],
        ['import + answer (in the process)', s.importAndAnswer, baseline.importAndAnswer],
        ['… of which import', s.import, baseline.import],
        ['… of which first answer', s.answer, baseline.answer],
        ['node start until import', s.boot, baseline.boot],
      ] as const
    ).map(([metric, summary, reference]) => ({
      benchmark: BENCHMARK,
      variant,
      metric,
      unit: 'ms',
      summary,
      ...(compare && { vsBaseline: ratio(summary.median, reference.median) }),
    }));
  const sets = [
    { key: 'loadedAtStart', label: 'loaded at start (entry + static chunks)' },
    { key: 'deployed', label: 'deployed (every .mjs)' },
  ] as const;
  const sizeRows = (variant: string, built: BuiltFunction, compare: boolean): Row[] =>
    sets.flatMap(({ key, label }) => {
      const set = built[key];
      const reference = artifacts.baseline[key];
      const files = `${set.files.length} ${set.files.length === 1 ? 'file' : 'files'}`;
      return [
        {
          benchmark: 'Bundle size',
          variant,
          metric: `${label}, ${files}`,
          unit: 'bytes' as const,
          summary: single(set.bytes),
          ...(compare && { vsBaseline: ratio(set.bytes, reference.bytes) }),
        },
        {
          benchmark: 'Bundle size',
          variant,
          metric: `${label}, gzip`,
          unit: 'bytes' as const,
          summary: single(set.gzipBytes),
          ...(compare && { vsBaseline: ratio(set.gzipBytes, reference.gzipBytes) }),
        },
      ];
    });
  const sizeTarget = (label: string, ours: FileSet, reference: FileSet) => {
    const difference = ours.bytes - reference.bytes;
    const largest = compositionDifference(ours.composition, reference.composition)
      .filter((d) => d.difference > 0)
      .slice(0, 6)
      .map((d) => `${d.name} ${formatBytes(d.difference)}`)
      .join(', ');
    return {
      name: `Bundle size, ${label}`,
      requirement: '≤ 1.1× the minimal Bolt app (bytes)',
      measured: ratio(ours.bytes, reference.bytes),
      limit: 1.1,
      direction: 'at-most' as const,
      format: formatRatio,
      whyMissed: `${formatBytes(difference)} more than the baseline. By the source maps, the packages that make up the difference (generated characters, ours minus baseline): ${largest}.`,
    };
  };
  const coldRatio = ratio(ours.spawnToAnswer.median, baseline.spawnToAnswer.median);
  const loadedDifference = artifacts.ours.loadedAtStart.bytes - artifacts.baseline.loadedAtStart.bytes;
  const importShare =
    (ours.import.median - baseline.import.median) /
    Math.max(1e-9, ours.spawnToAnswer.median - baseline.spawnToAnswer.median);

  return {
    title: 'Cold start to first answer',
    setup: [
      `Both built by \`buildFunctions\` (infra/build.ts), which splits code at dynamic imports into chunks; the baseline is \`bench/baseline/minimal-bolt.ts\`, an \`App\` with \`AwsLambdaReceiver\` answering \`/cloud\` with a fixed text.`,
      `Each run is a new \`node\` process (${process.version}) that imports the bundle and invokes its handler with one signed API Gateway v2 event: \`/cloud help\` for the bot, \`/cloud\` for the baseline. Every answer is checked against the expected text.`,
      `${options.runs} counted runs of each, alternating which goes first; one uncounted pair before them warms the file cache.`,
      '"spawn → answer" is measured by this process, from just before `spawn` until the answer line arrives; the other times are measured inside the child.',
      'Bundle size: "loaded at start" is the entry and every chunk it imports statically (read with esbuild from the output), evaluated before the handler runs; "deployed" is every JavaScript file of the function. Which package each byte comes from is read from the source maps the build writes.',
    ],
    rows: [
      ...timeRows('ours (functions/slack)', ours, true),
      ...timeRows('baseline (minimal Bolt)', baseline, false),
      ...sizeRows('ours (functions/slack)', artifacts.ours, true),
      ...sizeRows('baseline (minimal Bolt)', artifacts.baseline, false),
    ],
    targets: [
      {
        name: 'Cold start',
        requirement: '≤ 1.2× the minimal Bolt app (spawn → answer, medians)',
        measured: coldRatio,
        limit: 1.2,
        direction: 'at-most',
        format: formatRatio,
        whyMissed:
          `The bot's process took ${(ours.spawnToAnswer.median - baseline.spawnToAnswer.median).toFixed(0)} ms longer (median). ` +
          `Loading the bundle accounts for ${(importShare * 100).toFixed(0)}% of that ` +
          `(import ${ours.import.median.toFixed(0)} ms against ${baseline.import.median.toFixed(0)} ms), ` +
          `the first answer for the rest (${ours.answer.median.toFixed(1)} ms against ${baseline.answer.median.toFixed(1)} ms; the bot's first answer includes its delivery claim, the process's first DynamoDB request). ` +
          `Before its first answer the bot loads ${formatBytes(artifacts.ours.loadedAtStart.bytes)} of JavaScript, ${loadedDifference >= 0 ? `${formatBytes(loadedDifference)} more` : `${formatBytes(-loadedDifference)} less`} than the baseline (see the bundle size for which packages).`,
      },
      sizeTarget('loaded at start', artifacts.ours.loadedAtStart, artifacts.baseline.loadedAtStart),
      sizeTarget('deployed', artifacts.ours.deployed, artifacts.baseline.deployed),
    ],
    notes: [
      `Both apps call Slack's \`auth.test\` on their first event (Bolt does so lazily when \`tokenVerificationEnabled\` is off and no \`botId\`/\`botUserId\` is given): ${authTests} calls for ${processes} processes, answered here by the local stand-in in about a millisecond. From Lambda to Slack that is a real round trip before every cold-start answer, for the bot and the baseline alike.`,
      `Largest parts of what the bot loads at start: ${[...artifacts.ours.loadedAtStart.composition]
        .slice(0, 8)
        .map(([name, size]) => `${name} ${formatBytes(size)}`)
        .join(', ')}.`,
    ],
  };
}
