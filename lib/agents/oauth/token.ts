import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { IssuedTokens } from '../../store/agent-grants.js';
import { scopesOf } from './authorize.js';
import type { OAuthContext } from './deps.js';
import { bodyOf, json, MAX_PARAMS_LENGTH, mediaTypeOf, oauthError, type Params, paramsOf } from './http.js';
import { verifierMatches } from './pkce.js';

/**
 * `POST /oauth/token` (OAuth 2.1 §3.2, §4.1.3, §4.3) and `POST /oauth/revoke` (RFC 7009), for
 * public clients: no client authentication, the client names itself with `client_id`, and a code
 * is proved with its PKCE verifier.
 *
 * A code counts once. A second redemption means the first was not the agent's own, or the code
 * leaked: the grant it was issued for goes, with every token issued under it (OAuth 2.1 §4.1.3:
 * the server "SHOULD revoke all tokens previously issued based on that authorization code"). A code
 * is checked fully (client, redirect URI, verifier, resource) before it is spent, so someone holding
 * a stolen code without its verifier cannot burn the agent's sign-in.
 *
 * Answers are JSON and never cached (§3.2.3, §3.2.4): 400 `invalid_request`, `invalid_grant`,
 * `unsupported_grant_type`, `invalid_scope`, `invalid_target` (RFC 8707 §2); 401 `invalid_client`
 * for client authentication this server does not do, or a registered client it does not know.
 */

function tokenAnswer(tokens: IssuedTokens): APIGatewayProxyStructuredResultV2 {
  return json(200, {
    access_token: tokens.accessToken,
    token_type: 'Bearer',
    expires_in: tokens.expiresInSeconds,
    refresh_token: tokens.refreshToken,
    scope: tokens.scopes.join(' '),
  });
}

type FormCheck =
  | { readonly ok: true; readonly form: Params & { ok: true } }
  | { readonly ok: false; readonly answer: APIGatewayProxyStructuredResultV2 };

function readForm(event: APIGatewayProxyEventV2): FormCheck {
  if (mediaTypeOf(event) !== 'application/x-www-form-urlencoded')
    return {
      ok: false,
      answer: oauthError(400, 'invalid_request', 'Send the parameters as application/x-www-form-urlencoded.'),
    };
  const text = bodyOf(event, MAX_PARAMS_LENGTH);
  if (text === undefined)
    return { ok: false, answer: oauthError(400, 'invalid_request', 'The request is too long.') };
  const form = paramsOf(text);
  if (!form.ok) return { ok: false, answer: oauthError(400, 'invalid_request', form.problem) };
  // Public clients only: a client that authenticates was not registered here (RFC 6749 §5.2).
  if (event.headers?.authorization !== undefined || form.get('client_secret') !== undefined)
    return {
      ok: false,
      answer: oauthError(
        401,
        'invalid_client',
        'This server has public clients only: send client_id and no credentials.',
        {
          'www-authenticate': 'Basic realm="agents"',
        },
      ),
    };
  return { ok: true, form };
}

