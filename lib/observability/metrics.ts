import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { ApiCallEvent } from '../api/client.js';

/**
 * CloudWatch embedded metrics (Powertools Metrics): per API operation (calls, latency, errors)
 * and per command (count, latency, failures). Each data point is written at once as its own
 * EMF line, so an operation id can be a dimension. Off locally (`POWERTOOLS_METRICS_DISABLED` or
 * `POWERTOOLS_DEV`), where the lines would only clutter the terminal.
 */
export const METRICS_NAMESPACE = 'CloudChatops';

/** The service name comes from `POWERTOOLS_SERVICE_NAME` (set in serverless.yml). */
export function createMetrics(): Metrics {
  return new Metrics({ namespace: METRICS_NAMESPACE });
}

export function recordApiCall(metrics: Metrics, event: ApiCallEvent): void {
  const point = metrics.singleMetric();
  point.addDimensions({ operation: event.operationId, outcome: event.outcome });
  point.addMetric('ApiLatency', MetricUnit.Milliseconds, event.durationMs);
}

export function recordCommand(
  metrics: Metrics,
  command: string,
  outcome: 'answered' | 'handed_off' | 'failed',
  durationMs: number,
): void {
  const point = metrics.singleMetric();
  point.addDimensions({ command, outcome });
  point.addMetric('CommandLatency', MetricUnit.Milliseconds, durationMs);
}
