import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { SERVER_INFO } from '../../lib/agents/mcp.js';
import type { AnyOperation } from '../../lib/api/operation.js';
import { operations } from '../../lib/api/operations/index.js';
import { agentKindOf } from '../../lib/core/agent-operations.js';
import { mcpEvent } from './mcp-event.js';

/**
 * The `tools/list` the agents' surface chose not to serve (`lib/agents/tools.ts`): one tool per
 * operation of the table, for comparison with the five tools it serves. Each tool is the least it
 * could be: the operation's id as its name, its summary as its description (with the consequence
 * of a destructive one), its request schema as the input schema and the hints of its kind, served
 * by the same SDK with the same options, so the bytes are what an agent would have received.
 */

export interface PerOperationList {
  readonly operations: number;
  /** The HTTP answer's body, as an agent receives it. */
  readonly bytes: number;
}

function describeForTool(op: AnyOperation): string {
  return op.destructive ? `${op.summary}. ${op.destructive.consequence}` : op.summary;
}

export async function perOperationToolsList(publicUrl: string): Promise<PerOperationList> {
  const handler = createMcpHandler(
    () => {
      const server = new McpServer(SERVER_INFO, {
        cacheHints: { 'tools/list': { ttlMs: 0, cacheScope: 'private' } },
      });
      for (const op of operations) {
        const kind = agentKindOf(op);
        server.registerTool(
          op.id,
          {
            description: describeForTool(op),
            inputSchema: op.request,
            annotations:
              kind === 'read'
                ? { readOnlyHint: true, openWorldHint: true }
                : { readOnlyHint: false, destructiveHint: kind === 'destructive', openWorldHint: true },
          },
          () => ({ content: [] }),
        );
      }
      return server;
    },
    { responseMode: 'json', keepAliveMs: 0 },
  );
  const event = mcpEvent({ method: 'tools/list' }, 'unused');
  const response = await handler.fetch(
    new Request(`${publicUrl}/mcp`, {
      method: 'POST',
      headers: Object.entries(event.headers).filter((entry): entry is [string, string] => !!entry[1]),
      body: event.body ?? '',
    }),
  );
  const body = await response.text();
  const tools = (JSON.parse(body) as { result?: { tools?: unknown[] } }).result?.tools;
  if (response.status !== 200 || tools?.length !== operations.length) {
    throw new Error(`The per-operation tools/list did not list every operation: ${body.slice(0, 500)}`);
  }
  await handler.close();
  return { operations: operations.length, bytes: Buffer.byteLength(body) };
}
