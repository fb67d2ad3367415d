import type {
  BatchGetCommandInput,
  BatchWriteCommandInput,
  DeleteCommandInput,
  GetCommandInput,
  PutCommandInput,
  QueryCommandInput,
  ScanCommandInput,
  TransactWriteCommandInput,
  UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';

/**
 * The table as the repositories use it: DynamoDB's item operations with plain JavaScript values
 * (the document client's input shapes), answering with plain values. `http-table.ts` implements it
 * over DynamoDB's JSON protocol; the repositories never see which client is underneath.
 */

export type TableItem = Record<string, unknown>;

export interface ItemPage {
  readonly Items?: TableItem[] | undefined;
  readonly LastEvaluatedKey?: TableItem | undefined;
}

export interface ItemAttributes {
  /** What `ReturnValues` asked for, if it asked. */
  readonly Attributes?: TableItem | undefined;
}

export interface Table {
  get(input: GetCommandInput): Promise<{ readonly Item?: TableItem | undefined }>;
  /**
   * Items by key in one request (BatchGetItem), in no particular order, each table's under its
   * name. Keys DynamoDB did not get to (it may leave some under load) come back to be asked again.
   */
  batchGet(input: BatchGetCommandInput): Promise<{
    readonly Responses: Readonly<Record<string, TableItem[]>>;
    readonly UnprocessedKeys?: BatchGetCommandInput['RequestItems'] | undefined;
  }>;
  put(input: PutCommandInput): Promise<ItemAttributes>;
  update(input: UpdateCommandInput): Promise<ItemAttributes>;
  delete(input: DeleteCommandInput): Promise<ItemAttributes>;
  query(input: QueryCommandInput): Promise<ItemPage>;
  scan(input: ScanCommandInput): Promise<ItemPage>;
  batchWrite(
    input: BatchWriteCommandInput,
  ): Promise<{ readonly UnprocessedItems?: BatchWriteCommandInput['RequestItems'] | undefined }>;
  transactWrite(input: TransactWriteCommandInput): Promise<void>;
}
