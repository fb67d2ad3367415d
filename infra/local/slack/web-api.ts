import { randomBytes } from 'node:crypto';
import { extname } from 'node:path';
import * as z from 'zod';
import { SLACK_LIMITS } from '../../../lib/slack-kit/limits.js';
import type { AppSettings } from './app-settings.js';
import { describeProblem, refusalFor, validateMessage, validateView } from './block-kit-validator.js';
import { isProcessed, slackFileProblems } from './file-shares.js';
import type { HistoryCaps, InstallKind } from './history-caps.js';
import type { SlackTeam, StandInOAuth } from './oauth.js';
import type { StandInOpenId } from './openid.js';
import type { ChannelRateLimiter, RateDecision } from './rate-limit.js';
import type {
  KnownChannel,
  NewMessage,
  SlackChannel,
  SlackStore,
  SlackUser,
  StoredFile,
  StoredMessage,
  StoredView,
} from './store.js';
import type { IssuedTrigger, TriggerRegistry } from './triggers.js';
import { answerUserToken } from './user-tokens.js';

/**
 * The Web API methods the bot calls, answered as Slack answers them: HTTP 200 with
 * `{ok: true, ...}` or `{ok: false, error}`, and HTTP 429 with `Retry-After` when rate limited.
 */

export interface WebApiContext {
  readonly store: SlackStore;
  /** Where the stand-in listens, for the URLs it hands out (`upload_url`, `url_private`). */
  readonly baseUrl: string;
  readonly botToken: string;
  /** The scopes of the seeded bot token (the manifest's, unless a test grants others). */
  readonly botScopes: readonly string[];
  /** Bot tokens issued through "Add to Slack", each of its own workspace. */
  readonly oauth?: StandInOAuth | undefined;
  /** User tokens issued through Sign in with Slack: a person's, not the bot's (`user-tokens.ts`). */
  readonly openId?: StandInOpenId | undefined;
  /** The workspace of the token that made the call (its bot answers `auth.test`). */
  readonly callerTeam?: SlackTeam | undefined;
  /** The scopes of the token that made the call. */
  readonly callerScopes?: ReadonlySet<string> | undefined;
  readonly triggers: TriggerRegistry;
  /** The app's settings and the workspace's plan. */
  readonly settings: AppSettings;
  /** Present when `chat.postMessage` is rate limited per channel. */
  readonly rateLimiter: ChannelRateLimiter | undefined;
  /** The history limits of distributed installs (rule `history-caps`). */
  readonly historyCaps: HistoryCaps;
  /** What kind of install the stand-in's own bot token is; "Add to Slack" installs are distributed. */
  readonly botTokenInstall: InstallKind;
  /** The install of the token that made the call. */
  readonly callerInstall?: InstallKind | undefined;
  /**
   * Every other method's tier, and 429s a test injects: `undefined` lets the call through. Asked
   * once per call, after the token is checked, before the method acts.
   */
  readonly methodRateLimit?: ((team: string, method: string) => RateDecision) | undefined;
}