export async function token(
  event: APIGatewayProxyEventV2,
  ctx: OAuthContext,
): Promise<APIGatewayProxyStructuredResultV2> {
  const read = readForm(event);
  if (!read.ok) return read.answer;
  const { form } = read;
  const clientId = form.get('client_id');
  if (!clientId) return oauthError(400, 'invalid_request', 'client_id is required of public clients.');
  if (!/^https?:\/\//.test(clientId) && !(await ctx.store.agentClients.get(clientId)))
    return oauthError(401, 'invalid_client', 'This client is not registered here.', {
      'www-authenticate': 'Basic realm="agents"',
    });
  const resource = form.get('resource');
  const scope = form.get('scope');
  if (scope !== undefined && !scopesOf(scope))
    return oauthError(400, 'invalid_scope', 'scope may name cloud:read and cloud:change.');
  switch (form.get('grant_type')) {
    case 'authorization_code':
      return redeem(form, clientId, resource, ctx);
    case 'refresh_token': {
      const refreshToken = form.get('refresh_token');
      if (!refreshToken) return oauthError(400, 'invalid_request', 'refresh_token is required.');
      if (resource !== undefined && resource !== ctx.urls.resource)
        return oauthError(400, 'invalid_target', `This server issues tokens for ${ctx.urls.resource} only.`);
      const refreshed = await ctx.store.agentGrants.refresh(refreshToken, clientId, resource);
      if ('refused' in refreshed) {
        ctx.logger.info('agent token refused', { grantType: 'refresh_token', refused: refreshed.refused });
        return oauthError(400, 'invalid_grant', 'The refresh token is not valid: sign the agent in again.');
      }
      return tokenAnswer(refreshed);
    }
    case undefined:
      return oauthError(400, 'invalid_request', 'grant_type is required.');
    default:
      return oauthError(
        400,
        'unsupported_grant_type',
        'grant_type must be authorization_code or refresh_token.',
      );
  }
}

async function redeem(
  form: Params & { ok: true },
  clientId: string,
  resource: string | undefined,
  ctx: OAuthContext,
): Promise<APIGatewayProxyStructuredResultV2> {
  const code = form.get('code');
  const verifier = form.get('code_verifier');
  if (!code) return oauthError(400, 'invalid_request', 'code is required.');
  if (!verifier) return oauthError(400, 'invalid_request', 'code_verifier is required (PKCE).');
  const invalid = (why: string) => {
    ctx.logger.info('agent token refused', { grantType: 'authorization_code', why });
    return oauthError(400, 'invalid_grant', 'The code is not valid: sign the agent in again.');
  };
  const looked = await ctx.store.agentAuthorizations.lookCode(code);
  if (!('code' in looked)) return invalid(looked.status);
  if (looked.status === 'used') {
    await ctx.store.agentGrants.revoke(looked.code.grant.team, looked.code.grant.user, looked.code.grant.id);
    return invalid('reused');
  }
  const issued = looked.code;
  if (issued.clientId !== clientId) return invalid('client');
  // Present: it must be the one of the authorization request (RFC 6749 §4.1.3). OAuth 2.1 no
  // longer asks for it, since PKCE binds the code, so an agent may leave it out.
  const redirectUri = form.get('redirect_uri');
  if (redirectUri !== undefined && redirectUri !== issued.redirectUri) return invalid('redirect_uri');
  if (!verifierMatches(verifier, issued.codeChallenge)) return invalid('pkce');
  if (resource !== undefined && resource !== issued.resource)
    return oauthError(400, 'invalid_target', `This code is for ${issued.resource}.`);
  const spent = await ctx.store.agentAuthorizations.redeemCode(code);
  if (spent.status !== 'valid') {
    if (spent.status === 'used')
      await ctx.store.agentGrants.revoke(issued.grant.team, issued.grant.user, issued.grant.id);
    return invalid(spent.status);
  }
  const grant = await ctx.store.agentGrants.get(issued.grant.team, issued.grant.user, issued.grant.id);
  if (!grant) return invalid('grant revoked');
  return tokenAnswer(await ctx.store.agentGrants.issueTokens(grant, issued.resource));
}

/**
 * RFC 7009 §2.1–2.2: the grant behind the token goes; the answer is 200 whether or not the token
 * was valid, so it tells nothing about other clients' tokens.
 */
export async function revoke(
  event: APIGatewayProxyEventV2,
  ctx: OAuthContext,
): Promise<APIGatewayProxyStructuredResultV2> {
  const read = readForm(event);
  if (!read.ok) return read.answer;
  const { form } = read;
  const revoked = form.get('token');
  const clientId = form.get('client_id');
  if (!revoked) return oauthError(400, 'invalid_request', 'token is required.');
  if (!clientId) return oauthError(400, 'invalid_request', 'client_id is required of public clients.');
  await ctx.store.agentGrants.revokeByToken(revoked, clientId);
  return json(200, {});
}
