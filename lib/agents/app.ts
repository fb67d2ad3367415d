import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type AgentRoute, type AgentsResult, requestOf, resultOf } from './http.js';
import { type AgentAuth, bearerGate, createMcpEndpoint, MCP_PATH } from './mcp.js';
import { onTheWire } from './on-the-wire.js';
import { SLACKBOT_MCP_PATH, slackbotRoute } from './slackbot.js';
import type { AgentToolDeps } from './tool-deps.js';
import { preloadToolAnswers } from './tools.js';

export type { AgentRoute, AgentsResult } from './http.js';

/**
 * The agents' function: the MCP endpoint and, plugged into the same table, the pages agents sign
 * in through. Each route answers an API Gateway (HTTP API, payload 2.0) event.
 */

export type AgentsHandler = (event: APIGatewayProxyEventV2) => Promise<AgentsResult>;

export interface AgentsAppDeps extends AgentToolDeps {
  /** The bot's public URL (`BOT_PUBLIC_URL`); the MCP resource is `<publicUrl>/mcp`. */
  readonly publicUrl: string;
  /** The Slack app's signing secret: with it, Slackbot's signed calls are served at `/mcp/slack`. */
  readonly signingSecret?: string;
  /** The clock Slackbot's timestamps are checked against. */
  readonly now?: () => Date;
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
    // A read's or a change's answer loads while the token is checked; a list needs none of it.
    if (event.headers['mcp-method'] === 'tools/call') {
      const body = event.isBase64Encoded ? undefined : event.body;
      preloadToolAnswers(deps.store, event.headers['mcp-name'], body);
    }
    // The token's lookup goes out first, and the request is built while the table answers (the
    // first request of a process loads fetch's classes, about 20 ms of work).
    const checked = gate(event.headers.authorization);
    await onTheWire();
    const request = requestOf(event, base);
    const auth = await checked;
    const response = auth instanceof Response ? auth : await endpoint.serve(request, auth);
    return resultOf(response);
  };
  const table: Record<string, AgentRoute> = { ...routes, [MCP_PATH]: mcp };
  if (deps.signingSecret) {
    const { signingSecret } = deps;
    table[SLACKBOT_MCP_PATH] = slackbotRoute({ ...deps, signingSecret }, base, endpoint.serve);
  }

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