export interface WebApiAnswer {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A refusal in Slack's words: the `error` code and whatever else Slack sends beside it. */
class SlackRefusalError extends Error {
  constructor(
    readonly error: string,
    readonly details: Readonly<Record<string, unknown>> = {},
    readonly status = 200,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(error);
  }
}

type MethodHandler = (
  args: Readonly<Record<string, unknown>>,
  context: WebApiContext,
) => Record<string, unknown>;

export function callWebApi(
  method: string,
  args: Readonly<Record<string, unknown>>,
  token: string | undefined,
  context: WebApiContext,
): WebApiAnswer {
  const handler = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
  if (!handler) return { status: 200, body: { ok: false, error: 'unknown_method', req_method: method } };
  if (!token) return { status: 200, body: { ok: false, error: 'not_authed' } };
  const userToken = context.openId?.tokenState(token);
  if (userToken?.state === 'valid')
    return { status: 200, body: answerUserToken(method, userToken.person, context.baseUrl) };
  if (userToken?.state === 'expired') return { status: 200, body: { ok: false, error: 'token_expired' } };
  const callerTeam = token === context.botToken ? context.store.seed.team : context.oauth?.teamOf(token);
  if (!callerTeam) {
    const error = context.oauth?.stateOf(token) === 'expired' ? 'token_expired' : 'invalid_auth';
    return { status: 200, body: { ok: false, error } };
  }
  const decision = context.methodRateLimit?.(callerTeam.id, method);
  if (decision && !decision.allowed) {
    return {
      status: 429,
      body: { ok: false, error: 'ratelimited' },
      headers: { 'Retry-After': String(decision.retryAfterSeconds) },
    };
  }
  context.store.shareProcessedFiles();
  const callerScopes = new Set(
    token === context.botToken ? context.botScopes : (context.oauth?.scopesOf(token) ?? []),
  );
  try {
    const callerInstall: InstallKind = token === context.botToken ? context.botTokenInstall : 'distributed';
    return {
      status: 200,
      body: { ok: true, ...handler(args, { ...context, callerTeam, callerInstall, callerScopes }) },
    };
  } catch (error) {
    if (!(error instanceof SlackRefusalError)) throw error;
    return {
      status: error.status,
      body: { ok: false, error: error.error, ...error.details },
      headers: error.headers,
    };
  }
}

// Arguments arrive form-encoded (every value a string, structures as JSON text) or as JSON.

function fromJsonText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function jsonEncoded<T extends z.ZodType>(schema: T) {
  return z.preprocess(fromJsonText, schema);
}

const BlocksArgSchema = jsonEncoded(z.array(z.unknown()));
const ViewArgSchema = jsonEncoded(z.record(z.string(), z.unknown()));

function parseArgs<S extends z.ZodType>(
  schema: S,
  args: Readonly<Record<string, unknown>>,
  errorByField: Readonly<Record<string, string>> = {},
): z.output<S> {
  const result = schema.safeParse(args);
  if (result.success) return result.data;
  const field = String(result.error.issues[0]?.path[0] ?? '');
  throw new SlackRefusalError(errorByField[field] ?? 'invalid_arguments', {
    response_metadata: {
      messages: result.error.issues.map(
        (issue) => `[ERROR] ${issue.message} [json-pointer:/${issue.path.join('/')}]`,
      ),
    },
  });
}

const MESSAGE_ARG_ERRORS = { channel: 'channel_not_found', blocks: 'invalid_blocks_format' } as const;

const MetadataArgSchema = jsonEncoded(
  z.object({ event_type: z.string().min(1), event_payload: z.record(z.string(), z.unknown()) }),
);

const PostMessageArgsSchema = z.object({
  channel: z.string().min(1),
  text: z.string().optional(),
  blocks: BlocksArgSchema.optional(),
  thread_ts: z.string().min(1).optional(),
  metadata: MetadataArgSchema.optional(),
});

/** Form-encoded booleans arrive as `true`/`1` text. */
const FlagArgSchema = z.preprocess(
  (value) => value === true || value === 'true' || value === '1',
  z.boolean(),
);

/** `users.conversations`' arguments (method page: limit up to 999, 100 by default). */
const UserConversationsArgsSchema = z.object({
  user: z.string().min(1).optional(),
  types: z.string().min(1).optional(),
  exclude_archived: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0'])])
    .optional()
    .transform((value) => value === true || value === 'true' || value === '1'),
  limit: z.coerce.number().int().min(1).max(999).default(100),
  cursor: z.string().optional(),
});

/** `conversations.list`' arguments (method page: limit "an integer under 1000", 100 by default). */
const ConversationsListArgsSchema = UserConversationsArgsSchema.omit({ user: true });

/**
 * Most people `users.list` answers in one page: its method page sets no bound, Slack's pagination
 * guide (https://docs.slack.dev/apis/web-api/pagination) says no more than 1000 at a time.
 */
const USERS_LIST_PAGE_MOST = 1000;

/** `users.list`' arguments: without `limit` (0, the default) Slack tries to send everyone at once. */
const UsersListArgsSchema = z.object({
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(0).default(0),
});

const UsergroupsListArgsSchema = z.object({
  include_disabled: FlagArgSchema,
  include_users: FlagArgSchema,
  include_count: FlagArgSchema,
});

/** The read scope each conversation type needs (users.conversations method page). */
const CONVERSATION_TYPE_SCOPES: Readonly<Record<string, string>> = {
  public_channel: 'channels:read',
  private_channel: 'groups:read',
  mpim: 'mpim:read',
  im: 'im:read',
};

const HistoryArgsSchema = z.object({
  channel: z.string().min(1),
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(999).optional(),
  oldest: z.coerce.number().optional(),
  latest: z.coerce.number().optional(),
  inclusive: FlagArgSchema,
  include_all_metadata: FlagArgSchema,
});

const RepliesArgsSchema = HistoryArgsSchema.extend({ ts: z.string().min(1) });

const PostEphemeralArgsSchema = z.object({
  channel: z.string().min(1),
  user: z.string().min(1),
  text: z.string().optional(),
  blocks: BlocksArgSchema.optional(),
  thread_ts: z.string().min(1).optional(),
});

const UpdateArgsSchema = z.object({
  channel: z.string().min(1),
  ts: z.string().min(1),
  text: z.string().optional(),
  blocks: BlocksArgSchema.optional(),
});

const DeleteArgsSchema = z.object({ channel: z.string().min(1), ts: z.string().min(1) });

const ViewsOpenArgsSchema = z.object({ trigger_id: z.string().min(1), view: ViewArgSchema });

const ViewsUpdateArgsSchema = z.object({
  view_id: z.string().min(1).optional(),
  external_id: z.string().min(1).optional(),
  hash: z.string().optional(),
  view: ViewArgSchema,
});

const ViewsPublishArgsSchema = z.object({
  user_id: z.string().min(1),
  view: ViewArgSchema,
  hash: z.string().optional(),
});

const UploadUrlArgsSchema = z.object({
  filename: z.string().min(1),
  length: z.coerce.number().int().positive(),
});

const CompleteUploadArgsSchema = z.object({
  files: jsonEncoded(z.array(z.object({ id: z.string().min(1), title: z.string().optional() })).min(1)),
  channel_id: z.string().min(1).optional(),
  /** Older spelling: comma-separated channel ids. */
  channels: z.string().min(1).optional(),
  initial_comment: z.string().optional(),
  thread_ts: z.string().min(1).optional(),
  blocks: BlocksArgSchema.optional(),
});

/**
 * A post to a user id (or to the app's DM with them) lands in the app's Messages tab; with the tab
 * off Slack refuses it (rule `messages-tab`).
 */
function checkDirectMessage(context: WebApiContext, channel: SlackChannel): void {
  if (channel.is_im && !context.settings.messagesTab) throw new SlackRefusalError('messages_tab_disabled');
}

function channelNamed(context: WebApiContext, id: string): KnownChannel {
  const channel = context.store.channel(id);
  if (!channel) throw new SlackRefusalError('channel_not_found');
  return channel;
}

function invalidBlocks(described: readonly string[]): SlackRefusalError {
  return new SlackRefusalError('invalid_blocks', {
    errors: described,
    response_metadata: { messages: described.map((line) => `[ERROR] ${line}`) },
  });
}

function hasScope(context: WebApiContext, scope: string): boolean {
  return context.callerScopes?.has(scope) ?? false;
}

/** Slack's answer to a call that needs a scope the token was not granted. */
function missingScope(context: WebApiContext, needed: string): SlackRefusalError {
  return new SlackRefusalError('missing_scope', {
    needed,
    provided: [...(context.callerScopes ?? [])].join(','),
  });
}

/**
 * What the bot may do in a channel it names (rules `membership` and `archived`): a private
 * channel it is not in does not exist for it; an archived one takes nothing; a public one it is
 * not in takes posts only with `chat:write.public`, and nothing else.
 */
type ChannelUse = 'post' | 'post_ephemeral' | 'change' | 'read';

function channelFor(context: WebApiContext, id: string, use: ChannelUse): KnownChannel {
  const channel = channelNamed(context, id);
  const member = context.store.isMember(channel, context.store.seed.bot.userId);
  if (channel.is_private && !member) throw new SlackRefusalError('channel_not_found');
  if (channel.is_archived && use !== 'read') throw new SlackRefusalError('is_archived');
  if (!member && !(use === 'post' && hasScope(context, 'chat:write.public')))
    throw new SlackRefusalError('not_in_channel');
  return channel;
}

/**
 * Refuses a message Slack would refuse, with Slack's error code and wording: Block Kit's limits,
 * then the `slack_file` references that cannot be shown in `channel` (rule `async-file-shares`).
 */
function checkMessage(
  context: WebApiContext,
  channel: string,
  text: string | undefined,
  blocks: readonly unknown[] | undefined,
): void {
  const problems = validateMessage({ text, blocks });
  const error = refusalFor(problems);
  if (error) {
    const described = problems.filter((problem) => problem.error === error).map(describeProblem);
    if (error === 'invalid_blocks') throw invalidBlocks(described);
    throw new SlackRefusalError(error);
  }
  const fileProblems = slackFileProblems(context.store, channel, blocks ?? []);
  if (fileProblems.length > 0) throw invalidBlocks(fileProblems);
}

function checkModal(view: Readonly<Record<string, unknown>>): void {
  const messages = validateView(view).map((problem) => `[ERROR] ${describeProblem(problem)}`);
  if (view.type !== 'modal') messages.push('[ERROR] must be a modal [json-pointer:/view/type]');
  if (messages.length > 0)
    throw new SlackRefusalError('invalid_arguments', { response_metadata: { messages } });
}

/**
 * A Home tab view (rule `home-tab`): of type `home`, within Block Kit's view limits (100 blocks);
 * refused like a modal with `invalid_arguments` and Slack's messages.
 */
function checkHomeView(view: Readonly<Record<string, unknown>>): void {
  const messages = validateView(view).map((problem) => `[ERROR] ${describeProblem(problem)}`);
  if (view.type !== 'home') messages.push('[ERROR] must be a home view [json-pointer:/view/type]');
  if (messages.length > 0)
    throw new SlackRefusalError('invalid_arguments', { response_metadata: { messages } });
}

function fromBot(context: WebApiContext): Pick<NewMessage, 'user' | 'botId'> {
  return { user: context.store.seed.bot.userId, botId: context.store.seed.bot.botId };
}

function wireMessage(
  message: StoredMessage,
  context: WebApiContext,
  options: { withMetadata?: boolean } = {},
): Record<string, unknown> {
  return {
    type: 'message',
    ts: message.ts,
    text: message.text,
    ...(message.user === undefined ? {} : { user: message.user }),
    ...(message.botId === undefined ? {} : { bot_id: message.botId }),
    ...(message.blocks.length > 0 ? { blocks: message.blocks } : {}),
    ...(message.thread_ts === undefined ? {} : { thread_ts: message.thread_ts }),
    ...(message.files === undefined ? {} : { files: message.files.map((file) => wireFile(file, context)) }),
    ...(options.withMetadata && message.metadata ? { metadata: message.metadata } : {}),
    team: context.store.seed.team.id,
  };
}

const MIME_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.pdf': 'application/pdf',
};

