import { getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import {
  authorizationServerMetadata,
  protectedResourceMetadata,
} from '../../../../lib/agents/oauth/metadata.js';
import { agentOAuthUrls } from '../../../../lib/agents/oauth/urls.js';

describe('where the OAuth documents and endpoints are', () => {
  it('derives every URL from the public URL, an origin as deployed', () => {
    const urls = agentOAuthUrls('https://abc123.execute-api.us-east-1.amazonaws.com');
    expect(urls.issuer).toBe('https://abc123.execute-api.us-east-1.amazonaws.com');
    expect(urls.resource).toBe('https://abc123.execute-api.us-east-1.amazonaws.com/mcp');
    expect(urls.protectedResourceMetadata).toBe(getOAuthProtectedResourceMetadataUrl(new URL(urls.resource)));
    expect(urls.authorizationServerMetadata).toBe(
      'https://abc123.execute-api.us-east-1.amazonaws.com/.well-known/oauth-authorization-server',
    );
  });

  // RFC 9728 §3.1 and RFC 8414 §3.1: the well-known part goes first, the path after it.
  it('puts a public URL’s path after the well-known part, as the RFCs and the SDK do', () => {
    const urls = agentOAuthUrls('https://bot.example.com/prod/');
    expect(urls.issuer).toBe('https://bot.example.com/prod');
    expect(urls.resource).toBe('https://bot.example.com/prod/mcp');
    expect(urls.protectedResourceMetadata).toBe(getOAuthProtectedResourceMetadataUrl(new URL(urls.resource)));
    expect(urls.authorizationServerMetadata).toBe(
      'https://bot.example.com/.well-known/oauth-authorization-server/prod',
    );
    expect(urls.token).toBe('https://bot.example.com/prod/oauth/token');
  });
});

describe('the discovery documents', () => {
  const urls = agentOAuthUrls('https://bot.example.com');

  it('names the bot as the resource’s only authorization server, with header bearer tokens', () => {
    expect(protectedResourceMetadata(urls)).toMatchObject({
      resource: 'https://bot.example.com/mcp',
      authorization_servers: ['https://bot.example.com'],
      bearer_methods_supported: ['header'],
    });
  });

  it('offers S256 only and public clients only', () => {
    const metadata = authorizationServerMetadata(urls);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(['none']);
    expect(metadata.grant_types_supported).not.toContain('implicit');
  });
});
