import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AnyOperation } from '../../../lib/api/operation.js';
import { operations as allOperations, isOperationId } from '../../../lib/api/operations/index.js';
import { recordOperationEvent } from './account-events.js';
import {
  authenticate,
  type Caller,
  hashToken,
  hasScopes,
  requireScopes,
  requireUnrestricted,
} from './auth.js';
import { type Clock, createClock } from './clock.js';
import { EmulatorControl } from './control.js';
import { handleControl } from './control-http.js';
import { EmulatorError, type FieldError, notFound } from './errors.js';
import { type ActiveFault, FaultInjector } from './faults.js';
import { databaseHandlers } from './handlers/databases.js';
import { eventHandlers } from './handlers/events.js';
import { imageHandlers, receiveUpload, UPLOAD_PATH_PREFIX } from './handlers/images.js';
import { managedHandlers } from './handlers/managed.js';
import { nodeActionHandlers } from './handlers/node-actions.js';
import { nodeHandlers } from './handlers/nodes.js';
import { profileHandlers } from './handlers/profile.js';
import { regionHandlers } from './handlers/regions.js';
import { type Handler, HandlerContext, type HandlerTable, type Outcome } from './handlers/types.js';
import { volumeHandlers } from './handlers/volumes.js';
import { applyFilter, pageOf } from './listing.js';
import { PUBLISHED_CONTRACT, type PublishedOperation, SAME_OPERATION } from './published-contract.js';
import { type RateDecision, RateLimiter, type RateLimitOptions } from './rate-limit.js';
import { checkedInput } from './request-check.js';
import { RequestFields } from './request-fields.js';
import { Router } from './routes.js';
import type { SeedOptions } from './seed.js';

/**
 * The cloud API emulator: every operation of the operations table over plain `node:http`, under
 * `/v4`, with the control interface under `/__control` and image uploads under `/__upload`.
 */

export const API_PREFIX = '/v4';
export const SPEC_VERSION = '4.174.0';
const MAX_JSON_BODY_BYTES = 1024 * 1024;
const SLOW_BODY_CHUNKS = 10;

export const HANDLERS: HandlerTable = {
  ...profileHandlers,
  ...managedHandlers,
  ...databaseHandlers,
  ...volumeHandlers,
  ...imageHandlers,
  ...nodeHandlers,
  ...nodeActionHandlers,
  ...regionHandlers,
  ...eventHandlers,
};

export interface EmulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  seed?: SeedOptions;
  /**
   * Default: a frozen clock at DEFAULT_CLOCK_START that moves only when advanced, so tests repeat.
   * The local stack passes `createClock({ mode: 'real-time' })`.
   */
  clock?: Clock;
  /** Default: the general published limits; `false` turns limiting off. */
  rateLimit?: RateLimitOptions | false;
  /** Seed of the generator that decides which calls a shared fault hits. */
  faultSeed?: number;
  /** Called once per API request, after the response was sent. */
  onRequest?: (entry: {
    method: string;
    path: string;
    operationId: string | undefined;
    status: number;
  }) => void;
}

/** A running emulator (the name the end-to-end helpers use). */
export type Emulator = RunningEmulator;

export interface RunningEmulator {
  /** Base URL of the API, ending in `/v4`. */
  url: string;
  /** `http://host:port`, where `/__control` lives. */
  origin: string;
  control: EmulatorControl;
  /** Token of the unrestricted demo user, all scopes. */
  demoToken: string;
  close(): Promise<void>;
}

function keyOf(op: AnyOperation): string {
  return `${op.method} ${op.path}`;
}

/**
 * The operations served: every one of the published contract that has a handler, each paired with
 * the bot's row of the same name (or of its documented twin) for ids, faults and filters. A
 * contract operation the table lacks is not served; a table row the contract lacks is a 404.
 */
