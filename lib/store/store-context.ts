import { AsyncLocalStorage } from 'node:async_hooks';
import { StoreError, toStoreError } from './errors.js';
import type { Table } from './table.js';

/** What every repository needs: the table, and a clock the tests can move. */
export interface StoreContext {
  readonly table: Table;
  readonly tableName: string;
  readonly now: () => Date;
}

/** DynamoDB TTL wants whole epoch seconds. */
export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/**
 * The deadline shared by every storage call of the request being handled, if it has one. Per
 * request, not per client: the local stack serves many requests at once on one client.
 */
const storageDeadline = new AsyncLocalStorage<number | undefined>();

/**
 * Runs `work` with all its storage calls sharing `budgetMs`: once it is spent, calls fail with
 * `storage_unavailable` instead of starting or waiting. Per-call timeouts bound one call; this
 * bounds their sum, which is what a deadline such as Slack's 3 s ack needs.
 */
export function withStorageBudget<T>(budgetMs: number, work: () => Promise<T>): Promise<T> {
  return storageDeadline.run(Date.now() + budgetMs, work);
}

/** Work started by a request that outlives it (a hand-off run in process) gets no request deadline. */
export function withoutStorageBudget<T>(work: () => T): T {
  return storageDeadline.run(undefined, work);
}

/**
 * One storage call (after its client's own attempts) under the request's storage deadline, with
 * outage errors mapped to `storage_unavailable`: the table's clients run every call through it.
 */
export async function guardedStorageCall<T>(call: () => Promise<T>): Promise<T> {
  const deadline = storageDeadline.getStore();
  try {
    if (deadline === undefined) return await call();
    if (deadline <= Date.now()) throw budgetSpent();
    return await beforeDeadline(call(), deadline);
  } catch (error) {
    throw toStoreError(error);
  }
}

async function beforeDeadline<T>(call: Promise<T>, deadline: number): Promise<T> {
  // Past the deadline the call goes on until its own request timeout ends it, unobserved.
  call.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(budgetSpent()), deadline - Date.now());
  });
  try {
    return await Promise.race([call, expired]);
  } finally {
    clearTimeout(timer);
  }
}

function budgetSpent(): StoreError {
  return new StoreError('storage_unavailable', 'The storage budget of this request is spent.');
}
