import * as z from 'zod';
import { prototypeKeyPath } from '../../prototype-keys.js';
import { AGENT_SCOPES } from '../../store/agent-grants.js';
import { cleanClientName } from './client-names.js';
import { checkRedirectUri } from './redirect-uris.js';
import '../../zod-settings.js';

/**
 * What `POST /oauth/register` accepts (Dynamic Client Registration, RFC 7591; MCP-FACTS §2):
 * public clients only, which authenticate to nothing and prove each code with PKCE. A request that
 * leaves `token_endpoint_auth_method` out gets `none` (RFC 7591 §3.2.1 lets the server substitute
 * values, and says which in its answer); one that asks for a secret is refused, as is any grant or
 * response type besides the code flow's. Redirect URIs follow `redirect-uris.ts`; every one must
 * pass, since an agent uses any of them later.
 */

export const MAX_REGISTRATION_BYTES = 16 * 1024;
export const MAX_REGISTERED_REDIRECT_URIS = 10;

const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;

const RegistrationSchema = z
  .object({
    redirect_uris: z.array(z.string()).min(1).max(MAX_REGISTERED_REDIRECT_URIS),
    client_name: z.string().max(1000).optional(),
    token_endpoint_auth_method: z.string().max(100).optional(),
    grant_types: z.array(z.string().max(100)).max(10).optional(),
    response_types: z.array(z.string().max(100)).max(10).optional(),
    scope: z.string().max(1000).optional(),
  })
  .loose();

export interface Registration {
  readonly clientName: string | undefined;
  readonly redirectUris: readonly string[];
  readonly grantTypes: readonly string[];
}

/** RFC 7591 §3.2.2's error codes. */
export type RegistrationError = 'invalid_redirect_uri' | 'invalid_client_metadata';

export type RegistrationCheck =
  | { readonly ok: true; readonly registration: Registration }
  | { readonly ok: false; readonly error: RegistrationError; readonly description: string };

function refuse(error: RegistrationError, description: string): RegistrationCheck {
  return { ok: false, error, description };
}

export function checkRegistration(body: unknown): RegistrationCheck {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return refuse('invalid_client_metadata', 'The request body must be a JSON object.');
  const reserved = prototypeKeyPath(body);
  if (reserved)
    return refuse('invalid_client_metadata', `The field ${reserved.join('.')} uses a reserved name.`);
  const parsed = RegistrationSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? 'body');
    const error = field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata';
    return refuse(
      error,
      field === 'redirect_uris'
        ? `redirect_uris must list 1 to ${MAX_REGISTERED_REDIRECT_URIS} URIs.`
        : `The field ${field} is not valid.`,
    );
  }
  const request = parsed.data;
  for (const uri of request.redirect_uris) {
    const check = checkRedirectUri(uri);
    if (!check.ok) return refuse('invalid_redirect_uri', `A redirect URI ${check.reason}.`);
  }
  const method = request.token_endpoint_auth_method ?? 'none';
  if (method !== 'none')
    return refuse(
      'invalid_client_metadata',
      'Only public clients are registered here: token_endpoint_auth_method must be "none".',
    );
  const grantTypes = request.grant_types ?? ['authorization_code'];
  const unknownGrant = grantTypes.find((grant) => !(GRANT_TYPES as readonly string[]).includes(grant));
  if (unknownGrant !== undefined || !grantTypes.includes('authorization_code'))
    return refuse(
      'invalid_client_metadata',
      'grant_types must be authorization_code, with refresh_token if the agent refreshes.',
    );
  if (request.response_types?.some((type) => type !== 'code'))
    return refuse('invalid_client_metadata', 'response_types must be ["code"].');
  if (request.scope !== undefined) {
    const unknown = request.scope
      .split(' ')
      .filter((scope) => scope !== '' && !(AGENT_SCOPES as readonly string[]).includes(scope));
    if (unknown.length > 0)
      return refuse('invalid_client_metadata', `scope may only name ${AGENT_SCOPES.join(' and ')}.`);
  }
  return {
    ok: true,
    registration: {
      clientName: cleanClientName(request.client_name),
      redirectUris: [...new Set(request.redirect_uris)],
      grantTypes: [...new Set(grantTypes)],
    },
  };
}