function servedOperations(
  operations: readonly AnyOperation[],
): { published: PublishedOperation; op: AnyOperation; handler: Handler }[] {
  const bySignature = new Map(operations.map((op) => [keyOf(op), op]));
  return [...PUBLISHED_CONTRACT.values()].flatMap((published) => {
    const twin = SAME_OPERATION.get(published.signature);
    const op = bySignature.get(published.signature) ?? (twin ? bySignature.get(twin) : undefined);
    const handler = op && isOperationId(op.id) ? HANDLERS[op.id] : undefined;
    return op && handler ? [{ published, op, handler }] : [];
  });
}

interface Reply {
  status: number;
  headers: Record<string, string>;
  /** Undefined: no body (204). */
  body: string | undefined;
}

function errorReply(
  status: number,
  errors: readonly FieldError[],
  headers: Record<string, string> = {},
): Reply {
  return { status, headers, body: JSON.stringify({ errors }) };
}

function rateHeaders(decision: RateDecision | undefined): Record<string, string> {
  if (!decision) return {};
  return {
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
    'x-ratelimit-reset': String(Math.ceil(decision.resetAt / 1000)),
  };
}

/**
 * Bodies read in full before an injected latency: the API acts on a request it has received
 * whether or not the client is still waiting for the answer, so a client that times out and
 * closes the connection during the latency must not stop the change.
 */
const receivedBodies = new WeakMap<IncomingMessage, Promise<string>>();

function receiveBody(req: IncomingMessage): Promise<void> {
  const body = readBody(req);
  receivedBodies.set(req, body);
  // A body that fails to arrive fails the request when the handler reads it.
  return body.then(
    () => undefined,
    () => undefined,
  );
}

