// A bootstrap for a packaged function, as AWS's Node.js runtime runs it: load the handler named by
// `_HANDLER` (`dir/file.export`) from `LAMBDA_TASK_ROOT`, trying `.js`, `.mjs` and `.cjs`, then loop
// over the Lambda Runtime API (docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html): take the
// next invocation, call the handler with the event and a context, post its result or its error.
// A handler that cannot be loaded is reported to `/runtime/init/error` and the process exits.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const api = `http://${process.env.AWS_LAMBDA_RUNTIME_API}/2018-06-01/runtime`;
const post = (path, body, headers = {}) =>
  fetch(`${api}${path}`, { method: 'POST', body: JSON.stringify(body), headers });
const errorOf = (error) => ({
  errorType: error instanceof Error ? error.name : 'Error',
  errorMessage: error instanceof Error ? error.message : String(error),
  trace: error instanceof Error && error.stack ? error.stack.split('\n') : [],
});

async function loadHandler() {
  const spec = process.env._HANDLER ?? '';
  const dot = spec.lastIndexOf('.');
  const [modulePath, name] = [spec.slice(0, dot), spec.slice(dot + 1)];
  const root = process.env.LAMBDA_TASK_ROOT ?? process.cwd();
  const file = ['.js', '.mjs', '.cjs'].map((ext) => resolve(root, modulePath + ext)).find(existsSync);
  if (!file)
    throw Object.assign(new Error(`Cannot find module '${modulePath}'`), {
      name: 'Runtime.ImportModuleError',
    });
  const loaded = await import(pathToFileURL(file).href);
  const handler = loaded[name] ?? loaded.default?.[name];
  if (typeof handler !== 'function') {
    throw Object.assign(new Error(`${spec} is undefined or not exported`), {
      name: 'Runtime.HandlerNotFound',
    });
  }
  return handler;
}

let handler;
try {
  handler = await loadHandler();
} catch (error) {
  await post('/init/error', errorOf(error), { 'Lambda-Runtime-Function-Error-Type': 'Runtime.Unknown' });
  process.exit(1);
}

for (;;) {
  const next = await fetch(`${api}/invocation/next`);
  const requestId = next.headers.get('lambda-runtime-aws-request-id');
  const deadline = Number(next.headers.get('lambda-runtime-deadline-ms'));
  const event = await next.json();
  const context = {
    awsRequestId: requestId,
    invokedFunctionArn: next.headers.get('lambda-runtime-invoked-function-arn'),
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  try {
    const result = await handler(event, context);
    await post(`/invocation/${requestId}/response`, result ?? null);
  } catch (error) {
    await post(`/invocation/${requestId}/error`, errorOf(error), {
      'Lambda-Runtime-Function-Error-Type': 'Unhandled',
    });
  }
}
