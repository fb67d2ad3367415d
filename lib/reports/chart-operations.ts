import type { AnyOperation } from '../api/operation.js';
import { getOperation } from '../api/operations/index.js';

/**
 * Operations answered with a chart. They run in the worker, never inline: only the worker and the
 * reporter carry the rasteriser, so the Slack function's cold start does not pay for it.
 */
const CHART_OPERATIONS: ReadonlySet<AnyOperation> = new Set([getOperation('managed.stats')]);

export function answersWithChart(op: AnyOperation): boolean {
  return CHART_OPERATIONS.has(op);
}
