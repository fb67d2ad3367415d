import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as z from 'zod';
import type { AnyOperation } from '../../../../lib/api/operation.js';
import { overLongWords } from '../../../../lib/truncate.js';
import { escapeCommandText } from '../escaping.js';
import type { SlackTeam } from '../oauth.js';
import {
  callSlackbotTool,
  listSlackbotTools,
  SlackbotCallError,
  type SlackbotOptions,
  type SlackbotPerson,
} from '../slackbot.js';
import type { StoreChange } from '../store.js';
import type { Delivery, SlackWorkspace } from '../workspace.js';
import type { ClientMonitoring, ClientSlackbotAnswer, ClientSlackbotTools } from './client-api.js';
import { COMMAND_TEXT_LIMIT, completionData } from './commands.js';
import { sandboxPage } from './html.js';
import {
  answerForPanel,
  parseToolArguments,
  TOOL_NAME,
  ToolArgumentsError,
  toolsForPanel,
} from './slackbot-panel.js';
import { openViewFor, PageLookupError, type PageScope, pageState, resolveSeat } from './state.js';

/**
 * The Slack sandbox page and its small HTTP API. The page acts only through `SlackWorkspace`, so
 * every command, click and modal submission reaches the bot as a signed request exactly as Slack
 * would send it; what the bot posts arrives in the stand-in's store and is streamed back as
 * Server-Sent Events.
 *
 * Routes: `GET /` the page, `GET /client/*.js` its script modules, `GET /events` change
 * notifications, `GET /api/state?user=&channel=`, `GET /api/commands`, `POST /api/command`,
 * `POST /api/click`, `POST /api/view`, `POST /api/view/close`. Each takes the workspace the page
 * acts in as `team` (the seeded one by default). Slackbot asked as the person (the page's server
 * makes the signed call, so the signing secret never reaches the browser): `POST
 * /api/slackbot/tools` and `POST /api/slackbot/call`. Outside Slack, the demo's cloud side:
 * `GET /api/monitoring`, `POST /api/monitoring/issue` and `POST /api/monitoring/resolve` (see
 * `PageMonitoring`).
 */

export interface PageServerOptions {
  readonly workspace: SlackWorkspace;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** When the port is taken, listen on a free one instead of failing. */
  readonly fallbackToFreePort?: boolean;
  readonly completionFit?: PageHandlerOptions['completionFit'];
  readonly workspaces?: PageWorkspaces;
  readonly monitoring?: PageMonitoring;
  readonly slackbot?: SlackbotOptions;
}

/**
 * The cloud side of the demo, outside Slack: managed monitoring raises an issue on a service (as
 * the provider's checks would when it stops answering) and resolves it, so a channel subscribed
 * with `/cloud reports add alerts` gets its alert. The API's issues carry services and a ticket
 * summary only: no severity, and the entity is always a ticket.
 */
export interface PageMonitoring {
  read(): ClientMonitoring;
  raise(service: number, summary: string | undefined): { readonly id: number };
  resolve(issue: number): void;
}

/**
 * The stand-in's workspaces for a distributed app: the page switches between them and offers
 * "Add to Slack" where the app is not installed yet.
 */
export interface PageWorkspaces {
  /** Every workspace of the stand-in, the seeded one included. */
  readonly teams: readonly SlackTeam[];
  /** A person's side of Slack in `team`: its requests carry that team's id. */
  workspaceFor(team: SlackTeam): SlackWorkspace;
  /** Whether the app is installed in `team`, as Slack knows it (not from the bot's storage). */
  installed(team: string): Promise<boolean>;
  /** The bot's "Add to Slack" page. */
  readonly installUrl: string;
}

export interface PageServer {
  readonly url: string;
  close(): Promise<void>;
}

/** The page's own requests are small; anything bigger is not from the page. */
const MAX_BODY_BYTES = 256 * 1024;
/** Proxies and browsers drop an idle event stream; a comment line now and then keeps it open. */
const HEARTBEAT_MS = 20_000;

const SeatFields = { user: z.string().min(1).max(64), team: z.string().min(1).max(64).optional() };

const CommandRequestSchema = z.object({
  ...SeatFields,
  channel: z.string().min(1).max(64),
  text: z.string().max(COMMAND_TEXT_LIMIT),
});

