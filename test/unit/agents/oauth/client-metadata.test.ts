import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClientMetadataPolicy,
  checkClientIdUrl,
  fetchClientMetadata,
  PRODUCTION_CLIENT_METADATA_POLICY,
  parseClientMetadataDocument,
} from '../../../../lib/agents/oauth/client-metadata.js';
import { isPublicAddress } from '../../../../lib/agents/oauth/public-addresses.js';

const CLAUDE_CODE = 'https://claude.ai/oauth/claude-code-client-metadata';

describe('addresses the bot may fetch a metadata document from', () => {
  it.each([
    '10.0.0.1',
    '10.255.255.255',
    '127.0.0.1',
    '127.1.2.3',
    '169.254.169.254',
    '172.16.0.1',
    '192.168.1.1',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    'fc00::1',
    '::ffff:10.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '2002:0a00:0001::1',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.215.14', '1.1.1.1', '2606:4700::1111', '::ffff:1.1.1.1'])('takes %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('a client id that is a metadata document URL', () => {
  it.each([
    ['http in production', 'http://agent.example.com/client.json'],
    ['no path', 'https://agent.example.com'],
    ['a bare slash for a path', 'https://agent.example.com/'],
    ['a fragment', 'https://agent.example.com/c.json#x'],
    ['a user name', 'https://me@agent.example.com/c.json'],
    ['a dot segment', 'https://agent.example.com/a/../c.json'],
    ['a space', 'https://agent.example.com/c json'],
    ['odd unicode', 'https://agent.example.com/ç.json'],
    ['a huge URL', `https://agent.example.com/${'a'.repeat(600)}`],
  ])('is refused before any fetch when it has %s', (_why, url) => {
    expect(checkClientIdUrl(url, PRODUCTION_CLIENT_METADATA_POLICY)).toBeDefined();
  });

  it('is taken when it is an https URL with a path', () => {
    expect(checkClientIdUrl(CLAUDE_CODE, PRODUCTION_CLIENT_METADATA_POLICY)).toBeUndefined();
  });
});

describe('fetching in production: nothing but the public internet', () => {
  const resolvingTo =
    (...addresses: string[]): ClientMetadataPolicy['resolve'] =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it.each([
    ['10.x', '10.1.2.3'],
    ['127.x', '127.0.0.1'],
    ['169.254.x (the cloud metadata service)', '169.254.169.254'],
    ['::1', '::1'],
    ['an IPv4-mapped private address', '::ffff:192.168.0.10'],
  ])('refuses a host whose DNS answer is %s, without connecting', async (_why, address) => {
    const result = await fetchClientMetadata('https://agent.example.com/client.json', {
      ...PRODUCTION_CLIENT_METADATA_POLICY,
      resolve: resolvingTo(address),
    });
    expect(result).toEqual({ ok: false, reason: 'The client id’s host is not on the public internet.' });
  });

  it('refuses a host with one private address among public ones', async () => {
    const result = await fetchClientMetadata('https://agent.example.com/client.json', {
      ...PRODUCTION_CLIENT_METADATA_POLICY,
      resolve: resolvingTo('93.184.215.14', '10.0.0.7'),
    });
    expect(result.ok).toBe(false);
  });

  it.each([
    'https://127.0.0.1/client.json',
    'https://[::1]/client.json',
    'https://10.0.0.1/client.json',
    'https://169.254.169.254/latest/meta-data',
    'https://localhost/client.json',
  ])('refuses %s', async (url) => {
    expect((await fetchClientMetadata(url, PRODUCTION_CLIENT_METADATA_POLICY)).ok).toBe(false);
  });

  it('gives up on DNS that answers later than the time cap', async () => {
    const result = await fetchClientMetadata('https://agent.example.com/client.json', {
      ...PRODUCTION_CLIENT_METADATA_POLICY,
      timeoutMs: 50,
      resolve: () => new Promise(() => undefined),
    });
    expect(result).toEqual({ ok: false, reason: 'The client id’s host has no address.' });
  });

  it('refuses a host with no address', async () => {
    const result = await fetchClientMetadata('https://agent.example.com/client.json', {
      ...PRODUCTION_CLIENT_METADATA_POLICY,
      resolve: resolvingTo(),
    });
    expect(result).toEqual({ ok: false, reason: 'The client id’s host has no address.' });
  });
});

describe('fetching from an agent’s server (the local stack’s loopback policy)', () => {
  let server: Server;
  let base: string;
  const routes = new Map<
    string,
    (url: string) => { status: number; type?: string; body: string; delayMs?: number; location?: string }
  >();
  beforeAll(async () => {
    server = createServer((request, response) => {
      const url = `${base}${request.url}`;
      const route = routes.get(request.url ?? '');
      const answer = route?.(url) ?? { status: 404, body: '' };
      setTimeout(() => {
        response.writeHead(answer.status, {
          'content-type': answer.type ?? 'application/json',
          ...(answer.location ? { location: answer.location } : {}),
        });
        response.end(answer.body);
      }, answer.delayMs ?? 0);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const doc = (url: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        client_id: url,
        client_name: 'Local agent',
        redirect_uris: ['http://localhost/cb'],
        ...extra,
      });
    routes.set('/good.json', (url) => ({ status: 200, body: doc(url) }));
    routes.set('/moved.json', () => ({ status: 302, body: '', location: `${base}/good.json` }));
    routes.set('/huge.json', (url) => ({ status: 200, body: doc(url, { padding: 'x'.repeat(10_000) }) }));
    routes.set('/slow.json', (url) => ({ status: 200, body: doc(url), delayMs: 1500 }));
    routes.set('/html.json', (url) => ({ status: 200, type: 'text/html', body: doc(url) }));
    routes.set('/other.json', () => ({ status: 200, body: doc('https://someone-else.example/client.json') }));
    routes.set('/broken.json', () => ({ status: 200, body: '{"client_id":' }));
    routes.set('/proto.json', (url) => ({
      status: 200,
      body: `{"client_id":"${url}","redirect_uris":["http://localhost/cb"],"__proto__":{"polluted":1}}`,
    }));
    routes.set('/secret.json', (url) => ({ status: 200, body: doc(url, { client_secret: 's3cret' }) }));
    routes.set('/confidential.json', (url) => ({
      status: 200,
      body: doc(url, { token_endpoint_auth_method: 'private_key_jwt' }),
    }));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const local: ClientMetadataPolicy = { allowLoopbackHttp: true, timeoutMs: 500 };

  it('reads a document whose client_id is its own URL', async () => {
    const result = await fetchClientMetadata(`${base}/good.json`, local);
    expect(result).toEqual({
      ok: true,
      metadata: {
        clientId: `${base}/good.json`,
        clientName: 'Local agent',
        redirectUris: ['http://localhost/cb'],
      },
    });
  });

  it.each([
    ['a redirect, not followed', '/moved.json', /redirect/],
    ['a document over 5 KiB', '/huge.json', /larger than 5120 bytes/],
    ['an answer slower than the time cap', '/slow.json', /did not answer within 500 ms/],
    ['an answer that is not JSON', '/html.json', /did not answer JSON/],
    ['a document naming another client_id', '/other.json', /another client_id/],
    ['a document that is not valid JSON', '/broken.json', /is not JSON/],
    ['a document with a prototype key', '/proto.json', /reserved key/],
    ['a document carrying a client secret', '/secret.json', /client secret/],
    ['a confidential client', '/confidential.json', /public clients only/],
    ['a 404', '/missing.json', /HTTP 404/],
  ])('refuses %s', async (_why, path, reason) => {
    const result = await fetchClientMetadata(`${base}${path}`, local);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.reason).toMatch(reason);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('still refuses private addresses that are not this machine’s loopback names', async () => {
    expect((await fetchClientMetadata('http://10.0.0.1/client.json', local)).ok).toBe(false);
    const viaDns = await fetchClientMetadata('https://internal.example/client.json', {
      ...local,
      resolve: async () => [{ address: '10.0.0.1', family: 4 }],
    });
    expect(viaDns.ok).toBe(false);
  });

  it('refuses the same loopback document under the production policy', async () => {
    expect((await fetchClientMetadata(`${base}/good.json`, PRODUCTION_CLIENT_METADATA_POLICY)).ok).toBe(
      false,
    );
  });
});

describe('a metadata document', () => {
  it('needs redirect_uris', () => {
    expect(parseClientMetadataDocument(CLAUDE_CODE, JSON.stringify({ client_id: CLAUDE_CODE })).ok).toBe(
      false,
    );
  });

  it('needs client_id to be its URL by simple string comparison', () => {
    const doc = JSON.stringify({ client_id: `${CLAUDE_CODE}/`, redirect_uris: ['http://localhost/cb'] });
    expect(parseClientMetadataDocument(CLAUDE_CODE, doc).ok).toBe(false);
  });
});
