import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { localDynamoDbClientConfig } from '../infra/local/dynamodb.js';
import { createTable } from '../infra/table.js';
import { openTable } from '../lib/runtime.js';
import type { HttpTable } from '../lib/store/http-table.js';
import { createStore, type Store } from '../lib/store/index.js';
import { LocalKeyTokenCipher } from '../lib/store/token-cipher.js';

/** A fresh table on DynamoDB Local, created from `infra/table.ts`, and the store over it. */

export interface BenchTable {
  readonly tableName: string;
  /** Base64 key of the store's token cipher (what `TOKEN_ENCRYPTION_KEY` would hold). */
  readonly encryptionKey: string;
  readonly store: Store;
  /** The table's items as they are, for checks the store has no method for. */
  readonly table: HttpTable;
  close(): void;
}

export async function createBenchTable(
  endpoint: string,
  now: () => Date = () => new Date(),
): Promise<BenchTable> {
  const client = new DynamoDBClient(localDynamoDbClientConfig(endpoint));
  const tableName = `bench-${randomBytes(4).toString('hex')}`;
  try {
    await createTable(client, tableName);
  } catch (error) {
    client.destroy();
    throw error;
  }
  const encryptionKey = randomBytes(32).toString('base64');
  const table = openTable({ DYNAMODB_ENDPOINT: endpoint }, 'background');
  const store = createStore({ table, tableName, now }, LocalKeyTokenCipher.fromBase64(encryptionKey));
  return {
    tableName,
    encryptionKey,
    store,
    table,
    close: () => {
      client.destroy();
      table.destroy();
    },
  };
}

/** The benchmarks' user, linked to the emulator's demo token with every scope. */
export async function linkBenchUser(store: Store, team: string, user: string, token: string): Promise<void> {
  await store.tokenLinks.saveLink({
    team,
    user,
    token,
    label: 'bench',
    apiUsername: 'demo',
    scopes: '*',
    expiry: null,
  });
}
