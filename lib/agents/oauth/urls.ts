/**
 * Where the bot's OAuth pages for agents live, all derived from its public URL (`BOT_PUBLIC_URL`),
 * which is also the authorization server's issuer: the MCP resource is `<public>/mcp`
 * (MCP-FACTS §1.1), its Protected Resource Metadata sits at the path RFC 9728 §3.1 derives from it,
 * and the authorization server's metadata at the one RFC 8414 §3.1 derives from the issuer. The
 * deployed public URL is the HTTP API's own endpoint, an origin, so both well-known documents are at
 * the root; a public URL with a path gets that path inserted after `/.well-known/…`, as the RFCs
 * say, and the endpoints under it.
 */

export interface AgentOAuthUrls {
  /** The issuer identifier (RFC 8414 §2): the public URL without a trailing slash. */
  readonly issuer: string;
  /** The canonical URL of the MCP endpoint, the only `resource` tokens are issued for (RFC 8707). */
  readonly resource: string;
  readonly protectedResourceMetadata: string;
  readonly authorizationServerMetadata: string;
  readonly authorize: string;
  /** Where Sign in with Slack sends the browser back. */
  readonly callback: string;
  readonly consent: string;
  readonly token: string;
  readonly register: string;
  readonly revoke: string;
}

export function agentOAuthUrls(publicUrl: string): AgentOAuthUrls {
  const url = new URL(publicUrl);
  const base = url.pathname.replace(/\/+$/, '');
  const at = (path: string) => `${url.origin}${path}`;
  return {
    issuer: at(base),
    resource: at(`${base}/mcp`),
    protectedResourceMetadata: at(`/.well-known/oauth-protected-resource${base}/mcp`),
    authorizationServerMetadata: at(`/.well-known/oauth-authorization-server${base}`),
    authorize: at(`${base}/oauth/authorize`),
    callback: at(`${base}/oauth/callback`),
    consent: at(`${base}/oauth/consent`),
    token: at(`${base}/oauth/token`),
    register: at(`${base}/oauth/register`),
    revoke: at(`${base}/oauth/revoke`),
  };
}

/** The path of one of these URLs, as the function's route table and API Gateway's `rawPath` have it. */
export function pathOf(url: string): string {
  return new URL(url).pathname;
}
