import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { helpFor } from '../../lib/commands/help.js';
import { renderHelp } from '../../lib/slack/render/help.js';
import { BASELINE_ANSWER } from '../baseline/answer.js';
import type { BenchmarkResult, Row } from '../benchmark.js';
import { collectTail, stopChild } from '../child-processes.js';
import { ackText, slashCommandEvent } from '../slash-command-event.js';
import { ratio, type Summary, summarize } from '../stats.js';
import { formatBytes, formatRatio } from '../table.js';
import { compositionDifference } from './bundle-composition.js';
import { type BuiltBundle, type ColdStartArtifacts, prepareColdStart } from './bundles.js';
import { type DriverResult, RESULT_PREFIX } from './driver-protocol.js';

/**
 * Cold start to first answer: a new `node` process loads a function bundle and answers one signed
 * slash command, for the bot (`/cloud help`, which needs neither the API nor DynamoDB) and for the
 * minimal Bolt app. Runs alternate between the two, in alternating order, so drift on a busy
 * machine falls on both alike; one pair runs first to warm the file cache and is not counted.
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
  readonly bundle: BuiltBundle;
  readonly env: NodeJS.ProcessEnv;
  readonly expectedText: string;
}

function functionEnv(signingSecret: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1',
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_BOT_TOKEN: 'xoxb-bench',
    TABLE_NAME: 'chatops-bench',
    TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // Nothing listens here: `help` must answer without touching DynamoDB, or the answer is an error.
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
    WORKER_FUNCTION_NAME: 'chatops-bench-worker',
  };
}

async function runOnce(driver: string, contender: Contender): Promise<Sample> {
  const signingSecret = contender.env.SLACK_SIGNING_SECRET ?? '';
  const event = slashCommandEvent({ signingSecret, text: 'help', user: 'U0BENCH' });
  const started = performance.now();
  const child = spawn(process.execPath, [driver, contender.bundle.file], {
    env: { ...contender.env, BENCH_EVENT: JSON.stringify(event) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr = collectTail(child);
  const exited = once(child, 'exit');
  const timer = setTimeout(() => void stopChild(child), PROCESS_TIMEOUT_MS);
  try {
    let report: { result: DriverResult; at: number } | undefined;
    for await (const line of createInterface({ input: child.stdout })) {
      if (!line.startsWith(RESULT_PREFIX)) continue;
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
        `The ${contender.name} bundle did not give the expected answer: ${JSON.stringify(report.result.result)}`,
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
}

export async function runColdStart(options: ColdStartOptions): Promise<BenchmarkResult> {
  const artifacts: ColdStartArtifacts = await prepareColdStart(options.workDir);
  const signingSecret = randomBytes(16).toString('hex');
  const contenders: Record<Contender['name'], Contender> = {
    ours: {
      name: 'ours',
      bundle: artifacts.ours,
      env: functionEnv(signingSecret),
      expectedText: renderHelp(helpFor(undefined)).text,
    },
    baseline: {
      name: 'baseline',
      bundle: artifacts.baseline,
      env: functionEnv(signingSecret),
      expectedText: BASELINE_ANSWER,
    },
  };

  const samples: Record<Contender['name'], Sample[]> = { ours: [], baseline: [] };
  for (let pair = 0; pair <= options.runs; pair++) {
    const order = pair % 2 === 0 ? (['ours', 'baseline'] as const) : (['baseline', 'ours'] as const);
    for (const name of order) {
      const sample = await runOnce(artifacts.driver, contenders[name]);
      if (pair > 0) samples[name].push(sample);
    }
  }

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
  const sizeRows = (variant: string, bundle: BuiltBundle, compare: boolean): Row[] => [
    {
      benchmark: 'Bundle size',
      variant,
      metric: 'index.mjs',
      unit: 'bytes',
      summary: single(bundle.bytes),
      ...(compare && { vsBaseline: ratio(bundle.bytes, artifacts.baseline.bytes) }),
    },
    {
      benchmark: 'Bundle size',
      variant,
      metric: 'index.mjs, gzip',
      unit: 'bytes',
      summary: single(bundle.gzipBytes),
      ...(compare && { vsBaseline: ratio(bundle.gzipBytes, artifacts.baseline.gzipBytes) }),
    },
  ];

  const coldRatio = ratio(ours.spawnToAnswer.median, baseline.spawnToAnswer.median);
  const sizeRatio = ratio(artifacts.ours.bytes, artifacts.baseline.bytes);
  const difference = compositionDifference(artifacts.ours.composition, artifacts.baseline.composition);
  const extra = artifacts.ours.bytes - artifacts.baseline.bytes;
  const largest = difference
    .filter((d) => d.difference > 0)
    .slice(0, 6)
    .map((d) => `${d.name} ${formatBytes(d.difference)}`)
    .join(', ');
  const importShare =
    (ours.import.median - baseline.import.median) /
    Math.max(1e-9, ours.spawnToAnswer.median - baseline.spawnToAnswer.median);

  return {
    title: 'Cold start to first answer',
    setup: [
      `Both bundles built by \`buildFunctions\` (infra/build.ts); the baseline is \`bench/baseline/minimal-bolt.ts\`, an \`App\` with \`AwsLambdaReceiver\` answering \`/cloud\` with a fixed text.`,
      `Each run is a new \`node\` process (${process.version}) that imports the bundle and invokes its handler with one signed API Gateway v2 event: \`/cloud help\` for the bot, \`/cloud\` for the baseline. Every answer is checked against the expected text.`,
      `${options.runs} counted runs of each, alternating which goes first; one uncounted pair before them warms the file cache.`,
      '"spawn → answer" is measured by this process, from just before `spawn` until the answer line arrives; the other times are measured inside the child.',
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
          `the first answer for the rest (${ours.answer.median.toFixed(1)} ms against ${baseline.answer.median.toFixed(1)} ms). ` +
          `Import time follows the code evaluated at load: the bundle is ${formatBytes(extra)} larger (see bundle size).`,
      },
      {
        name: 'Bundle size',
        requirement: '≤ 1.1× the minimal Bolt app (index.mjs bytes)',
        measured: sizeRatio,
        limit: 1.1,
        direction: 'at-most',
        format: formatRatio,
        whyMissed: `The bot's bundle is ${formatBytes(extra)} larger. By the source map, the packages that make up the difference (generated characters, ours minus baseline): ${largest}.`,
      },
    ],
    notes: [
      `Bundle composition, largest parts of ours: ${[...artifacts.ours.composition]
        .slice(0, 8)
        .map(([name, size]) => `${name} ${formatBytes(size)}`)
        .join(', ')}.`,
    ],
  };
}
