import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/**
 * One HTTP request and its whole answer, over Node's own `node:http`, for every call the functions
 * make: DynamoDB, the Lambda hand-off, the cloud API and Slack. Node's HTTP stack is loaded with
 * the process anyway; an HTTP client package on top (undici) cost a cold first answer about 20 ms
 * to load and to compile its WebAssembly parser (`npm run bench`, cold start).
 *
 * An exchange never follows redirects and reads the whole body. It settles once: with the answer,
 * or with the first of a failed connection, no connection in time (`ConnectTimeoutError`, nothing
 * was sent), no answer in time (`AnswerTimeoutError`), the caller's signal (`AbortError`) or the
 * socket's own error (Node's `code`: `ECONNRESET`, `ECONNREFUSED`, …).
 */

export interface HttpExchangeRequest {
  readonly url: URL;
  readonly method: string;
  readonly headers?: OutgoingHttpHeaders | undefined;
  readonly body?: string | undefined;
  /** Keep-alive connections to reuse; `keepAliveAgent(url)` by default. */
  readonly agent?: HttpAgent | undefined;
  /** Who answers, for the timeout messages ("DynamoDB: no answer within 3000 ms"). */
  readonly service: string;
  readonly connectTimeoutMs?: number | undefined;
  /** From sending the request to the last byte of the answer. */
  readonly answerTimeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Called once the whole request is handed to the connection: from then on it may be acted on. */
  readonly onSent?: (() => void) | undefined;
  /** A longer answer body is not read: the exchange fails with `AnswerTooLargeError`. */
  readonly maxAnswerBytes?: number | undefined;
}

export interface HttpAnswer {
  readonly status: number;
  /** Names in lower case; a repeated header is an array only for `set-cookie`, else joined. */
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** No connection within the limit: the request was never sent, so it is safe to send again. */
export class ConnectTimeoutError extends Error {
  override readonly name = 'ConnectTimeoutError';
  readonly code = 'CONNECT_TIMEOUT';
}

/** Connected and sent, but the answer did not arrive in full within the limit. */
export class AnswerTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  readonly code = 'ANSWER_TIMEOUT';
}

/** The answer's body went past the caller's `maxAnswerBytes`; the rest was not read. */
export class AnswerTooLargeError extends Error {
  override readonly name = 'AnswerTooLargeError';
  readonly code = 'ANSWER_TOO_LARGE';
}

/** One keep-alive agent per protocol and process, so warm invocations reuse connections. */
const sharedAgents = new Map<string, HttpAgent>();

/**
 * The process's keep-alive agent for a URL's protocol. Idle connections close after 4 s (or a
 * second before the server's announced keep-alive timeout): a Lambda frozen between invocations
 * may wake up to sockets the server has already closed.
 */
export function keepAliveAgent(url: URL): HttpAgent {
  let agent = sharedAgents.get(url.protocol);
  if (!agent) {
    const options = { keepAlive: true, timeout: 4_000 };
    agent = url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
    sharedAgents.set(url.protocol, agent);
  }
  return agent;
}

/** A keep-alive agent of a client's own (one it closes with `destroy()`). */
export function ownKeepAliveAgent(url: URL): HttpAgent {
  return url.protocol === 'https:' ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
}

export function exchange(request: HttpExchangeRequest): Promise<HttpAnswer> {
  const { url, signal, service } = request;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const timers: NodeJS.Timeout[] = [];
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const fail = (error: unknown) => settle(() => reject(error));
    // Settles first, then drops the connection: its own errors come later and are ignored.
    const giveUp = (error: Error) => {
      fail(error);
      outgoing.destroy();
    };
    const onAbort = () => giveUp(abortError(signal as AbortSignal));

    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const outgoing = send(
      url,
      { method: request.method, headers: request.headers, agent: request.agent ?? keepAliveAgent(url) },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let received = 0;
        const max = request.maxAnswerBytes;
        const tooLarge = () => new AnswerTooLargeError(`${service}: answer longer than ${max} bytes`);
        if (max !== undefined && Number(response.headers['content-length'] ?? 0) > max) {
          giveUp(tooLarge());
          return;
        }
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (max !== undefined && received > max) giveUp(tooLarge());
          else chunks.push(chunk);
        });
        response.on('end', () =>
          settle(() =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks),
            }),
          ),
        );
        response.on('error', fail);
      },
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    if (request.answerTimeoutMs !== undefined) {
      const ms = request.answerTimeoutMs;
      timers.push(
        setTimeout(() => giveUp(new AnswerTimeoutError(`${service}: no answer within ${ms} ms`)), ms),
      );
    }
    outgoing.on('socket', (socket) => {
      if (!socket.connecting || request.connectTimeoutMs === undefined) return;
      const ms = request.connectTimeoutMs;
      const connect = setTimeout(
        () => giveUp(new ConnectTimeoutError(`${service}: no connection within ${ms} ms`)),
        ms,
      );
      timers.push(connect);
      socket.once('connect', () => clearTimeout(connect));
    });
    if (request.onSent) outgoing.on('finish', request.onSent);
    outgoing.on('error', fail);
    outgoing.end(request.body);
  });
}

/** As `fetch` rejects on an aborted signal: an `AbortError` whose cause is the signal's reason. */
function abortError(signal: AbortSignal): Error {
  return new DOMException('The operation was aborted', { name: 'AbortError', cause: signal.reason });
}
