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
 * request, not per client: the local stack serves many requests at once on one client, so each
 * request's deadline lives in its async context. A work unit that is exempt (`withoutStorageBudget`)
 * carries `undefined` there.
 */
const storageDeadline = new AsyncLocalStorage<{ readonly deadline: number | undefined }>();

/**
 * The deadline of the request that holds the process's slot (`processSlot` below). Kept outside any
 * async context because running work in one costs: once an `AsyncLocalStorage` has run, Node 20
 * hooks every promise of the process, about 1 µs an `await`, which came to about 50 ms of CPU over
 * a cold `/cloud volumes list` or Approve click (`npm run bench`).
 */
let slotHolder: { readonly deadline: number } | undefined;

export interface StorageBudgetOptions {
  /**
   * Where nothing else runs in the process and requests come one at a time (Lambda runs one
   * invocation at a time in an execution environment), the request takes the process's slot
   * instead of an async context. A request that arrives while another holds the slot gets its own
   * async context all the same, so overlapping requests never share a deadline.
   */
  readonly processSlot?: boolean;
}

/**
 * Runs `work` with all its storage calls sharing `budgetMs`: once it is spent, calls fail with
 * `storage_unavailable` instead of starting or waiting. Per-call timeouts bound one call; this
 * bounds their sum, which is what a deadline such as Slack's 3 s ack needs.
 */
export async function withStorageBudget<T>(
  budgetMs: number,
  work: () => Promise<T>,
  options: StorageBudgetOptions = {},
): Promise<T> {
  const deadline = Date.now() + budgetMs;
  if (!options.processSlot || slotHolder !== undefined) return storageDeadline.run({ deadline }, work);
  const holder = { deadline };
  slotHolder = holder;
  try {
    return await work();
  } finally {
    if (slotHolder === holder) slotHolder = undefined;
  }
}

/** Work started by a request that outlives it (a hand-off run in process) gets no request deadline. */
export function withoutStorageBudget<T>(work: () => T): T {
  return storageDeadline.run({ deadline: undefined }, work);
}

/** The deadline of the calls made here: their async context's, else the slot holder's, if any. */
function currentDeadline(): number | undefined {
  const scoped = storageDeadline.getStore();
  return scoped ? scoped.deadline : slotHolder?.deadline;
}

/**
 * One storage call (after its client's own attempts) under the request's storage deadline, with
 * outage errors mapped to `storage_unavailable`: the table's clients run every call through it.
 */
export async function guardedStorageCall<T>(call: () => Promise<T>): Promise<T> {
  const deadline = currentDeadline();
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
