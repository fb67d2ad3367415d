import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { BOT_SCOPES } from '../../../lib/slack-kit/app-scopes.js';
import { type AppSettings, defaultAppSettings } from './app-settings.js';
import { HistoryCaps, type InstallKind } from './history-caps.js';
import { type OAuthApp, SECOND_TEAM, type SlackTeam, StandInOAuth } from './oauth.js';
import {
  OPENID_PATHS,
  OPENID_TOKEN_METHOD,
  OPENID_USER_INFO_METHOD,
  type OpenIdClient,
  StandInOpenId,
} from './openid.js';
import {
  type ChannelRateLimit,
  ChannelRateLimiter,
  DEFAULT_CHANNEL_RATE_LIMIT,
  type InjectedRateLimit,
  MethodRateLimiter,
  type RateDecision,
} from './rate-limit.js';
import { type ResponseUrlOptions, ResponseUrls } from './response-urls.js';
import { type AppLevelToken, SocketModeHub } from './socket-mode.js';
import {
  DEFAULT_SLACK_SEED,
  type SlackChannel,
  type SlackSeed,
  SlackStore,
  type StoredFile,
  type StoredMessage,
} from './store.js';
import { TriggerRegistry } from './triggers.js';
import { callWebApi, mimeTypeOf, type WebApiContext } from './web-api.js';

/**
 * A Slack stand-in on `node:http` for tests and the local stack: the Web API methods the bot
 * calls (usable as `@slack/web-api`'s `slackApiUrl`), the files upload URLs, and `response_url`
 * endpoints, all recording into an in-memory store.
 *
 * Routes: `POST /api/<method>`, `POST|PUT /upload/<fileId>`, `GET /files/<fileId>/<name>` (with a
 * token: rule `file-downloads`), `GET /client/files/<fileId>/<name>` (a person's signed-in client),
 * `POST /response/<id>`, "Add to Slack" at `/oauth/v2/authorize` (`oauth.ts`), Sign in with Slack
 * at `/.well-known/openid-configuration`, `/openid/connect/authorize` and `/openid/connect/keys`
 * (`openid.ts`), and the Socket Mode WebSocket at `/link/` (`socket-mode.ts`); anything else goes
 * to `fallback` when given.
 */

export const DEFAULT_BOT_TOKEN = 'xoxb-local-stand-in';

/** Far above anything the bot sends; it keeps a runaway client from filling memory. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface SlackStandInOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  readonly port?: number;
  readonly host?: string;
  readonly botToken?: string;
  readonly seed?: SlackSeed;
  /** Clock in epoch milliseconds, for message timestamps, rate limits and `response_url` expiry. */
  readonly now?: () => number;
  /** Per-channel limit on `chat.postMessage`: off unless given (`true` means about 1/s, burst 3). */
  readonly rateLimit?: boolean | Partial<ChannelRateLimit>;
  /**
   * How long a completed upload takes to be processed and shared, on `now`'s clock (default
   * `DEFAULT_FILE_PROCESSING_MS`, about what Slack takes for a small image).
   */
  readonly fileProcessingMs?: number;
  /**
   * The install of the stand-in's own bot token: `internal` (default; a customer-built app) or
   * `distributed` (outside the Marketplace: history capped). "Add to Slack" installs are distributed.
   */
  readonly botTokenInstall?: InstallKind;
  /**
   * Channels besides the seed's (they come back on `store.reset()`); each has the bot as a member
   * unless its `members` say otherwise.
   */
  readonly channels?: readonly SlackChannel[];
  /** The seeded bot token's scopes; the manifest's (`lib/slack/app-scopes.ts`) unless given. */
  readonly botScopes?: readonly string[];
  /**
   * Each other method's documented tier (`METHOD_TIERS`), per workspace: off unless given, so
   * tests that make many calls on purpose are not slowed by it.
   */
  readonly methodTiers?: boolean;
  /**
   * The app's settings (Messages tab) and the workspace's plan; by default the app manifest's
   * settings on a Standard plan. `settings` on the stand-in changes them while it runs.
   */
  readonly app?: Partial<AppSettings>;
  /** A distributed app's OAuth settings: "Add to Slack" works, into the seeded and a second workspace. */
  readonly oauthApp?: OAuthApp;
  /** The app's Sign in with Slack settings: people of the seeded workspace can sign in to it. */
  readonly openIdClient?: OpenIdClient;
  /** Socket Mode: the app-level tokens Slack issued (one with `connections:write` by default). */
  readonly appTokens?: readonly AppLevelToken[];
  /** Socket Mode deadlines and redeliveries looked at every this many real ms; 0: only on `socketMode.sweep()`. */
  readonly socketModeSweepEveryMs?: number;
  /** Serves requests outside the stand-in's routes (the browser page mounts here). */
  readonly fallback?: (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;
}

