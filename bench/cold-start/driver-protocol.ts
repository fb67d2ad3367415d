/** What the cold-start driver prints, and how the benchmark reads it back. */

export const RESULT_PREFIX = 'BENCH_RESULT ';

export interface DriverResult {
  /** From process start (`performance.timeOrigin`) until the driver started loading the bundle. */
  readonly bootMs: number;
  /** Loading and evaluating the bundle. */
  readonly importMs: number;
  /** The handler's first invocation, until it returned the answer. */
  readonly answerMs: number;
  readonly result: unknown;
}
