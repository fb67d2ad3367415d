import { createConnection } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  DynamoDbLocalError,
  localDynamoDbClientConfig,
  startDynamoDbLocal,
} from '../../infra/local/dynamodb.js';
import { DEFAULT_TABLE_NAME } from '../../infra/table.js';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('startDynamoDbLocal', () => {
  it('starts on a free port with the table, and stop() leaves no Java process behind', async () => {
    const dynamo = await startDynamoDbLocal();
    const client = new DynamoDBClient(localDynamoDbClientConfig(dynamo.endpoint));
    try {
      const { TableNames } = await client.send(new ListTablesCommand({}));
      expect(TableNames).toEqual([DEFAULT_TABLE_NAME]);
      expect(isRunning(dynamo.pid)).toBe(true);
    } finally {
      client.destroy();
      await dynamo.stop();
    }
    expect(isRunning(dynamo.pid)).toBe(false);
    expect(await answers(dynamo.port)).toBe(false);
  });

  it('says plainly that Java is missing', async () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      const error = await startDynamoDbLocal().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DynamoDbLocalError);
      expect((error as Error).message).toMatch(/needs Java 17/);
    } finally {
      process.env.PATH = path;
    }
  });
});
