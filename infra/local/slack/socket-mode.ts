import { randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import * as z from 'zod';

/**
 * Slack's side of Socket Mode: `apps.connections.open` hands an app-level token a WebSocket URL;
 * on it Slack says `hello`, then sends each request as an envelope the app acknowledges by its
 * `envelope_id`, and asks the app to reconnect with `disconnect`. Rules `socket-mode-open`,
 * `socket-mode-envelopes` and `socket-mode-disconnect` in `rules.ts` give the sources.
 */

/** The app id Slack names in `hello` and the URL; the same the stand-in's payloads carry. */
export const STAND_IN_APP_ID = 'A0CLOUD';
export const DEFAULT_APP_TOKEN = 'xapp-1-A0CLOUD-1-local-stand-in';
export const CONNECTIONS_WRITE = 'connections:write';

/** Slack's acknowledgement deadline for every envelope. */
export const ACK_DEADLINE_MS = 3_000;
/**
 * An Events API delivery is retried three times: at once, after a minute, after five minutes
 * (each counted from the missed deadline of the attempt before).
 */
export const EVENT_RETRY_DELAYS_MS = [0, 60_000, 300_000] as const;
/** A `warning` disconnect comes about ten seconds before Slack closes the connection. */
export const DISCONNECT_GRACE_MS = 10_000;
/** `hello.debug_info.approximate_connection_time`: how long Slack means to keep a connection, in seconds. */
const APPROXIMATE_CONNECTION_SECONDS = 3_600;
/** Far above any Socket Mode acknowledgement; a runaway client cannot fill memory. */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** Close codes from RFC 6455 section 7.4.1 that the stand-in sends itself. */
const CloseCode = { normal: 1000, unsupportedData: 1003 } as const;

/**
 * Answers an upgrade request with an HTTP status instead of 101, as `ws` answers the handshakes
 * it refuses; `ws` has no public way to refuse one it would accept, so this is the one response
 * written here (the shape `ws`'s README shows for authentication in the `upgrade` event).
 */
function refuseUpgrade(socket: Duplex, status: number): void {
  const body = `${STATUS_CODES[status] ?? ''}\n`;
  socket.on('error', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

export interface AppLevelToken {
  readonly token: string;
  readonly scopes: readonly string[];
}

export type EnvelopeType = 'slash_commands' | 'interactive' | 'events_api';
export type DisconnectReason = 'warning' | 'refresh_requested' | 'link_disabled';

export interface Envelope {
  readonly envelope_id: string;
  readonly type: EnvelopeType;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly accepts_response_payload: boolean;
  readonly retry_attempt?: number;
  readonly retry_reason?: string;
}

/** How a delivery ended: acknowledged (with the response, where the envelope takes one) or not. */
export type EnvelopeOutcome =
  | {
      readonly acknowledged: true;
      readonly envelopeId: string;
      /** The acknowledgement's payload; only where `accepts_response_payload` was true. */
      readonly payload: Readonly<Record<string, unknown>> | undefined;
      /** 1 for the first delivery, 2 for the first retry… */
      readonly attempts: number;
    }
  | {
      readonly acknowledged: false;
      readonly envelopeId: string;
      /** `timeout`: no acknowledgement in time; `no_connection`: the app had no open connection. */
      readonly reason: 'timeout' | 'no_connection';
      readonly attempts: number;
    };

/** What the stand-in saw on its Socket Mode connections, oldest first. */
export type SocketModeRecord =
  | { readonly kind: 'connected'; readonly connection: number; readonly at: number }
  | { readonly kind: 'sent'; readonly connection: number; readonly envelope: Envelope; readonly at: number }
  | {
      readonly kind: 'acknowledged';
      readonly connection: number;
      readonly envelopeId: string;
      readonly payload: unknown;
      readonly at: number;
    }
  | {
      readonly kind: 'disconnect';
      readonly connection: number;
      readonly reason: DisconnectReason;
      readonly at: number;
    }
  | { readonly kind: 'closed'; readonly connection: number; readonly at: number };

export interface SocketModeEvents {
  record: [record: SocketModeRecord];
}

/** What answers `apps.connections.open`: Slack's JSON body. */
export interface ConnectionsOpenAnswer {
  readonly ok: boolean;
  readonly url?: string;
  readonly error?: string;
  readonly needed?: string;
  readonly provided?: string;
}

export class NotAcknowledgedError extends Error {
  readonly outcome: EnvelopeOutcome & { acknowledged: false };

  constructor(outcome: EnvelopeOutcome & { acknowledged: false }) {
    super(`Slack got no acknowledgement for envelope ${outcome.envelopeId} (${outcome.reason})`);
    this.name = 'NotAcknowledgedError';
    this.outcome = outcome;
  }
}

/** The app's acknowledgement of an envelope: `{ envelope_id, payload? }`. */
const AcknowledgementSchema = z.object({
  envelope_id: z.string().min(1),
  payload: z.record(z.string(), z.unknown()).optional(),
});

interface Connection {
  readonly id: number;
  readonly socket: WebSocket;
  /** Set once a `disconnect` was sent: no new envelopes go here, and it closes at this time. */
  closesAt?: number | undefined;
}

interface Pending {
  readonly type: EnvelopeType;
  readonly envelopeId: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly acceptsResponse: boolean;
  /** Deliveries so far (0 when none could be sent yet). */
  attempts: number;
  /** The connection the latest attempt went out on; its acknowledgement counts only there. */
  connection: number | undefined;
  /** When the latest attempt went out (or failed for want of a connection). */
  sentAt: number;
  readonly settle: (outcome: EnvelopeOutcome) => void;
}

export interface SocketModeOptions {
  /** `ws://host:port` of the stand-in; URLs handed out point here. */
  readonly websocketBase: string;
  readonly now: () => number;
  readonly appId?: string;
  /** App-level tokens Slack issued for the app; one with `connections:write` by default. */
  readonly appTokens?: readonly AppLevelToken[];
  /**
   * How often deadlines, redeliveries and closing connections are looked at on their own, in
   * real milliseconds; 0 turns it off (tests with a controlled clock call `sweep()`).
   */
  readonly sweepEveryMs?: number;
}

/** Whether Slack takes a response in the acknowledgement of this envelope. */
function acceptsResponsePayload(type: EnvelopeType, payload: Readonly<Record<string, unknown>>): boolean {
  if (type === 'slash_commands') return true;
  if (type === 'events_api') return false;
  return payload.type === 'view_submission' || payload.type === 'block_suggestion';
}

export class SocketModeHub extends EventEmitter<SocketModeEvents> {
  readonly appId: string;
  readonly #options: SocketModeOptions;
  /**
   * The WebSocket protocol (RFC 6455) from `ws`, on the stand-in's own HTTP server's upgrades.
   * No extensions are negotiated (a client offering `permessage-deflate` gets plain frames, as
   * section 9.1 allows); a message over `MAX_MESSAGE_BYTES` closes the connection with 1009.
   */
  readonly #websockets = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: MAX_MESSAGE_BYTES,
  });
  readonly #tokens: Map<string, AppLevelToken>;
  readonly #tickets = new Set<string>();
  readonly #connections = new Map<number, Connection>();
  readonly #pending = new Map<string, Pending>();
  readonly #records: SocketModeRecord[] = [];
  readonly #timer: NodeJS.Timeout | undefined;
  #nextConnection = 1;
  #enabled = true;

  constructor(options: SocketModeOptions) {
    super();
    this.#options = options;
    this.appId = options.appId ?? STAND_IN_APP_ID;
    const tokens = options.appTokens ?? [{ token: DEFAULT_APP_TOKEN, scopes: [CONNECTIONS_WRITE] }];
    this.#tokens = new Map(tokens.map((token) => [token.token, token]));
    const every = options.sweepEveryMs ?? 1_000;
    if (every > 0) {
      this.#timer = setInterval(() => this.sweep(), every);
      this.#timer.unref();
    }
  }

  /** The first app-level token, for the app's `SLACK_APP_TOKEN`. */
  get appToken(): string {
    const first = this.#tokens.keys().next();
    if (first.done) throw new Error('The stand-in issued no app-level token');
    return first.value;
  }

  /**
   * Connections the app holds open: a disconnected one counts until its closing handshake
   * starts. (`ws` reports `close` only once the TCP connection is gone too, which the app may
   * see first.)
   */
  get openConnections(): number {
    return [...this.#connections.values()].filter((c) => c.socket.readyState === WebSocket.OPEN).length;
  }

  records(): readonly SocketModeRecord[] {
    return [...this.#records];
  }

  /** Resolves with the id of the next connection that gets its `hello`. */
  nextConnection(): Promise<number> {
    return new Promise((resolve) => {
      const listener = (record: SocketModeRecord) => {
        if (record.kind !== 'connected') return;
        this.off('record', listener);
        resolve(record.connection);
      };
      this.on('record', listener);
    });
  }

  /**
   * `apps.connections.open`. The app-level token comes in the Authorization header only: the
   * method page says a token passed as a POST parameter is an error.
   */
  open(authorization: string | undefined): ConnectionsOpenAnswer {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (token === undefined) return { ok: false, error: 'not_authed' };
    if (/^xox[a-z]-/.test(token)) return { ok: false, error: 'not_allowed_token_type' };
    const issued = this.#tokens.get(token);
    if (!issued) return { ok: false, error: 'invalid_auth' };
    if (!issued.scopes.includes(CONNECTIONS_WRITE))
      return {
        ok: false,
        error: 'missing_scope',
        needed: CONNECTIONS_WRITE,
        provided: issued.scopes.join(','),
      };
    const ticket = randomUUID();
    this.#tickets.add(ticket);
    const url = new URL('/link/', this.#options.websocketBase);
    url.searchParams.set('ticket', ticket);
    url.searchParams.set('app_id', this.appId);
    return { ok: true, url: url.toString() };
  }

  /**
   * An HTTP upgrade on the stand-in's server; true when it was for Socket Mode. A URL whose ticket
   * was never issued or was used already is refused with 401; `ws` refuses a request that is no
   * WebSocket opening handshake (405 for a method other than GET, 400 otherwise).
   */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(request.url ?? '/', this.#options.websocketBase);
    if (url.pathname !== '/link/') return false;
    const ticket = url.searchParams.get('ticket') ?? '';
    if (!this.#tickets.has(ticket)) {
      refuseUpgrade(socket, 401);
      return true;
    }
    // `ws` calls back only once the handshake is accepted, so a malformed request leaves the
    // ticket usable; the callback comes synchronously, so no second request can take it between.
    this.#websockets.handleUpgrade(request, socket, head, (websocket) => {
      // Each URL is good for one connection: the app asks apps.connections.open for the next.
      this.#tickets.delete(ticket);
      this.#accepted(websocket);
    });
    return true;
  }

  #accepted(websocket: WebSocket): void {
    const connection: Connection = { id: this.#nextConnection++, socket: websocket };
    // `ws` reports a client's protocol error here after closing the connection itself (1002,
    // or 1009 for a message over the limit); without a listener it would be thrown.
    websocket.on('error', () => {});
    if (!this.#enabled) {
      this.#send(connection, { type: 'disconnect', reason: 'link_disabled', debug_info: this.#debugInfo() });
      websocket.close(CloseCode.normal);
      return;
    }
    this.#connections.set(connection.id, connection);
    websocket.on('message', (data, isBinary) => {
      // Socket Mode speaks JSON text only.
      if (isBinary) websocket.close(CloseCode.unsupportedData);
      else this.#received(connection, data.toString());
    });
    websocket.on('close', () => this.#closed(connection));
    this.#send(connection, {
      type: 'hello',
      num_connections: this.openConnections,
      debug_info: { ...this.#debugInfo(), approximate_connection_time: APPROXIMATE_CONNECTION_SECONDS },
      connection_info: { app_id: this.appId },
    });
    this.#record({ kind: 'connected', connection: connection.id, at: this.#options.now() });
  }

  /**
   * Sends a request as an envelope and resolves when the app acknowledges it or Slack gives up:
   * commands and interactions after the deadline, events after their last retry.
   */
  deliver(type: EnvelopeType, payload: Readonly<Record<string, unknown>>): Promise<EnvelopeOutcome> {
    return new Promise((settle) => {
      const pending: Pending = {
        type,
        envelopeId: randomUUID(),
        payload,
        acceptsResponse: acceptsResponsePayload(type, payload),
        attempts: 0,
        connection: undefined,
        sentAt: this.#options.now(),
        settle,
      };
      this.#pending.set(pending.envelopeId, pending);
      if (this.#attempt(pending)) return;
      if (type !== 'events_api') {
        this.#settle(pending, { acknowledged: false, reason: 'no_connection' });
      }
      // An event waits for its retries, as it would after a failed HTTP delivery.
    });
  }

  /**
   * Sends `disconnect` on every open connection (or only on `connection`). No envelope goes out
   * there afterwards; `warning` and `refresh_requested` connections close after a grace period,
   * `link_disabled` ones at once, and Socket Mode stays off: a new connection is told
   * `link_disabled` too.
   */
  disconnect(reason: DisconnectReason, connection?: number): void {
    const now = this.#options.now();
    if (reason === 'link_disabled') this.#enabled = false;
    for (const target of this.#connections.values()) {
      if (connection !== undefined && target.id !== connection) continue;
      if (target.closesAt !== undefined) continue;
      target.closesAt = reason === 'link_disabled' ? now : now + DISCONNECT_GRACE_MS;
      this.#send(target, { type: 'disconnect', reason, debug_info: this.#debugInfo() });
      this.#record({ kind: 'disconnect', connection: target.id, reason, at: now });
      if (reason === 'link_disabled') target.socket.close(CloseCode.normal);
    }
  }

  /** Socket Mode switched back on in the app's settings. */
  enable(): void {
    this.#enabled = true;
  }

  /**
   * Acts on the clock: envelopes past their deadline are redelivered (events) or given up on
   * (commands, interactions, events out of retries), and disconnected connections past their
   * grace period are closed.
   */
  sweep(): void {
    const now = this.#options.now();
    for (const pending of [...this.#pending.values()]) {
      const deadline = pending.sentAt + (pending.attempts === 0 ? 0 : ACK_DEADLINE_MS);
      if (now < deadline) continue;
      if (pending.type !== 'events_api') {
        this.#settle(pending, { acknowledged: false, reason: 'timeout' });
        continue;
      }
      const retries = Math.max(0, pending.attempts - 1);
      const delay = EVENT_RETRY_DELAYS_MS[retries];
      if (delay === undefined) {
        this.#settle(pending, { acknowledged: false, reason: 'timeout' });
        continue;
      }
      if (now < deadline + delay) continue;
      if (!this.#attempt(pending)) {
        // No connection to retry on: that attempt failed too.
        pending.attempts += 1;
        pending.sentAt = now;
      }
    }
    for (const connection of this.#connections.values()) {
      if (connection.closesAt !== undefined && now >= connection.closesAt)
        connection.socket.close(CloseCode.normal);
    }
  }

  /** Drops every connection and gives up on every envelope (the stand-in is stopping). */
  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    for (const pending of [...this.#pending.values()])
      this.#settle(pending, { acknowledged: false, reason: 'no_connection' });
    for (const connection of this.#connections.values()) connection.socket.terminate();
    this.#connections.clear();
    // Upgrades that still arrive are refused with 503.
    this.#websockets.close();
  }

  /** Sends the envelope's next attempt on a connection that takes envelopes; false when none does. */
  #attempt(pending: Pending): boolean {
    const connection = [...this.#connections.values()].reverse().find((c) => c.closesAt === undefined);
    if (!connection) return false;
    const retry = pending.attempts;
    const envelope: Envelope = {
      envelope_id: pending.envelopeId,
      type: pending.type,
      payload: pending.payload,
      accepts_response_payload: pending.acceptsResponse,
      ...(pending.type === 'events_api'
        ? { retry_attempt: retry, retry_reason: retry === 0 ? '' : 'timeout' }
        : {}),
    };
    pending.attempts += 1;
    pending.connection = connection.id;
    pending.sentAt = this.#options.now();
    this.#send(connection, envelope);
    this.#record({ kind: 'sent', connection: connection.id, envelope, at: pending.sentAt });
    return true;
  }

  #received(connection: Connection, text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    const ack = AcknowledgementSchema.safeParse(parsed);
    if (!ack.success) return;
    const pending = this.#pending.get(ack.data.envelope_id);
    // An acknowledgement counts on the connection the envelope went out on, for its latest attempt.
    if (!pending || pending.connection !== connection.id) return;
    this.#record({
      kind: 'acknowledged',
      connection: connection.id,
      envelopeId: pending.envelopeId,
      payload: ack.data.payload,
      at: this.#options.now(),
    });
    this.#settle(pending, {
      acknowledged: true,
      payload: pending.acceptsResponse ? ack.data.payload : undefined,
    });
  }

  #closed(connection: Connection): void {
    this.#connections.delete(connection.id);
    this.#record({ kind: 'closed', connection: connection.id, at: this.#options.now() });
  }

  #settle(
    pending: Pending,
    outcome:
      | { acknowledged: true; payload: Readonly<Record<string, unknown>> | undefined }
      | { acknowledged: false; reason: 'timeout' | 'no_connection' },
  ): void {
    if (!this.#pending.delete(pending.envelopeId)) return;
    pending.settle({ ...outcome, envelopeId: pending.envelopeId, attempts: pending.attempts });
  }

  #send(connection: Connection, message: object): void {
    connection.socket.send(JSON.stringify(message));
  }

  #record(record: SocketModeRecord): void {
    this.#records.push(record);
    this.emit('record', record);
  }

  #debugInfo(): { host: string; build_number: number } {
    return { host: `applink-local-${randomBytes(3).toString('hex')}`, build_number: 1 };
  }
}
