import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openTable } from '../../../lib/runtime.js';
import { DeliveryClaims } from '../../../lib/store/delivery-claims.js';
import { StoreError } from '../../../lib/store/errors.js';
import { isConditionFailure, putNew } from '../../../lib/store/items.js';
import { withoutStorageBudget, withStorageBudget } from '../../../lib/store/store-context.js';
import { createTestTable, type TestTable } from '../../support/store.js';

/**
 * The repositories' table client (`lib/store/http-table.ts`) over real sockets: a port nobody listens on, a server that
 * accepts connections and never answers (what a frozen DynamoDB looks like), and DynamoDB Local.
 * The Slack function must answer within 3 s, so a storage call must be bounded. Rather than time
 * the calls on a shared machine, the tests check what bounds them: how many attempts reached the
 * server (each attempt is a new connection, since a timed-out request's socket is destroyed) and
 * what ended the call (its request timeout, or the request's budget). The figures that make the
 * bound fit in 3 s are `storageSettings`' defaults, checked in test/unit/config.test.ts.
 */

/** Accepts connections and never answers. */
async function startSilentServer(): Promise<{ server: Server; endpoint: string; connections: () => number }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const close = server.close.bind(server);
  server.close = (callback) => {
    for (const socket of sockets) socket.destroy();
    return close(callback);
  };
  return { server, endpoint: `http://127.0.0.1:${address.port}`, connections: () => sockets.length };
}

async function closedPortEndpoint(): Promise<string> {
  const { server, endpoint } = await startSilentServer();
  server.close();
  await once(server, 'close');
  return endpoint;
}

const key = { pk: 'TEAM#T0001', sk: 'ANYTHING' };

async function failureOf(promise: Promise<unknown>): Promise<{ error: unknown }> {
  try {
    await promise;
  } catch (error) {
    return { error };
  }
  throw new Error('the call succeeded');
}

let silent: Awaited<ReturnType<typeof startSilentServer>>;
beforeAll(async () => {
  silent = await startSilentServer();
});
afterAll(() => {
  silent.server.close();
});

describe('a DynamoDB that does not answer', () => {
  it('fails a Slack-function call as storage_unavailable after exactly its two attempts, each ended by its timeout', async () => {
    const doc = openTable({ DYNAMODB_ENDPOINT: silent.endpoint }, 'slack');
    const before = silent.connections();
    try {
      const { error } = await failureOf(doc.get({ TableName: 't', Key: key }));
      expect(error).toBeInstanceOf(StoreError);
      // The request timeout, not the server, ended the call: without one it would wait forever.
      expect(error).toMatchObject({ code: 'storage_unavailable', cause: { name: 'TimeoutError' } });
      // The Slack role's two attempts (`storageSettings`), not the SDK's default three.
      expect(silent.connections() - before).toBe(2);
    } finally {
      doc.destroy();
    }
  });

  it('stops waiting when the request’s storage budget is spent, whatever the per-call timeout', async () => {
    // The background client would wait 3 × 3 s: three connections, the last ended by a TimeoutError.
    const doc = openTable({ DYNAMODB_ENDPOINT: silent.endpoint }, 'background');
    const before = silent.connections();
    try {
      const { error } = await failureOf(withStorageBudget(200, () => doc.get({ TableName: 't', Key: key })));
      expect(error).toMatchObject({
        code: 'storage_unavailable',
        message: 'The storage budget of this request is spent.',
      });
      // Still inside the first attempt's 3 s when the budget ended the call: no retry had started.
      // (At most one: on a loaded machine the first connection may not even be accepted yet.)
      expect(silent.connections() - before).toBeLessThanOrEqual(1);
    } finally {
      doc.destroy();
    }
  });

  it('does not even connect once the budget is spent', async () => {
    const doc = openTable({ DYNAMODB_ENDPOINT: silent.endpoint }, 'background');
    const before = silent.connections();
    try {
      const { error } = await failureOf(
        withStorageBudget(20, async () => {
          await sleep(40);
          return doc.get({ TableName: 't', Key: key });
        }),
      );
      expect(error).toMatchObject({ code: 'storage_unavailable' });
      expect(silent.connections()).toBe(before);
    } finally {
      doc.destroy();
    }
  });
});

describe('a table client closed while a call waits', () => {
  it('ends the call and opens no further connection for its retries', async () => {
    const doc = openTable({ DYNAMODB_ENDPOINT: silent.endpoint }, 'background');
    const before = silent.connections();
    const call = failureOf(doc.get({ TableName: 't', Key: key }));
    while (silent.connections() === before) await sleep(5);
    doc.destroy();
    const { error } = await call;
    expect(error).toBeInstanceOf(Error);
    // Three attempts were allowed; closing stopped them after the first.
    await sleep(300);
    expect(silent.connections() - before).toBe(1);
  });
});

