/** What the cold-start driver prints, and how the benchmark reads it back. */

export const RESULT_PREFIX = 'BENCH_RESULT ';

export interface DriverResult {
  /** From process start (`performance.timeOrigin`) until the driver started loading the bundle. */
  readonly bootMs: number;
  /** Loading and evaluating the bundle. */
  readonly importMs: number;
  /** The handler's first invocation, until it returned the answer. */
  readonly answerMs: number;
  /**
   * CPU time (user + system, every thread of the process) spent loading the bundle, and answering.
   * Other work on a shared machine stretches wall times far more than CPU times, so these show
   * what a change saved when the wall times are too noisy to.
   */
  readonly importCpuMs: number;
  readonly answerCpuMs: number;
  readonly result: unknown;
}