const ClickRequestSchema = z.object({
  ...SeatFields,
  channel: z.string().min(1).max(64),
  ts: z.string().min(1).max(32),
  actionId: z.string().min(1).max(255),
  value: z.string().max(2000).optional(),
  option: z.string().max(2000).optional(),
});

const ViewSubmitRequestSchema = z.object({
  ...SeatFields,
  viewId: z.string().min(1).max(64),
  values: z.record(z.string().max(255), z.record(z.string().max(255), z.string().max(3000))),
});

const HomeClickRequestSchema = z.object({
  ...SeatFields,
  viewId: z.string().min(1).max(64),
  actionId: z.string().min(1).max(255),
  value: z.string().max(2000).optional(),
});

const ViewCloseRequestSchema = z.object({ ...SeatFields, viewId: z.string().min(1).max(64) });

const RaiseIssueRequestSchema = z.object({
  service: z.number().int().positive(),
  summary: z.string().trim().max(200).optional(),
});

const ResolveIssueRequestSchema = z.object({ issue: z.number().int().positive() });

const SlackbotToolsRequestSchema = z.object(SeatFields);

const SlackbotCallRequestSchema = z.object({
  ...SeatFields,
  tool: z.string().regex(TOOL_NAME, 'must be a tool name: 1 to 128 of A-Z a-z 0-9 _ - .'),
  /** The arguments as typed: `parseToolArguments` says in words what is wrong with them. */
  arguments: z.string(),
});

/** What every route that acts answers first: whether it worked, and if not, why, in words. */
interface PageAnswer {
  readonly ok: boolean;
  readonly error?: string;
}

/** What every action answers: whether the bot took it, and if not, why, in words. */
export interface ActionResult extends PageAnswer {
  readonly ok: boolean;
  /** The bot's HTTP status, when it answered. */
  readonly status?: number;
  readonly durationMs?: number;
  readonly error?: string;
  /** A modal's field errors (`response_action: errors`), by block id. */
  readonly errors?: Readonly<Record<string, string>>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

class BodyTooLargeError extends HttpError {
  constructor() {
    super(413, 'The request is too large.');
  }
}

async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  // A JSON body cannot be sent cross-site without a CORS preflight, which this server never grants.
  if (type !== 'application/json') throw new HttpError(415, 'Send the request as application/json.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLargeError();
    chunks.push(buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'The request body is not valid JSON.');
  }
}

/**
 * An over-long command is told in the words every over-long value gets, before the request's
 * schema would name it as an issue of the request's `text` field.
 */
function withinCommandLength(body: unknown): unknown {
  const text = (body as { text?: unknown } | null)?.text;
  if (typeof text === 'string' && text.length > COMMAND_TEXT_LIMIT) {
    throw new HttpError(
      400,
      `That command ${overLongWords(text.length, COMMAND_TEXT_LIMIT)}. Shorten it and send it again.`,
    );
  }
  return body;
}

function parseRequest<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`,
    );
    throw new HttpError(400, `Invalid request: ${problems.join('; ')}`);
  }
  return parsed.data;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  response.end(JSON.stringify(body));
}

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A page of another site whose name is made to resolve to 127.0.0.1 (DNS rebinding) would be
 * same-origin with the sandbox; its requests still carry its own name in `Host`.
 */
function assertLoopbackHost(request: IncomingMessage): void {
  let hostname: string;
  try {
    hostname = new URL(`http://${request.headers.host ?? ''}`).hostname;
  } catch {
    hostname = '';
  }
  if (!LOOPBACK_HOSTNAMES.has(hostname)) {
    throw new HttpError(421, 'Open the sandbox as http://localhost or http://127.0.0.1.');
  }
}

/** Refuses requests another site's page makes from the browser (the sandbox listens on localhost). */
function assertSameOrigin(request: IncomingMessage): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    throw new HttpError(403, 'Requests from other sites are not accepted.');
  }
  if (originHost !== request.headers.host)
    throw new HttpError(403, 'Requests from other sites are not accepted.');
}

/** The bot's answer, as the page reports it. */
export function describeDelivery(delivery: Delivery): ActionResult {
  const durationMs = Math.round(delivery.durationMs);
  if (delivery.status !== 200) {
    const detail =
      typeof delivery.body === 'string' && delivery.body.trim() !== '' ? `: ${delivery.body.trim()}` : '';
    return {
      ok: false,
      status: delivery.status,
      durationMs,
      error: `The bot answered HTTP ${delivery.status}${detail.slice(0, 200)}`,
    };
  }
  const body = delivery.body as { response_action?: unknown; errors?: unknown } | undefined;
  if (body && typeof body === 'object' && body.response_action === 'errors') {
    const errors = z.record(z.string(), z.string()).safeParse(body.errors);
    return { ok: true, status: 200, durationMs, errors: errors.success ? errors.data : {} };
  }
  return { ok: true, status: 200, durationMs };
}

