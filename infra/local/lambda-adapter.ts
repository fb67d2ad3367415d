import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type HttpLambdaHandler = (
  event: APIGatewayProxyEventV2,
  context: unknown,
) => Promise<APIGatewayProxyStructuredResultV2 | string | undefined>;

/**
 * Turns a local HTTP request into the event API Gateway's HTTP API (payload format 2.0) hands a
 * Lambda function, and the function's result back into an HTTP response. The handlers run here
 * exactly as they do in AWS.
 */
export function toApiGatewayEvent(req: IncomingMessage, body: Buffer): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[key.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const isText = /^(application\/(json|x-www-form-urlencoded)|text\/)/.test(headers['content-type'] ?? '');
  // API Gateway moves cookies out of the headers into their own list.
  const cookies = headers.cookie?.split(/;\s*/).filter(Boolean);
  delete headers.cookie;
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: `${req.method ?? 'GET'} ${url.pathname}`,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(cookies?.length ? { cookies } : {}),
    ...(url.search ? { queryStringParameters: Object.fromEntries(url.searchParams) } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: `${req.method ?? 'GET'} ${url.pathname}`,
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
    body: isText ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: !isText,
  };
}

function routeUnder(routes: Record<string, HttpLambdaHandler>, path: string): HttpLambdaHandler | undefined {
  for (const [route, handler] of Object.entries(routes)) {
    if (route.endsWith('/*') && path.startsWith(route.slice(0, -1)) && path.length > route.length - 1)
      return handler;
  }
  return undefined;
}

export interface LocalLambdaServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * Serves `routes` (path → handler) on 127.0.0.1; unknown paths get 404. A route ending in `/*`
 * takes every path under it, as an API Gateway route with a path parameter does.
 */
export async function serveLambdas(
  routes: Record<string, HttpLambdaHandler>,
  port = 0,
): Promise<LocalLambdaServer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      const handler = routes[path] ?? routeUnder(routes, path);
      if (!handler) {
        res.writeHead(404).end();
        return;
      }
      const event = toApiGatewayEvent(req, Buffer.concat(chunks));
      handler(event, { awsRequestId: event.requestContext.requestId })
        .then((result) => {
          const structured: APIGatewayProxyStructuredResultV2 =
            typeof result === 'object' && result !== null ? result : { statusCode: 200, body: result ?? '' };
          const headers: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(structured.headers ?? {})) headers[k] = String(v);
          // Payload 2.0 returns cookies apart; API Gateway sends each as its own Set-Cookie.
          if (structured.cookies?.length) headers['set-cookie'] = structured.cookies;
          res.writeHead(structured.statusCode ?? 200, headers);
          res.end(
            structured.isBase64Encoded
              ? Buffer.from(structured.body ?? '', 'base64')
              : (structured.body ?? ''),
          );
        })
        .catch(() => {
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ message: 'Internal Server Error' }));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
