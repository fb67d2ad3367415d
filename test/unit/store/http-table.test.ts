import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { openTable } from '../../../lib/runtime.js';
import { StoreError } from '../../../lib/store/errors.js';
import { createHttpTable, type HttpTable, tableTarget } from '../../../lib/store/http-table.js';
import { isConditionFailure, itemOfFailedCondition } from '../../../lib/store/items.js';
import { createTestTable, type TestTable } from '../../support/store.js';

/**
 * The repositories' table client speaks DynamoDB's JSON protocol itself. These tests pin what the
 * store relies on from it: the document client's marshalling, errors named as the SDK names them,
 * the retries of the SDK's standard strategy (transient failures only), and signed requests.
 */

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** Answers each request with the next scripted answer, recording what it received. */
async function startScriptedDynamo(): Promise<{
  server: Server;
  endpoint: string;
  script: Answer[];
  received: { headers: IncomingMessage['headers']; body: Record<string, unknown> }[];
}> {
  const script: Answer[] = [];
  const received: { headers: IncomingMessage['headers']; body: Record<string, unknown> }[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    received.push({ headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
    const answer = script.shift() ?? { status: 200, body: {} };
    response.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0' });
    response.end(JSON.stringify(answer.body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, endpoint: `http://127.0.0.1:${address.port}`, script, received };
}

const dynamoError = (type: string, message = 'refused') => ({
  __type: `com.amazonaws.dynamodb.v20120810#${type}`,
  message,
});

describe('against a scripted DynamoDB', () => {
  let scripted: Awaited<ReturnType<typeof startScriptedDynamo>>;
  let table: HttpTable;
  beforeAll(async () => {
    scripted = await startScriptedDynamo();
    table = createHttpTable({
      endpoint: scripted.endpoint,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session-token' },
      connectTimeoutMs: 1000,
      requestTimeoutMs: 2000,
      maxAttempts: 3,
    });
  });
  afterEach(() => {
    scripted.script.length = 0;
    scripted.received.length = 0;
  });
  afterAll(() => {
    table.destroy();
    scripted.server.close();
  });

  it('signs each request for DynamoDB in its region, with the session token, and names the operation', async () => {
    scripted.script.push({ status: 200, body: { Item: { pk: { S: 'A' }, n: { N: '7' } } } });
    const { Item } = await table.get({ TableName: 't', Key: { pk: 'A', sk: 'B' } });
    expect(Item).toEqual({ pk: 'A', n: 7 });
    const [request] = scripted.received;
    expect(request?.headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
    expect(request?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=.*x-amz-target.*, Signature=[0-9a-f]{64}$/,
    );
    expect(request?.headers['x-amz-security-token']).toBe('session-token');
    // The key went out in DynamoDB's wire format, as the document client marshals it.
    expect(request?.body.Key).toEqual({ pk: { S: 'A' }, sk: { S: 'B' } });
  });

  it('retries a 5xx and a throttled answer, and returns the answer that came through', async () => {
    scripted.script.push(
      { status: 500, body: dynamoError('InternalServerError') },
      { status: 400, body: dynamoError('ThrottlingException') },
      { status: 200, body: { Attributes: { pk: { S: 'A' } } } },
    );
    const { Attributes } = await table.delete({
      TableName: 't',
      Key: { pk: 'A', sk: 'B' },
      ReturnValues: 'ALL_OLD',
    });
    expect(Attributes).toEqual({ pk: 'A' });
    expect(scripted.received).toHaveLength(3);
  });

  it('gives up after its attempts as storage_unavailable, with the last answer as the cause', async () => {
    scripted.script.push(
      { status: 503, body: {} },
      { status: 503, body: {} },
      { status: 503, body: {} },
      { status: 200, body: {} },
    );
    const error = await table.put({ TableName: 't', Item: { pk: 'A', sk: 'B' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({
      code: 'storage_unavailable',
      cause: { name: 'InternalServerError', $metadata: { httpStatusCode: 503 } },
    });
    expect(scripted.received).toHaveLength(3);
  });

  it('does not retry what a retry cannot fix: a refused request fails at once, by its own name', async () => {
    scripted.script.push({
      status: 400,
      body: dynamoError('ValidationException', 'One or more parameter values were invalid'),
    });
    const error = await table.put({ TableName: 't', Item: { pk: 'A', sk: 'B' } }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(StoreError);
    expect(error).toMatchObject({
      name: 'ValidationException',
      message: 'One or more parameter values were invalid',
      $metadata: { httpStatusCode: 400 },
    });
    expect(scripted.received).toHaveLength(1);
  });

  it('refuses an undefined value before sending, as the document client does', async () => {
    await expect(table.put({ TableName: 't', Item: { pk: 'A', sk: 'B', stray: undefined } })).rejects.toThrow(
      /undefined/,
    );
    expect(scripted.received).toHaveLength(0);
  });
});

describe('against DynamoDB Local', () => {
  let test: TestTable;
  let table: HttpTable;
  beforeAll(async () => {
    test = await createTestTable();
    table = openTable({ DYNAMODB_ENDPOINT: inject('dynamoEndpoint') }, 'slack');
  });
  afterAll(async () => {
    table?.destroy();
    await test?.dispose();
  });

  it('pages a query with LastEvaluatedKey, in order, and round-trips numbers, lists, maps and sets', async () => {
    const TableName = test.ctx.tableName;
    const items = [1, 2, 3, 4, 5].map((n) => ({
      pk: 'PAGE',
      sk: `ITEM#${n}`,
      n,
      list: [n, 'x', null, true],
      map: { nested: { deep: `v${n}` } },
      tags: new Set(['a', 'b']),
    }));
    const { UnprocessedItems } = await table.batchWrite({
      RequestItems: { [TableName]: items.map((Item) => ({ PutRequest: { Item } })) },
    });
    expect(UnprocessedItems).toBeUndefined();
    const seen: unknown[] = [];
    let start: Record<string, unknown> | undefined;
    let pages = 0;
    do {
      const page = await table.query({
        TableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'PAGE' },
        Limit: 2,
        ExclusiveStartKey: start,
      });
      seen.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
      pages++;
    } while (start);
    expect(pages).toBe(3);
    expect(seen).toEqual(items);
  });

  it('reports a failed condition by name, with the item it was checked against', async () => {
    const TableName = test.ctx.tableName;
    await table.put({ TableName, Item: { pk: 'COND', sk: '1', owner: 'U1' } });
    const error = await table
      .put({
        TableName,
        Item: { pk: 'COND', sk: '1', owner: 'U2' },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      })
      .catch((e: unknown) => e);
    expect(isConditionFailure(error)).toBe(true);
    expect(itemOfFailedCondition(error)).toEqual({ pk: 'COND', sk: '1', owner: 'U1' });
  });

  it('writes a transaction all or nothing, and names a cancelled one as the SDK does', async () => {
    const TableName = test.ctx.tableName;
    await table.transactWrite({
      TransactItems: [
        { Put: { TableName, Item: { pk: 'TX', sk: '1', v: 1 } } },
        { Put: { TableName, Item: { pk: 'TX', sk: '2', v: 2 } } },
      ],
    });
    const error = await table
      .transactWrite({
        TransactItems: [
          {
            Update: {
              TableName,
              Key: { pk: 'TX', sk: '1' },
              UpdateExpression: 'SET v = :v',
              ExpressionAttributeValues: { ':v': 10 },
            },
          },
          {
            Put: {
              TableName,
              Item: { pk: 'TX', sk: '2', v: 20 },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'TransactionCanceledException' });
    const { Items } = await table.scan({
      TableName,
      FilterExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'TX' },
    });
    expect(Items?.map((item) => item.v).sort()).toEqual([1, 2]);
  });

  it('updates and returns the new item', async () => {
    const TableName = test.ctx.tableName;
    const { Attributes } = await table.update({
      TableName,
      Key: { pk: 'UPD', sk: '1' },
      UpdateExpression: 'SET #c = if_not_exists(#c, :zero) + :one',
      ExpressionAttributeNames: { '#c': 'count' },
      ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
      ReturnValues: 'ALL_NEW',
    });
    expect(Attributes).toEqual({ pk: 'UPD', sk: '1', count: 1 });
  });
});

describe('where the table is and as whom', () => {
  it('uses the role credentials Lambda puts in the environment, and names what is missing without echoing values', () => {
    expect(
      tableTarget(undefined, {
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'AKID',
        AWS_SECRET_ACCESS_KEY: 'shh',
        AWS_SESSION_TOKEN: 'tok',
      }),
    ).toEqual({
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKID', secretAccessKey: 'shh', sessionToken: 'tok' },
    });
    let message = '';
    try {
      tableTarget(undefined, { AWS_REGION: 'eu-west-1', AWS_SECRET_ACCESS_KEY: 'do-not-echo' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('AWS_ACCESS_KEY_ID');
    expect(message).not.toContain('do-not-echo');
  });
});

describe('an endpoint named in the environment, as the SDK reads it', () => {
  const lambdaEnv = { AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIDSLACK', AWS_SECRET_ACCESS_KEY: 'shh' };

  it('sends the calls to AWS_ENDPOINT_URL_DYNAMODB, signed with the role credentials for the region', async () => {
    const scripted = await startScriptedDynamo();
    const table = openTable({}, 'slack', { ...lambdaEnv, AWS_ENDPOINT_URL_DYNAMODB: scripted.endpoint });
    try {
      scripted.script.push({ status: 200, body: { Item: { pk: { S: 'A' } } } });
      await expect(table.get({ TableName: 't', Key: { pk: 'A', sk: 'B' } })).resolves.toEqual({
        Item: { pk: 'A' },
      });
      expect(scripted.received).toHaveLength(1);
      expect(scripted.received[0]?.headers.authorization).toMatch(
        /Credential=AKIDSLACK\/\d{8}\/eu-west-1\/dynamodb\/aws4_request/,
      );
    } finally {
      table.destroy();
      scripted.server.close();
    }
  });

  it.each([
    [
      { AWS_ENDPOINT_URL_DYNAMODB: 'http://dynamo.test:8000', AWS_ENDPOINT_URL: 'http://all.test' },
      'http://dynamo.test:8000',
    ],
    [{ AWS_ENDPOINT_URL: 'http://all.test:4566' }, 'http://all.test:4566'],
    [{ AWS_ENDPOINT_URL_DYNAMODB: '', AWS_ENDPOINT_URL: 'http://all.test:4566' }, 'http://all.test:4566'],
    [{ AWS_ENDPOINT_URL_KMS: 'http://kms.test' }, undefined],
    [
      { AWS_ENDPOINT_URL_DYNAMODB: 'http://dynamo.test', AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' },
      undefined,
    ],
    [
      { AWS_ENDPOINT_URL_DYNAMODB: 'http://dynamo.test', AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'false' },
      'http://dynamo.test',
    ],
  ])('with %o the endpoint is %s', (endpoints, expected) => {
    expect(tableTarget(undefined, { ...lambdaEnv, ...endpoints }).endpoint).toBe(expected);
  });

  it('keeps DynamoDB Local when DYNAMODB_ENDPOINT is configured: configuration in code wins, as in the SDK', () => {
    expect(
      tableTarget('http://127.0.0.1:8000', { ...lambdaEnv, AWS_ENDPOINT_URL_DYNAMODB: 'http://dynamo.test' }),
    ).toMatchObject({ endpoint: 'http://127.0.0.1:8000', region: 'local' });
  });

  it('refuses an endpoint that is not a URL, and an ignore switch that is neither true nor false, by name', () => {
    expect(() => tableTarget(undefined, { ...lambdaEnv, AWS_ENDPOINT_URL_DYNAMODB: 'not a url' })).toThrow(
      /AWS_ENDPOINT_URL_DYNAMODB is not a URL/,
    );
    expect(() =>
      tableTarget(undefined, { ...lambdaEnv, AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'yes' }),
    ).toThrow(/AWS_IGNORE_CONFIGURED_ENDPOINT_URLS/);
  });
});
