import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { build } from 'esbuild';
import { collectTail, stopChild } from '../child-processes.js';
import { type Summary, summarize } from '../stats.js';
import { type DriverResult, RESULT_PREFIX } from './driver-protocol.js';

/**
 * One cold start: a new `node` process runs the driver, which loads a function bundle and hands
 * its handler one event, as the Lambda runtime would. Shared by the cold-start benchmarks (the
 * Slack function's and the agents' MCP endpoint's), so both time a start the same way.
 */

const DRIVER_SOURCE = new URL('./driver.ts', import.meta.url).pathname;
const PROCESS_TIMEOUT_MS = 30_000;

/** The driver compiled to one plain JavaScript file, so no TypeScript loader sits in a measured start. */
export async function buildDriver(outfile: string): Promise<string> {
  await build({
    entryPoints: [DRIVER_SOURCE],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    logLevel: 'warning',
  });
  return outfile;
}

export interface ColdSample {
  /** From just before `spawn` until the answer line arrived. */
  readonly spawnToAnswerMs: number;
  readonly bootMs: number;
  readonly importMs: number;
  readonly answerMs: number;
  readonly importCpuMs: number;
  readonly answerCpuMs: number;
}

export interface ColdProcess {
  /** As the results table names it, for errors. */
  readonly variant: string;
  /** The bundle's entry (`index.mjs`). */
  readonly entry: string;
  readonly env: NodeJS.ProcessEnv;
  readonly event: unknown;
  /** The folder a CPU profile of this process goes to under `BENCH_CPU_PROFILE_DIR`. */
  readonly profileName: string;
}

export interface ColdAnswer {
  readonly sample: ColdSample;
  /** What the handler returned. */
  readonly result: unknown;
  /** The last lines the process printed besides its result (the function's own logs). */
  readonly logged: readonly string[];
  /** The tail of its stderr. */
  readonly stderr: string;
}