/** A failure to reach the bot at all (not an answer from it), in words without a stack. */
function unreachable(error: unknown): ActionResult {
  const code = (error as { code?: unknown }).code;
  const reason = typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
  return { ok: false, error: `The bot did not answer (${reason}). Is the local stack still running?` };
}

/** `/invite @cloud` (or the bot's mention as Slack escapes it): Slack adds the bot to the channel. */
export function isBotInvite(typed: string, bot: { readonly userId: string; readonly name: string }): boolean {
  const [command, who, ...rest] = typed.trim().split(/\s+/);
  if (command !== '/invite' || rest.length > 0 || who === undefined) return false;
  return who === `@${bot.name}` || who === `<@${bot.userId}>` || who.startsWith(`<@${bot.userId}|`);
}

/** `/cloud nodes list` → `nodes list`; another slash command is refused with a hint. */
export function commandTextOf(typed: string, slashCommand: string): string {
  const text = typed.trim();
  if (text === slashCommand) return '';
  if (text.startsWith(`${slashCommand} `)) return text.slice(slashCommand.length + 1).trim();
  const other = /^\/\S+/.exec(text);
  if (other)
    throw new HttpError(400, `Only ${slashCommand} is installed in this workspace, not ${other[0]}.`);
  throw new HttpError(400, `Type a slash command, e.g. ${slashCommand} help.`);
}

export interface PageHandler {
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** Ends the event streams and stops listening to the store. */
  close(): void;
}

export interface PageHandlerOptions {
  /** Serve only requests addressed to localhost (the default): right when listening on loopback. */
  readonly loopbackOnly?: boolean;
  /**
   * What a person may run in a channel, as the bot's help sees it: completion then offers only
   * that. Undefined (or a fit that is undefined) completes everything.
   */
  readonly completionFit?: (
    user: string,
    channel: string,
    team: string,
  ) => Promise<((op: AnyOperation) => boolean) | undefined>;
  readonly workspaces?: PageWorkspaces;
  readonly monitoring?: PageMonitoring;
  /**
   * Where Slackbot asks the app's MCP server and with which signing secret, as Slack holds them;
   * without it the Slackbot panel says the sandbox has no bot serving it.
   */
  readonly slackbot?: SlackbotOptions;
}