export interface SlackStandIn {
  /** Base URL, e.g. `http://127.0.0.1:49152`. */
  readonly url: string;
  /** `${url}/api/`, for `new WebClient(token, { slackApiUrl })`. */
  readonly apiUrl: string;
  readonly botToken: string;
  readonly store: SlackStore;
  /** The app's settings and the workspace's plan, read on every call: change them to test the bot against them. */
  readonly settings: AppSettings;
  /** "Add to Slack": the authorize page, codes, `oauth.v2.access` and the tokens it issued. */
  readonly oauth: StandInOAuth;
  /**
   * Sign in with Slack: the discovery document, the authorize page, `openid.connect.token`, the
   * signing keys, `openid.connect.userInfo` and the user tokens it issued.
   */
  readonly openId: StandInOpenId;
  /** Socket Mode: `apps.connections.open`, the connections, envelopes and acknowledgements. */
  readonly socketMode: SocketModeHub;
  /**
   * Where `GET /app_redirect?team=…` (Slack's "open the app in this workspace" link) sends the
   * browser: the sandbox page, which takes the workspace from its `team` parameter.
   */
  openClientAt(url: string): void;
  /** A fresh `response_url` for an interaction by `user` in `channel`. */
  responseUrlFor(channel: string, user: string, options?: ResponseUrlOptions): string;
  /** A `trigger_id` for an interaction by `user`, valid for one view within about three seconds. */
  triggerIdFor(user: string, options?: { readonly viewId?: string }): string;
  /** Shows the bot's immediate answer to a slash command, as Slack does with the HTTP 200 body. */
  acknowledge(responseUrl: string, payload: unknown): StoredMessage | undefined;
  /** Makes the chosen methods answer 429 from now on (see `InjectedRateLimit`); `undefined` stops. */
  injectRateLimit(rule: InjectedRateLimit | undefined): void;
  /**
   * Makes file downloads (`url_private`) answer `status` from now on, the next `times` of them
   * (every one by default): a failed download as the bot meets it. `undefined` stops.
   */
  failFileDownloads(rule: { readonly status: number; readonly times?: number } | undefined): void;
  /** Stalls the calls `rule` picks from now on; `undefined` stops and drops the held connections. */
  stall(rule: StallRule | undefined): void;
  close(): Promise<void>;
}

/**
 * What a stalled Web API call does: `unanswered` neither acts nor answers (a request lost on the
 * way in), `answer_lost` acts (a message is posted) and never answers (an answer lost on the way
 * back). Either way the caller cannot know whether Slack acted.
 */
export type StallMode = 'unanswered' | 'answer_lost';
export type StallRule = (method: string, args: Readonly<Record<string, unknown>>) => StallMode | undefined;

/** What Slack answers a file URL fetched without a usable token: its sign-in page (rule `file-downloads`). */
const SIGN_IN_PAGE =
  '<!DOCTYPE html><html lang="en-US"><head><title>Sign in | Slack</title></head><body><h1>Sign in to your workspace</h1></body></html>';

