import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/**
 * One MCP request (spec 2026-07-28, stateless Streamable HTTP) as API Gateway's HTTP API (payload
 * 2.0) hands it to a function: the POST an agent sends, with the headers the spec asks of every
 * request (MCP-FACTS §1.1: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` for a call) and the
 * protocol's `_meta` in its params. Built before a measurement starts.
 */

export const PROTOCOL_VERSION = '2026-07-28';
const HOST = 'bench.execute-api.us-east-1.amazonaws.com';
const USER_AGENT = 'bench-agent/1.0';

export type McpRequest =
  | { readonly method: 'tools/list' }
  | { readonly method: 'tools/call'; readonly name: string; readonly arguments: Record<string, unknown> };

export function mcpEvent(request: McpRequest, bearerToken: string): APIGatewayProxyEventV2 {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'bench-agent', version: '1.0.0' },
  };
  const params =
    request.method === 'tools/list'
      ? { _meta: meta }
      : { name: request.name, arguments: request.arguments, _meta: meta };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: request.method, params });
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: 'POST /mcp',
    rawPath: '/mcp',
    rawQueryString: '',
    // API Gateway hands headers lower-cased (MCP-FACTS §3).
    headers: {
      host: HOST,
      'user-agent': USER_AGENT,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${bearerToken}`,
      'mcp-protocol-version': PROTOCOL_VERSION,
      'mcp-method': request.method,
      ...(request.method === 'tools/call' ? { 'mcp-name': request.name } : {}),
    },
    requestContext: {
      accountId: 'bench',
      apiId: 'bench',
      domainName: HOST,
      domainPrefix: 'bench',
      http: {
        method: 'POST',
        path: '/mcp',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: USER_AGENT,
      },
      requestId: randomUUID(),
      routeKey: 'POST /mcp',
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
    body,
    isBase64Encoded: false,
  };
}

/** The JSON-RPC `result` of a function's answer, or why there is none. */
export function jsonRpcResult(answer: unknown): { result: Record<string, unknown> } | { problem: string } {
  const { statusCode, body } = (answer ?? {}) as { statusCode?: unknown; body?: unknown };
  if (statusCode !== 200 || typeof body !== 'string') {
    return { problem: `expected a 200 with a body, got ${JSON.stringify(answer).slice(0, 500)}` };
  }
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return { problem: `the body is not JSON: ${body.slice(0, 200)}` };
  }
  const result = (message as { result?: unknown } | null)?.result;
  if (typeof result !== 'object' || result === null) {
    return { problem: `no JSON-RPC result: ${body.slice(0, 500)}` };
  }
  return { result: result as Record<string, unknown> };
}
