/**
 * The few statistics the benchmarks report. Medians rather than means: one run disturbed by
 * another process on a shared machine moves a mean a lot and a median hardly at all.
 */

export interface Summary {
  readonly runs: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

function sortedCopy(samples: readonly number[]): number[] {
  if (samples.length === 0) throw new RangeError('No samples to summarize');
  if (samples.some((sample) => !Number.isFinite(sample)))
    throw new RangeError('Samples must be finite numbers');
  return [...samples].sort((a, b) => a - b);
}

/** The middle value; for an even count, the mean of the two middle values. */
export function median(samples: readonly number[]): number {
  const sorted = sortedCopy(samples);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * Nearest-rank percentile: the smallest sample that at least `p` percent of the samples do not
 * exceed. Always one of the samples, so a p99 of 1,000 latencies is the 990th fastest, not an
 * interpolation between two requests that really happened.
 */
export function percentile(samples: readonly number[], p: number): number {
  if (!(p > 0 && p <= 100)) throw new RangeError('The percentile must be above 0 and at most 100');
  const sorted = sortedCopy(samples);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.max(0, rank - 1)] as number;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = sortedCopy(samples);
  return {
    runs: sorted.length,
    median: median(sorted),
    min: sorted[0] as number,
    max: sorted[sorted.length - 1] as number,
  };
}

/** How many times `value` is `reference` (2 means twice as much). */
export function ratio(value: number, reference: number): number {
  if (!(reference > 0)) throw new RangeError('The reference of a ratio must be above 0');
  return value / reference;
}

/**
 * The speed-up of each run: run i's reference time over its measured time. A target that must
 * hold in every run is judged by the least of them, not by the ratio of the medians, which can
 * meet a limit that one run missed.
 */
export function speedupPerRun(reference: readonly number[], measured: readonly number[]): number[] {
  if (reference.length === 0 || reference.length !== measured.length) {
    throw new RangeError('Each run needs one reference time and one measured time');
  }
  return measured.map((time, run) => ratio(reference[run] as number, time));
}