class BodyTooLargeError extends Error {}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLargeError('request body too large');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function mediaType(request: IncomingMessage): string {
  return (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

async function multipartEntries(
  request: IncomingMessage,
  body: Buffer,
): Promise<Array<[string, string | Buffer]>> {
  const form = await new Response(new Uint8Array(body), {
    headers: { 'content-type': request.headers['content-type'] ?? '' },
  }).formData();
  const entries: Array<[string, string | Buffer]> = [];
  for (const [name, value] of form) {
    entries.push([name, typeof value === 'string' ? value : Buffer.from(await value.arrayBuffer())]);
  }
  return entries;
}

/** Method arguments from the query string and a form-encoded, multipart or JSON body. */
async function apiArguments(
  request: IncomingMessage,
  body: Buffer,
  query: URLSearchParams,
): Promise<Record<string, unknown> | undefined> {
  const args: Record<string, unknown> = Object.fromEntries(query);
  if (body.length === 0) return args;
  const type = mediaType(request);
  if (type === 'application/json') {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    return { ...args, ...parsed };
  }
  if (type === 'multipart/form-data') {
    return { ...args, ...Object.fromEntries(await multipartEntries(request, body)) };
  }
  return { ...args, ...Object.fromEntries(new URLSearchParams(body.toString('utf8'))) };
}

/** The bytes of an upload: `@slack/web-api` sends them as a multipart part, curl and others raw. */
async function uploadedBytes(request: IncomingMessage, body: Buffer): Promise<Buffer> {
  if (mediaType(request) !== 'multipart/form-data') return body;
  const entries = await multipartEntries(request, body);
  const part = entries.find(([, value]) => Buffer.isBuffer(value)) ?? entries[0];
  if (!part) return Buffer.alloc(0);
  return Buffer.isBuffer(part[1]) ? part[1] : Buffer.from(part[1], 'utf8');
}

function bearerToken(request: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(body));
}

function listen(server: ReturnType<typeof createServer>, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export async function startSlackStandIn(options: SlackStandInOptions = {}): Promise<SlackStandIn> {
  const host = options.host ?? '127.0.0.1';
  const botToken = options.botToken ?? DEFAULT_BOT_TOKEN;
  const seed = options.seed ?? DEFAULT_SLACK_SEED;
  const store = new SlackStore({
    seed: { ...seed, channels: [...seed.channels, ...(options.channels ?? [])] },
    otherTeamChannels: SECOND_TEAM.channels ?? [],
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.fileProcessingMs === undefined ? {} : { fileProcessingMs: options.fileProcessingMs }),
  });
  const server = createServer();
  await listen(server, options.port ?? 0, host);
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const rateLimit = options.rateLimit;
  const rateLimiter =
    rateLimit === undefined || rateLimit === false
      ? undefined
      : new ChannelRateLimiter(
          { ...DEFAULT_CHANNEL_RATE_LIMIT, ...(rateLimit === true ? {} : rateLimit) },
          store.now,
        );
  const triggers = new TriggerRegistry(store.seed.team.id, store.now);
  const responseUrls = new ResponseUrls(store, url);
  const teams: SlackTeam[] = [store.seed.team, SECOND_TEAM];
  const oauth = new StandInOAuth(teams, store.now);
  let clientUrl: string | undefined;
  if (options.oauthApp) oauth.register(options.oauthApp);
  const apiUrl = `${url}/api/`;
  const openId = new StandInOpenId({
    issuer: url,
    apiUrl,
    team: store.seed.team,
    users: store.seed.users,
    now: store.now,
  });
  if (options.openIdClient) openId.register(options.openIdClient);
  const historyCaps = new HistoryCaps(store.now);
  const settings: AppSettings = { ...defaultAppSettings(), ...options.app };
  const methodLimiter = options.methodTiers === true ? new MethodRateLimiter(store.now) : undefined;
  let injected: { rule: InjectedRateLimit; left: number } | undefined;
  const methodRateLimit = (team: string, method: string): RateDecision => {
    if (injected?.rule.methods.includes(method) && injected.left > 0) {
      injected.left -= 1;
      return { allowed: false, retryAfterSeconds: injected.rule.retryAfterSeconds };
    }
    return methodLimiter?.take(team, method) ?? { allowed: true };
  };
  const context: WebApiContext = {
    store,
    baseUrl: url,
    botToken,
    botScopes: options.botScopes ?? BOT_SCOPES,
    oauth,
    openId,
    triggers,
    rateLimiter,
    methodRateLimit,
    settings,
    historyCaps,
    botTokenInstall: options.botTokenInstall ?? 'internal',
  };
  const socketMode = new SocketModeHub({
    websocketBase: url.replace(/^http/, 'ws'),
    now: store.now,
    ...(options.appTokens === undefined ? {} : { appTokens: options.appTokens }),
    ...(options.socketModeSweepEveryMs === undefined ? {} : { sweepEveryMs: options.socketModeSweepEveryMs }),
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!socketMode.upgrade(request, socket, head)) socket.destroy();
  });
  let failingDownloads: { status: number; left: number } | undefined;
  let stallRule: StallRule | undefined;
  const held = new Set<ServerResponse>();
  store.on('change', (change) => {
    if (change.kind !== 'reset') return;
    rateLimiter?.reset();
    historyCaps.reset();
    methodLimiter?.reset();
    triggers.reset();
    responseUrls.reset();
  });

