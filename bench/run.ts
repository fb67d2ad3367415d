import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type DynamoDbLocal, startDynamoDbLocal } from '../infra/local/dynamodb.js';
import type { BenchmarkResult } from './benchmark.js';
import { runColdStart } from './cold-start/cold-start.js';
import { runListing } from './listing.js';
import { describeMachine } from './machine.js';
import { runMcpColdStart } from './mcp/mcp-cold-start.js';
import { runReportTick } from './report-tick.js';
import { missedTargets, resultsFile, resultsTable, targetsTable } from './results-file.js';
import { formatDuration } from './table.js';
import { runWarmLatency } from './warm-latency.js';

/**
 * `npm run bench`: every benchmark, several runs each, against its baseline in the same run.
 * Prints the tables and writes `bench/RESULTS.md` with the machine it ran on.
 *
 *   --only cold,warm,listing,reports,mcp   run some of them (the results file is then left alone)
 *   --quick                                fewer runs, for trying changes (results file left alone)
 *   --cold-runs N                          this many cold-start runs of each path (results file left alone)
 */

const BENCHMARKS = ['cold', 'warm', 'listing', 'reports', 'mcp'] as const;
type BenchmarkName = (typeof BENCHMARKS)[number];
const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));

const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    'cold-runs': { type: 'string' },
  },
});
const selected: BenchmarkName[] = args.only
  ? args.only.split(',').map((name) => {
      const known = BENCHMARKS.find((b) => b === name.trim());
      if (!known) throw new Error(`Unknown benchmark ${name}; known: ${BENCHMARKS.join(', ')}`);
      return known;
    })
  : [...BENCHMARKS];
const quick = args.quick;
const coldRuns = args['cold-runs'] === undefined ? undefined : Number(args['cold-runs']);
if (coldRuns !== undefined && !(Number.isInteger(coldRuns) && coldRuns > 0)) {
  throw new Error(`--cold-runs takes a positive whole number, not ${args['cold-runs']}`);
}

function progress(message: string): void {
  process.stderr.write(`${message}\n`);
}

const machine = describeMachine();
const startedAt = new Date();
const started = performance.now();
const workDir = await mkdtemp(join(tmpdir(), 'chatops-bench-'));
let dynamo: DynamoDbLocal | undefined;
const results: BenchmarkResult[] = [];

try {
  if (selected.some((name) => name !== 'listing')) {
    progress('Starting DynamoDB Local…');
    dynamo = await startDynamoDbLocal({ tableName: null });
  }
  const dynamoEndpoint = dynamo?.endpoint ?? '';
  const runners: Record<BenchmarkName, () => Promise<BenchmarkResult>> = {
    // The floor variants differ by 10–40 ms; at 7 runs their medians moved by as much between runs.
    cold: () => runColdStart({ runs: coldRuns ?? (quick ? 2 : 11), workDir, dynamoEndpoint }),
    warm: () => runWarmLatency({ dynamoEndpoint, commands: quick ? 200 : 1000, runs: quick ? 1 : 3 }),
    listing: () => runListing({ nodes: 5000, latencyMs: 50, runs: quick ? 1 : 3, emulatorWorkers: 2 }),
    reports: () =>
      runReportTick({ dynamoEndpoint, accounts: 50, subscriptions: 200, latencyMs: 50, runs: quick ? 1 : 3 }),
    // The MCP ratios moved by up to 0.15x between back-to-back runs of 11 (the baseline's median
    // alone by 20 %): 21 runs of each, about 45 s more.
    mcp: () => runMcpColdStart({ runs: coldRuns ?? (quick ? 2 : 21), workDir, dynamoEndpoint }),
  };
  for (const name of selected) {
    const benchStarted = performance.now();
    progress(`Running ${name}…`);
    const result = await runners[name]();
    results.push(result);
    progress(`${result.title}: done in ${formatDuration(performance.now() - benchStarted)}`);
  }
} finally {
  await dynamo?.stop();
  // CPU profiles point into the builds (and their source maps): kept with them, removed otherwise.
  if (process.env.BENCH_CPU_PROFILE_DIR) progress(`Builds kept for the profiles: ${workDir}`);
  else await rm(workDir, { recursive: true, force: true });
}

const durationMs = performance.now() - started;
console.log(`\n${resultsTable(results)}\n\n${targetsTable(results.flatMap((result) => result.targets))}\n`);
if (quick || coldRuns !== undefined || selected.length < BENCHMARKS.length) {
  // What the results file would say beside the tables, so a partial run can be read the same way.
  const missed = missedTargets(results.flatMap((result) => result.targets));
  if (missed.length > 0) console.log(`${missed.join('\n')}\n`);
  for (const result of results) console.log(result.notes.map((note) => `- ${note}`).join('\n'));
  console.log(`\nPartial or quick run: ${RESULTS_FILE} left as it was.`);
} else {
  await writeFile(
    RESULTS_FILE,
    resultsFile({ results, machine, loadAtEnd: loadavg()[0] ?? 0, startedAt, durationMs }),
  );
  console.log(`Written to ${RESULTS_FILE} (took ${formatDuration(durationMs)}).`);
}
