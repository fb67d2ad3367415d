import { request } from 'node:http';
import {
  type AuthInfo,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  McpServer,
  type OAuthTokenVerifier,
  requireBearerAuth,
} from '@modelcontextprotocol/server';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import * as z from 'zod';

/**
 * The MCP server every MCP baseline shares: the smallest MCP server on Lambda a team would write
 * with the same SDK as the agents' function (`createMcpHandler`, stateless, JSON answers, a server
 * per request), behind the SDK's bearer check, with one tool that reads the cloud API's volumes
 * over HTTP with a token from the environment. The baselines differ only in how they check the
 * bearer token (`verifier`).
 */

export interface McpAppSettings {
  /** `BOT_PUBLIC_URL`: the resource is `<publicUrl>/mcp`. */
  readonly publicUrl: string;
  /** `CLOUD_API_URL`. */
  readonly apiUrl: string;
  /** The API token the tool reads with (not a person's, looked up and decrypted). */
  readonly apiToken: string;
}

export type McpAppHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * `alongside`: what a verified request does beside serving it (the floor writes the agent's last
 * use there, as the agents' function does); the answer waits for both.
 */
export function mcpAppHandler(
  settings: McpAppSettings,
  verifier: OAuthTokenVerifier,
  alongside?: (auth: AuthInfo) => Promise<void>,
): McpAppHandler {
  const resource = new URL(`${settings.publicUrl}/mcp`);
  const gate = requireBearerAuth({
    verifier,
    expectedResource: resource,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resource),
  });
  const mcp = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'baseline', version: '1.0.0' });
      server.registerTool(
        'list_volumes',
        {
          description: 'Lists the volumes the API token may view, one page at a time.',
          inputSchema: z.object({ page: z.number().int().min(1).optional() }),
          annotations: { readOnlyHint: true, openWorldHint: true },
        },
        async ({ page }) => {
          const { status, body } = await getJson(
            `${settings.apiUrl}/volumes?page=${page ?? 1}`,
            settings.apiToken,
          );
          if (status !== 200) {
            return { content: [{ type: 'text', text: `The API answered ${status}` }], isError: true };
          }
          const volumes = JSON.parse(body) as Record<string, unknown>;
          return { content: [{ type: 'text', text: JSON.stringify(volumes) }], structuredContent: volumes };
        },
      );
      return server;
    },
    { responseMode: 'json', keepAliveMs: 0 },
  );
  return async (event) => {
    const method = event.requestContext.http.method;
    const headers = new Headers();
    for (const [name, value] of Object.entries(event.headers))
      if (value !== undefined) headers.set(name, value);
    const body = event.body && event.isBase64Encoded ? Buffer.from(event.body, 'base64') : event.body;
    const request = new Request(`${settings.publicUrl}${event.rawPath}`, {
      method,
      headers,
      ...(method === 'GET' || method === 'HEAD' || body === undefined ? {} : { body }),
    });
    const auth = await gate(request);
    const response =
      auth instanceof Response
        ? auth
        : (await Promise.all([mcp.fetch(request, { authInfo: auth }), alongside?.(auth)]))[0];
    return {
      statusCode: response.status,
      headers: Object.fromEntries(response.headers),
      body: await response.text(),
    };
  };
}

/**
 * One GET over Node's own `node:http`, as the agents' function makes its API calls
 * (`lib/http-exchange.ts`): a first `fetch` in a fresh process costs about 16 ms more CPU (its
 * client loads on first use), which would flatter the comparison.
 */
function getJson(url: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
    sent.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end();
  });
}