  async function serveApi(
    method: string,
    request: IncomingMessage,
    response: ServerResponse,
    query: URLSearchParams,
  ) {
    const body = await readBody(request);
    let args: Record<string, unknown> | undefined;
    try {
      args = await apiArguments(request, body, query);
    } catch {
      args = undefined;
    }
    if (!args) {
      store.recordCall({ method, body: {}, at: store.now(), ok: false, error: 'invalid_json' });
      sendJson(response, 200, { ok: false, error: 'invalid_json' });
      return;
    }
    const { token, client_secret: _secret, ...logged } = args;
    if (method === 'oauth.v2.access') {
      const answer = oauth.access(args);
      const grant = typeof args.grant_type === 'string' ? { grant_type: args.grant_type } : {};
      const error = typeof answer.error === 'string' ? { error: answer.error } : {};
      store.recordCall({ method, body: grant, at: store.now(), ok: answer.ok === true, ...error });
      sendJson(response, 200, answer);
      return;
    }
    if (method === OPENID_TOKEN_METHOD || method === OPENID_USER_INFO_METHOD) {
      // Neither is a call of the bot's; only the grant type is recorded, never a code or a token.
      const answer =
        method === OPENID_TOKEN_METHOD
          ? openId.token(args, request.headers.authorization)
          : openId.userInfo(
              bearerToken(request) ?? (typeof token === 'string' ? token : undefined),
              (candidate) => candidate === botToken || oauth.stateOf(candidate) !== 'unknown',
            );
      const grant =
        method === OPENID_TOKEN_METHOD && typeof args.grant_type === 'string'
          ? { grant_type: args.grant_type }
          : {};
      const error = typeof answer.error === 'string' ? { error: answer.error } : {};
      store.recordCall({ method, body: grant, at: store.now(), ok: answer.ok === true, ...error });
      sendJson(response, 200, answer);
      return;
    }
    if (method === 'apps.connections.open') {
      // An app-level token, in the Authorization header only; not a Web API call of the bot's.
      const answer = socketMode.open(request.headers.authorization);
      store.recordCall({
        method,
        body: {},
        at: store.now(),
        ok: answer.ok,
        ...(answer.error === undefined ? {} : { error: answer.error }),
      });
      sendJson(response, 200, answer);
      return;
    }
    const stalled = stallRule?.(method, logged);
    if (stalled === 'unanswered') {
      held.add(response);
      return;
    }
    const callerToken = bearerToken(request) ?? (typeof token === 'string' ? token : undefined);
    const answer = callWebApi(method, args, callerToken, context);
    const error = answer.body.error;
    const team = callerToken === botToken ? store.seed.team.id : oauth.teamOf(callerToken ?? '')?.id;
    store.recordCall({
      method,
      body: logged,
      at: store.now(),
      ok: answer.body.ok === true,
      ...(typeof error === 'string' ? { error } : {}),
      ...(team === undefined ? {} : { team }),
    });
    if (stalled === 'answer_lost') {
      held.add(response);
      return;
    }
    sendJson(response, answer.status, answer.body, answer.headers);
  }

