import { AGENT_SCOPES } from '../../store/agent-grants.js';
import type { AgentOAuthUrls } from './urls.js';

/**
 * The two discovery documents an MCP client reads before it signs in (MCP-FACTS §2): the MCP
 * resource's Protected Resource Metadata (RFC 9728 §2), which names the bot as its authorization
 * server, and that server's own metadata (RFC 8414 §2).
 *
 * Built here rather than with the SDK's `oauthMetadataResponse`: its resource document has no
 * `bearer_methods_supported`, and loading the SDK would put the whole MCP server on the cold start
 * of pages that need none of it. Its rule that the issuer be https (or http on localhost) holds
 * anyway, since `BOT_PUBLIC_URL` is checked so at start (`lib/config.ts`); a test compares these
 * documents with the SDK's.
 */

export const RESOURCE_NAME = 'Cloud ChatOps';

export function protectedResourceMetadata(urls: AgentOAuthUrls) {
  return {
    resource: urls.resource,
    authorization_servers: [urls.issuer],
    scopes_supported: [...AGENT_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: RESOURCE_NAME,
  };
}

export function authorizationServerMetadata(urls: AgentOAuthUrls) {
  return {
    issuer: urls.issuer,
    authorization_endpoint: urls.authorize,
    token_endpoint: urls.token,
    registration_endpoint: urls.register,
    revocation_endpoint: urls.revoke,
    scopes_supported: [...AGENT_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    // Public clients only: agents hold no secret (OAuth 2.1 §2.1), so PKCE is what binds a code.
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    // draft-ietf-oauth-client-id-metadata-document: a client id may be its metadata document's URL.
    client_id_metadata_document_supported: true,
    // RFC 9207: every redirect back to the agent carries `iss`.
    authorization_response_iss_parameter_supported: true,
  };
}
