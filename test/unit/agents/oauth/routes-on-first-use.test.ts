import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { type OAuthSettings, oauthRoutesFor } from '../../../../lib/agents/oauth/routes.js';
import { oauthRoutesOnFirstUse } from '../../../../lib/agents/oauth/routes-on-first-use.js';
import { createLogger } from '../../../../lib/observability/logger.js';
import type { Store } from '../../../../lib/store/index.js';

/**
 * The agents' function mounts the OAuth routes through `oauthRoutesOnFirstUse`, which loads them on
 * the first sign-in request: it must offer every path the routes serve, and answer as they do.
 */

const settingsAt = (publicUrl: string): OAuthSettings => ({
  // The metadata documents read nothing; a route that did would fail loudly on this.
  store: {} as Store,
  logger: createLogger('test'),
  publicUrl,
  slackApp: undefined,
  botTokens: {
    tokenFor: async () => {
      throw new Error('no workspace in this test');
    },
    forget: () => undefined,
  },
});

const get = (rawPath: string) =>
  ({
    rawPath,
    rawQueryString: '',
    headers: {},
    requestContext: { http: { method: 'GET', path: rawPath } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

describe('the OAuth routes loaded on first use', () => {
  it.each(['https://bot.example.com', 'https://bot.example.com/prod'])(
    'offer exactly the paths the routes serve, for the public URL %s',
    (publicUrl) => {
      const eager = Object.keys(oauthRoutesFor(settingsAt(publicUrl))).sort();
      const lazy = Object.keys(oauthRoutesOnFirstUse(settingsAt(publicUrl))).sort();
      expect(lazy).toEqual(eager);
      expect(lazy).toHaveLength(8);
    },
  );

  it('answer the authorization server metadata as the routes do', async () => {
    const settings = settingsAt('https://bot.example.com');
    const path = '/.well-known/oauth-authorization-server';
    const lazy = await oauthRoutesOnFirstUse(settings)[path]?.(get(path));
    const eager = await oauthRoutesFor(settings)[path]?.(get(path));
    expect(lazy?.statusCode).toBe(200);
    expect(lazy).toEqual(eager);
  });
});
