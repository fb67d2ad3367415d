import { createHash, timingSafeEqual } from 'node:crypto';
import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';
import { mcpAppHandler } from './mcp-app.js';

/**
 * The MCP cold-start baseline: the minimal MCP server (`mcp-app.ts`) with the cheapest bearer check
 * there is, in memory against one SHA-256 hash from the environment: a token that no store holds,
 * no grant stands behind and nobody can revoke.
 */

const publicUrl = process.env.BOT_PUBLIC_URL ?? '';
const tokenHash = Buffer.from(process.env.BASELINE_MCP_TOKEN_SHA256 ?? '', 'hex');

export const handler = mcpAppHandler(
  {
    publicUrl,
    apiUrl: process.env.CLOUD_API_URL ?? '',
    apiToken: process.env.BASELINE_API_TOKEN ?? '',
  },
  {
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
        resource: new URL(`${publicUrl}/mcp`),
      };
    },
  },
);
