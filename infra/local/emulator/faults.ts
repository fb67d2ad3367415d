import { SeededRandom } from './seeded-random.js';

/**
 * Injected trouble, so tests and benchmarks can watch the client cope: latency, server errors,
 * 429s with `Retry-After`, dropped connections and slow bodies, for a share of calls (decided by a
 * seeded generator, so runs repeat) or for named operations.
 */

export type FaultKind = 'status' | 'rate-limit' | 'drop' | 'slow-body';

export interface FaultSpec {
  kind: FaultKind;
  /** For `status`: 500, 502 or 503 (default 503). */
  status?: 500 | 502 | 503 | undefined;
  /** For `rate-limit` (and optionally `status` 503): seconds the client should wait. */
  retryAfterSeconds?: number | undefined;
  /** For `slow-body`: how long the body takes to arrive, in ms (default 2000). */
  bodyDurationMs?: number | undefined;
  /** Operation ids; absent: every operation. */
  operations?: readonly string[] | undefined;
  /** Share of matching calls affected, 0..1 (default 1). */
  share?: number | undefined;
  /** Affect at most this many calls, then the fault is spent (default: no limit). */
  times?: number | undefined;
  /**
   * For `status` and `drop`: the API acts on the request first and only then fails to answer
   * (the change happened, the caller cannot know). Default: it fails before acting.
   */
  afterActing?: boolean | undefined;
}

export interface LatencySpec {
  ms: number;
  /** Operation ids; absent: every operation. */
  operations?: readonly string[] | undefined;
}

export interface ActiveFault extends FaultSpec {
  id: number;
  hits: number;
}

export class FaultInjector {
  #faults: ActiveFault[] = [];
  #latency: LatencySpec[] = [];
  #nextId = 1;
  #random: SeededRandom;
  readonly #seed: number;

  constructor(seed = 7) {
    this.#seed = seed;
    this.#random = new SeededRandom(seed);
  }

  add(spec: FaultSpec): number {
    const share = spec.share ?? 1;
    if (!(share >= 0 && share <= 1)) throw new Error('share must be between 0 and 1');
    const id = this.#nextId++;
    this.#faults.push({ ...spec, id, hits: 0 });
    return id;
  }

  remove(id: number): void {
    this.#faults = this.#faults.filter((f) => f.id !== id);
  }

  addLatency(spec: LatencySpec): void {
    if (!(spec.ms >= 0)) throw new Error('latency must be 0 ms or more');
    this.#latency.push(spec);
  }

  clearLatency(): void {
    this.#latency = [];
  }

  clear(): void {
    this.#faults = [];
    this.#latency = [];
    this.#random = new SeededRandom(this.#seed);
  }

  /** Milliseconds to hold the call back before answering. */
  latencyFor(opId: string): number {
    return this.#latency
      .filter((l) => !l.operations || l.operations.includes(opId))
      .reduce((total, l) => total + l.ms, 0);
  }

  /** The fault this call suffers, if any (each matching fault draws once, in the order added). */
  pick(opId: string): ActiveFault | undefined {
    for (const fault of this.#faults) {
      if (fault.operations && !fault.operations.includes(opId)) continue;
      if (fault.times !== undefined && fault.hits >= fault.times) continue;
      const share = fault.share ?? 1;
      if (share < 1 && this.#random.next() >= share) continue;
      fault.hits++;
      return fault;
    }
    return undefined;
  }
}
