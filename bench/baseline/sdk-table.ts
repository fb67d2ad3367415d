import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { guardedStorageCall } from '../../lib/store/store-context.js';
import type { Table } from '../../lib/store/table.js';

/**
 * The repositories' table through the AWS SDK's document client, as the bot's store was built
 * before `lib/store/http-table.ts`: the cold-start benchmark's "SDK claim" floor measures what
 * that client costs the first answer. Bench code only.
 */
export function sdkTable(client: DynamoDBClient): Table {
  const doc = DynamoDBDocumentClient.from(client);
  return {
    get: (input) => guardedStorageCall(() => doc.send(new GetCommand(input))),
    batchGet: async (input) => {
      const { Responses, UnprocessedKeys } = await guardedStorageCall(() =>
        doc.send(new BatchGetCommand(input)),
      );
      return { Responses: Responses ?? {}, UnprocessedKeys };
    },
    put: (input) => guardedStorageCall(() => doc.send(new PutCommand(input))),
    update: (input) => guardedStorageCall(() => doc.send(new UpdateCommand(input))),
    delete: (input) => guardedStorageCall(() => doc.send(new DeleteCommand(input))),
    query: (input) => guardedStorageCall(() => doc.send(new QueryCommand(input))),
    scan: (input) => guardedStorageCall(() => doc.send(new ScanCommand(input))),
    batchWrite: (input) => guardedStorageCall(() => doc.send(new BatchWriteCommand(input))),
    transactWrite: async (input) => {
      await guardedStorageCall(() => doc.send(new TransactWriteCommand(input)));
    },
  };
}
