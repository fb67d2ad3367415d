import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAllowed, type PolicyStatement } from './iam.js';
import { KmsError, type LocalKms } from './kms.js';
import { checkSignature } from './sigv4.js';
import { type LocalSsm, SsmError } from './ssm.js';

/**
 * One local endpoint for the AWS services the functions call (`AWS_ENDPOINT_URL`): DynamoDB
 * (passed on to DynamoDB Local), KMS, SSM and Lambda's Invoke. Every request must be SigV4-signed
 * with the access key of one function; its action and resource are checked against that
 * function's role before anything is done, and a denied call gets AccessDeniedException, shaped
 * as each service sends it.
 */

export interface LocalFunction {
  /** The function's name in AWS (`cloud-chatops-ci-slack`), for messages and Invoke. */
  readonly name: string;
  readonly roleName: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly statements: readonly PolicyStatement[];
}

export interface AuthorisedCall {
  readonly caller: string;
  readonly action: string;
  readonly resource: string;
  readonly allowed: boolean;
}

export interface LocalAwsOptions {
  readonly region: string;
  readonly accountId: string;
  readonly functions: readonly LocalFunction[];
  readonly dynamoEndpoint: string;
  readonly kms: LocalKms;
  readonly ssm: LocalSsm;
  /** Lambda's Invoke of `functionName` (its name, not an ARN), as `InvocationType` asks. */
  readonly invoke: (functionName: string, payload: Buffer, invocationType: string) => Promise<void>;
}

export interface LocalAws {
  readonly url: string;
  /** Every call checked, in order: who, which action, on what, and the decision. */
  readonly calls: AuthorisedCall[];
  close(): Promise<void>;
}

class Denied extends Error {}

