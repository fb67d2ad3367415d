import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { SIGN_IN_SECONDS } from '../../store/agent-authorizations.js';
import { AGENT_SCOPES, type AgentScope } from '../../store/agent-grants.js';
import { findClient } from './clients.js';
import type { OAuthContext } from './deps.js';
import { queryOf, redirect, signInCookie } from './http.js';
import { noticePage } from './pages.js';
import { isCodeChallenge } from './pkce.js';
import { checkRedirectUri, redirectUriMatches } from './redirect-uris.js';

/**
 * `GET /oauth/authorize` (OAuth 2.1 §4.1.1; MCP-FACTS §2). First the client and its redirect URI:
 * until both check out, any problem is shown to the person on a page and sent nowhere (RFC 6749
 * §4.1.2.1; an open redirector otherwise). Then the rest of the request, whose problems go back to
 * the agent at its redirect URI with `error`, `state` and `iss` (RFC 9207): the code flow only,
 * PKCE with S256 (required), the MCP resource as `resource` (RFC 8707; required, and only this
 * server's), scopes among `cloud:read` and `cloud:change`. A request that passes starts a sign-in
 * (`store.agentAuthorizations.start`) and sends the browser to Sign in with Slack with the sign-in's
 * id as `state` and its nonce, and the browser secret in a cookie.
 */

/** RFC 6749 Appendix A.5: `state` is printable ASCII; a kilobyte is ample for any client's. */
const STATE_PATTERN = /^[\x20-\x7e]{1,1024}$/;

type Problem = { readonly error: string; readonly description: string };

export async function authorize(
  event: APIGatewayProxyEventV2,
  ctx: OAuthContext,
): Promise<APIGatewayProxyStructuredResultV2> {
  const { slackSignIn } = ctx;
  if (!slackSignIn) return notSetUp();
  const query = queryOf(event);
  if (!query.ok) return noticePage(400, 'Cannot sign in this agent', query.problem);
  const clientId = query.get('client_id');
  if (!clientId) return noticePage(400, 'Cannot sign in this agent', 'The request names no client_id.');
  const found = await findClient(clientId, ctx);
  if (!found.ok) {
    ctx.logger.info('agent sign-in refused', { step: 'client', reason: found.reason });
    return noticePage(400, 'Cannot sign in this agent', found.reason);
  }
  const { client } = found;
  const asked = query.get('redirect_uri');
  // Optional only when the client registered exactly one (OAuth 2.1 §4.1.1).
  const redirectUri = asked ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri) return noticePage(400, 'Cannot sign in this agent', 'The request names no redirect_uri.');
  const check = checkRedirectUri(redirectUri);
  if (!check.ok || !client.redirectUris.some((registered) => redirectUriMatches(registered, redirectUri)))
    return noticePage(
      400,
      'Cannot sign in this agent',
      'The redirect_uri is not one this agent registered, so the sign-in cannot be sent back to it.',
    );

  // From here the redirect URI is trusted: problems go back to the agent.
  const rawState = query.get('state');
  const state = rawState !== undefined && STATE_PATTERN.test(rawState) ? rawState : undefined;
  const back = (problem: Problem) => redirect(errorRedirect(redirectUri, problem, state, ctx.urls.issuer));
  if (rawState !== undefined && state === undefined)
    return back({
      error: 'invalid_request',
      description: 'state must be 1 to 1024 printable ASCII characters.',
    });
  const problem = requestProblem(query.get, ctx.urls.resource);
  if (problem) return back(problem);
  const scopes = scopesOf(query.get('scope'));
  if (!scopes)
    return back({ error: 'invalid_scope', description: `scope may name ${AGENT_SCOPES.join(' and ')}.` });

  const started = await ctx.store.agentAuthorizations.start({
    clientId: client.clientId,
    clientName: client.name ?? '',
    redirectUri,
    codeChallenge: query.get('code_challenge') ?? '',
    resource: ctx.urls.resource,
    scopes,
    ...(state === undefined ? {} : { state }),
  });
  const slack = await slackSignIn.authorizeUrl({ state: started.id, nonce: started.nonce });
  return redirect(slack, [
    signInCookie(started.id, started.browserSecret, {
      path: new URL(ctx.urls.callback).pathname.replace(/[^/]*$/, ''),
      secure: ctx.urls.issuer.startsWith('https:'),
      maxAgeSeconds: SIGN_IN_SECONDS,
    }),
  ]);
}

/** The Slack app's client id and secret are missing: nobody can sign in, so nothing is started. */
export function notSetUp(): APIGatewayProxyStructuredResultV2 {
  return noticePage(
    503,
    'Agents cannot sign in here yet',
    'This bot is not set up for Sign in with Slack (the Slack app’s client id and secret). Ask whoever runs it.',
  );
}

function requestProblem(get: (name: string) => string | undefined, resource: string): Problem | undefined {
  if (get('response_type') !== 'code')
    return { error: 'unsupported_response_type', description: 'response_type must be code.' };
  const challenge = get('code_challenge');
  if (challenge === undefined)
    return { error: 'invalid_request', description: 'PKCE is required: send code_challenge with S256.' };
  if (get('code_challenge_method') !== 'S256')
    return { error: 'invalid_request', description: 'code_challenge_method must be S256.' };
  if (!isCodeChallenge(challenge))
    return {
      error: 'invalid_request',
      description: 'code_challenge must be the base64url SHA-256 of the verifier.',
    };
  const asked = get('resource');
  if (asked === undefined)
    return { error: 'invalid_request', description: `resource is required: ${resource}.` };
  if (asked !== resource)
    return { error: 'invalid_target', description: `This server issues tokens for ${resource} only.` };
  return undefined;
}

/** The scopes asked for; every one when none are named; undefined when one is unknown. */
export function scopesOf(scope: string | undefined): readonly AgentScope[] | undefined {
  if (scope === undefined || scope.trim() === '') return [...AGENT_SCOPES];
  const asked = scope.split(' ').filter((word) => word !== '');
  if (!asked.every((word) => (AGENT_SCOPES as readonly string[]).includes(word))) return undefined;
  return AGENT_SCOPES.filter((known) => asked.includes(known));
}

/** The agent's redirect URI with an authorization response's parameters added (RFC 6749 §4.1.2). */
export function withResponse(redirectUri: string, values: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(values))
    if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

export function errorRedirect(
  redirectUri: string,
  problem: Problem,
  state: string | undefined,
  issuer: string,
): string {
  return withResponse(redirectUri, {
    error: problem.error,
    error_description: problem.description,
    state,
    iss: issuer,
  });
}
