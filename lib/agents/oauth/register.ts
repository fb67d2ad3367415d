import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { OAuthContext } from './deps.js';
import { bodyOf, json, mediaTypeOf, oauthError } from './http.js';
import { checkRegistration, MAX_REGISTRATION_BYTES } from './registration.js';

/** `POST /oauth/register`: Dynamic Client Registration (RFC 7591 §3), public clients only. */
export async function register(
  event: APIGatewayProxyEventV2,
  ctx: OAuthContext,
): Promise<APIGatewayProxyStructuredResultV2> {
  if (mediaTypeOf(event) !== 'application/json')
    return oauthError(400, 'invalid_client_metadata', 'Send the client metadata as application/json.');
  const text = bodyOf(event, MAX_REGISTRATION_BYTES);
  if (text === undefined)
    return oauthError(
      400,
      'invalid_client_metadata',
      `The request is longer than ${MAX_REGISTRATION_BYTES} bytes.`,
    );
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return oauthError(400, 'invalid_client_metadata', 'The request body is not JSON.');
  }
  const checked = checkRegistration(body);
  if (!checked.ok) return oauthError(400, checked.error, checked.description);
  const { registration } = checked;
  const client = await ctx.store.agentClients.register({
    clientName: registration.clientName ?? '',
    redirectUris: registration.redirectUris,
  });
  ctx.logger.info('agent client registered', { redirectUris: client.redirectUris.length });
  // RFC 7591 §3.2.1: the registered values, including those this server chose.
  return json(201, {
    client_id: client.clientId,
    client_id_issued_at: Math.floor(client.issuedAt.getTime() / 1000),
    ...(registration.clientName === undefined ? {} : { client_name: registration.clientName }),
    redirect_uris: client.redirectUris,
    grant_types: registration.grantTypes,
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
}
