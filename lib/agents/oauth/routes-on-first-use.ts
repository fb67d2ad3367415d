import type { OAuthRouteHandler } from './http.js';
import type { OAuthSettings } from './routes.js';
import { type AgentOAuthUrls, agentOAuthUrls, pathOf } from './urls.js';

/** The URLs with a document, a page or an endpoint behind them: all but the issuer and `/mcp`. */
export const ROUTED_OAUTH_URLS = [
  'protectedResourceMetadata',
  'authorizationServerMetadata',
  'authorize',
  'callback',
  'consent',
  'token',
  'register',
  'revoke',
] as const satisfies readonly (keyof AgentOAuthUrls)[];

/**
 * `oauthRoutesFor`'s routes, loaded on the first request to one of them: an agent signs in once and
 * then calls `/mcp` many times, so a cold start serving a call loads none of the pages, the sign-in
 * with Slack or the token endpoint. A failed load is tried again by the next request.
 */
export function oauthRoutesOnFirstUse(settings: OAuthSettings): Record<string, OAuthRouteHandler> {
  let loading: Promise<Record<string, OAuthRouteHandler>> | undefined;
  const routes = () => {
    loading ??= import('./routes.js')
      .then((module) => module.oauthRoutesFor(settings))
      .catch((error: unknown) => {
        loading = undefined;
        throw error;
      });
    return loading;
  };
  const urls = agentOAuthUrls(settings.publicUrl);
  return Object.fromEntries(
    ROUTED_OAUTH_URLS.map((name) => {
      const path = pathOf(urls[name]);
      const handler: OAuthRouteHandler = async (event) => {
        const route = (await routes())[path];
        if (!route) throw new Error(`no OAuth route at ${path}`);
        return route(event);
      };
      return [path, handler];
    }),
  );
}