export function createPageHandler(workspace: SlackWorkspace, options: PageHandlerOptions = {}): PageHandler {
  const loopbackOnly = options.loopbackOnly ?? true;
  const { store } = workspace.standIn;
  const baseUrl = workspace.standIn.url;
  const page = sandboxPage();
  const commands = completionData();
  const streams = new Set<ServerResponse>();
  const teams = options.workspaces?.teams ?? [store.seed.team];
  const workspaces = new Map<string, SlackWorkspace>([[workspace.teamId, workspace]]);

  function teamOf(requested: string | null | undefined): SlackTeam {
    const team = teams.find((t) => t.id === (requested || workspace.teamId));
    if (!team) throw new PageLookupError(`There is no workspace ${requested ?? ''} here.`);
    return team;
  }

  function workspaceIn(team: SlackTeam): SlackWorkspace {
    const known = workspaces.get(team.id);
    if (known) return known;
    if (!options.workspaces) throw new PageLookupError(`There is no workspace ${team.id} here.`);
    const created = options.workspaces.workspaceFor(team);
    workspaces.set(team.id, created);
    return created;
  }

  /** Which channels a seat may use in `team`; `installed` matters only for what the page shows. */
  function scopeOf(team: SlackTeam, installed: ReadonlySet<string> = new Set()): PageScope | undefined {
    const many = options.workspaces;
    return many && { team, teams, installed, installUrl: many.installUrl };
  }

  async function installedTeams(): Promise<ReadonlySet<string>> {
    const many = options.workspaces;
    if (!many) return new Set();
    const answers = await Promise.all(teams.map(async (t) => ((await many.installed(t.id)) ? [t.id] : [])));
    return new Set(answers.flat());
  }

  // Only that something changed, and where: the page fetches what its user may see.
  const onChange = (change: StoreChange) => {
    if (change.kind === 'call') return;
    const channel =
      'message' in change ? change.message.channel : 'channel' in change ? change.channel : undefined;
    const event = `event: change\ndata: ${JSON.stringify({ kind: change.kind, ...(channel ? { channel } : {}) })}\n\n`;
    for (const stream of streams) stream.write(event);
  };
  store.on('change', onChange);
  const heartbeat = setInterval(() => {
    for (const stream of streams) stream.write(': ping\n\n');
  }, HEARTBEAT_MS);
  heartbeat.unref();

  function serveEvents(request: IncomingMessage, response: ServerResponse): void {
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    response.write('retry: 1000\n\n');
    response.write('event: ready\ndata: {}\n\n');
    streams.add(response);
    request.on('close', () => streams.delete(response));
  }

  async function serveCommands(url: URL, response: ServerResponse): Promise<void> {
    const user = url.searchParams.get('user');
    const channel = url.searchParams.get('channel');
    const team = teamOf(url.searchParams.get('team'));
    const allows =
      user && channel && options.completionFit
        ? await options.completionFit(user, channel, team.id).catch(() => undefined)
        : undefined;
    sendJson(response, 200, allows ? completionData(undefined, allows) : commands);
  }

  async function serveState(url: URL, response: ServerResponse): Promise<void> {
    const user = url.searchParams.get('user') ?? undefined;
    const channel = url.searchParams.get('channel') ?? undefined;
    const team = teamOf(url.searchParams.get('team'));
    const scope = scopeOf(team, await installedTeams());
    sendJson(response, 200, pageState(store, baseUrl, user, channel, scope));
  }

  async function runCommand(body: unknown): Promise<ActionResult> {
    const input = parseRequest(CommandRequestSchema, withinCommandLength(body));
    const team = teamOf(input.team);
    const { user, channel } = resolveSeat(store, input.user, input.channel, scopeOf(team));
    if (isBotInvite(input.text, store.seed.bot)) return inviteBot(channel, user);
    // Slack escapes mentions, channels and links before the bot sees them (should_escape: true).
    const text = escapeCommandText(commandTextOf(input.text, commands.command), store);
    try {
      return describeDelivery(await workspaceIn(team).command(user, channel.id, text));
    } catch (error) {
      return unreachable(error);
    }
  }

  /** `/invite @cloud`: Slack's own command, answered by Slack (the bot is not asked). */
  function inviteBot(channel: { readonly id: string }, user: string): ActionResult {
    const known = store.channel(channel.id);
    if (!known || known.is_im) return { ok: false, error: 'You can only invite people to channels.' };
    if (known.is_archived) return { ok: false, error: 'This channel is archived.' };
    if (known.members.includes(store.seed.bot.userId)) {
      store.addMessage({
        channel: known.id,
        text: `<@${store.seed.bot.userId}> is already in this channel.`,
        blocks: [],
        ephemeral: true,
        visibleTo: user,
        via: 'slack',
      });
      return { ok: true };
    }
    store.botJoined(known.id);
    return { ok: true };
  }

  async function click(body: unknown): Promise<ActionResult> {
    const input = parseRequest(ClickRequestSchema, body);
    const team = teamOf(input.team);
    const { user, channel } = resolveSeat(store, input.user, input.channel, scopeOf(team));
    const message = store.findMessage(channel.id, input.ts);
    if (!message || (message.ephemeral && message.visibleTo !== user)) {
      throw new HttpError(404, 'That message is gone or not visible to you.');
    }
    let delivery: Delivery;
    try {
      delivery = await workspaceIn(team).click(user, message, {
        actionId: input.actionId,
        ...(input.value === undefined ? {} : { value: input.value }),
        ...(input.option === undefined ? {} : { option: input.option }),
      });
    } catch (error) {
      // Network failures carry a code; the workspace's own refusal (no such element) does not.
      if (typeof (error as { code?: unknown }).code === 'string') return unreachable(error);
      throw new HttpError(
        409,
        'That button or menu is no longer in the message. It may have just been updated.',
      );
    }
    return describeDelivery(delivery);
  }

  /** The person opens the app's Home tab: Slack sends `app_home_opened`, the app publishes it. */
  async function openHome(body: unknown): Promise<ActionResult> {
    const input = parseRequest(z.object(SeatFields), body);
    const team = teamOf(input.team);
    const { user } = resolveSeat(store, input.user, undefined, scopeOf(team));
    try {
      return describeDelivery(await workspaceIn(team).openHome(user));
    } catch (error) {
      return unreachable(error);
    }
  }

  /** A click on the person's Home tab: `block_actions` from a view, no channel, no response_url. */
  async function clickHome(body: unknown): Promise<ActionResult> {
    const input = parseRequest(HomeClickRequestSchema, body);
    const team = teamOf(input.team);
    const { user } = resolveSeat(store, input.user, undefined, scopeOf(team));
    const home = store.homeView(team.id, user);
    if (!home || home.id !== input.viewId) throw new HttpError(404, 'That Home tab is no longer shown.');
    try {
      return describeDelivery(
        await workspaceIn(team).clickInView(user, home, {
          actionId: input.actionId,
          ...(input.value === undefined ? {} : { value: input.value }),
        }),
      );
    } catch (error) {
      if (typeof (error as { code?: unknown }).code === 'string') return unreachable(error);
      throw new HttpError(409, 'That button is no longer on your Home tab. It may have just been updated.');
    }
  }

  function ownOpenView(user: string, viewId: string, team: SlackTeam) {
    resolveSeat(store, user, undefined, scopeOf(team));
    const view = store.view(viewId);
    if (!view || view.closed || view.user !== user || openViewFor(store, user, team.id)?.id !== viewId) {
      throw new HttpError(404, 'That modal is no longer open.');
    }
    return view;
  }

  async function submitView(body: unknown): Promise<ActionResult> {
    const input = parseRequest(ViewSubmitRequestSchema, body);
    const team = teamOf(input.team);
    const view = ownOpenView(input.user, input.viewId, team);
    try {
      return describeDelivery(await workspaceIn(team).submitView(input.user, view, input.values));
    } catch (error) {
      return unreachable(error);
    }
  }

  function closeView(body: unknown): ActionResult {
    const input = parseRequest(ViewCloseRequestSchema, body);
    const view = ownOpenView(input.user, input.viewId, teamOf(input.team));
    store.closeView(view.id);
    return { ok: true };
  }

  function monitoringOrRefuse(): PageMonitoring {
    if (!options.monitoring)
      throw new HttpError(404, 'This sandbox has no cloud emulator to raise issues in.');
    return options.monitoring;
  }

  function raiseIssue(body: unknown): ActionResult {
    const input = parseRequest(RaiseIssueRequestSchema, body);
    const monitoring = monitoringOrRefuse();
    if (!monitoring.read().services.some((service) => service.id === input.service))
      throw new HttpError(404, `There is no managed service ${input.service}.`);
    monitoring.raise(input.service, input.summary || undefined);
    return { ok: true };
  }

  function resolveIssue(body: unknown): ActionResult {
    const input = parseRequest(ResolveIssueRequestSchema, body);
    const monitoring = monitoringOrRefuse();
    const issue = monitoring.read().issues.find((known) => known.id === input.issue);
    if (!issue) throw new HttpError(404, `There is no managed issue ${input.issue}.`);
    if (!issue.resolved) monitoring.resolve(issue.id);
    return { ok: true };
  }

  /**
   * The person Slackbot asks for: someone of the workspace the page shows, where the app is
   * installed (Slackbot has no tools of an app its workspace has not installed).
   */
  async function slackbotFor(input: { user: string; team?: string | undefined }): Promise<{
    slackbot: SlackbotOptions;
    person: SlackbotPerson;
  }> {
    if (!options.slackbot) throw new HttpError(404, 'This sandbox has no bot serving Slackbot.');
    const team = teamOf(input.team);
    const { user } = resolveSeat(store, input.user, undefined, scopeOf(team));
    if (options.workspaces && !(await options.workspaces.installed(team.id)))
      throw new HttpError(
        409,
        `The app is not installed in ${team.name}, so Slackbot has none of its tools.`,
      );
    return { slackbot: options.slackbot, person: { team: team.id, user } };
  }

  async function slackbotTools(body: unknown): Promise<ClientSlackbotTools | PageAnswer> {
    const { slackbot, person } = await slackbotFor(parseRequest(SlackbotToolsRequestSchema, body));
    try {
      return { ok: true, tools: toolsForPanel(await listSlackbotTools(slackbot, person)) };
    } catch (error) {
      if (error instanceof SlackbotCallError) return { ok: false, error: error.message };
      throw error;
    }
  }

  async function askSlackbot(body: unknown): Promise<ClientSlackbotAnswer | PageAnswer> {
    const input = parseRequest(SlackbotCallRequestSchema, body);
    let args: Record<string, unknown>;
    try {
      args = parseToolArguments(input.arguments);
    } catch (error) {
      if (error instanceof ToolArgumentsError) throw new HttpError(400, error.message);
      throw error;
    }
    const { slackbot, person } = await slackbotFor(input);
    const started = performance.now();
    try {
      const answer = await callSlackbotTool(slackbot, person, input.tool, args);
      return answerForPanel(input.tool, answer, performance.now() - started);
    } catch (error) {
      if (error instanceof SlackbotCallError) return { ok: false, error: error.message };
      throw error;
    }
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (loopbackOnly) assertLoopbackHost(request);
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = request.method ?? 'GET';
    if (method === 'GET' || method === 'HEAD') {
      const script = page.scripts.get(url.pathname);
      if (script !== undefined) {
        response.writeHead(200, {
          'content-type': 'text/javascript; charset=utf-8',
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        });
        response.end(method === 'HEAD' ? undefined : script);
        return;
      }
      switch (url.pathname) {
        case '/':
        case '/index.html':
          response.writeHead(200, {
            'content-type': 'text/html; charset=utf-8',
            'content-security-policy': page.contentSecurityPolicy,
            'cache-control': 'no-store',
            'x-content-type-options': 'nosniff',
            'referrer-policy': 'no-referrer',
          });
          response.end(method === 'HEAD' ? undefined : page.html);
          return;
        case '/events':
          return serveEvents(request, response);
        case '/api/state':
          return serveState(url, response);
        case '/api/commands':
          return serveCommands(url, response);
        case '/api/monitoring':
          return sendJson(response, 200, monitoringOrRefuse().read());
        case '/favicon.ico':
          response.writeHead(204).end();
          return;
      }
    }
    if (method === 'POST') {
      assertSameOrigin(request);
      const actions: Record<string, (body: unknown) => PageAnswer | Promise<PageAnswer>> = {
        '/api/command': runCommand,
        '/api/click': click,
        '/api/view': submitView,
        '/api/view/close': closeView,
        '/api/home': openHome,
        '/api/home/click': clickHome,
        '/api/monitoring/issue': raiseIssue,
        '/api/monitoring/resolve': resolveIssue,
        '/api/slackbot/tools': slackbotTools,
        '/api/slackbot/call': askSlackbot,
      };
      const action = actions[url.pathname];
      if (action) {
        const result = await action(await readJsonBody(request));
        sendJson(response, result.ok ? 200 : 502, result);
        return;
      }
    }
    sendJson(response, 404, { ok: false, error: `Nothing at ${method} ${url.pathname}.` });
  }

  return {
    handle: (request, response) =>
      route(request, response).catch((error: unknown) => {
        if (response.headersSent) {
          response.destroy();
          return;
        }
        if (error instanceof HttpError) {
          sendJson(response, error.status, { ok: false, error: error.message });
        } else if (error instanceof PageLookupError) {
          sendJson(response, 404, { ok: false, error: error.message });
        } else {
          sendJson(response, 500, { ok: false, error: 'The sandbox page failed; see the terminal.' });
          console.error('sandbox page request failed', error);
        }
      }),
    close() {
      clearInterval(heartbeat);
      store.off('change', onChange);
      for (const stream of streams) stream.end();
      streams.clear();
    },
  };
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

export async function startPageServer(options: PageServerOptions): Promise<PageServer> {
  const host = options.host ?? '127.0.0.1';
  const handler = createPageHandler(options.workspace, {
    loopbackOnly: LOOPBACK_HOSTNAMES.has(hostForUrl(host)),
    ...(options.completionFit && { completionFit: options.completionFit }),
    ...(options.workspaces && { workspaces: options.workspaces }),
    ...(options.monitoring && { monitoring: options.monitoring }),
    ...(options.slackbot && { slackbot: options.slackbot }),
  });
  const server = createServer((request, response) => {
    void handler.handle(request, response);
  });
  try {
    await listen(server, options.port ?? 0, host);
  } catch (error) {
    const taken = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    if (!taken || !options.fallbackToFreePort) {
      handler.close();
      throw error;
    }
    await listen(server, 0, host);
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${hostForUrl(host)}:${port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        handler.close();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
