import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type AgentAuth, bearerGate, createMcpEndpoint, MCP_PATH } from './mcp.js';
import type { AgentToolDeps } from './tools.js';

/**
 * The agents' function: the MCP endpoint and, plugged into the same table, the pages agents sign
 * in through. Each route answers an API Gateway (HTTP API, payload 2.0) event.
 */

export type AgentsResult = APIGatewayProxyStructuredResultV2;
export type AgentRoute = (event: APIGatewayProxyEventV2) => Promise<AgentsResult>;
export type AgentsHandler = (event: APIGatewayProxyEventV2) => Promise<AgentsResult>;

export interface AgentsAppDeps extends AgentToolDeps {
  /** The bot's public URL (`BOT_PUBLIC_URL`); the MCP resource is `<publicUrl>/mcp`. */
  readonly publicUrl: string;
}

export interface AgentsApp {
  readonly handler: AgentsHandler;
  /** The canonical URL of the MCP resource, as tokens are bound to it (RFC 8707). */
  readonly resource: string;
  /** Serves an MCP request for an agent already authenticated another way (Slackbot's signature). */
  serveMcp(request: Request, auth: AgentAuth): Promise<Response>;
}

/** `routes`: further paths (exact, or a prefix ending in `/*`) served beside the MCP endpoint. */
export function createAgentsApp(
  deps: AgentsAppDeps,
  routes: Readonly<Record<string, AgentRoute>> = {},
): AgentsApp {
  const base = deps.publicUrl.replace(/\/+$/, '');
  const resource = `${base}${MCP_PATH}`;
  const endpoint = createMcpEndpoint(deps);
  const gate = bearerGate(deps, resource);

  const mcp: AgentRoute = async (event) => {
    const method = event.requestContext.http.method;
    // Stateless: no stream to open, no session to end (MCP-FACTS §1.3).
    if (method !== 'POST') return methodNotAllowed();
    const request = requestOf(event, base);
    const auth = await gate(request);
    const response = auth instanceof Response ? auth : await endpoint.serve(request, auth);
    return resultOf(response);
  };
  const table: Record<string, AgentRoute> = { ...routes, [MCP_PATH]: mcp };

  const handler: AgentsHandler = async (event) => {
    const route = routeFor(table, event.rawPath);
    if (!route) return { statusCode: 404, headers: { 'content-type': 'text/plain' }, body: 'Not found' };
    try {
      return await route(event);
    } catch (error) {
      deps.logger.error('agents request failed', { path: event.rawPath, error });
      return {
        statusCode: 500,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ error: 'server_error' }),
      };
    }
  };
  return { handler, resource, serveMcp: (request, auth) => endpoint.serve(request, auth) };
}

function routeFor(table: Readonly<Record<string, AgentRoute>>, path: string): AgentRoute | undefined {
  if (Object.hasOwn(table, path)) return table[path];
  for (const [route, handler] of Object.entries(table)) {
    if (route.endsWith('/*') && path.startsWith(route.slice(0, -1))) return handler;
  }
  return undefined;
}

/** The event as a fetch `Request` at the bot's public URL (what the SDK serves). */
export function requestOf(event: APIGatewayProxyEventV2, base: string): Request {
  const method = event.requestContext.http.method;
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers.set(name, value);
  }
  if (event.cookies?.length) headers.set('cookie', event.cookies.join('; '));
  const body =
    method === 'GET' || method === 'HEAD' || event.body === undefined
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64')
        : event.body;
  return new Request(`${base}${event.rawPath}${query}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
}

/** A fetch `Response` as the Lambda's result (buffered: HTTP APIs do not stream). */
export async function resultOf(response: Response): Promise<AgentsResult> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  return {
    statusCode: response.status,
    headers,
    ...(cookies.length ? { cookies } : {}),
    body: await response.text(),
  };
}

function methodNotAllowed(): AgentsResult {
  return {
    statusCode: 405,
    headers: { 'content-type': 'application/json', allow: 'POST' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'Method not allowed.' },
    }),
  };
}
