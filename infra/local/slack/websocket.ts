import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * The server side of a WebSocket (RFC 6455), as much as Socket Mode needs: the opening handshake,
 * text messages (fragmented or not), ping answered by pong, and the closing handshake. No
 * extensions are negotiated, so a client asking for `permessage-deflate` gets plain frames, as
 * section 9.1 allows. Source: https://www.rfc-editor.org/rfc/rfc6455 (sections 4.2, 5, 7).
 */

/** RFC 6455 section 1.3: the GUID the accept key is derived with. */
const HANDSHAKE_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** Far above any Socket Mode acknowledgement; a runaway client cannot fill memory. */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

const Opcode = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

/** Close codes from RFC 6455 section 7.4.1. */
export const CloseCode = {
  normal: 1000,
  goingAway: 1001,
  protocolError: 1002,
  unsupportedData: 1003,
  tooBig: 1009,
} as const;

export interface WebSocketEvents {
  /** A whole text message from the client. */
  message: [text: string];
  /** The connection is gone (closing handshake done, or the TCP connection dropped). */
  close: [code: number | undefined];
}

/** Why an upgrade request is refused, as the HTTP answer the client gets instead of 101. */
export interface UpgradeRefusal {
  readonly status: number;
  readonly reason: string;
}

export function refuseUpgrade(socket: Duplex, refusal: UpgradeRefusal): void {
  const body = `${refusal.reason}\n`;
  socket.end(
    `HTTP/1.1 ${refusal.status} ${refusal.reason}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** RFC 6455 section 4.2.1: what makes a request an opening handshake. */
export function handshakeProblem(request: IncomingMessage): UpgradeRefusal | undefined {
  const upgrade = (request.headers.upgrade ?? '').toLowerCase();
  const connection = (request.headers.connection ?? '').toLowerCase();
  const key = request.headers['sec-websocket-key'];
  if (request.method !== 'GET') return { status: 405, reason: 'Method Not Allowed' };
  if (upgrade !== 'websocket' || !connection.split(/\s*,\s*/).includes('upgrade'))
    return { status: 400, reason: 'Bad Request' };
  if (typeof key !== 'string' || Buffer.from(key, 'base64').length !== 16)
    return { status: 400, reason: 'Bad Request' };
  if (request.headers['sec-websocket-version'] !== '13') return { status: 426, reason: 'Upgrade Required' };
  return undefined;
}

/** Completes the opening handshake of a request `handshakeProblem` found nothing wrong with. */
export function acceptWebSocket(request: IncomingMessage, socket: Duplex, head: Buffer): WebSocketConnection {
  const key = String(request.headers['sec-websocket-key']);
  const accept = createHash('sha1').update(`${key}${HANDSHAKE_GUID}`).digest('base64');
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
  );
  return new WebSocketConnection(socket, head);
}

interface Frame {
  readonly fin: boolean;
  readonly opcode: number;
  readonly payload: Buffer;
}

export class WebSocketConnection extends EventEmitter<WebSocketEvents> {
  readonly #socket: Duplex;
  #buffered: Buffer = Buffer.alloc(0);
  #fragments: Buffer[] = [];
  #fragmentsBytes = 0;
  #closeSent = false;
  #closed = false;

  constructor(socket: Duplex, head: Buffer) {
    super();
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('close', () => this.#gone(undefined));
    socket.on('error', () => socket.destroy());
    if (head.length > 0) this.#receive(head);
  }

  get open(): boolean {
    return !this.#closed && !this.#closeSent;
  }

  /** Sends a text message; false when the connection is closing or gone. */
  send(text: string): boolean {
    if (!this.open) return false;
    this.#socket.write(encodeFrame(Opcode.text, Buffer.from(text, 'utf8')));
    return true;
  }

  /** Starts the closing handshake; the TCP connection ends when the client answers. */
  close(code: number = CloseCode.normal, reason = ''): void {
    if (this.#closed || this.#closeSent) return;
    this.#closeSent = true;
    const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
    payload.writeUInt16BE(code, 0);
    payload.write(reason, 2, 'utf8');
    this.#socket.write(encodeFrame(Opcode.close, payload));
  }

  /** Drops the TCP connection without a closing handshake (a network failure). */
  terminate(): void {
    this.#socket.destroy();
    this.#gone(undefined);
  }

  #gone(code: number | undefined): void {
    if (this.#closed) return;
    this.#closed = true;
    this.emit('close', code);
  }

  #fail(code: number): void {
    this.close(code);
    this.#socket.end();
    this.#gone(code);
  }

  #receive(chunk: Buffer): void {
    this.#buffered = this.#buffered.length === 0 ? chunk : Buffer.concat([this.#buffered, chunk]);
    for (;;) {
      if (this.#closed) return;
      const parsed = decodeFrame(this.#buffered);
      if (parsed === 'incomplete') return;
      if (parsed === 'unmasked' || parsed === 'too_big') {
        // Section 5.1: a server must close the connection on an unmasked client frame.
        this.#fail(parsed === 'too_big' ? CloseCode.tooBig : CloseCode.protocolError);
        return;
      }
      this.#buffered = this.#buffered.subarray(parsed.length);
      this.#handle(parsed.frame);
    }
  }

  #handle(frame: Frame): void {
    switch (frame.opcode) {
      case Opcode.ping:
        if (!this.#closeSent) this.#socket.write(encodeFrame(Opcode.pong, frame.payload));
        return;
      case Opcode.pong:
        return;
      case Opcode.close: {
        const code = frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : undefined;
        // Section 5.5.1: answer a close with a close (echoing its code), then end the connection.
        if (!this.#closeSent) {
          this.#closeSent = true;
          this.#socket.write(encodeFrame(Opcode.close, frame.payload.subarray(0, 2)));
        }
        this.#socket.end();
        this.#gone(code);
        return;
      }
      case Opcode.text:
      case Opcode.binary:
      case Opcode.continuation:
        this.#collect(frame);
        return;
      default:
        this.#fail(CloseCode.protocolError);
    }
  }

  #collect(frame: Frame): void {
    const starts = frame.opcode !== Opcode.continuation;
    if (starts === this.#fragments.length > 0) {
      // A new message inside a fragmented one, or a continuation of nothing: section 5.4.
      this.#fail(CloseCode.protocolError);
      return;
    }
    if (starts && frame.opcode === Opcode.binary) {
      this.#fail(CloseCode.unsupportedData);
      return;
    }
    this.#fragmentsBytes += frame.payload.length;
    if (this.#fragmentsBytes > MAX_MESSAGE_BYTES) {
      this.#fail(CloseCode.tooBig);
      return;
    }
    this.#fragments.push(frame.payload);
    if (!frame.fin) return;
    const text = Buffer.concat(this.#fragments).toString('utf8');
    this.#fragments = [];
    this.#fragmentsBytes = 0;
    // Messages that cross our close frame still arrive: the client may be acknowledging.
    if (!this.#closed) this.emit('message', text);
  }
}

function encodeFrame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const header = length < 126 ? Buffer.alloc(2) : length <= 0xffff ? Buffer.alloc(4) : Buffer.alloc(10);
  header[0] = 0x80 | opcode;
  if (length < 126) {
    header[1] = length;
  } else if (length <= 0xffff) {
    header[1] = 126;
    header.writeUInt16BE(length, 2);
  } else {
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([header, payload]);
}

type Decoded = { readonly frame: Frame; readonly length: number } | 'incomplete' | 'unmasked' | 'too_big';

function decodeFrame(buffer: Buffer): Decoded {
  if (buffer.length < 2) return 'incomplete';
  const first = buffer[0] ?? 0;
  const second = buffer[1] ?? 0;
  if ((second & 0x80) === 0) return 'unmasked';
  let length = second & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return 'incomplete';
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return 'incomplete';
    const long = buffer.readBigUInt64BE(2);
    if (long > BigInt(MAX_MESSAGE_BYTES)) return 'too_big';
    length = Number(long);
    offset = 10;
  }
  if (length > MAX_MESSAGE_BYTES) return 'too_big';
  if (buffer.length < offset + 4 + length) return 'incomplete';
  const mask = buffer.subarray(offset, offset + 4);
  const payload = Buffer.from(buffer.subarray(offset + 4, offset + 4 + length));
  for (let index = 0; index < payload.length; index += 1) {
    payload[index] = (payload[index] ?? 0) ^ (mask[index % 4] ?? 0);
  }
  return { frame: { fin: (first & 0x80) !== 0, opcode: first & 0x0f, payload }, length: offset + 4 + length };
}
