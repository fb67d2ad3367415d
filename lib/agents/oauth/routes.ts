import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { BotTokens } from '../../slack-kit/web-client.js';
import { authorize } from './authorize.js';
import { type ClientMetadataPolicy, PRODUCTION_CLIENT_METADATA_POLICY } from './client-metadata.js';
import { callback, consent } from './consent.js';
import type { OAuthContext, OAuthRouteDeps } from './deps.js';
import { json, methodNotAllowed, methodOf, type OAuthRouteHandler, oauthError, preflight } from './http.js';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata.js';
import { noticePage } from './pages.js';
import { register } from './register.js';
import { createSlackSignIn } from './slack-sign-in.js';
import { revoke, token } from './token.js';
import { agentOAuthUrls, pathOf } from './urls.js';
import { botWorkspaces } from './workspaces.js';

export type { OAuthRouteDeps } from './deps.js';
export type { OAuthRouteHandler } from './http.js';

/**
 * The bot as the OAuth 2.1 authorization server of its own MCP resource (MCP-FACTS §2), as routes:
 * path → handler of API Gateway v2 events, for `lib/agents/app.ts` to mount beside `/mcp`.
 *
 * | path | method | what |
 * | --- | --- | --- |
 * | `/.well-known/oauth-protected-resource/mcp` | GET | RFC 9728 metadata of `<public>/mcp` |
 * | `/.well-known/oauth-authorization-server` | GET | RFC 8414 metadata |
 * | `/oauth/authorize` | GET | checks the agent's request, then Sign in with Slack |
 * | `/oauth/callback` | GET | Slack's way back: who the person is, then the consent page |
 * | `/oauth/consent` | POST | the person's answer: a grant and a code, or `access_denied` |
 * | `/oauth/token` | POST | codes and refresh tokens for access tokens |
 * | `/oauth/register` | POST | Dynamic Client Registration |
 * | `/oauth/revoke` | POST | token revocation |
 *
 * (Paths under the public URL's own path when it has one; see `urls.ts`.) A handler that fails
 * unexpectedly answers a page or an OAuth error saying to try again, and logs the error's kind
 * only: never a code, a token, a state or a cookie.
 */
export function oauthRoutes(deps: OAuthRouteDeps): Record<string, OAuthRouteHandler> {
  const ctx: OAuthContext = { ...deps, urls: agentOAuthUrls(deps.publicUrl) };
  const { urls } = ctx;
  const document =
    (body: unknown): OAuthRouteHandler =>
    async (event) => {
      const method = methodOf(event);
      if (method === 'OPTIONS') return preflight('GET');
      if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed('GET');
      // Public and the same for everyone: clients may cache it for an hour.
      return json(200, body, { 'cache-control': 'public, max-age=3600' });
    };
  const handle =
    (
      allow: 'GET' | 'POST',
      kind: 'page' | 'api',
      run: (event: APIGatewayProxyEventV2, ctx: OAuthContext) => Promise<APIGatewayProxyStructuredResultV2>,
    ): OAuthRouteHandler =>
    async (event) => {
      const method = methodOf(event);
      if (kind === 'api' && method === 'OPTIONS') return preflight(allow);
      // Not HEAD for the pages: starting a sign-in or spending Slack's code is no HEAD's business.
      if (method !== allow) return methodNotAllowed(allow);
      try {
        return await run(event, ctx);
      } catch (error) {
        deps.logger.error('agent OAuth request failed', {
          path: event.rawPath,
          error: error instanceof Error ? error.name : 'unknown',
        });
        return kind === 'page'
          ? noticePage(
              503,
              'Something went wrong',
              'The sign-in could not go on just now. Start it again from your agent in a minute.',
            )
          : oauthError(503, 'temporarily_unavailable', 'Try again in a minute.', { 'retry-after': '30' });
      }
    };
  return {
    [pathOf(urls.protectedResourceMetadata)]: document(protectedResourceMetadata(urls)),
    [pathOf(urls.authorizationServerMetadata)]: document(authorizationServerMetadata(urls)),
    [pathOf(urls.authorize)]: handle('GET', 'page', authorize),
    [pathOf(urls.callback)]: handle('GET', 'page', callback),
    [pathOf(urls.consent)]: handle('POST', 'page', consent),
    [pathOf(urls.token)]: handle('POST', 'api', token),
    [pathOf(urls.register)]: handle('POST', 'api', register),
    [pathOf(urls.revoke)]: handle('POST', 'api', revoke),
  };
}

/** What the functions (and the local stack) know, from which `oauthRoutesFor` wires the routes. */
export interface OAuthSettings {
  readonly store: OAuthRouteDeps['store'];
  readonly logger: Logger;
  readonly publicUrl: string;
  /**
   * The Slack app's client id and secret (`SLACK_CLIENT_ID`, `SLACK_CLIENT_SECRET`); without them
   * agents cannot sign in (the authorize page says so), and Slackbot and signed-in agents are
   * served all the same.
   */
  readonly slackApp: { readonly clientId: string; readonly clientSecret: string } | undefined;
  /** `SLACK_API_URL`: its origin is Slack's for Sign in with Slack; `https://slack.com` when unset. */
  readonly slackApiUrl?: string | undefined;
  /** The bot's token in each workspace (`SlackAccess.botTokens`). */
  readonly botTokens: BotTokens;
  /** The production policy unless the local stack says otherwise. */
  readonly clientMetadata?: ClientMetadataPolicy | undefined;
}

export function oauthRoutesFor(settings: OAuthSettings): Record<string, OAuthRouteHandler> {
  const urls = agentOAuthUrls(settings.publicUrl);
  return oauthRoutes({
    store: settings.store,
    logger: settings.logger,
    publicUrl: settings.publicUrl,
    slackSignIn:
      settings.slackApp &&
      createSlackSignIn({
        clientId: settings.slackApp.clientId,
        clientSecret: settings.slackApp.clientSecret,
        redirectUri: urls.callback,
        slackUrl: settings.slackApiUrl ? new URL(settings.slackApiUrl).origin : 'https://slack.com',
      }),
    workspaces: botWorkspaces(settings.botTokens, settings.slackApiUrl),
    clientMetadata: settings.clientMetadata ?? PRODUCTION_CLIENT_METADATA_POLICY,
  });
}
