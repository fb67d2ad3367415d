import { StoreError } from './errors.js';

export interface BatchRounds {
  /** How many times what DynamoDB left undone is sent again before the work counts as failed. */
  readonly resends: number;
  /** The wait before resend `n` (1 for the first). */
  readonly delayMs: (resend: number) => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** What the failure says, given how many requests were still undone. */
  readonly undone: (count: number) => string;
}

/**
 * Sends a batch (BatchWriteItem, BatchGetItem) and then, with a wait before each, what DynamoDB
 * left unprocessed, as it may under load, until nothing is left. Past `resends` the work fails as
 * unavailable storage: its caller's own retry, or the person's, resumes it.
 *
 * `send` takes the requests still undone and answers those DynamoDB left unprocessed.
 */
export async function sendUntilProcessed<R>(
  requests: readonly R[],
  send: (undone: readonly R[]) => Promise<readonly R[]>,
  rounds: BatchRounds,
): Promise<void> {
  let undone = requests;
  for (let resend = 0; undone.length > 0; resend++) {
    if (resend > rounds.resends) throw new StoreError('storage_unavailable', rounds.undone(undone.length));
    if (resend > 0) await rounds.sleep(rounds.delayMs(resend));
    undone = await send(undone);
  }
}
