import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClientConfig } from '../../infra/local/dynamodb.js';
import { ALICE, type E2E, startE2E } from '../support/e2e.js';

/**
 * The table is not there: a wrong `TABLE_NAME`, or DynamoDB Local restarted in memory. DynamoDB
 * answers ResourceNotFoundException to every call; people get the storage message (help still
 * helps), as in an outage, instead of Slack's "dispatch_failed" for an HTTP 500.
 */

const STORAGE_MESSAGE = "The bot's storage is not answering, so nothing was changed. Try again in a minute.";

let e2e: E2E;

beforeAll(async () => {
  e2e = await startE2E();
  const client = new DynamoDBClient(localDynamoDbClientConfig(inject('dynamoEndpoint')));
  await client.send(new DeleteTableCommand({ TableName: e2e.stack.tableName }));
  client.destroy();
}, 60_000);

afterAll(async () => {
  await e2e?.close();
});

describe('a missing table', () => {
  it('answers a command with the storage message, never an HTTP failure', async () => {
    const delivery = await e2e.command(ALICE, 'volumes list');
    expect(delivery.status).toBe(200);
    expect(e2e.textOf(delivery.message)).toContain(STORAGE_MESSAGE);
  });

  it('still answers help', async () => {
    const delivery = await e2e.command(ALICE, 'help');
    expect(delivery.status).toBe(200);
    expect(e2e.textOf(delivery.message)).toContain('/cloud');
  });
});
