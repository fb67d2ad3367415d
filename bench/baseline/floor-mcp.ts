import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';
import { loadConfig, storageSettings } from '../../lib/config.js';
import { type AgentGrant, AgentGrantRepository } from '../../lib/store/agent-grants.js';
import { createHttpTable, tableTarget } from '../../lib/store/http-table.js';
import { mcpAppHandler } from './mcp-app.js';

/**
 * The floor of the agents' function's cold start: the minimal MCP server (`mcp-app.ts`) plus only
 * what any request to `/mcp` cannot be answered without: the bot's configuration, checked by its
 * own `loadConfig`, and the bearer token checked as the agents' function checks it
 * (`store.agentGrants.verifyAccessToken`: the token's item, its grant and the caller's items read
 * from DynamoDB in one batch through the bot's table client; the grant's last use written beside
 * the call, `noteUse`). Neither the tools fitted to the person,
 * the operations table, the Slack client nor the OAuth pages: whatever the agents' function costs
 * above this floor is what loading less of it could still save.
 */

const config = loadConfig(process.env);
const publicUrl = config.BOT_PUBLIC_URL ?? '';
const resource = `${publicUrl}/mcp`;
// The table as `openTable` (lib/runtime.ts) opens it for the agents' function; not through that
// module, which also wires the Slack clients and so loads their packages, which the floor must not.
const settings = storageSettings(config, 'background');
const grants = new AgentGrantRepository({
  table: createHttpTable({
    ...tableTarget(config.DYNAMODB_ENDPOINT, process.env),
    connectTimeoutMs: settings.connectTimeoutMs,
    requestTimeoutMs: settings.requestTimeoutMs,
    maxAttempts: settings.maxAttempts,
  }),
  tableName: config.TABLE_NAME,
  now: () => new Date(),
});

export const handler = mcpAppHandler(
  { publicUrl, apiUrl: config.CLOUD_API_URL, apiToken: process.env.BASELINE_API_TOKEN ?? '' },
  {
    async verifyAccessToken(token) {
      const verified = await grants.verifyAccessToken(token, resource);
      if ('refused' in verified) throw new OAuthError(OAuthErrorCode.InvalidToken, 'Invalid access token');
      return {
        token,
        clientId: verified.grant.clientId,
        scopes: [...verified.scopes],
        expiresAt: Math.floor(verified.expiresAt.getTime() / 1000),
        resource: new URL(verified.resource),
        extra: { grant: verified.grant },
      };
    },
  },
  (auth) => grants.noteUse(auth.extra?.grant as AgentGrant),
);
