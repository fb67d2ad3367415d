import type { BenchmarkResult, Row } from './benchmark.js';
import { type Machine, machineLines } from './machine.js';
import { formatBytes, formatDuration, formatRatio, markdownTable } from './table.js';
import { evaluateTarget, type Target } from './targets.js';

/** The console tables and `bench/RESULTS.md`, from the benchmarks' results. */

function formatValue(row: Row, value: number): string {
  switch (row.unit) {
    case 'ms':
      return formatDuration(value);
    case 'bytes':
      return formatBytes(value);
    case 'ratio':
      return formatRatio(value);
    case 'count':
      return Number.isInteger(value) ? String(value) : value.toFixed(2);
  }
}

export function resultsTable(results: readonly BenchmarkResult[]): string {
  const rows = results.flatMap((result) => result.rows);
  return markdownTable(
    [
      { header: 'Benchmark' },
      { header: 'Variant' },
      { header: 'Metric' },
      { header: 'Median', align: 'right' },
      { header: 'Min', align: 'right' },
      { header: 'Max', align: 'right' },
      { header: 'Runs', align: 'right' },
      { header: '× baseline', align: 'right' },
    ],
    rows.map((row) => [
      row.benchmark,
      row.variant,
      row.metric,
      formatValue(row, row.summary.median),
      formatValue(row, row.summary.min),
      formatValue(row, row.summary.max),
      String(row.summary.runs),
      row.vsBaseline === undefined ? '' : formatRatio(row.vsBaseline),
    ]),
  );
}

export function targetsTable(targets: readonly Target[]): string {
  return markdownTable(
    [
      { header: 'Target' },
      { header: 'Requirement' },
      { header: 'Measured', align: 'right' },
      { header: 'Result' },
    ],
    targets.map((target) => [
      target.name,
      target.requirement,
      target.format(target.measured),
      evaluateTarget(target).verdict,
    ]),
  );
}

/** Each missed target with by how much and why, as the results file says it. */
export function missedTargets(targets: readonly Target[]): string[] {
  return targets
    .filter((target) => !evaluateTarget(target).met)
    .map((target) =>
      `- **${target.name}**: ${target.format(target.measured)} against ${target.requirement}; ${evaluateTarget(target).verdict}. ${target.whyMissed ?? ''}`.trim(),
    );
}

export interface ResultsFileInput {
  readonly results: readonly BenchmarkResult[];
  readonly machine: Machine;
  readonly loadAtEnd: number;
  readonly startedAt: Date;
  readonly durationMs: number;
}

export function resultsFile(input: ResultsFileInput): string {
  const targets = input.results.flatMap((result) => result.targets);
  const missed = missedTargets(targets);
  const sections = [
    '# Benchmark results',
    `Written by \`npm run bench\` (\`bench/run.ts\`) on ${input.startedAt.toISOString().replace('T', ' ').slice(0, 16)} UTC; the whole run took ${formatDuration(input.durationMs)}. Every benchmark ran several times in this one run, on this one machine, and each ratio compares against the baseline measured in the same run. Regenerate with \`npm run bench\`; numbers from another machine are not comparable.`,
    '## Machine',
    machineLines(input.machine, input.loadAtEnd)
      .map((line) => `- ${line}`)
      .join('\n'),
    '## Targets',
    targetsTable(targets),
    ...(missed.length > 0 ? ['### Where a target is missed, by how much and why', missed.join('\n')] : []),
    '## Results',
    'Median, min and max over the runs. "× baseline" is the median against the median of the baseline of the same run: the minimal Bolt app for cold start and bundle size, page-by-page fetching (same page size) for listing, the time the per-channel posting limit allows for the report tick, the minimal MCP server on the same SDK answering the same kind of request for the MCP cold start and its bundle size, and one tool per operation for the size of `tools/list`.',
    resultsTable(input.results),
    '## How each benchmark measures',
    ...input.results.flatMap((result) => [
      `### ${result.title}`,
      [...result.setup, ...result.notes].map((line) => `- ${line}`).join('\n'),
    ]),
  ];
  return `${sections.join('\n\n')}\n`;
}
