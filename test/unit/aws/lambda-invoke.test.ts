import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkSignature } from '../../../infra/local/aws/sigv4.js';
import {
  createLambdaInvoker,
  InvokeUnconfirmedError,
  type LambdaInvoker,
  LambdaServiceError,
  lambdaTarget,
} from '../../../lib/aws/lambda-invoke.js';

/**
 * The hand-off's invoke against a real HTTP server that checks what Lambda checks: the SigV4
 * signature (the local stand-in's verifier), the path, the invocation type and the payload.
 */

const CREDENTIALS = {
  accessKeyId: 'AKIDWORKER',
  secretAccessKey: 'worker-secret',
  sessionToken: 'session-1',
};

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly invocationType: string | undefined;
  readonly body: string;
  readonly signature: ReturnType<typeof checkSignature>;
  readonly sessionToken: string | undefined;
}

type Answer = (res: ServerResponse) => void;

let server: Server;
let endpoint: string;
let seen: Seen[];
let answers: Answer[];
let invoker: LambdaInvoker;
let waits: number[];

const accepted: Answer = (res) => {
  res.writeHead(202);
  res.end();
};
const never: Answer = () => {};

beforeEach(async () => {
  seen = [];
  answers = [];
  waits = [];
  server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({
        method: req.method ?? '',
        path: req.url ?? '',
        invocationType: req.headers['x-amz-invocation-type'] as string | undefined,
        body: body.toString('utf8'),
        signature: checkSignature(
          { method: req.method ?? '', url: req.url ?? '/', headers: req.headers, body },
          (key) => (key === CREDENTIALS.accessKeyId ? CREDENTIALS.secretAccessKey : undefined),
        ),
        sessionToken: req.headers['x-amz-security-token'] as string | undefined,
      });
      (answers.shift() ?? accepted)(res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  invoker = createLambdaInvoker(
    {
      endpoint,
      region: 'eu-west-1',
      credentials: CREDENTIALS,
      connectTimeoutMs: 500,
      requestTimeoutMs: 300,
      maxAttempts: 3,
    },
    async (ms) => {
      waits.push(ms);
    },
    () => 0.5,
  );
});

afterEach(async () => {
  invoker.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const failure =
  (status: number, type: string | undefined, body: unknown, extra: Record<string, string> = {}): Answer =>
  (res) => {
    res.writeHead(status, {
      'content-type': 'application/json',
      ...(type ? { 'x-amzn-errortype': type } : {}),
      ...extra,
    });
    res.end(JSON.stringify(body));
  };

describe('Lambda Invoke, InvocationType Event, over signed HTTP', () => {
  it('posts the payload to the function, signed for lambda in the region, as an Event invoke', async () => {
    const job = JSON.stringify({ kind: 'approval', approvalId: 'a-1' });
    await invoker.invokeEvent('cloud-chatops-worker', job);
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request).toMatchObject({
      method: 'POST',
      path: '/2015-03-31/functions/cloud-chatops-worker/invocations',
      invocationType: 'Event',
      body: job,
      sessionToken: 'session-1',
      signature: { ok: true, caller: { accessKeyId: 'AKIDWORKER', region: 'eu-west-1', service: 'lambda' } },
    });
  });

  it('retries a throttled invoke (429 TooManyRequestsException) after Retry-After, then is accepted', async () => {
    answers.push(
      failure(
        429,
        'TooManyRequestsException',
        { Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded', message: 'Rate exceeded' },
        { 'retry-after': '2' },
      ),
    );
    await invoker.invokeEvent('worker', '{}');
    expect(seen).toHaveLength(2);
    // The throttling backoff (0.5 × 500 ms) is shorter than the hint, which wins.
    expect(waits).toEqual([2000]);
  });

  it('gives up after three attempts of 500 ServiceException, with the SDK-shaped error', async () => {
    answers.push(
      ...[1, 2, 3].map(() => failure(500, 'ServiceException', { message: 'Lambda had a problem' })),
    );
    const error = await invoker.invokeEvent('worker', '{}').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LambdaServiceError);
    expect(error).toMatchObject({
      name: 'ServiceException',
      message: 'Lambda had a problem',
      $metadata: { httpStatusCode: 500 },
    });
    expect(seen).toHaveLength(3);
    expect(waits).toEqual([50, 100]);
  });

  it('does not retry a client error: the type comes from x-amzn-ErrorType, with its suffix removed', async () => {
    answers.push(
      failure(404, 'ResourceNotFoundException:http://internal.amazon.com/coral/', {
        Message: 'Function not found',
      }),
    );
    const error = await invoker.invokeEvent('missing', '{}').catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ResourceNotFoundException', $metadata: { httpStatusCode: 404 } });
    expect(seen).toHaveLength(1);
  });

  it('a request sent in full and never answered is unconfirmed, and is not sent again', async () => {
    answers.push(never);
    const error = await invoker.invokeEvent('worker', '{"kind":"approval"}').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvokeUnconfirmedError);
    expect((error as Error).message).toMatch(/may have been queued/);
    expect(seen).toHaveLength(1);
  });

  it('retries a connection that was refused, where nothing was sent, and fails with its code', async () => {
    const closed = createLambdaInvoker(
      {
        endpoint: 'http://127.0.0.1:1',
        region: 'eu-west-1',
        credentials: CREDENTIALS,
        connectTimeoutMs: 500,
        requestTimeoutMs: 300,
        maxAttempts: 2,
      },
      async (ms) => {
        waits.push(ms);
      },
      () => 0.5,
    );
    const error = await closed.invokeEvent('worker', '{}').catch((e: unknown) => e);
    closed.destroy();
    expect(error).toMatchObject({ code: 'ECONNREFUSED' });
    expect(waits).toEqual([50]);
  });
});

describe('lambdaTarget', () => {
  const env = { AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret' };

  it("takes the function's region and credentials, and the region's endpoint unless one is configured", () => {
    expect(lambdaTarget(env)).toEqual({
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' },
    });
    expect(lambdaTarget({ ...env, AWS_ENDPOINT_URL: 'http://127.0.0.1:4566' }).endpoint).toBe(
      'http://127.0.0.1:4566',
    );
    expect(
      lambdaTarget({ ...env, AWS_ENDPOINT_URL: 'http://a', AWS_ENDPOINT_URL_LAMBDA: 'http://b' }).endpoint,
    ).toBe('http://b');
  });

  it('refuses to start without credentials, naming what is missing', () => {
    expect(() => lambdaTarget({ AWS_REGION: 'eu-west-1' })).toThrow(/AWS_ACCESS_KEY_ID/);
  });
});