/** Spawns the driver on `run`'s bundle and event; fails unless the process answered and exited 0. */
export async function runColdProcess(driver: string, run: ColdProcess): Promise<ColdAnswer> {
  const started = performance.now();
  // `BENCH_CPU_PROFILE_DIR` keeps a CPU profile of every process there (`node --cpu-prof`), to see
  // where a path's time goes; profiling slows the processes, so such a run's times are not comparable.
  const profileDir = process.env.BENCH_CPU_PROFILE_DIR;
  const profiling = profileDir
    ? ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${profileDir}/${run.profileName}`]
    : [];
  const child = spawn(process.execPath, [...profiling, driver, run.entry], {
    env: { ...run.env, BENCH_EVENT: JSON.stringify(run.event) },
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
      throw new Error(`The ${run.variant} cold-start process failed (exit ${code}):\n${stderr()}`);
    }
    return {
      sample: {
        spawnToAnswerMs: report.at - started,
        bootMs: report.result.bootMs,
        importMs: report.result.importMs,
        answerMs: report.result.answerMs,
        importCpuMs: report.result.importCpuMs,
        answerCpuMs: report.result.answerCpuMs,
      },
      result: report.result.result,
      logged: logged.slice(-10),
      stderr: stderr(),
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `runs` counted rounds of every contender; one round before them warms the file cache and is not
 * counted. Each round runs every contender once, in the order of the next row of a Williams design
 * (`roundOrders`): over its rows every contender starts a round equally often and runs right after
 * every other equally often. A run leaves work behind in the services it used (DynamoDB Local's
 * garbage collection and compilation, the emulator's), and a contender that always followed the same
 * one (as it did when each round only started one further along) always found the same leftovers.
 */
export async function runInRounds<Name extends string>(
  names: readonly Name[],
  runs: number,
  runOne: (name: Name) => Promise<ColdSample>,
): Promise<Record<Name, ColdSample[]>> {
  const samples = Object.fromEntries(names.map((name) => [name, [] as ColdSample[]])) as Record<
    Name,
    ColdSample[]
  >;
  const orders = roundOrders(names.length);
  for (let round = 0; round <= runs; round++) {
    for (const index of orders[round % orders.length] ?? []) {
      const name = names[index] as Name;
      const sample = await runOne(name);
      if (round > 0) samples[name].push(sample);
    }
  }
  return samples;
}

/**
 * The rows of a Williams design for `n` contenders (a Latin square balanced for the one run before:
 * Williams, 1949): `n` rows for an even `n`, `2n` (each row and its reverse) for an odd one. Each
 * row runs every contender once; across the rows each starts equally often and each ordered pair
 * of contenders is adjacent equally often.
 */
export function roundOrders(n: number): number[][] {
  // 0, 1, n-1, 2, n-2, …: consecutive differences that are all distinct mod n.
  const first = Array.from({ length: n }, (_, i) => (i % 2 === 1 ? (i + 1) / 2 : (n - i / 2) % n));
  const rows = Array.from({ length: n }, (_, shift) => first.map((index) => (index + shift) % n));
  return n % 2 === 0 ? rows : [...rows, ...rows.map((row) => [...row].reverse())];
}

export interface ColdSummaries {
  readonly spawnToAnswer: Summary;
  readonly importAndAnswer: Summary;
  readonly import: Summary;
  readonly answer: Summary;
  readonly boot: Summary;
  readonly importCpu: Summary;
  readonly answerCpu: Summary;
}

export function summarizeCold(samples: readonly ColdSample[]): ColdSummaries {
  const of = (pick: (s: ColdSample) => number) => summarize(samples.map(pick));
  return {
    spawnToAnswer: of((s) => s.spawnToAnswerMs),
    importAndAnswer: of((s) => s.importMs + s.answerMs),
    import: of((s) => s.importMs),
    answer: of((s) => s.answerMs),
    boot: of((s) => s.bootMs),
    importCpu: of((s) => s.importCpuMs),
    answerCpu: of((s) => s.answerCpuMs),
  };
}

/** The metrics of a cold start as the results table lists them, each with its summary's key. */
export const COLD_METRICS = [
  ['spawn → answer', 'spawnToAnswer'],
  ['import + answer (in the process)', 'importAndAnswer'],
  ['… of which import', 'import'],
  ['… of which first answer', 'answer'],
  ['node start until import', 'boot'],
  ['CPU time: import', 'importCpu'],
  ['CPU time: first answer', 'answerCpu'],
] as const satisfies readonly (readonly [string, keyof ColdSummaries])[];

/** One side of a cold-start comparison: what it runs, on which event, and how its answer is checked. */
export interface ColdContender<Name extends string = string> {
  readonly name: Name;
  /** As the results table names it. */
  readonly variant: string;
  /** The bundle it loads (a `BuiltFunction`). */
  readonly build: { readonly entry: string };
  readonly env: NodeJS.ProcessEnv;
  /** Sets up what the run acts on (not measured). */
  readonly prepare?: () => Promise<void>;
  readonly event: () => APIGatewayProxyEventV2;
  /** Throws unless the handler's result (and what it left behind) is the expected answer. */
  readonly check: (result: unknown) => Promise<void>;
}

/** One cold run of `contender` in a fresh process, its answer checked before its sample counts. */
export async function runContender(driver: string, contender: ColdContender): Promise<ColdSample> {
  await contender.prepare?.();
  const answer = await runColdProcess(driver, {
    variant: contender.variant,
    entry: contender.build.entry,
    env: contender.env,
    event: contender.event(),
    profileName: contender.name,
  });
  try {
    await contender.check(answer.result);
  } catch (error) {
    throw new Error(
      `${contender.variant} did not give the expected answer: ${error instanceof Error ? error.message : String(error)}\n${answer.logged.join('\n')}\n${answer.stderr}`,
    );
  }
  return answer.sample;
}