async function readBody(req: IncomingMessage): Promise<string> {
  const received = receivedBodies.get(req);
  if (received) return received;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_JSON_BODY_BYTES)
      throw new EmulatorError(400, [{ reason: 'The request body is too large' }]);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = await readBody(req);
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new EmulatorError(400, [{ reason: 'The request body is not valid JSON' }]);
  }
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const operations = allOperations;
  const clock = options.clock ?? createClock();
  const faults = new FaultInjector(options.faultSeed);
  const limiter = new RateLimiter(options.rateLimit);
  const control = new EmulatorControl({ clock, seed: options.seed ?? {}, faults, limiter });
  const served = servedOperations(operations);
  const handlers = new Map(served.map(({ published, handler }) => [published.signature, handler]));
  const router = new Router(served);

  async function serveApi(
    req: IncomingMessage,
    origin: string,
    url: URL,
    meta: { operationId?: string },
  ): Promise<Reply & { fault?: ActiveFault }> {
    const method = req.method ?? 'GET';
    const route = router.match(method, url.pathname.slice(API_PREFIX.length) || '/');
    if (route.kind === 'unknown') return errorReply(404, [{ reason: 'Not found' }]);
    if (route.kind === 'wrong-method') return errorReply(405, [{ reason: 'Method not allowed' }]);
    const { op, published, pathParams } = route.match;
    meta.operationId = op.id;
    control.recordRequest(op.id, pathParams);

    const latency = faults.latencyFor(op.id);
    if (latency > 0) {
      await receiveBody(req);
      await sleep(latency);
    }
    const fault = faults.pick(op.id);
    if (fault?.afterActing && (fault.kind === 'status' || fault.kind === 'drop')) {
      // A request the API refused stays refused; one it carried out loses its answer.
      const acted = await act(req, url, op, published, pathParams, origin);
      if (acted.status >= 400) return acted;
      return failureReply(fault) ?? acted;
    }
    if (fault) {
      const failed = failureReply(fault);
      if (failed) return failed;
    }
    return act(req, url, op, published, pathParams, origin, fault);
  }

  /** The reply of an injected `status`, `rate-limit` or `drop` fault; undefined for the others. */
  function failureReply(fault: ActiveFault): (Reply & { fault?: ActiveFault }) | undefined {
    if (fault.kind === 'status') {
      const status = fault.status ?? 503;
      const headers: Record<string, string> =
        fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) };
      return { ...errorReply(status, [{ reason: 'Injected server error' }], headers), fault };
    }
    if (fault.kind === 'rate-limit') {
      return {
        ...errorReply(429, [{ reason: 'Too many requests' }], {
          'retry-after': String(fault.retryAfterSeconds ?? 1),
        }),
        fault,
      };
    }
    if (fault.kind === 'drop') return { status: 0, headers: {}, body: undefined, fault };
    return undefined;
  }

  /** Authenticates, validates and runs the operation's handler against the world. */
  async function act(
    req: IncomingMessage,
    url: URL,
    op: AnyOperation,
    published: PublishedOperation,
    pathParams: Record<string, string>,
    origin: string,
    fault?: ActiveFault,
  ): Promise<Reply & { fault?: ActiveFault }> {
    const method = req.method ?? 'GET';
    const world = control.world;
    world.settle();
    const authorization = req.headers.authorization;
    const rateKey = authorization
      ? `token:${hashToken(authorization)}`
      : `ip:${req.socket.remoteAddress ?? ''}`;
    const decision = limiter.check(rateKey, op);
    const headers: Record<string, string> = {
      ...rateHeaders(decision),
      'x-accepted-oauth-scopes': published.scopes.join(' '),
    };
    if (decision && !decision.allowed) {
      const wait = Math.max(1, Math.ceil((decision.resetAt - Date.now()) / 1000));
      return errorReply(429, [{ reason: 'Too many requests' }], { ...headers, 'retry-after': String(wait) });
    }
    try {
      let caller: Caller | undefined = authenticate(world, authorization);
      if (caller) headers['x-oauth-scopes'] = caller.token.scopes;
      if (published.access === 'public') {
        // With a token lacking the listed scope, a public operation answers as it would without one.
        if (caller && !hasScopes(caller, published.scopes)) caller = undefined;
      } else {
        if (!caller) throw new EmulatorError(401, [{ reason: 'Login required' }]);
        if (published.access === 'scoped') requireScopes(caller, published.scopes);
        if (published.grant === 'unrestricted only') requireUnrestricted(caller.user);
      }
      const body = method === 'POST' || method === 'PUT' ? await readJson(req) : undefined;
      const input = checkedInput(published, { pathParams, query: url.searchParams, body });
      const handler = handlers.get(published.signature);
      if (!handler) throw notFound();
      const ctx = new HandlerContext({ world, op, input: new RequestFields(input), caller, origin });
      const outcome: Outcome = handler(ctx);
      // Whoever made the change (the bot, a script, a person with curl), the account's events show it.
      if (method !== 'GET' && outcome.kind === 'json' && outcome.status < 300) {
        recordOperationEvent(world, op, input, outcome.body, caller);
      }
      return {
        ...render(op, outcome, input, req.headers['x-filter']),
        headers: { ...headers },
        ...(fault && { fault }),
      };
    } catch (error) {
      if (error instanceof EmulatorError) {
        return errorReply(error.status, error.errors, { ...headers, ...error.headers });
      }
      console.error('[emulator] unexpected error in', op.id, error);
      return errorReply(500, [{ reason: 'Internal server error' }], headers);
    }
  }

  function render(
    op: AnyOperation,
    outcome: Outcome,
    input: Record<string, unknown>,
    filterHeader: string | string[] | undefined,
  ): Omit<Reply, 'headers'> {
    switch (outcome.kind) {
      case 'no-content':
        return { status: 204, body: undefined };
      case 'json':
        return { status: outcome.status, body: JSON.stringify(outcome.body) };
      case 'list': {
        const header = Array.isArray(filterHeader) ? filterHeader[0] : filterHeader;
        const kept = applyFilter(op, control.listItemsOf(op.id) ?? outcome.items, header);
        const page = typeof input.page === 'number' ? input.page : undefined;
        const pageSize = typeof input.page_size === 'number' ? input.page_size : undefined;
        return { status: 200, body: JSON.stringify(pageOf(kept, page, pageSize)) };
      }
    }
  }

  async function serveUpload(req: IncomingMessage, sessionId: string): Promise<Reply> {
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    if (Number.isFinite(declared) && declared > 5 * 1024 ** 3) {
      req.resume();
      return errorReply(400, [{ reason: 'The image may be at most 5 GB compressed' }]);
    }
    let bytes = 0;
    const head = new Uint8Array(2);
    for await (const chunk of req) {
      const buffer = chunk as Buffer;
      for (let i = 0; i < buffer.length && bytes + i < head.length; i++) head[bytes + i] = buffer[i] ?? 0;
      bytes += buffer.length;
    }
    control.world.settle();
    const status = receiveUpload(control.world, sessionId, {
      contentType: req.headers['content-type'],
      bytes,
      head,
    });
    return { status, headers: {}, body: '{}' };
  }

  async function send(res: ServerResponse, reply: Reply, slowBodyMs?: number): Promise<void> {
    const headers: Record<string, string> = { 'x-spec-version': SPEC_VERSION, ...reply.headers };
    if (reply.body !== undefined) headers['content-type'] = 'application/json';
    if (reply.body === undefined) {
      res.writeHead(reply.status, headers);
      res.end();
      return;
    }
    const payload = Buffer.from(reply.body);
    headers['content-length'] = String(payload.length);
    res.writeHead(reply.status, headers);
    if (slowBodyMs === undefined || slowBodyMs <= 0 || payload.length < 2) {
      res.end(payload);
      return;
    }
    // Headers now, the body in pieces: a client sees the response start and then stall.
    const chunkSize = Math.max(1, Math.ceil(payload.length / SLOW_BODY_CHUNKS));
    for (let offset = 0; offset < payload.length; offset += chunkSize) {
      if (res.destroyed) return;
      res.write(payload.subarray(offset, offset + chunkSize));
      await sleep(slowBodyMs / SLOW_BODY_CHUNKS);
    }
    res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = req.headers.host ?? 'localhost';
    const origin = `http://${host}`;
    const url = new URL(req.url ?? '/', origin);
    const method = req.method ?? 'GET';
    try {
      if (url.pathname.startsWith('/__control/')) {
        let body: unknown;
        try {
          body = method === 'GET' ? undefined : await readJson(req);
        } catch (error) {
          if (error instanceof EmulatorError) return send(res, errorReply(400, error.errors));
          throw error;
        }
        const reply = handleControl(control, method, url.pathname, url.searchParams, body);
        return send(res, { status: reply.status, headers: {}, body: JSON.stringify(reply.body) });
      }
      if (url.pathname.startsWith(UPLOAD_PATH_PREFIX) && method === 'PUT') {
        try {
          return send(res, await serveUpload(req, url.pathname.slice(UPLOAD_PATH_PREFIX.length)));
        } catch (error) {
          if (error instanceof EmulatorError) return send(res, errorReply(error.status, error.errors));
          throw error;
        }
      }
      if (url.pathname !== API_PREFIX && !url.pathname.startsWith(`${API_PREFIX}/`)) {
        return send(res, errorReply(404, [{ reason: 'Not found' }]));
      }
      const meta: { operationId?: string } = {};
      const reply = await serveApi(req, origin, url, meta);
      if (reply.fault?.kind === 'drop') {
        req.socket.destroy();
        return;
      }
      const slow = reply.fault?.kind === 'slow-body' ? (reply.fault.bodyDurationMs ?? 2000) : undefined;
      await send(res, reply, slow);
      options.onRequest?.({
        method,
        path: url.pathname,
        operationId: meta.operationId,
        status: reply.status,
      });
    } catch (error) {
      console.error('[emulator] request failed', error);
      if (!res.headersSent) await send(res, errorReply(500, [{ reason: 'Internal server error' }]));
      else res.destroy();
    }
  }

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const origin = `http://${host}:${address.port}`;
  return {
    url: `${origin}${API_PREFIX}`,
    origin,
    control,
    get demoToken() {
      return control.tokens.demo;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
