/**
 * The AWS SDK's standard retry backoff (`@smithy/util-retry`'s default strategy), for the clients
 * that sign their own requests (`lib/store/http-table.ts`, `lib/aws/lambda-invoke.ts`): random ×
 * 2^retry × base, capped at 20 s; a throttled answer waits from a longer base.
 */
const BASE_DELAY_MS = 100;
const THROTTLING_BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 20_000;

/** How long to wait before retry number `retries` + 1 (`retries` counts the retries so far). */
export function sdkBackoffMs(
  retries: number,
  throttled: boolean,
  random: () => number = Math.random,
): number {
  const base = throttled ? THROTTLING_BASE_DELAY_MS : BASE_DELAY_MS;
  return Math.floor(Math.min(MAX_DELAY_MS, random() * 2 ** retries * base));
}