export async function startLocalAws(options: LocalAwsOptions): Promise<LocalAws> {
  const { region, accountId } = options;
  const byKey = new Map(options.functions.map((fn) => [fn.accessKeyId, fn]));
  const calls: AuthorisedCall[] = [];
  const tableArn = (name: string) => `arn:aws:dynamodb:${region}:${accountId}:table/${name}`;

  const authorise = (fn: LocalFunction, action: string, resources: readonly string[]) => {
    for (const resource of resources) {
      const allowed = isAllowed(fn.statements, action, resource);
      calls.push({ caller: fn.name, action, resource, allowed });
      if (!allowed) {
        throw new Denied(
          `User: arn:aws:sts::${accountId}:assumed-role/${fn.roleName}/${fn.name} is not authorized to perform: ${action} on resource: ${resource} because no identity-based policy allows the ${action} action`,
        );
      }
    }
  };

  /** DynamoDB's actions and resources of one request (docs: "Actions, resources, and condition keys for Amazon DynamoDB"). */
  const dynamoChecks = (operation: string, input: Record<string, unknown>): [string, string[]][] => {
    const table = (name: unknown) => tableArn(String(name));
    if (operation === 'BatchWriteItem' || operation === 'BatchGetItem') {
      return [[`dynamodb:${operation}`, Object.keys((input.RequestItems ?? {}) as object).map(table)]];
    }
    if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
      const actions: Record<string, string> = {
        Put: 'dynamodb:PutItem',
        Update: 'dynamodb:UpdateItem',
        Delete: 'dynamodb:DeleteItem',
        ConditionCheck: 'dynamodb:ConditionCheckItem',
        Get: 'dynamodb:GetItem',
      };
      return ((input.TransactItems ?? []) as Record<string, { TableName?: string }>[]).flatMap((item) =>
        Object.entries(item).map(([kind, part]): [string, string[]] => [
          actions[kind] ?? `dynamodb:${kind}`,
          [table(part.TableName)],
        ]),
      );
    }
    const resource =
      typeof input.IndexName === 'string'
        ? `${table(input.TableName)}/index/${input.IndexName}`
        : table(input.TableName);
    return [[`dynamodb:${operation}`, [resource]]];
  };

  const forwardToDynamo = (req: IncomingMessage, body: Buffer, res: ServerResponse) => {
    const target = new URL(options.dynamoEndpoint);
    const headers = { ...req.headers, host: target.host };
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError' }));
    });
    upstream.end(body);
  };

  const json11 = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const signature = checkSignature(
          { method: req.method ?? 'POST', url: req.url ?? '/', headers: req.headers, body },
          (key) => byKey.get(key)?.secretAccessKey,
        );
        if (!signature.ok) {
          res.writeHead(403, { 'content-type': 'application/json', 'x-amzn-errortype': signature.type });
          res.end(JSON.stringify({ __type: signature.type, message: signature.message }));
          return;
        }
        const fn = byKey.get(signature.caller.accessKeyId) as LocalFunction;
        const service = signature.caller.service;
        const targetHeader = String(req.headers['x-amz-target'] ?? '');
        const operation = targetHeader.slice(targetHeader.indexOf('.') + 1);
        let input: Record<string, unknown> = {};
        try {
          if (body.length > 0 && service !== 'lambda') input = JSON.parse(body.toString('utf8'));
        } catch {
          json11(res, 400, { __type: 'SerializationException', message: 'Malformed JSON' });
          return;
        }
        try {
          if (service === 'dynamodb') {
            for (const [action, resources] of dynamoChecks(operation, input))
              authorise(fn, action, resources);
            forwardToDynamo(req, body, res);
          } else if (service === 'kms') {
            const key =
              operation === 'Decrypt'
                ? options.kms.keyArnOfBlob(String(input.CiphertextBlob ?? ''))
                : options.kms.keyArnOf(String(input.KeyId ?? ''));
            authorise(fn, `kms:${operation}`, [key]);
            json11(res, 200, options.kms.handle(operation, input));
          } else if (service === 'ssm') {
            authorise(fn, `ssm:${operation}`, options.ssm.namesOf(operation, input).map(options.ssm.arnOf));
            json11(res, 200, options.ssm.handle(operation, input));
          } else if (service === 'lambda') {
            // Invoke: POST /2015-03-31/functions/{FunctionName}/invocations (REST JSON).
            const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(
              new URL(req.url ?? '/', 'http://x').pathname,
            );
            const name = decodeURIComponent(match?.[1] ?? '');
            const functionName = name.startsWith('arn:') ? name.slice(name.lastIndexOf(':') + 1) : name;
            authorise(fn, 'lambda:InvokeFunction', [
              `arn:aws:lambda:${region}:${accountId}:function:${functionName}`,
            ]);
            const invocationType = String(req.headers['x-amz-invocation-type'] ?? 'RequestResponse');
            await options.invoke(functionName, body, invocationType);
            res.writeHead(invocationType === 'Event' ? 202 : 200, { 'content-type': 'application/json' });
            res.end();
          } else {
            json11(res, 400, {
              __type: 'UnknownOperationException',
              message: `${service} is not answered here`,
            });
          }
        } catch (error) {
          if (error instanceof Denied) {
            if (service === 'dynamodb') {
              res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
              res.end(
                JSON.stringify({
                  __type: 'com.amazon.coral.service#AccessDeniedException',
                  Message: error.message,
                }),
              );
            } else if (service === 'lambda') {
              res.writeHead(403, {
                'content-type': 'application/json',
                'x-amzn-errortype': 'AccessDeniedException',
              });
              res.end(JSON.stringify({ Type: 'User', Message: error.message }));
            } else {
              json11(res, 400, { __type: 'AccessDeniedException', message: error.message });
            }
          } else if (error instanceof KmsError || error instanceof SsmError) {
            json11(res, 400, { __type: error.type, message: error.message });
          } else {
            json11(res, 500, { __type: 'InternalFailure', message: 'The local stand-in failed.' });
          }
        }
      })();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
