import { describe, expect, it, vi } from 'vitest';
import { createMetrics, recordApiCall, recordCommand } from '../../../lib/observability/metrics.js';

function capture(run: () => void): string[] {
  const lines: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    lines.push(args.map(String).join(' '));
  });
  try {
    run();
  } finally {
    write.mockRestore();
    log.mockRestore();
  }
  return lines.flatMap((chunk) => chunk.split('\n')).filter((line) => line.includes('_aws'));
}

describe('metrics', () => {
  it('writes one embedded-metric line per API call, by operation and outcome', () => {
    const [line] = capture(() =>
      recordApiCall(createMetrics(), {
        operationId: 'volumes.list',
        method: 'GET',
        attempt: 1,
        status: 200,
        durationMs: 42,
        outcome: 'success',
        errorCode: undefined,
      }),
    );
    const emf = JSON.parse(line ?? '{}');
    expect(emf.operation).toBe('volumes.list');
    expect(emf.outcome).toBe('success');
    expect(emf.ApiLatency).toBe(42);
    expect(emf._aws.CloudWatchMetrics[0].Namespace).toBe('CloudChatops');
  });

  it('names commands by their words, never their arguments', () => {
    const [line] = capture(() => recordCommand(createMetrics(), 'volumes list', 'handed_off', 7));
    const emf = JSON.parse(line ?? '{}');
    expect(emf).toMatchObject({ command: 'volumes list', outcome: 'handed_off', CommandLatency: 7 });
  });
});