describe('a DynamoDB that is not running', () => {
  it('fails as storage_unavailable with the refused connection as cause', async () => {
    const doc = openTable({ DYNAMODB_ENDPOINT: await closedPortEndpoint() }, 'slack');
    try {
      const { error } = await failureOf(doc.get({ TableName: 't', Key: key }));
      expect(error).toMatchObject({ code: 'storage_unavailable', cause: { code: 'ECONNREFUSED' } });
    } finally {
      doc.destroy();
    }
  });
});

/** A table in DynamoDB Local and the Slack function's client for it, for the tests of one block. */
function localTable(): { readonly table: TestTable; readonly doc: ReturnType<typeof openTable> } {
  const made: { table?: TestTable; doc?: ReturnType<typeof openTable> } = {};
  beforeAll(async () => {
    made.table = await createTestTable();
    made.doc = openTable({ DYNAMODB_ENDPOINT: inject('dynamoEndpoint') }, 'slack');
  });
  afterAll(async () => {
    made.doc?.destroy();
    await made.table?.dispose();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the table is made before the tests run');
    return value;
  };
  return {
    get table() {
      return ready(made.table);
    },
    get doc() {
      return ready(made.doc);
    },
  };
}

describe('a DynamoDB that answers (DynamoDB Local)', () => {
  const local = localTable();

  it('still reports a failed condition by its own name, so races are not taken for outages', async () => {
    const ctx = { ...local.table.ctx, table: local.doc };
    const item = { pk: 'TEAM#T0001', sk: 'ITEM#1', kind: 'test' };
    await putNew(ctx, item);
    // Another item at the same key (the same item again is this write landed, see lost-answers).
    const { error } = await failureOf(putNew(ctx, { ...item, kind: 'other' }));
    expect(isConditionFailure(error)).toBe(true);
    const claims = new DeliveryClaims(ctx);
    expect(await claims.claimOnce('command:T0001:trigger-1')).toBe(true);
    expect(await claims.claimOnce('command:T0001:trigger-1')).toBe(false);
  });

  it('lets work handed off from a request run without that request’s budget', async () => {
    const result = await withStorageBudget(20, () =>
      withoutStorageBudget(async () => {
        await sleep(40);
        return local.doc.get({ TableName: local.table.ctx.tableName, Key: key });
      }),
    );
    expect(result.Item).toBeUndefined();
  });
});

/**
 * Where requests come one at a time (Lambda), a request's budget lives in the process instead of
 * an async context, which would hook every promise of the process. A request that overlaps it
 * still gets its own deadline.
 */
describe('a request holding the process slot (one request at a time)', () => {
  const local = localTable();
  const slot = { processSlot: true } as const;
  const read = () => local.doc.get({ TableName: local.table.ctx.tableName, Key: key });

  it('stops its storage calls once its budget is spent', async () => {
    const silentDoc = openTable({ DYNAMODB_ENDPOINT: silent.endpoint }, 'background');
    try {
      const { error } = await failureOf(
        withStorageBudget(200, () => silentDoc.get({ TableName: 't', Key: key }), slot),
      );
      expect(error).toMatchObject({
        code: 'storage_unavailable',
        message: 'The storage budget of this request is spent.',
      });
    } finally {
      silentDoc.destroy();
    }
  });

  it('keeps the deadlines of overlapping requests apart, whichever holds the slot', async () => {
    const readAfter = async (ms: number) => {
      await sleep(ms);
      return read();
    };
    // A short request takes the slot; a long one arrives while it holds it, and the other way round.
    const shortFirst = withStorageBudget(20, () => readAfter(60), slot);
    const longSecond = withStorageBudget(5_000, () => readAfter(90), slot);
    const [shortResult, longResult] = await Promise.allSettled([shortFirst, longSecond]);
    expect(shortResult).toMatchObject({ status: 'rejected', reason: { code: 'storage_unavailable' } });
    expect(longResult).toMatchObject({ status: 'fulfilled' });

    const longFirst = withStorageBudget(5_000, () => readAfter(90), slot);
    const shortSecond = withStorageBudget(20, () => readAfter(60), slot);
    const [longAgain, shortAgain] = await Promise.allSettled([longFirst, shortSecond]);
    expect(longAgain).toMatchObject({ status: 'fulfilled' });
    expect(shortAgain).toMatchObject({ status: 'rejected', reason: { code: 'storage_unavailable' } });
  });

  it('frees the slot when the request ends: later calls have no deadline', async () => {
    await withStorageBudget(20, async () => 'answered', slot);
    await sleep(40);
    await expect(read()).resolves.toMatchObject({ Item: undefined });
  });

  it('lets work exempted inside it run without its budget', async () => {
    const result = await withStorageBudget(
      20,
      () =>
        withoutStorageBudget(async () => {
          await sleep(40);
          return read();
        }),
      slot,
    );
    expect(result.Item).toBeUndefined();
  });
});
