import type { Summary } from './stats.js';
import type { Target } from './targets.js';

/** What each benchmark hands back to `bench/run.ts` for the table and the results file. */

export type Unit = 'ms' | 'bytes' | 'count' | 'ratio';

export interface Row {
  readonly benchmark: string;
  /** Ours, the baseline, or a setting (`page_size 500, 4 at a time`). */
  readonly variant: string;
  readonly metric: string;
  readonly unit: Unit;
  readonly summary: Summary;
  /** This row's median over the median of the same metric for the baseline of the same run. */
  readonly vsBaseline?: number;
}

export interface BenchmarkResult {
  readonly title: string;
  /** How it was measured: sizes, spreads, settings. Markdown, one item a line. */
  readonly setup: readonly string[];
  readonly rows: readonly Row[];
  readonly targets: readonly Target[];
  /** Further findings worth a line in the results file. Markdown. */
  readonly notes: readonly string[];
}
