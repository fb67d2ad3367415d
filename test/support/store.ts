import { randomBytes, randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { localDynamoDbClientConfig } from '../../infra/local/dynamodb.js';
import { createTable } from '../../infra/table.js';
import { openTable } from '../../lib/runtime.js';
import type { HttpTable } from '../../lib/store/http-table.js';
import type { StoreContext } from '../../lib/store/store-context.js';
import type { Table } from '../../lib/store/table.js';
import { LocalKeyTokenCipher } from '../../lib/store/token-cipher.js';

/** A clock the test moves by hand. */
export interface TestClock {
  readonly now: () => Date;
  set(at: Date | string): void;
  advance(ms: number): void;
}

export function testClock(start: Date | string = '2030-01-15T09:00:00.000Z'): TestClock {
  let current = new Date(start);
  return {
    now: () => new Date(current),
    set: (at) => {
      current = new Date(at);
    },
    advance: (ms) => {
      current = new Date(current.getTime() + ms);
    },
  };
}

export interface TestTable {
  /** The SDK's client, for the table's administration and Powertools. */
  readonly client: DynamoDBClient;
  /** The repositories' table client, as the functions build it (background settings). */
  readonly table: HttpTable;
  readonly ctx: StoreContext;
  readonly clock: TestClock;
  /** Deletes the table and closes the clients. */
  dispose(): Promise<void>;
}

/**
 * A fresh table on the run's DynamoDB Local (see `test/setup/dynamodb.ts`), so test files do not
 * see each other's items.
 */
export async function createTestTable(): Promise<TestTable> {
  const endpoint = inject('dynamoEndpoint');
  const client = new DynamoDBClient(localDynamoDbClientConfig(endpoint));
  // Default marshalling, as in production: a stray `undefined` in an item fails the test.
  const table = openTable({ DYNAMODB_ENDPOINT: endpoint }, 'background');
  const tableName = `test-${randomUUID()}`;
  await createTable(client, tableName);
  const clock = testClock();
  return {
    client,
    table,
    ctx: { table, tableName, now: clock.now },
    clock,
    dispose: async () => {
      await client.send(new DeleteTableCommand({ TableName: tableName }));
      client.destroy();
      table.destroy();
    },
  };
}

export function randomLocalCipher(): LocalKeyTokenCipher {
  return new LocalKeyTokenCipher(randomBytes(32));
}

/** `ctx` over a table that names each call it is asked in `calls`, in order (`get`, `batchGet`, …). */
export function countingContext(ctx: StoreContext): { readonly ctx: StoreContext; readonly calls: string[] } {
  const calls: string[] = [];
  const counted = new Proxy(ctx.table, {
    get(target, name: keyof Table) {
      const member = target[name];
      if (typeof member !== 'function') return member;
      return (...args: unknown[]) => {
        calls.push(String(name));
        return (member as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { ctx: { ...ctx, table: counted }, calls };
}
