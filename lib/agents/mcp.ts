import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  McpServer,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import type { Afterwards } from '../core/agent-calls.js';
import type { Caller } from '../core/caller.js';
import { type AgentGrant, type AgentScope, SLACKBOT_GRANT_ID } from '../store/agent-grants.js';
import type { ReadAhead } from '../store/read-ahead.js';
import { onTheWire } from './on-the-wire.js';
import type { AgentToolDeps } from './tool-deps.js';
import { type AgentSession, registerAgentTools } from './tools.js';

/**
 * The MCP endpoint (spec 2026-07-28 over Streamable HTTP, stateless, JSON answers; 2025-era clients
 * such as Slackbot are served by the SDK's stateless legacy path). Every request builds its own
 * server with the tools fitted to its caller, so nothing of one person's survives into another's.
 */

export const MCP_PATH = '/mcp';
export const SERVER_INFO = { name: 'cloud-chatops', version: '1.0.0' } as const;

/**
 * The servers validate no JSON Schema of their own (no output schemas, no elicitation; tool inputs
 * are zod's), so they take the SDK's lighter validator, the one it uses on edge runtimes: the
 * agents' function is built without ajv (`functions/mcp/sdk-shims.ts`), and tests run the same one.
 */
const jsonSchemaValidator = new CfWorkerJsonSchemaValidator();

/** An authenticated request: who the agent acts for, and as which agent. */
export interface AgentAuth {
  readonly grant: AgentGrant;
  readonly scopes: readonly AgentScope[];
  /** Where a scope challenge points (RFC 9728), for agents that signed in with OAuth. */
  readonly resourceMetadataUrl?: string | undefined;
  /** The person's items in the home channel, already asked for while the token was checked. */
  readonly callerRead?: ReadAhead | undefined;
}

/** A signed Slackbot call from someone whose Slackbot may not act for them: tools say how to allow it. */
export interface SlackbotStranger {
  readonly stranger: true;
}

export interface McpEndpoint {
  /** Serves one MCP request for `auth` (already verified by the caller of this function). */
  serve(request: Request, auth: AgentAuth | SlackbotStranger): Promise<Response>;
}

export function createMcpEndpoint(deps: AgentToolDeps): McpEndpoint {
  const handler = createMcpHandler(
    async ({ authInfo }) => {
      const server = new McpServer(SERVER_INFO, {
        jsonSchemaValidator,
        // Each person's tools differ: no client may cache one person's list for another.
        cacheHints: { 'tools/list': { ttlMs: 0, cacheScope: 'private' } },
      });
      await registerAgentTools(server, deps, sessionOf(authInfo));
      return server;
    },
    {
      // A buffered Lambda answer: nothing streams through API Gateway's HTTP API (MCP-FACTS §3).
      responseMode: 'json',
      keepAliveMs: 0,
      onerror: (error) => deps.logger.warn('mcp request refused', { error: error.message }),
    },
  );
  return {
    async serve(request, auth) {
      // Writes that need not hold the answer up run beside it (the agent's last use, a read's
      // audit entry), and the answer leaves once they are done.
      const pending: Promise<void>[] = [];
      if ('grant' in auth) {
        pending.push(deps.store.agentGrants.noteUse(auth.grant));
        await onTheWire();
      }
      // The read's audit entry goes out before the SDK builds the answer, which holds the thread.
      const authInfo = authInfoOf(auth, async (work) => {
        pending.push(work);
        await onTheWire();
      });
      const response = await handler.fetch(request, { authInfo });
      await Promise.all(pending);
      return response;
    },
  };
}

/** The SDK passes `AuthInfo` through untouched; the grant and the request's `afterwards` ride in `extra`. */
function authInfoOf(auth: AgentAuth | SlackbotStranger, afterwards: Afterwards): AuthInfo {
  if ('stranger' in auth) return { token: '', clientId: 'slackbot', scopes: [], extra: { stranger: true } };
  return {
    token: '',
    clientId: auth.grant.clientId,
    scopes: [...auth.scopes],
    ...(auth.resourceMetadataUrl ? { resourceMetadataUrl: auth.resourceMetadataUrl } : {}),
    extra: { grant: auth.grant, callerRead: auth.callerRead, afterwards },
  };
}

function sessionOf(authInfo: AuthInfo | undefined): AgentSession {
  if (authInfo?.extra?.stranger === true) return { stranger: true };
  const grant = authInfo?.extra?.grant as AgentGrant | undefined;
  if (!grant) throw new Error('An MCP request reached the tools without an authenticated agent.');
  return {
    caller: agentCaller(grant),
    scopes: (authInfo?.scopes ?? []) as AgentScope[],
    slackbot: grant.id === SLACKBOT_GRANT_ID,
    callerRead: authInfo?.extra?.callerRead as ReadAhead | undefined,
    afterwards: authInfo?.extra?.afterwards as Afterwards | undefined,
  };
}

/** The agent as the core sees it: the person, in the home channel, through this agent. */
export function agentCaller(grant: AgentGrant): Caller {
  return {
    team: grant.team,
    user: grant.user,
    channel: grant.homeChannel,
    surface: 'agent',
    agent: { grantId: grant.id, clientId: grant.clientId, name: grant.clientName },
    // No rule an agent can reach asks this; an agent is never a workspace admin.
    isWorkspaceAdmin: async () => false,
  };
}

/**
 * Checks the bearer token (RFC 6750) of a request to `resource` from its `Authorization` header:
 * the grant behind it, or the 401 the spec asks for, pointing at the protected resource metadata
 * (MCP-FACTS §2). It takes the header, not the request, so the check can start before the request
 * is built and its round trips overlap that work.
 */
export function bearerGate(
  deps: Pick<AgentToolDeps, 'store'>,
  resource: string,
): (authorization: string | undefined) => Promise<AgentAuth | Response> {
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(resource));
  const options = {
    verifier: {
      async verifyAccessToken(token: string): Promise<AuthInfo> {
        const verified = await deps.store.agentGrants.verifyAccessToken(token, resource);
        if ('refused' in verified) throw new OAuthError(OAuthErrorCode.InvalidToken, 'Invalid access token');
        return {
          token,
          clientId: verified.grant.clientId,
          scopes: [...verified.scopes],
          expiresAt: Math.floor(verified.expiresAt.getTime() / 1000),
          resource: new URL(verified.resource),
          extra: { grant: verified.grant, callerRead: verified.callerRead },
        };
      },
    },
    expectedResource: new URL(resource),
    resourceMetadataUrl,
  };
  return async (authorization) => {
    // As the SDK's `requireBearerAuth` reads it: the first of values joined by commas.
    const [first] = (authorization ?? '').split(',');
    try {
      const result = await verifyBearerToken(first || undefined, options);
      const grant = result.extra?.grant as AgentGrant;
      const callerRead = result.extra?.callerRead as ReadAhead | undefined;
      return { grant, scopes: result.scopes as AgentScope[], resourceMetadataUrl, callerRead };
    } catch (error) {
      return bearerAuthChallengeResponse(error, options);
    }
  };
}
