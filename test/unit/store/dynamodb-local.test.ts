import { existsSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  DynamoDbLocalError,
  dynamoDbLocalCommand,
  localDynamoDbClientConfig,
  startDynamoDbLocal,
} from '../../../infra/local/dynamodb.js';
import { DEFAULT_TABLE_NAME } from '../../../lib/store/table-definition.js';
import { TEST_START_TIMEOUT_MS } from '../../support/dynamodb-local.js';

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

/**
 * Local addresses of the sockets listening on `port`, from /proc/net/tcp and tcp6 (Linux), as
 * `127.0.0.1`, `0.0.0.0`, `::` or `::ffff:127.0.0.1`.
 */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const ipv4 = (hex: string) =>
    (hex.match(/../g) ?? [])
      .reverse()
      .map((byte) => Number.parseInt(byte, 16))
      .join('.');
  const addresses: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state !== '0A' || !local?.endsWith(`:${hexPort}`)) continue;
      const hex = local.slice(0, -5);
      if (hex.length === 8) addresses.push(ipv4(hex));
      else if (/^0{32}$/.test(hex)) addresses.push('::');
      else if (hex.startsWith('0000000000000000FFFF0000')) addresses.push(`::ffff:${ipv4(hex.slice(24))}`);
      else addresses.push(hex);
    }
  }
  return addresses;
}

/**
 * These tests start JVMs (compiling the launcher too), so they get as long as the hooks that start
 * one, and the start as long as the test support gives it (`TEST_START_TIMEOUT_MS`).
 */
describe('startDynamoDbLocal', { timeout: 60_000 }, () => {
  it('asks DynamoDB Local for 127.0.0.1 only, as the rest of the local stack listens', () => {
    const { args } = dynamoDbLocalCommand(8000);
    expect(args.slice(args.indexOf('-host'), args.indexOf('-host') + 2)).toEqual(['-host', '127.0.0.1']);
    expect(args).toEqual(
      expect.arrayContaining(['-port', '8000', '-inMemory', '-sharedDb', '-disableTelemetry']),
    );
  });

  it.skipIf(!existsSync('/proc/net/tcp'))('listens on 127.0.0.1 and on no other address', async () => {
    const dynamo = await startDynamoDbLocal({ tableName: null, startTimeoutMs: TEST_START_TIMEOUT_MS });
    try {
      const addresses = listeningAddresses(dynamo.port);
      expect(addresses.length).toBeGreaterThan(0);
      for (const address of addresses) expect(['127.0.0.1', '::ffff:127.0.0.1']).toContain(address);
    } finally {
      await dynamo.stop();
    }
  });

  it('starts on a free port with the table, and stop() leaves no Java process behind', async () => {
    const dynamo = await startDynamoDbLocal({ startTimeoutMs: TEST_START_TIMEOUT_MS });
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
