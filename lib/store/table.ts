import type {
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