export function mimeTypeOf(filename: string): string {
  return MIME_TYPES[extname(filename).toLowerCase()] ?? 'application/octet-stream';
}

/** Where the stand-in serves a file's bytes (Slack's `url_private`; rule `file-downloads`). */
export function fileUrl(baseUrl: string, file: StoredFile): string {
  return `${baseUrl}/files/${file.id}/${encodeURIComponent(file.name)}`;
}

/** Slack's `url_private_download`: the same bytes, served as a download. */
export function fileDownloadUrl(baseUrl: string, file: StoredFile): string {
  return `${baseUrl}/files/${file.id}/download/${encodeURIComponent(file.name)}`;
}

/**
 * Where a person's own Slack client shows a file: signed in with their session, so no token (the
 * sandbox page draws files from here). Apps go through `url_private` with a token.
 */
export function clientFileUrl(baseUrl: string, file: StoredFile): string {
  return `${baseUrl}/client/files/${file.id}/${encodeURIComponent(file.name)}`;
}

/**
 * A file as Slack describes it. Until processing is done, `mimetype` and `filetype` are empty and
 * it has no `shares` (rule `async-file-shares`); afterwards `shares` names its channels.
 */
export function wireFile(
  file: StoredFile,
  context: Pick<WebApiContext, 'store' | 'baseUrl'>,
): Record<string, unknown> {
  const processed = isProcessed(file, context.store.now());
  const shares = file.channels.map((channel) => ({
    channel,
    ts: context.store.messages(channel).find((m) => m.files?.some((f) => f.id === file.id))?.ts,
  }));
  return {
    id: file.id,
    name: file.name,
    title: file.title ?? file.name,
    mimetype: processed ? mimeTypeOf(file.name) : '',
    filetype: processed ? extname(file.name).slice(1).toLowerCase() : '',
    size: file.bytes?.length ?? file.declaredLength,
    url_private: fileUrl(context.baseUrl, file),
    url_private_download: fileDownloadUrl(context.baseUrl, file),
    ...(file.user === undefined ? {} : { user: file.user }),
    ...(file.completedAt === undefined
      ? {}
      : { created: Math.floor(file.completedAt / 1000), timestamp: Math.floor(file.completedAt / 1000) }),
    channels: file.channels,
    ...(shares.length > 0
      ? { shares: { public: Object.fromEntries(shares.map((s) => [s.channel, [{ ts: s.ts }]])) } }
      : {}),
  };
}

