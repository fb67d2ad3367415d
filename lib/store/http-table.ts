import type { BatchGetCommandInput, BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { sdkBackoffMs } from '../aws/backoff.js';
import { environmentTarget } from '../aws/environment.js';
import { type AwsClientOptions, signedPoster } from '../aws/signed-post.js';
import { AnswerTimeoutError, ConnectTimeoutError } from '../http-exchange.js';
import { guardedStorageCall } from './store-context.js';
import type { ItemPage, Table, TableItem } from './table.js';

/**
 * The table over DynamoDB's JSON protocol: each call one SigV4-signed POST over `node:http(s)`.
 *
 * Why not the AWS SDK's document client: every function's first answer waits for its first storage
 * call, and loading the SDK's client and middleware stack and making its first request cost the
 * Slack function's cold start about 23 ms of its 3 s (bench/RESULTS.md, cold start, spawn → answer:
 * "floor, SDK claim" against "floor: minimal Bolt + config + claim", which claims through this
 * table).
 * What the repositories need of it is small and stable: eight item operations, the document
 * client's marshalling (`@aws-sdk/util-dynamodb`, the same code it uses, with its defaults: a
 * stray `undefined` still fails), and the standard retry strategy, kept below.
 *
 * Errors keep the SDK's shape where callers look: `name` is DynamoDB's error type
 * (`ConditionalCheckFailedException`, `TransactionCanceledException`), `$metadata.httpStatusCode`
 * the status, a failed condition's `Item` the old item in wire format; network failures keep
 * Node's `code`, timeouts are those of `http-exchange.ts` (`ConnectTimeoutError`, and
 * `TimeoutError` for an answer). Every call runs under the request's storage budget and turns
 * outages into `StoreError('storage_unavailable')` (`guardedStorageCall`).
 */

/** `endpoint` is DynamoDB Local's URL where one runs. */
export type HttpTableOptions = AwsClientOptions;

export interface HttpTable extends Table {
  /** Closes idle connections (tests and the local stack; Lambda just freezes). */
  destroy(): void;
}

/** Transient by type, as the SDK's standard retry strategy classifies them. */
const THROTTLING_TYPES = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
]);
const TRANSIENT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);

/** An error DynamoDB answered with, shaped as the SDK's service exceptions are. */
export class DynamoDbServiceError extends Error {
  readonly $metadata: { readonly httpStatusCode: number };
  /** The item a failed condition was checked against (`ReturnValuesOnConditionCheckFailure`). */
  readonly Item?: Record<string, unknown>;
  readonly CancellationReasons?: unknown;

  constructor(type: string, status: number, body: Record<string, unknown>) {
    const message = body.message ?? body.Message;
    super(typeof message === 'string' ? message : `DynamoDB answered ${status} ${type}`);
    this.name = type;
    this.$metadata = { httpStatusCode: status };
    if (isRecord(body.Item)) this.Item = body.Item;
    if (body.CancellationReasons !== undefined) this.CancellationReasons = body.CancellationReasons;
  }
}

export function createHttpTable(options: HttpTableOptions): HttpTable {
  const dynamodb = signedPoster(options, 'dynamodb', 'DynamoDB');
  // A call still retrying when the client is closed (a request's budget ran out, then shutdown)
  // must not open new connections.
  let closed = false;

  const attempt = async (target: string, body: string): Promise<{ status: number; text: string }> => {
    const answer = await dynamodb.post(
      '/',
      { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `DynamoDB_20120810.${target}` },
      body,
    );
    return { status: answer.status, text: answer.body.toString('utf8') };
  };

  const call = (target: string, input: Record<string, unknown>): Promise<Record<string, unknown>> =>
    guardedStorageCall(async () => {
      const body = JSON.stringify(input);
      for (let retries = 0; ; retries++) {
        if (closed) throw new Error('DynamoDB: the table client is closed');
        let error: unknown;
        let throttled = false;
        try {
          const { status, text } = await attempt(target, body);
          const answer = parseBody(text);
          if (status === 200) return answer;
          const type = errorType(answer) ?? (status >= 500 ? 'InternalServerError' : 'UnknownError');
          error = new DynamoDbServiceError(type, status, answer);
          throttled = THROTTLING_TYPES.has(type);
          if (!throttled && status < 500) throw error;
        } catch (thrown) {
          if (!isTransient(thrown)) throw thrown;
          error = thrown;
        }
        if (retries + 1 >= options.maxAttempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, sdkBackoffMs(retries, throttled)));
      }
    });

  return {
    async get(input) {
      return { Item: itemOf((await call('GetItem', toWire(input))).Item) };
    },
    async batchGet(input) {
      const answer = await call('BatchGetItem', {
        ...input,
        RequestItems: mapKeys((input.RequestItems ?? {}) as KeyRequests, marshall),
      });
      const responses = isRecord(answer.Responses) ? answer.Responses : {};
      const unprocessed = answer.UnprocessedKeys;
      return {
        Responses: Object.fromEntries(
          Object.entries(responses).map(([table, items]) => [
            table,
            Array.isArray(items) ? items.map((item) => unmarshall(item)) : [],
          ]),
        ),
        ...(isRecord(unprocessed) && Object.keys(unprocessed).length > 0
          ? {
              // DynamoDB JSON from the answer: see the `$unknown` note in `batchWrite`.
              UnprocessedKeys: mapKeys(unprocessed as KeyRequests, (key) =>
                unmarshall(key as never),
              ) as BatchGetCommandInput['RequestItems'],
            }
          : {}),
      };
    },
    async put(input) {
      return { Attributes: itemOf((await call('PutItem', toWire(input))).Attributes) };
    },
    async update(input) {
      return { Attributes: itemOf((await call('UpdateItem', toWire(input))).Attributes) };
    },
    async delete(input) {
      return { Attributes: itemOf((await call('DeleteItem', toWire(input))).Attributes) };
    },
    async query(input) {
      return pageOf(await call('Query', toWire(input)));
    },
    async scan(input) {
      return pageOf(await call('Scan', toWire(input)));
    },
    async batchWrite(input) {
      const answer = await call('BatchWriteItem', {
        ...input,
        RequestItems: mapRequests((input.RequestItems ?? {}) as WriteRequests, marshall),
      });
      const unprocessed = answer.UnprocessedItems;
      if (!isRecord(unprocessed) || Object.keys(unprocessed).length === 0) return {};
      return {
        UnprocessedItems: mapRequests(unprocessed as WriteRequests, (item) =>
          // DynamoDB JSON as it came over the wire; the SDK types an attribute map as a union with
          // a `$unknown` member that no JSON object declares, so no plain record is assignable.
          unmarshall(item as never),
        ) as BatchWriteCommandInput['RequestItems'],
      };
    },
    async transactWrite(input) {
      await call('TransactWriteItems', {
        ...input,
        TransactItems: (input.TransactItems ?? []).map((entry) =>
          Object.fromEntries(
            Object.entries(entry).map(([kind, part]) => [kind, part === undefined ? part : toWire(part)]),
          ),
        ),
      });
    },
    destroy() {
      closed = true;
      dynamodb.destroy();
    },
  };
}

