import { describe, expect, it } from 'vitest';
import {
  checkRedirectUri,
  redirectDestination,
  redirectUriMatches,
} from '../../../../lib/agents/oauth/redirect-uris.js';

describe('which redirect URIs an agent may use', () => {
  it.each([
    'https://claude.ai/api/mcp/auth_callback',
    'https://www.cursor.com/agents/mcp/oauth/callback',
    'http://localhost/callback',
    'http://localhost:33418/callback',
    'http://127.0.0.1:8080/cb?x=1',
    'http://[::1]:9000/cb',
    'cursor://anysphere.cursor-mcp/oauth/callback',
  ])('takes %s', (uri) => {
    expect(checkRedirectUri(uri).ok).toBe(true);
  });

  it.each([
    ['plain http to another host', 'http://agent.example.com/cb'],
    ['http to a host merely named like localhost', 'http://localhost.evil.example/cb'],
    ['http to a private address', 'http://10.0.0.1/cb'],
    ['a fragment', 'https://agent.example.com/cb#x'],
    ['a user name', 'https://user@agent.example.com/cb'],
    ['javascript:', 'javascript:alert(1)'],
    ['data:', 'data:text/html,hi'],
    ['another custom scheme', 'cursor://evil/oauth/callback'],
    ['a relative URL', '/callback'],
    ['a tab the URL parser would drop', 'https://agent.example.com/c\tb'],
    ['odd unicode', 'https://аgent.example.com/cb'],
    ['a huge URL', `https://agent.example.com/${'a'.repeat(600)}`],
    ['a port past 65535', 'http://localhost:70000/cb'],
  ])('refuses %s', (_why, uri) => {
    expect(checkRedirectUri(uri).ok).toBe(false);
  });
});

describe('matching the redirect URI of a request', () => {
  it('is exact for https', () => {
    expect(redirectUriMatches('https://a.example/cb', 'https://a.example/cb')).toBe(true);
    expect(redirectUriMatches('https://a.example/cb', 'https://a.example/cb/')).toBe(false);
    expect(redirectUriMatches('https://a.example/cb', 'https://A.example/cb')).toBe(false);
    expect(redirectUriMatches('https://a.example/cb', 'https://a.example/cb?x=1')).toBe(false);
  });

  // RFC 8252 §7.3: the agent picks a free port each time.
  it('takes any port on loopback, and nothing else that differs', () => {
    expect(redirectUriMatches('http://localhost/callback', 'http://localhost:51234/callback')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1:8000/callback', 'http://127.0.0.1:9000/callback')).toBe(true);
    expect(redirectUriMatches('http://localhost/callback', 'http://localhost:51234/other')).toBe(false);
    expect(redirectUriMatches('http://localhost/callback', 'http://127.0.0.1:51234/callback')).toBe(false);
    expect(redirectUriMatches('https://localhost/callback', 'https://localhost:4443/callback')).toBe(false);
  });

  it('names where the code goes, saying when it is this computer', () => {
    expect(redirectDestination('http://localhost:3000/cb')).toEqual({
      label: 'localhost (this computer)',
      kind: 'loopback',
    });
    expect(redirectDestination('https://claude.ai/api/mcp/auth_callback')).toEqual({
      label: 'claude.ai',
      kind: 'https',
    });
    expect(redirectDestination('cursor://anysphere.cursor-mcp/oauth/callback').label).toBe(
      'cursor://anysphere.cursor-mcp',
    );
  });
});