function wireChannel(channel: KnownChannel, bot: string): Record<string, unknown> {
  return {
    id: channel.id,
    name: channel.name,
    is_channel: !channel.is_im && !channel.is_private,
    is_group: channel.is_private && !channel.is_im,
    is_im: channel.is_im,
    is_private: channel.is_private,
    is_archived: channel.is_archived,
    is_member: channel.members.includes(bot),
  };
}

/** A person as `users.info` and `users.list` describe them (https://api.slack.com/types/user). */
function wireUser(user: SlackUser, team: string): Record<string, unknown> {
  const { display_name: displayName, deleted, ...rest } = user;
  return {
    ...rest,
    team_id: team,
    deleted: deleted ?? false,
    tz_label: user.tz,
    profile: { real_name: user.real_name, display_name: displayName ?? user.name },
  };
}

/**
 * The conversation types a listing asks for (`public_channel` by default): each must be one Slack
 * knows (else `invalid_types`) and the token must hold its read scope (else `missing_scope`).
 */
function conversationTypes(context: WebApiContext, asked: string | undefined): readonly string[] {
  const types = (asked ?? 'public_channel').split(',').map((type) => type.trim());
  if (!types.every((type) => Object.hasOwn(CONVERSATION_TYPE_SCOPES, type)))
    throw new SlackRefusalError('invalid_types');
  const missing = types
    .map((type) => CONVERSATION_TYPE_SCOPES[type] ?? '')
    .find((scope) => !hasScope(context, scope));
  if (missing) throw missingScope(context, missing);
  return types;
}

/**
 * The channels of the caller's workspace of the given types that the bot may know of: a private
 * one only where the bot is a member (groups:read: "private channels that [the app] has been added
 * to", https://api.slack.com/scopes/groups:read).
 */
function callerTeamChannels(context: WebApiContext, types: readonly string[]): KnownChannel[] {
  const { store } = context;
  const bot = store.seed.bot.userId;
  const otherTeams = new Set(store.otherTeamChannels.map((channel) => channel.id));
  const seededTeam = (context.callerTeam?.id ?? store.seed.team.id) === store.seed.team.id;
  const typeOf = (channel: KnownChannel) =>
    channel.is_im ? 'im' : channel.is_private ? 'private_channel' : 'public_channel';
  return store
    .channels()
    .filter((channel) => (seededTeam ? !otherTeams.has(channel.id) : otherTeams.has(channel.id)))
    .filter((channel) => types.includes(typeOf(channel)))
    .filter((channel) => !channel.is_private || store.isMember(channel, bot));
}

/** One page of a listing by an opaque cursor (the offset), and the cursor of the next, or ''. */
function pageOf<T>(
  all: readonly T[],
  cursor: string | undefined,
  limit: number,
): { page: readonly T[]; nextCursor: string } {
  const offset =
    cursor === undefined || cursor === '' ? 0 : Number(Buffer.from(cursor, 'base64url').toString());
  if (!Number.isInteger(offset) || offset < 0) throw new SlackRefusalError('invalid_cursor');
  const hasMore = offset + limit < all.length;
  return {
    page: all.slice(offset, offset + limit),
    nextCursor: hasMore ? Buffer.from(String(offset + limit)).toString('base64url') : '',
  };
}

function exchangeTrigger(context: WebApiContext, triggerId: string): IssuedTrigger | undefined {
  const check = context.triggers.exchange(triggerId);
  if (!check.ok) throw new SlackRefusalError(check.error);
  return check.trigger;
}

/** The view as Slack returns it: what the bot sent plus the fields Slack assigns. */
function slackView(
  id: string,
  view: Readonly<Record<string, unknown>>,
  stack: { readonly rootViewId: string; readonly previousViewId: string | undefined },
  context: WebApiContext,
): Record<string, unknown> {
  const { team, bot } = context.store.seed;
  return {
    ...view,
    id,
    team_id: team.id,
    private_metadata: view.private_metadata ?? '',
    callback_id: view.callback_id ?? '',
    external_id: view.external_id ?? '',
    state: { values: {} },
    hash: `${Math.floor(context.store.now() / 1000)}.${randomBytes(4).toString('hex')}`,
    root_view_id: stack.rootViewId,
    previous_view_id: stack.previousViewId ?? null,
    bot_id: bot.botId,
    app_installed_team_id: team.id,
  };
}

function openViewsInStack(context: WebApiContext, rootViewId: string): StoredView[] {
  return context.store.views().filter((view) => view.rootViewId === rootViewId && !view.closed);
}

/** The open view a `views.push` lands on: the one the interaction came from, else the user's latest. */
function viewBeneathPush(context: WebApiContext, trigger: IssuedTrigger | undefined): StoredView | undefined {
  // A Home tab is no modal: nothing is pushed onto it.
  const open = context.store.views().filter((view) => !view.closed && view.view.type !== 'home');
  const from = trigger?.viewId === undefined ? undefined : context.store.view(trigger.viewId);
  if (from && !from.closed) return openViewsInStack(context, from.rootViewId).at(-1);
  if (trigger) return open.filter((view) => view.user === trigger.user).at(-1);
  return open.at(-1);
}

