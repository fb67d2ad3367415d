import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { ErrorCode, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackFetch } from '../../../lib/slack-kit/slack-fetch.js';

/**
 * Slack's Web API client over `slackFetch` instead of `globalThis.fetch`: what the client reads of
 * an answer (status, headers, body) must reach it the same, or rate limits and errors would be
 * misread. A plain server stands in for Slack, answering what each test sets.
 */

interface Seen {
  method: string;
  url: string;
  contentType: string | undefined;
  body: string;
}

let server: Server;
let baseUrl: string;
let answer: (request: IncomingMessage) => {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
};
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    seen.push({
      method: request.method ?? '',
      url: request.url ?? '',
      contentType: request.headers['content-type'],
      body: Buffer.concat(chunks).toString('utf8'),
    });
    const { status, headers, body } = answer(request);
    response.writeHead(status, headers);
    response.end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  baseUrl = `http://127.0.0.1:${address.port}/api/`;
});
afterAll(() => {
  server.close();
});

const client = () =>
  new WebClient('xoxb-test', {
    slackApiUrl: baseUrl,
    fetch: slackFetch,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });

describe('slackFetch under the Web API client', () => {
  it('posts the call as a form and hands back the answer and its scopes', async () => {
    seen.length = 0;
    answer = () => ({
      status: 200,
      headers: { 'content-type': 'application/json', 'x-oauth-scopes': 'chat:write,commands' },
      body: JSON.stringify({ ok: true, ts: '1.0002', message: { text: 'é ✓' } }),
    });
    const result = await client().chat.postMessage({ channel: 'C1', text: 'hello & bye' });
    expect(result).toMatchObject({ ok: true, ts: '1.0002', message: { text: 'é ✓' } });
    expect(result.response_metadata?.scopes).toEqual(['chat:write', 'commands']);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/chat.postMessage' });
    expect(seen[0]?.contentType).toContain('application/x-www-form-urlencoded');
    expect(new URLSearchParams(seen[0]?.body).get('text')).toBe('hello & bye');
  });

  it('reads a rate limit from the status and Retry-After, as the client does with fetch', async () => {
    answer = () => ({ status: 429, headers: { 'retry-after': '7' }, body: '' });
    await expect(client().chat.postMessage({ channel: 'C1', text: 'x' })).rejects.toMatchObject({
      code: ErrorCode.RateLimitedError,
      retryAfter: 7,
    });
  });

  it('reports another status with its headers and body, and a Slack error by its name', async () => {
    answer = () => ({ status: 503, headers: { 'x-reason': ['a', 'b'] }, body: 'down for a moment' });
    await expect(client().chat.postMessage({ channel: 'C1', text: 'x' })).rejects.toMatchObject({
      code: ErrorCode.HTTPError,
      statusCode: 503,
      headers: { 'x-reason': 'a, b' },
      body: 'down for a moment',
    });
    answer = () => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ok: false, error: 'not_in_channel' }),
    });
    await expect(client().chat.postMessage({ channel: 'C1', text: 'x' })).rejects.toMatchObject({
      code: ErrorCode.PlatformError,
      data: { error: 'not_in_channel' },
    });
  });

  it('refuses a redirect instead of following it, without the URL in its message', async () => {
    answer = () => ({ status: 302, headers: { location: 'http://elsewhere.invalid/' }, body: '' });
    await expect(client().chat.postMessage({ channel: 'C1', text: 'x' })).rejects.toMatchObject({
      code: ErrorCode.RequestError,
    });
    const responseUrl = `${baseUrl}commands/T0001/1234/secret-part`;
    const refused = await slackFetch(responseUrl, { method: 'POST', body: '{}' }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(TypeError);
    expect(String((refused as Error).message)).not.toContain('secret-part');
  });

  it('answers a JSON post (Bolt’s respond) with ok, status, text and bytes', async () => {
    seen.length = 0;
    answer = () => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' });
    const response = await slackFetch(`${baseUrl}respond`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'done' }),
    });
    expect(response.ok).toBe(true);
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('text/plain');
    expect(await response.text()).toBe('ok');
    expect(Buffer.from(await response.arrayBuffer()).toString('utf8')).toBe('ok');
    expect(seen[0]).toMatchObject({ contentType: 'application/json', body: '{"text":"done"}' });
  });

  it('sends a form body (a file upload) through fetch', async () => {
    seen.length = 0;
    answer = () => ({ status: 200, headers: {}, body: 'OK' });
    const form = new FormData();
    form.append('file', new Blob(['chart bytes']), 'chart.png');
    const response = await slackFetch(`${baseUrl}upload`, { method: 'POST', body: form });
    expect(response.status).toBe(200);
    expect(seen[0]?.contentType).toContain('multipart/form-data');
    expect(seen[0]?.body).toContain('chart bytes');
  });
});
