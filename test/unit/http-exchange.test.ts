import { Agent, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AnswerTimeoutError,
  ConnectTimeoutError,
  exchange,
  keepAliveAgent,
  ownKeepAliveAgent,
} from '../../lib/http-exchange.js';

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let base: URL;
let answer: Answer;
let seen: { method: string; path: string; body: string; port: number }[];
let agent: Agent;

beforeEach(async () => {
  seen = [];
  answer = (_req, res) => res.end('{}');
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        path: req.url ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
        port: req.socket.remotePort ?? 0,
      });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  agent = ownKeepAliveAgent(base);
});

afterEach(async () => {
  agent.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const request = (overrides: Partial<Parameters<typeof exchange>[0]> = {}) =>
  exchange({ url: new URL('/thing?x=1', base), method: 'GET', service: 'Test', agent, ...overrides });

describe('exchange', () => {
  it('sends the method, path, headers and body, and returns the whole answer with lower-case headers', async () => {
    answer = (_req, res) => {
      res.writeHead(201, { 'X-Rate': '7', 'Content-Type': 'application/json' });
      res.write('{"a":');
      setImmediate(() => res.end('"ü"}'));
    };
    const result = await request({
      method: 'POST',
      body: '{"n":"ü"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(seen).toEqual([
      { method: 'POST', path: '/thing?x=1', body: '{"n":"ü"}', port: expect.any(Number) },
    ]);
    expect(result.status).toBe(201);
    expect(result.headers['x-rate']).toBe('7');
    expect(JSON.parse(result.body.toString('utf8'))).toEqual({ a: 'ü' });
  });

  it('reuses a kept-alive connection for the next request', async () => {
    await request();
    await request();
    expect(seen).toHaveLength(2);
    expect(seen[1]?.port).toBe(seen[0]?.port);
  });

  it('gives up on a connection that does not open in time, as never sent', async () => {
    // A name whose lookup never answers keeps the socket connecting.
    const stuck = new Agent({ lookup: () => undefined } as never);
    let sent = false;
    const error = await exchange({
      url: new URL('http://never-resolves.invalid/'),
      method: 'POST',
      body: '{}',
      service: 'Test',
      agent: stuck,
      connectTimeoutMs: 30,
      onSent: () => {
        sent = true;
      },
    }).catch((e: unknown) => e);
    stuck.destroy();
    expect(error).toBeInstanceOf(ConnectTimeoutError);
    expect(error).toMatchObject({ code: 'CONNECT_TIMEOUT', message: 'Test: no connection within 30 ms' });
    expect(sent).toBe(false);
  });

  it('gives up on an answer that does not arrive in time, after the request was sent', async () => {
    answer = () => undefined;
    let sent = false;
    const error = await request({
      answerTimeoutMs: 40,
      onSent: () => {
        sent = true;
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnswerTimeoutError);
    expect(error).toMatchObject({ name: 'TimeoutError', message: 'Test: no answer within 40 ms' });
    expect(sent).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it('stops at the caller’s signal, with its reason as the cause; an aborted signal sends nothing', async () => {
    answer = () => undefined;
    const controller = new AbortController();
    const pending = request({ signal: controller.signal }).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(new Error('deadline'));
    expect(await pending).toMatchObject({ name: 'AbortError', cause: new Error('deadline') });
    expect(seen).toHaveLength(1);

    const before = await request({ signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(before).toMatchObject({ name: 'AbortError' });
    expect(seen).toHaveLength(1);
  });

  it('fails with the socket’s code when the connection drops in the middle of the answer', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"partial":');
      setImmediate(() => res.socket?.destroy());
    };
    const error = await request().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ECONNRESET' });
  });

  it('fails with ECONNREFUSED where nothing listens', async () => {
    const error = await exchange({
      url: new URL('http://127.0.0.1:1/'),
      method: 'GET',
      service: 'Test',
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('keeps one shared agent per protocol', () => {
    expect(keepAliveAgent(new URL('http://a.example/'))).toBe(keepAliveAgent(new URL('http://b.example/')));
    expect(keepAliveAgent(new URL('https://a.example/'))).not.toBe(
      keepAliveAgent(new URL('http://a.example/')),
    );
  });
});