  async function serveUpload(fileId: string, request: IncomingMessage, response: ServerResponse) {
    const file = store.file(fileId);
    const body = await readBody(request);
    if (!file || file.completedAt !== undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('file not found');
      return;
    }
    const bytes = await uploadedBytes(request, body);
    store.putFile({ ...file, bytes, uploadedAt: store.now() });
    response.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${bytes.length}`);
  }

  function sendFile(file: StoredFile | undefined, response: ServerResponse) {
    if (!file?.bytes) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('file not found');
      return;
    }
    response.writeHead(200, { 'content-type': mimeTypeOf(file.name), 'content-length': file.bytes.length });
    response.end(file.bytes);
  }

  /**
   * Rule `file-downloads`: a file's bytes for a token of its workspace with `files:read`; anyone
   * else gets Slack's sign-in page (HTTP 200, HTML). Each GET is recorded as a `url_private` call.
   */
  function serveFile(fileId: string, request: IncomingMessage, response: ServerResponse) {
    const file = store.file(fileId);
    const token = bearerToken(request);
    const team =
      token === undefined ? undefined : token === botToken ? store.seed.team.id : oauth.teamOf(token)?.id;
    const scopes = token === botToken ? (options.botScopes ?? BOT_SCOPES) : oauth.scopesOf(token ?? '');
    const record = (ok: boolean, error?: string) =>
      store.recordCall({
        method: 'url_private',
        body: { file: fileId },
        at: store.now(),
        ok,
        ...(error === undefined ? {} : { error }),
        ...(team === undefined ? {} : { team }),
      });
    if (failingDownloads && failingDownloads.left > 0) {
      failingDownloads.left -= 1;
      record(false, `http_${failingDownloads.status}`);
      response
        .writeHead(failingDownloads.status, { 'content-type': 'text/plain' })
        .end('Slack could not serve the file');
      return;
    }
    const allowed =
      team !== undefined &&
      scopes.includes('files:read') &&
      (file === undefined || (file.team ?? store.seed.team.id) === team);
    if (!allowed) {
      record(false, 'sign_in_page');
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(SIGN_IN_PAGE);
      return;
    }
    record(file?.bytes !== undefined, file?.bytes === undefined ? 'file_not_found' : undefined);
    sendFile(file, response);
  }

  async function serveResponseUrl(id: string, request: IncomingMessage, response: ServerResponse) {
    const body = await readBody(request);
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      payload = undefined;
    }
    const answer = responseUrls.deliver(id, payload);
    sendJson(response, answer.status, answer.body);
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestUrl = new URL(request.url ?? '/', url);
    const [, area, name] = requestUrl.pathname.split('/');
    const method = request.method ?? 'GET';
    if (area === 'api' && name && (method === 'POST' || method === 'GET')) {
      return serveApi(name, request, response, requestUrl.searchParams);
    }
    if (area === 'upload' && name && (method === 'POST' || method === 'PUT')) {
      return serveUpload(name, request, response);
    }
    if (area === 'files' && name && method === 'GET') return serveFile(name, request, response);
    if (area === 'client' && name === 'files' && method === 'GET') {
      return sendFile(store.file(requestUrl.pathname.split('/')[3] ?? ''), response);
    }
    if (area === 'response' && name && method === 'POST') return serveResponseUrl(name, request, response);
    if (area === 'oauth' && requestUrl.pathname === '/oauth/v2/authorize') {
      const answer =
        method === 'POST'
          ? oauth.decide(new URLSearchParams((await readBody(request)).toString('utf8')))
          : oauth.authorizePage(requestUrl.searchParams);
      if (answer.kind === 'redirect') response.writeHead(302, { location: answer.location }).end();
      else response.writeHead(answer.status, { 'content-type': 'text/html; charset=utf-8' }).end(answer.html);
      return;
    }
    if (requestUrl.pathname === OPENID_PATHS.discovery && method === 'GET') {
      return sendJson(response, 200, openId.discovery());
    }
    if (requestUrl.pathname === OPENID_PATHS.keys && method === 'GET') {
      return sendJson(response, 200, openId.jwks());
    }
    if (requestUrl.pathname === OPENID_PATHS.authorize && (method === 'GET' || method === 'POST')) {
      const answer =
        method === 'POST'
          ? openId.decide(new URLSearchParams((await readBody(request)).toString('utf8')))
          : openId.authorizePage(requestUrl.searchParams);
      if (answer.kind === 'redirect') response.writeHead(302, { location: answer.location }).end();
      else response.writeHead(answer.status, { 'content-type': 'text/html; charset=utf-8' }).end(answer.html);
      return;
    }
    if (requestUrl.pathname === '/app_redirect' && method === 'GET') {
      const team = requestUrl.searchParams.get('team') ?? '';
      if (clientUrl && oauth.teams.some((t) => t.id === team)) {
        const target = new URL(clientUrl);
        target.searchParams.set('team', team);
        response.writeHead(302, { location: target.toString() }).end();
      } else {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('No Slack client to open here.');
      }
      return;
    }
    if (options.fallback) return options.fallback(request, response);
    sendJson(response, 404, { ok: false, error: 'not_found' });
  }

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    route(request, response).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const tooLarge = error instanceof BodyTooLargeError;
      sendJson(response, tooLarge ? 413 : 500, {
        ok: false,
        error: tooLarge ? 'request_too_large' : 'internal_error',
      });
    });
  });

  return {
    url,
    apiUrl,
    botToken,
    store,
    settings,
    oauth,
    openId,
    socketMode,
    openClientAt: (pageUrl) => {
      clientUrl = pageUrl;
    },
    responseUrlFor: (channel, user, responseOptions) => responseUrls.create(channel, user, responseOptions),
    triggerIdFor: (user, triggerOptions) => triggers.issue(user, triggerOptions?.viewId),
    acknowledge: (responseUrl, payload) => {
      const id = new URL(responseUrl).pathname.split('/').pop() ?? '';
      return responseUrls.acknowledge(id, payload);
    },
    injectRateLimit: (rule) => {
      injected = rule === undefined ? undefined : { rule, left: rule.times ?? Number.POSITIVE_INFINITY };
    },
    failFileDownloads: (rule) => {
      failingDownloads =
        rule === undefined
          ? undefined
          : { status: rule.status, left: rule.times ?? Number.POSITIVE_INFINITY };
    },
    stall: (rule) => {
      stallRule = rule;
      if (rule) return;
      for (const response of held) response.destroy();
      held.clear();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        socketMode.close();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
