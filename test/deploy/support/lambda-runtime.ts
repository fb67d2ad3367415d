import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/**
 * A packaged function run as Lambda runs it: its own process started from a bootstrap
 * (`lambda-bootstrap.mjs`) that talks to this Lambda Runtime API (`/2018-06-01/runtime/
 * invocation/next`, `/{id}/response`, `/{id}/error`, `/init/error`; docs.aws.amazon.com/lambda/
 * latest/dg/runtimes-api.html), one invocation at a time, with the environment it is given.
 * AWS's runtime interface client (`aws-lambda-ric`) is not a dependency of the project, so the
 * bootstrap follows the documented API and the Node runtime's handler loading instead.
 */

export class InvocationError extends Error {
  constructor(readonly payload: { errorType?: string; errorMessage?: string }) {
    super(`${payload.errorType ?? 'Error'}: ${payload.errorMessage ?? ''}`);
  }
}

export interface LocalLambdaOptions {
  readonly functionName: string;
  readonly functionArn: string;
  readonly taskRoot: string;
  readonly handler: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  readonly environment: Readonly<Record<string, string>>;
}

export interface LocalLambda {
  /** A synchronous invoke: the handler's result, or `InvocationError` with its error. */
  invoke(event: unknown): Promise<unknown>;
  /** An asynchronous invoke (`InvocationType: Event`): queued; its outcome is in `failures`. */
  enqueue(event: unknown): void;
  /** Resolves once no invocation is queued or running. */
  idle(): Promise<void>;
  /** Errors of asynchronous invocations, and an init error. */
  readonly failures: string[];
  /** What the function wrote to stdout and stderr (its CloudWatch log). */
  readonly output: string[];
  close(): Promise<void>;
}

interface Invocation {
  readonly id: string;
  readonly event: unknown;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: Error) => void;
}

const BOOTSTRAP = fileURLToPath(new URL('./lambda-bootstrap.mjs', import.meta.url));

export async function startLocalLambda(options: LocalLambdaOptions): Promise<LocalLambda> {
  const queue: Invocation[] = [];
  const running = new Map<string, Invocation>();
  const waiting: ServerResponse[] = [];
  const idlers: (() => void)[] = [];
  const failures: string[] = [];
  const output: string[] = [];

  const checkIdle = () => {
    if (queue.length > 0 || running.size > 0) return;
    for (const done of idlers.splice(0)) done();
  };
  const deliver = () => {
    while (queue.length > 0 && waiting.length > 0) {
      const invocation = queue.shift() as Invocation;
      const response = waiting.shift() as ServerResponse;
      running.set(invocation.id, invocation);
      response.writeHead(200, {
        'content-type': 'application/json',
        'lambda-runtime-aws-request-id': invocation.id,
        'lambda-runtime-deadline-ms': String(Date.now() + options.timeoutSeconds * 1000),
        'lambda-runtime-invoked-function-arn': options.functionArn,
        'lambda-runtime-trace-id': `Root=1-${randomUUID().replaceAll('-', '').slice(0, 24)}`,
      });
      response.end(JSON.stringify(invocation.event));
    }
  };
  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return text === '' ? null : (JSON.parse(text) as unknown);
  };

  const server = createServer((req, res) => {
    void (async () => {
      const path = req.url ?? '';
      if (req.method === 'GET' && path === '/2018-06-01/runtime/invocation/next') {
        waiting.push(res);
        deliver();
        return;
      }
      const done = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(path);
      if (req.method === 'POST' && done) {
        const body = await readBody(req);
        const invocation = running.get(done[1] ?? '');
        res.writeHead(invocation ? 202 : 400, { 'content-type': 'application/json' });
        res.end(JSON.stringify(invocation ? { status: 'OK' } : { errorType: 'InvalidRequestID' }));
        if (!invocation) return;
        running.delete(invocation.id);
        if (done[2] === 'response') invocation.resolve(body);
        else invocation.reject(new InvocationError((body ?? {}) as InvocationError['payload']));
        checkIdle();
        return;
      }
      if (req.method === 'POST' && path === '/2018-06-01/runtime/init/error') {
        const body = (await readBody(req)) as InvocationError['payload'];
        failures.push(`init: ${body.errorType}: ${body.errorMessage}`);
        res.writeHead(202).end();
        for (const invocation of queue.splice(0)) invocation.reject(new InvocationError(body));
        checkIdle();
        return;
      }
      res.writeHead(404).end();
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  const child: ChildProcess = spawn(process.execPath, [BOOTSTRAP], {
    cwd: options.taskRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      TZ: ':UTC',
      LANG: 'en_US.UTF-8',
      ...options.environment,
      AWS_LAMBDA_RUNTIME_API: `127.0.0.1:${port}`,
      _HANDLER: options.handler,
      LAMBDA_TASK_ROOT: options.taskRoot,
      AWS_LAMBDA_FUNCTION_NAME: options.functionName,
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(options.memoryMb),
      AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${options.functionName}`,
      AWS_LAMBDA_LOG_STREAM_NAME: `local/[$LATEST]${randomUUID().replaceAll('-', '')}`,
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    },
  });
  for (const stream of [child.stdout, child.stderr])
    stream?.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  child.on('exit', () => {
    for (const invocation of [...queue.splice(0), ...running.values()]) {
      invocation.reject(
        new InvocationError({ errorType: 'Runtime.ExitError', errorMessage: 'the process exited' }),
      );
    }
    running.clear();
    checkIdle();
  });

  const invoke = (event: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      queue.push({ id: randomUUID(), event, resolve, reject });
      deliver();
    });

  return {
    invoke,
    enqueue(event) {
      invoke(event).catch((error: unknown) => failures.push(String(error)));
    },
    idle: () =>
      new Promise<void>((resolve) => {
        idlers.push(resolve);
        checkIdle();
      }),
    failures,
    output,
    async close() {
      child.kill('SIGTERM');
      for (const response of waiting.splice(0)) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
