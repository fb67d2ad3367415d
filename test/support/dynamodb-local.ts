import {
  BatchWriteItemCommand,
  DeleteItemCommand,
  DeleteTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import {
  type DynamoDbLocal,
  type DynamoDbLocalOptions,
  localDynamoDbClientConfig,
  startDynamoDbLocal,
} from '../../infra/local/dynamodb.js';
import { createTable } from '../../infra/table.js';

/**
 * How long a test waits for a DynamoDB Local it starts to answer: longer than `npm start`'s 20 s,
 * because with two test files at a time on a busy 2-core machine a start (the JVM, and Java
 * compiling the launcher) has taken more than that. The hooks that start one allow 60 s.
 */
export const TEST_START_TIMEOUT_MS = 45_000;

/**
 * A DynamoDB Local of the test's own (one it may freeze or stop), given that long to start, and
 * warmed up before it is handed over.
 */
export async function startOwnDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  const dynamo = await startDynamoDbLocal({ startTimeoutMs: TEST_START_TIMEOUT_MS, ...options });
  try {
    await warmUp(dynamo.endpoint);
  } catch (error) {
    await dynamo.stop();
    throw error;
  }
  return dynamo;
}

const WARM_UP_ROUNDS = 3;

/**
 * The kinds of call the store makes, a few times over, on a table of its own that is deleted
 * afterwards. A fresh JVM loads and compiles its code on the first calls of each kind: on a busy
 * machine those took one to two and a half seconds, past the Slack function's storage budget and
 * the tight timeouts the outage tests give their stores, while calls once it has run them take
 * about a tenth of that.
 */
async function warmUp(endpoint: string): Promise<void> {
  const client = new DynamoDBClient(localDynamoDbClientConfig(endpoint));
  const TableName = `warm-up-${process.pid}-${Date.now()}`;
  try {
    await createTable(client, TableName);
    for (let round = 0; round < WARM_UP_ROUNDS; round++) {
      const Key = { pk: { S: 'WARM' }, sk: { S: `ITEM#${round}` } };
      const other = { pk: { S: 'WARM' }, sk: { S: `OTHER#${round}` } };
      await client.send(new PutItemCommand({ TableName, Item: { ...Key, value: { N: String(round) } } }));
      await client.send(new GetItemCommand({ TableName, Key, ConsistentRead: true }));
      await client.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: 'WARM' } },
        }),
      );
      await client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName, Item: other, ConditionExpression: 'attribute_not_exists(pk)' } },
            {
              Update: {
                TableName,
                Key,
                UpdateExpression: 'SET #value = :value',
                ExpressionAttributeNames: { '#value': 'value' },
                ExpressionAttributeValues: { ':value': { N: String(round + 1) } },
              },
            },
          ],
        }),
      );
      await client.send(
        new BatchWriteItemCommand({ RequestItems: { [TableName]: [{ DeleteRequest: { Key: other } }] } }),
      );
      await client.send(new DeleteItemCommand({ TableName, Key }));
    }
    await client.send(new DeleteTableCommand({ TableName }));
  } finally {
    client.destroy();
  }
}
