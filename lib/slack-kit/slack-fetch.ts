import type { FetchFunction } from '@slack/web-api';
import { exchange } from '../http-exchange.js';

/**
 * The `fetch` Slack's Web API client (and Bolt's `respond`) call, over `http-exchange.ts`: Node's
 * own HTTP stack, which every other call of the functions uses. `globalThis.fetch` set up a second
 * HTTP stack on a process's first Slack call (Node's copy of undici, its WHATWG request and stream
 * objects, its HTTP parser compiled from WebAssembly), about 10 ms of a cold login or Approve click
 * (`npm run bench`).
 *
 * It answers the client's own `FetchFunction` contract: a text body out; status, headers, URL and
 * the body as text, JSON or bytes back. A form body (a file upload) goes through `fetch` as before.
 */
export const slackFetch: FetchFunction = async (url, init = {}) => {
  const { body } = init;
  if (body !== undefined && typeof body !== 'string') return fetch(url, init);
  const answer = await exchange({
    url: new URL(url),
    method: init.method ?? 'GET',
    headers: init.headers,
    body,
    service: 'Slack',
    // As undici's default, which `fetch` had; the client sets no timeout of its own.
    connectTimeoutMs: 10_000,
    signal: init.signal,
  });
  if (answer.status >= 300 && answer.status < 400 && init.redirect !== 'manual') {
    // As `fetch` fails under the client's `redirect: 'error'`; Slack's endpoints do not redirect.
    // The URL stays out of the message: a response_url is as good as a credential for 30 minutes.
    throw new TypeError(`Slack answered a redirect (${answer.status}), which is not followed`);
  }
  return new SlackAnswer(String(url), answer.status, new AnswerHeaders(answer.headers), answer.body);
};

/** The answer and its headers as the client reads them (the package names but does not export them). */
type FetchResponse = Awaited<ReturnType<FetchFunction>>;
type FetchHeaders = FetchResponse['headers'];

/** An answer whose body has been read. */
class SlackAnswer implements FetchResponse {
  constructor(
    readonly url: string,
    readonly status: number,
    readonly headers: AnswerHeaders,
    private readonly bytes: Buffer,
  ) {}

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /** Not kept: the client never reads it, and `fetch` over HTTP/2 has none either. */
  get statusText(): string {
    return '';
  }

  async text(): Promise<string> {
    return this.bytes.toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return new Uint8Array(this.bytes).buffer;
  }
}

/** Response headers as `Headers` reads them: names in lower case, repeated values joined by ", ". */
class AnswerHeaders implements FetchHeaders {
  readonly #values: Map<string, string>;

  constructor(headers: Record<string, string | string[] | undefined>) {
    this.#values = new Map(
      Object.entries(headers).flatMap(([name, value]): [string, string][] =>
        value === undefined ? [] : [[name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value]],
      ),
    );
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }

  entries(): IterableIterator<[string, string]> {
    return this.#values.entries();
  }
}
