import { createHash, timingSafeEqual } from 'node:crypto';
import { request } from 'node:http';
import {
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  McpServer,
  OAuthError,
  OAuthErrorCode,
  requireBearerAuth,
} from '@modelcontextprotocol/server';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import * as z from 'zod';

/**
 * The MCP cold-start baseline: the smallest MCP server on Lambda a team would write with the same
 * SDK as the agents' function (`createMcpHandler`, stateless, JSON answers, a server per request),
 * behind the SDK's bearer check, with one tool that reads the cloud API's volumes over HTTP. Bundled
 * with the same esbuild options as the functions, so the comparison measures what the agents'
 * function adds on top of the SDK, not differences in bundling.
 *
 * What it leaves out, and the agents' function does not: its bearer token is checked in memory
 * against one SHA-256 hash from the environment (no store, no grant, never revoked), and the API
 * token it reads with comes from the environment too (not a person's, looked up and decrypted).
 */

const publicUrl = process.env.BOT_PUBLIC_URL ?? '';
const apiUrl = process.env.CLOUD_API_URL ?? '';
const apiToken = process.env.BASELINE_API_TOKEN ?? '';
const tokenHash = Buffer.from(process.env.BASELINE_MCP_TOKEN_SHA256 ?? '', 'hex');
const resource = new URL(`${publicUrl}/mcp`);

const gate = requireBearerAuth({
  verifier: {
    async verifyAccessToken(token) {
      const hash = createHash('sha256').update(token).digest();
      if (hash.length !== tokenHash.length || !timingSafeEqual(hash, tokenHash)) {
        throw new OAuthError(OAuthErrorCode.InvalidToken, 'Invalid access token');
      }
      return {
        token,
        clientId: 'baseline',
        scopes: ['cloud:read'],
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
        resource,
      };
    },
  },
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
        const { status, body } = await getJson(`${apiUrl}/volumes?page=${page ?? 1}`);
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

/**
 * One GET over Node's own `node:http`, as the agents' function makes its API calls
 * (`lib/http-exchange.ts`): a first `fetch` in a fresh process costs about 16 ms more CPU (its
 * client loads on first use), which would flatter the comparison.
 */
function getJson(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, {
      headers: { authorization: `Bearer ${apiToken}`, accept: 'application/json' },
    });
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

export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const method = event.requestContext.http.method;
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers))
    if (value !== undefined) headers.set(name, value);
  const body = event.body && event.isBase64Encoded ? Buffer.from(event.body, 'base64') : event.body;
  const request = new Request(`${publicUrl}${event.rawPath}`, {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' || body === undefined ? {} : { body }),
  });
  const auth = await gate(request);
  const response = auth instanceof Response ? auth : await mcp.fetch(request, { authInfo: auth });
  return {
    statusCode: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  };
}