/**
 * Where the table is and as whom, as the SDK would decide: DynamoDB Local's fixed region and keys
 * when an endpoint is configured (`DYNAMODB_ENDPOINT`), else the function's region and the role
 * credentials Lambda puts in its environment, at the endpoint the environment names, if any, as
 * the SDK reads it (`configuredEndpoint`): the Powertools client beside this one goes there too.
 */
export function tableTarget(
  endpoint: string | undefined,
  env: Record<string, string | undefined>,
): Pick<HttpTableOptions, 'endpoint' | 'region' | 'credentials'> {
  if (endpoint) {
    return { endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  }
  return environmentTarget(env, {
    envId: 'DYNAMODB',
    label: 'DynamoDB',
    unsetHint: ', or DYNAMODB_ENDPOINT',
  });
}

/** The fields of a request that hold item values, in DynamoDB's wire format; the rest as given. */
const VALUE_FIELDS = ['Key', 'Item', 'ExpressionAttributeValues', 'ExclusiveStartKey'] as const;

function toWire(input: object): Record<string, unknown> {
  const wire: Record<string, unknown> = { ...input };
  for (const field of VALUE_FIELDS) {
    const value = wire[field];
    if (value !== undefined) wire[field] = marshall(value as TableItem);
  }
  return wire;
}

function itemOf(value: unknown): TableItem | undefined {
  // DynamoDB JSON from the answer: see the `$unknown` note in `batchWrite`.
  return isRecord(value) ? unmarshall(value as never) : undefined;
}

function pageOf(answer: Record<string, unknown>): ItemPage {
  const items = Array.isArray(answer.Items) ? answer.Items.map((item) => unmarshall(item)) : undefined;
  return { Items: items, LastEvaluatedKey: itemOf(answer.LastEvaluatedKey) };
}

type KeyRequests = Record<string, { readonly Keys?: readonly TableItem[] }>;

/** Each table's keys converted, the rest of its request (projection, consistency) as given. */
function mapKeys(requests: KeyRequests, convert: (key: TableItem) => TableItem): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(requests).map(([table, request]) => [
      table,
      { ...request, Keys: (request.Keys ?? []).map((key) => convert(key)) },
    ]),
  );
}

type WriteRequests = Record<
  string,
  readonly { PutRequest?: { Item?: TableItem }; DeleteRequest?: { Key?: TableItem } }[]
>;

function mapRequests(requests: WriteRequests, convert: (item: TableItem) => unknown): WriteRequests {
  return Object.fromEntries(
    Object.entries(requests).map(([table, writes]) => [
      table,
      writes.map((write) => ({
        ...(write.PutRequest?.Item ? { PutRequest: { Item: convert(write.PutRequest.Item) } } : {}),
        ...(write.DeleteRequest?.Key ? { DeleteRequest: { Key: convert(write.DeleteRequest.Key) } } : {}),
      })),
    ]),
  ) as WriteRequests;
}

function parseBody(text: string): Record<string, unknown> {
  if (text === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** `__type` is `com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException` or similar. */
function errorType(body: Record<string, unknown>): string | undefined {
  const type = body.__type;
  return typeof type === 'string' && type !== '' ? type.slice(type.lastIndexOf('#') + 1) : undefined;
}

function isTransient(error: unknown): boolean {
  if (error instanceof ConnectTimeoutError || error instanceof AnswerTimeoutError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && TRANSIENT_CODES.has(code);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
