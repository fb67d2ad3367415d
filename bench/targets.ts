/**
 * The targets, checked against the medians of a run. A missed target states by how much,
 * relative to its limit, so "1.35× against ≤ 1.2×" reads as "12.5% over".
 */

export interface Target {
  readonly name: string;
  /** The requirement as the issue words it, e.g. `≤ 1.2× the minimal Bolt app`. */
  readonly requirement: string;
  readonly measured: number;
  readonly limit: number;
  readonly direction: 'at-most' | 'at-least';
  readonly format: (value: number) => string;
  /** What the run measured about the cause; reported only for a miss. */
  readonly whyMissed?: string;
}

export interface TargetOutcome {
  readonly met: boolean;
  /** How far past the limit, relative to it: 0.125 is 12.5% over (at most) or short (at least); 0 when met. */
  readonly shortfall: number;
  /** `met`, or e.g. `missed: 12.5% over the limit`. */
  readonly verdict: string;
}

export function evaluateTarget(target: Pick<Target, 'measured' | 'limit' | 'direction'>): TargetOutcome {
  const { measured, limit, direction } = target;
  if (!(limit > 0) || !Number.isFinite(measured)) {
    throw new RangeError('A target needs a positive limit and a finite measurement');
  }
  if (direction === 'at-most') {
    if (measured <= limit) return { met: true, shortfall: 0, verdict: 'met' };
    const shortfall = measured / limit - 1;
    return { met: false, shortfall, verdict: `missed: ${percent(shortfall)} over the limit` };
  }
  if (measured >= limit) return { met: true, shortfall: 0, verdict: 'met' };
  const shortfall = 1 - measured / limit;
  return { met: false, shortfall, verdict: `missed: ${percent(shortfall)} short of the limit` };
}

function percent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)}%`;
}