function storeNewView(
  context: WebApiContext,
  method: string,
  view: Readonly<Record<string, unknown>>,
  trigger: IssuedTrigger | undefined,
  beneath: StoredView | undefined,
): Record<string, unknown> {
  const { store } = context;
  const externalId =
    typeof view.external_id === 'string' && view.external_id !== '' ? view.external_id : undefined;
  if (externalId !== undefined && store.views().some((v) => v.externalId === externalId && !v.closed)) {
    throw new SlackRefusalError('duplicate_external_id');
  }
  const id = store.newId('V');
  const rootViewId = beneath?.rootViewId ?? id;
  const full = slackView(id, view, { rootViewId, previousViewId: beneath?.id }, context);
  const at = store.now();
  const user = trigger?.user ?? beneath?.user;
  const team = context.callerTeam?.id ?? beneath?.team;
  store.putView({
    id,
    view: full,
    rootViewId,
    openedAt: at,
    closed: false,
    history: [{ method, view: full, at }],
    ...(user === undefined ? {} : { user }),
    ...(team === undefined ? {} : { team }),
    ...(externalId === undefined ? {} : { externalId }),
    ...(beneath === undefined ? {} : { previousViewId: beneath.id }),
  });
  return { view: full };
}

const METHODS: Readonly<Record<string, MethodHandler>> = {
  'auth.test': (_args, context) => {
    const { bot } = context.store.seed;
    const team = context.callerTeam ?? context.store.seed.team;
    return {
      url: `${context.baseUrl}/`,
      team: team.name,
      user: bot.name,
      team_id: team.id,
      user_id: bot.userId,
      bot_id: bot.botId,
      is_enterprise_install: false,
    };
  },

  'chat.postMessage': (args, context) => {
    const input = parseArgs(PostMessageArgsSchema, args, MESSAGE_ARG_ERRORS);
    const { store } = context;
    const channel = channelFor(context, input.channel, 'post');
    checkDirectMessage(context, channel);
    const decision = context.rateLimiter?.take(channel.id);
    if (decision && !decision.allowed) {
      store.recordPost({ channel: channel.id, at: store.now(), accepted: false });
      throw new SlackRefusalError('ratelimited', {}, 429, {
        'Retry-After': String(decision.retryAfterSeconds),
      });
    }
    checkMessage(context, channel.id, input.text, input.blocks);
    const message = store.addMessage({
      ...fromBot(context),
      channel: channel.id,
      text: input.text ?? '',
      blocks: input.blocks ?? [],
      ephemeral: false,
      via: 'chat.postMessage',
      ...(input.thread_ts === undefined ? {} : { thread_ts: input.thread_ts }),
      ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
    });
    store.recordPost({ channel: channel.id, at: message.postedAt, accepted: true });
    return { channel: channel.id, ts: message.ts, message: wireMessage(message, context) };
  },

  'chat.postEphemeral': (args, context) => {
    const input = parseArgs(PostEphemeralArgsSchema, args, {
      ...MESSAGE_ARG_ERRORS,
      user: 'user_not_in_channel',
    });
    const channel = channelFor(context, input.channel, 'post_ephemeral');
    if (!context.store.isMember(channel, input.user)) throw new SlackRefusalError('user_not_in_channel');
    checkMessage(context, channel.id, input.text, input.blocks);
    const message = context.store.addMessage({
      ...fromBot(context),
      channel: channel.id,
      text: input.text ?? '',
      blocks: input.blocks ?? [],
      ephemeral: true,
      visibleTo: input.user,
      via: 'chat.postEphemeral',
      ...(input.thread_ts === undefined ? {} : { thread_ts: input.thread_ts }),
    });
    return { message_ts: message.ts };
  },

  'chat.update': (args, context) => {
    const input = parseArgs(UpdateArgsSchema, args, { ...MESSAGE_ARG_ERRORS, ts: 'message_not_found' });
    const channel = channelFor(context, input.channel, 'change');
    const current = context.store.findMessage(channel.id, input.ts);
    if (!current || current.ephemeral) throw new SlackRefusalError('message_not_found');
    if (current.botId !== context.store.seed.bot.botId) throw new SlackRefusalError('cant_update_message');
    // Slack keeps the blocks when only the text is sent; an empty list removes them.
    const text = input.text ?? current.text;
    const blocks = input.blocks ?? current.blocks;
    checkMessage(context, channel.id, text, blocks);
    const updated = context.store.updateMessage(channel.id, input.ts, { text, blocks });
    if (!updated) throw new SlackRefusalError('message_not_found');
    return {
      channel: channel.id,
      ts: updated.ts,
      text: updated.text,
      message: wireMessage(updated, context),
    };
  },

  'chat.delete': (args, context) => {
    const input = parseArgs(DeleteArgsSchema, args, {
      channel: 'channel_not_found',
      ts: 'message_not_found',
    });
    const channel = channelFor(context, input.channel, 'change');
    const current = context.store.findMessage(channel.id, input.ts);
    if (!current || current.ephemeral) throw new SlackRefusalError('message_not_found');
    if (current.botId !== context.store.seed.bot.botId) throw new SlackRefusalError('cant_delete_message');
    context.store.deleteMessage(channel.id, input.ts);
    return { channel: channel.id, ts: input.ts };
  },

  'views.open': (args, context) => {
    const input = parseArgs(ViewsOpenArgsSchema, args);
    const trigger = exchangeTrigger(context, input.trigger_id);
    checkModal(input.view);
    return storeNewView(context, 'views.open', input.view, trigger, undefined);
  },

  'views.push': (args, context) => {
    const input = parseArgs(ViewsOpenArgsSchema, args);
    const trigger = exchangeTrigger(context, input.trigger_id);
    checkModal(input.view);
    const beneath = viewBeneathPush(context, trigger);
    if (!beneath) throw new SlackRefusalError('not_found');
    if (openViewsInStack(context, beneath.rootViewId).length >= SLACK_LIMITS.viewStackDepth) {
      throw new SlackRefusalError('push_limit_reached');
    }
    return storeNewView(context, 'views.push', input.view, trigger, beneath);
  },

  'views.update': (args, context) => {
    const input = parseArgs(ViewsUpdateArgsSchema, args);
    const { store } = context;
    if (input.view_id === undefined && input.external_id === undefined) {
      throw new SlackRefusalError('invalid_arguments');
    }
    const current =
      input.view_id === undefined
        ? store.viewByExternalId(input.external_id ?? '')
        : store.view(input.view_id);
    if (!current || current.closed) throw new SlackRefusalError('not_found');
    if (input.hash !== undefined && input.hash !== current.view.hash)
      throw new SlackRefusalError('hash_conflict');
    checkModal(input.view);
    // A view sent without an external_id keeps the one it had, so later updates can still find it.
    const view =
      input.view.external_id === undefined && current.externalId !== undefined
        ? { ...input.view, external_id: current.externalId }
        : input.view;
    const full = slackView(
      current.id,
      view,
      { rootViewId: current.rootViewId, previousViewId: current.previousViewId },
      context,
    );
    const externalId =
      typeof full.external_id === 'string' && full.external_id !== '' ? full.external_id : undefined;
    const { externalId: _previousExternalId, ...rest } = current;
    store.putView({
      ...rest,
      view: full,
      history: [...current.history, { method: 'views.update', view: full, at: store.now() }],
      ...(externalId === undefined ? {} : { externalId }),
    });
    return { view: full };
  },

  // Each person's Home tab for this app, one per user and workspace (rule `home-tab`).
  'views.publish': (args, context) => {
    const input = parseArgs(ViewsPublishArgsSchema, args, { user_id: 'invalid_arguments' });
    const { store } = context;
    if (!store.user(input.user_id)) throw new SlackRefusalError('invalid_arguments');
    if (input.view.type === 'home' && !context.settings.homeTab) throw new SlackRefusalError('not_enabled');
    checkHomeView(input.view);
    const team = context.callerTeam?.id ?? store.seed.team.id;
    const current = store.homeView(team, input.user_id);
    if (input.hash !== undefined && current && input.hash !== current.view.hash)
      throw new SlackRefusalError('hash_conflict');
    const id = current?.id ?? store.newId('V');
    const full = slackView(id, input.view, { rootViewId: id, previousViewId: undefined }, context);
    const at = store.now();
    store.putView({
      id,
      view: full,
      user: input.user_id,
      team,
      rootViewId: id,
      openedAt: current?.openedAt ?? at,
      closed: false,
      history: [...(current?.history ?? []), { method: 'views.publish', view: full, at }],
    });
    return { view: full };
  },

  'users.info': (args, context) => {
    const input = parseArgs(z.object({ user: z.string().min(1) }), args, { user: 'user_not_found' });
    const user = context.store.user(input.user);
    if (!user) throw new SlackRefusalError('user_not_found');
    return { user: wireUser(user, context.store.seed.team.id) };
  },

  'usergroups.users.list': (args, context) => {
    const input = parseArgs(z.object({ usergroup: z.string().min(1) }), args, {
      usergroup: 'no_such_subteam',
    });
    // User groups are a Standard-plan feature (rule `free-plan-usergroups`).
    if (context.settings.plan === 'free') throw new SlackRefusalError('plan_upgrade_required');
    const users = context.store.usergroupMembers(input.usergroup);
    if (!users) throw new SlackRefusalError('no_such_subteam');
    return { users };
  },

  /**
   * Rule `user-conversations`: the conversations a member is in, of the caller's workspace, paged
   * by an opaque cursor. With `user`, that person's; a bot sees a private one only when it is in it
   * too. Each type asked for needs its scope.
   */
  'users.conversations': (args, context) => {
    const input = parseArgs(UserConversationsArgsSchema, args, {
      cursor: 'invalid_cursor',
      limit: 'invalid_limit',
      types: 'invalid_types',
    });
    const { store } = context;
    const bot = store.seed.bot.userId;
    const types = conversationTypes(context, input.types);
    const member = input.user ?? bot;
    if (input.user !== undefined && !store.user(input.user)) throw new SlackRefusalError('user_not_found');
    const listed = callerTeamChannels(context, types)
      .filter((channel) => store.isMember(channel, member))
      .filter((channel) => !(input.exclude_archived && channel.is_archived));
    const { page, nextCursor } = pageOf(listed, input.cursor, input.limit);
    return {
      channels: page.map((channel) => wireChannel(channel, bot)),
      response_metadata: { next_cursor: nextCursor },
    };
  },

  /**
   * Rule `conversations-list`: the caller's workspace's channels of the types asked for (public
   * ones by default), each type needing its read scope; a private channel only where the bot is a
   * member, so one it is not in is never named; paged by an opaque cursor.
   */
  'conversations.list': (args, context) => {
    const input = parseArgs(ConversationsListArgsSchema, args, {
      cursor: 'invalid_cursor',
      limit: 'invalid_limit',
      types: 'invalid_types',
    });
    const bot = context.store.seed.bot.userId;
    const listed = callerTeamChannels(context, conversationTypes(context, input.types)).filter(
      (channel) => !(input.exclude_archived && channel.is_archived),
    );
    const { page, nextCursor } = pageOf(listed, input.cursor, input.limit);
    return {
      channels: page.map((channel) => wireChannel(channel, bot)),
      response_metadata: { next_cursor: nextCursor },
    };
  },

  /**
   * Rule `users-list`: the workspace's members, the deactivated among them flagged `deleted`,
   * with `name`, `real_name` and `profile.display_name`; without `limit` the whole list at once,
   * else paged by an opaque cursor. The stand-in keeps people for the seeded workspace only.
   */
  'users.list': (args, context) => {
    const input = parseArgs(UsersListArgsSchema, args, { cursor: 'invalid_cursor' });
    if (!hasScope(context, 'users:read')) throw missingScope(context, 'users:read');
    const { store } = context;
    const team = context.callerTeam?.id ?? store.seed.team.id;
    const people = team === store.seed.team.id ? store.users() : [];
    const limit = input.limit === 0 ? people.length : Math.min(input.limit, USERS_LIST_PAGE_MOST);
    const { page, nextCursor } = pageOf(people, input.cursor, Math.max(1, limit));
    return {
      members: page.map((user) => wireUser(user, team)),
      cache_ts: Math.floor(store.now() / 1000),
      response_metadata: { next_cursor: nextCursor },
    };
  },

  /**
   * Rule `usergroups-list`: the workspace's user groups (`id`, `handle`, `name`, `date_delete`
   * non-zero once disabled), the disabled ones only with `include_disabled`, members with
   * `include_users`, counts with `include_count`; on the free plan `plan_upgrade_required`, as
   * `usergroups.users.list` answers (rule `free-plan-usergroups`).
   */
  'usergroups.list': (args, context) => {
    const input = parseArgs(UsergroupsListArgsSchema, args);
    if (!hasScope(context, 'usergroups:read')) throw missingScope(context, 'usergroups:read');
    if (context.settings.plan === 'free') throw new SlackRefusalError('plan_upgrade_required');
    const { store } = context;
    const team = context.callerTeam?.id ?? store.seed.team.id;
    const groups = team === store.seed.team.id ? store.usergroups() : [];
    return {
      usergroups: groups
        .filter((group) => input.include_disabled || !group.disabled)
        .map((group) => ({
          id: group.id,
          team_id: team,
          is_usergroup: true,
          name: group.handle,
          description: '',
          handle: group.handle,
          is_external: false,
          date_delete: group.disabled ? Math.floor(store.now() / 1000) : 0,
          ...(input.include_users ? { users: group.users } : {}),
          ...(input.include_count ? { user_count: group.users.length } : {}),
        })),
    };
  },

  'conversations.info': (args, context) => {
    const input = parseArgs(z.object({ channel: z.string().min(1) }), args, { channel: 'channel_not_found' });
    const channel = channelNamed(context, input.channel);
    const bot = context.store.seed.bot.userId;
    if (channel.is_private && !context.store.isMember(channel, bot))
      throw new SlackRefusalError('channel_not_found');
    const needed = channel.is_im ? 'im:read' : channel.is_private ? 'groups:read' : 'channels:read';
    if (!hasScope(context, needed)) throw missingScope(context, needed);
    return { channel: wireChannel(channel, bot) };
  },

  /** Rule `join`: the bot joins a public channel; Slack posts the usual "joined" line. */
  'conversations.join': (args, context) => {
    const input = parseArgs(z.object({ channel: z.string().min(1) }), args, { channel: 'channel_not_found' });
    const { store } = context;
    const channel = channelNamed(context, input.channel);
    const bot = store.seed.bot.userId;
    if (!hasScope(context, 'channels:join')) throw missingScope(context, 'channels:join');
    if (channel.is_private && !store.isMember(channel, bot)) throw new SlackRefusalError('channel_not_found');
    if (channel.is_private || channel.is_im)
      throw new SlackRefusalError('method_not_supported_for_channel_type');
    if (channel.is_archived) throw new SlackRefusalError('is_archived');
    if (store.isMember(channel, bot)) {
      return {
        channel: wireChannel(channel, bot),
        warning: 'already_in_channel',
        response_metadata: { warnings: ['already_in_channel'] },
      };
    }
    const joined = store.botJoined(channel.id);
    return { channel: wireChannel(joined, bot) };
  },

  /**
   * Top-level messages, newest first, paged by an opaque cursor; metadata only when asked for,
   * as Slack does.
   */
  /**
   * A thread: its parent first, then the replies oldest first, paged by an opaque cursor; metadata
   * only when asked for; a ts that starts no message answers `thread_not_found`
   * (https://docs.slack.dev/reference/methods/conversations.replies). Capped as history is.
   */
  'conversations.replies': (args, context) => {
    const input = parseArgs(RepliesArgsSchema, args, {
      channel: 'channel_not_found',
      ts: 'thread_not_found',
      cursor: 'invalid_cursor',
    });
    const channel = channelFor(context, input.channel, 'read');
    const team = context.callerTeam?.id ?? context.store.seed.team.id;
    const caps = context.historyCaps.take(
      'conversations.replies',
      team,
      context.callerInstall ?? context.botTokenInstall,
      input.limit,
    );
    if (!caps.allowed) {
      throw new SlackRefusalError('ratelimited', {}, 429, { 'Retry-After': String(caps.retryAfterSeconds) });
    }
    const all = context.store.messages(channel.id);
    const parent = all.find((message) => message.ts === input.ts);
    if (!parent) throw new SlackRefusalError('thread_not_found');
    const after = (ts: number) => (input.inclusive ? ts >= (input.oldest ?? 0) : ts > (input.oldest ?? 0));
    const before = (ts: number) =>
      input.latest === undefined || (input.inclusive ? ts <= input.latest : ts < input.latest);
    const replies = all.filter(
      (message) =>
        message.thread_ts === input.ts &&
        message.ts !== input.ts &&
        after(Number(message.ts)) &&
        before(Number(message.ts)),
    );
    const thread = [parent, ...replies];
    const offset = input.cursor === undefined ? 0 : Number(Buffer.from(input.cursor, 'base64url').toString());
    if (!Number.isInteger(offset) || offset < 0) throw new SlackRefusalError('invalid_cursor');
    const page = thread.slice(offset, offset + caps.limit);
    const hasMore = offset + caps.limit < thread.length;
    return {
      messages: page.map((message) =>
        wireMessage(message, context, { withMetadata: input.include_all_metadata }),
      ),
      has_more: hasMore,
      response_metadata: {
        next_cursor: hasMore ? Buffer.from(String(offset + caps.limit)).toString('base64url') : '',
      },
    };
  },

  'conversations.history': (args, context) => {
    const input = parseArgs(HistoryArgsSchema, args, {
      channel: 'channel_not_found',
      cursor: 'invalid_cursor',
    });
    const channel = channelFor(context, input.channel, 'read');
    const team = context.callerTeam?.id ?? context.store.seed.team.id;
    const caps = context.historyCaps.take(
      'conversations.history',
      team,
      context.callerInstall ?? context.botTokenInstall,
      input.limit,
    );
    if (!caps.allowed) {
      throw new SlackRefusalError('ratelimited', {}, 429, { 'Retry-After': String(caps.retryAfterSeconds) });
    }
    const limit = caps.limit;
    const after = (ts: number) => (input.inclusive ? ts >= (input.oldest ?? 0) : ts > (input.oldest ?? 0));
    const before = (ts: number) =>
      input.latest === undefined || (input.inclusive ? ts <= input.latest : ts < input.latest);
    const messages = context.store
      .messages(channel.id)
      .filter((message) => message.thread_ts === undefined || message.thread_ts === message.ts)
      .filter((message) => after(Number(message.ts)) && before(Number(message.ts)))
      .reverse();
    const offset = input.cursor === undefined ? 0 : Number(Buffer.from(input.cursor, 'base64url').toString());
    if (!Number.isInteger(offset) || offset < 0) throw new SlackRefusalError('invalid_cursor');
    const page = messages.slice(offset, offset + limit);
    const hasMore = offset + limit < messages.length;
    return {
      messages: page.map((message) =>
        wireMessage(message, context, { withMetadata: input.include_all_metadata }),
      ),
      has_more: hasMore,
      pin_count: 0,
      response_metadata: {
        next_cursor: hasMore ? Buffer.from(String(offset + limit)).toString('base64url') : '',
      },
    };
  },

  'files.getUploadURLExternal': (args, context) => {
    const input = parseArgs(UploadUrlArgsSchema, args);
    const id = context.store.newId('F');
    context.store.putFile({
      id,
      name: input.filename,
      declaredLength: input.length,
      channels: [],
      ...(context.callerTeam === undefined ? {} : { team: context.callerTeam.id }),
    });
    return { upload_url: `${context.baseUrl}/upload/${id}`, file_id: id };
  },

  /**
   * Accepts the files at once and shares them later (rule `async-file-shares`): the answer names
   * no message and no shares; the share message appears when processing is done.
   */
  'files.completeUploadExternal': (args, context) => {
    const input = parseArgs(CompleteUploadArgsSchema, args);
    const { store } = context;
    const channelIds =
      input.channel_id === undefined ? (input.channels?.split(',') ?? []) : [input.channel_id];
    const channels = channelIds.map((id) => channelFor(context, id.trim(), 'change'));
    const at = store.now();
    for (const { id } of input.files) {
      const file = store.file(id);
      if (!file?.bytes || file.completedAt !== undefined) throw new SlackRefusalError('file_not_found');
    }
    // Blocks of the share message may not show the files being shared: they are not processed yet.
    if (input.blocks !== undefined) {
      for (const channel of channels) checkMessage(context, channel.id, input.initial_comment, input.blocks);
    }
    const completed = input.files.map(({ id, title }): StoredFile => {
      const file = store.file(id) as StoredFile;
      return {
        ...file,
        title: title ?? file.name,
        completedAt: at,
        processedAt: at + store.fileProcessingMs,
        channels: [],
        ...(channels.length === 0
          ? {}
          : {
              pendingShare: {
                ...fromBot(context),
                channels: channels.map((c) => c.id),
                // Slack shows the comment once, with the first file; the others come without it.
                text: input.initial_comment ?? '',
                blocks: input.blocks ?? [],
                ...(input.thread_ts === undefined ? {} : { thread_ts: input.thread_ts }),
              },
            }),
      };
    });
    for (const file of completed) store.putFile(file);
    return { files: completed.map((file) => ({ id: file.id, title: file.title })) };
  },

  'files.info': (args, context) => {
    const input = parseArgs(z.object({ file: z.string().min(1) }), args, { file: 'file_not_found' });
    const file = context.store.file(input.file);
    if (!file?.completedAt) throw new SlackRefusalError('file_not_found');
    return { file: wireFile(file, context) };
  },

  /** The app's direct message with one person (a group DM of several is not emulated). */
  'conversations.open': (args, context) => {
    const input = parseArgs(z.object({ users: z.string().min(1) }), args, {
      users: 'users_list_not_supplied',
    });
    const users = input.users.split(',').map((user) => user.trim());
    if (users.length !== 1) throw new SlackRefusalError('not_supported_by_stand_in');
    const user = context.store.user(users[0] ?? '');
    if (!user) throw new SlackRefusalError('user_not_found');
    const channel = channelNamed(context, user.id);
    return { channel: { id: channel.id } };
  },
};

/** The methods served above, by name (`user-tokens.ts` has a row for each). */
export const WEB_API_METHOD_NAMES: readonly string[] = Object.keys(METHODS);
