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

/** A key of the table. */
export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

/**
 * Items read in one batch as soon as a request arrives (with its delivery claim), before the
 * modules that parse them have loaded (`read-ahead.ts`). A repository takes its item from here
 * when this read asked for its key (`readItem` in `items.ts`) and reads afresh otherwise, so a
 * read-ahead can only save a round trip, never answer for another key. A failed read surfaces
 * where one of its items is awaited.
 */
export interface ReadAhead {
  /** The item at `key`, undefined when there is none; undefined itself when the read did not ask for `key`. */
  itemAt(key: ItemKey): Promise<TableItem | undefined> | undefined;
}

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
