import type { SlackTeam } from '../oauth.js';
import type { SlackChannel, SlackStore, SlackUser, StoredFile, StoredMessage, StoredView } from '../store.js';
import { clientFileUrl, mimeTypeOf } from '../web-api.js';
import type {
  ClientHome,
  ClientChannel as PageChannel,
  ClientFile as PageFile,
  ClientMessage as PageMessage,
  ClientState as PageState,
  ClientTeam as PageTeam,
  ClientUser as PageUser,
  ClientView as PageView,
} from './client-api.js';

/**
 * What the sandbox page shows one person in one channel: the channel's messages as that person
 * sees them (public ones plus the ephemeral ones shown to them), threads folded under their
 * parent, the modal open for them and the app's Home tab. Built from the stand-in's store; file bytes and other
 * people's ephemeral messages never leave the server.
 */

export type { PageChannel, PageFile, PageMessage, PageState, PageTeam, PageUser, PageView };

/**
 * Which of the stand-in's workspaces the page acts in, and the others it can switch to. Without a
 * scope the page is the seeded workspace alone, as a single-workspace deployment sees it.
 */
export interface PageScope {
  readonly team: SlackTeam;
  readonly teams: readonly SlackTeam[];
  readonly installed: ReadonlySet<string>;
  /** The bot's "Add to Slack" page. */
  readonly installUrl?: string | undefined;
}

/** Who the page acts as and where, when the address does not say. */
export const DEFAULT_PAGE_USER = 'U0ALICE';
export const DEFAULT_PAGE_CHANNEL = 'C0OPS';

export class PageLookupError extends Error {
  override readonly name = 'PageLookupError';
}

function pageUser(user: SlackUser): PageUser {
  return {
    id: user.id,
    name: user.name,
    realName: user.real_name,
    isBot: user.is_bot,
    tz: user.tz,
  };
}

/** People the page can act as: everyone seeded except the bot. */
export function actingUsers(store: SlackStore): PageUser[] {
  return store.seed.users.filter((user) => !user.is_bot).map(pageUser);
}

/**
 * Channels shown in the sidebar: the workspace's channels, and the direct message with the bot
 * of the person acting (the bot posts there when it is given a user id as channel). Direct
 * messages are the seeded workspace's: the store has one per person, not one per workspace.
 */
function visibleChannels(store: SlackStore, user: string, scope?: PageScope): PageChannel[] {
  if (scope?.team.channels) return scope.team.channels.map((channel) => pageChannel(store, channel));
  const elsewhere = new Set(store.otherTeamChannels.map((channel) => channel.id));
  const ownIm = `D${user}`;
  return store
    .channels()
    .filter((channel) =>
      channel.is_im ? channel.id === ownIm : !channel.is_private || channel.members.includes(user),
    )
    .filter((channel) => !elsewhere.has(channel.id))
    .map((channel) => pageChannel(store, channel));
}

function pageChannel(store: SlackStore, channel: SlackChannel): PageChannel {
  return { id: channel.id, name: channel.is_im ? store.seed.bot.name : channel.name, isIm: channel.is_im };
}

/** Resolves who acts and where; unknown ids are refused rather than created on the fly. */
export function resolveSeat(
  store: SlackStore,
  requestedUser: string | undefined,
  requestedChannel: string | undefined,
  scope?: PageScope,
): { user: string; channel: PageChannel } {
  const users = actingUsers(store);
  const user =
    requestedUser || (users.some((u) => u.id === DEFAULT_PAGE_USER) ? DEFAULT_PAGE_USER : users[0]?.id);
  if (user === undefined || !users.some((u) => u.id === user)) {
    throw new PageLookupError(`There is no user ${requestedUser ?? ''} in this workspace.`);
  }
  const channels = visibleChannels(store, user, scope);
  const wanted = requestedChannel || DEFAULT_PAGE_CHANNEL;
  const channel = channels.find((c) => c.id === wanted) ?? (requestedChannel ? undefined : channels[0]);
  if (channel === undefined) {
    throw new PageLookupError(`There is no channel ${requestedChannel ?? ''} for ${user} in this workspace.`);
  }
  return { user, channel };
}

function authorOf(store: SlackStore, message: StoredMessage): PageUser {
  const known = message.user === undefined ? undefined : store.user(message.user);
  if (known) return pageUser(known);
  if (message.botId !== undefined) {
    const bot = store.seed.bot;
    return { id: bot.userId, name: bot.name, realName: bot.name, isBot: true };
  }
  const id = message.user ?? 'unknown';
  return { id, name: id, realName: id, isBot: false };
}

function pageFile(baseUrl: string, file: StoredFile): PageFile {
  return {
    id: file.id,
    name: file.name,
    title: file.title ?? file.name,
    mimetype: mimeTypeOf(file.name),
    url: clientFileUrl(baseUrl, file),
  };
}

function pageMessage(
  store: SlackStore,
  baseUrl: string,
  message: StoredMessage,
  replies: readonly PageMessage[],
): PageMessage {
  return {
    ts: message.ts,
    channel: message.channel,
    author: authorOf(store, message),
    text: message.text,
    blocks: message.blocks,
    ephemeral: message.ephemeral,
    files: (message.files ?? []).map((file) => pageFile(baseUrl, file)),
    postedAt: message.postedAt,
    edited: message.updatedAt !== undefined,
    replies,
  };
}

function isReply(message: StoredMessage): boolean {
  return message.thread_ts !== undefined && message.thread_ts !== message.ts;
}

/** The channel as `user` sees it: top-level messages in order, each with its replies. */
export function messagesSeenBy(
  store: SlackStore,
  baseUrl: string,
  channel: string,
  user: string,
): PageMessage[] {
  const seen = store.messages(channel, { seenBy: user });
  const repliesByParent = new Map<string, PageMessage[]>();
  for (const message of seen.filter(isReply)) {
    const parent = message.thread_ts ?? '';
    const replies = repliesByParent.get(parent) ?? [];
    replies.push(pageMessage(store, baseUrl, message, []));
    repliesByParent.set(parent, replies);
  }
  const parents = new Set(seen.filter((message) => !isReply(message)).map((message) => message.ts));
  const top = seen.filter((message) => !isReply(message));
  // A reply whose parent is gone (deleted, or an ephemeral one shown to someone else) stays visible.
  const orphans = seen.filter((message) => isReply(message) && !parents.has(message.thread_ts ?? ''));
  return [...top, ...orphans]
    .sort((a, b) => Number(a.ts) - Number(b.ts))
    .map((message) =>
      pageMessage(store, baseUrl, message, isReply(message) ? [] : (repliesByParent.get(message.ts) ?? [])),
    );
}

function plainTextOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { text?: unknown }).text === 'string') {
    return (value as { text: string }).text;
  }
  return undefined;
}

/**
 * The newest modal still open for `user` (a pushed view sits on top of the one it was pushed on),
 * in `team` when given: a modal another workspace's bot opened is not shown here.
 */
export function openViewFor(store: SlackStore, user: string, team?: string): StoredView | undefined {
  return store
    .views()
    .filter(
      (view) =>
        view.user === user &&
        !view.closed &&
        // The Home tab is a view too, but it is no modal.
        view.view.type !== 'home' &&
        (team === undefined || view.team === undefined || view.team === team),
    )
    .sort((a, b) => a.openedAt - b.openedAt)
    .at(-1);
}

function pageView(stored: StoredView): PageView {
  const view = stored.view;
  const submit = plainTextOf(view.submit);
  return {
    id: stored.id,
    hash: typeof view.hash === 'string' ? view.hash : `${stored.history.length}`,
    title: plainTextOf(view.title) ?? 'Modal',
    ...(submit === undefined ? {} : { submit }),
    close: plainTextOf(view.close) ?? 'Cancel',
    blocks: Array.isArray(view.blocks) ? view.blocks : [],
  };
}

function pageHome(stored: StoredView): ClientHome {
  const { view } = stored;
  return {
    id: stored.id,
    hash: typeof view.hash === 'string' ? view.hash : `${stored.history.length}`,
    blocks: Array.isArray(view.blocks) ? view.blocks : [],
  };
}

/** Files referenced from blocks as `slack_file: { id }`, so images posted that way can be shown. */
function referencedFiles(store: SlackStore, baseUrl: string): Record<string, PageFile> {
  const files: Record<string, PageFile> = {};
  for (const file of store.files()) {
    if (file.bytes !== undefined) files[file.id] = pageFile(baseUrl, file);
  }
  return files;
}

/**
 * The bot's install page for one workspace: the bot passes `team` on to Slack's authorize page,
 * which then opens on that workspace, not the first one the person belongs to.
 */
export function installUrlFor(installUrl: string, team: string): string {
  const url = new URL(installUrl);
  url.searchParams.set('team', team);
  return url.toString();
}

export function pageState(
  store: SlackStore,
  baseUrl: string,
  requestedUser: string | undefined,
  requestedChannel: string | undefined,
  scope?: PageScope,
): PageState {
  const { user, channel } = resolveSeat(store, requestedUser, requestedChannel, scope);
  const team = scope?.team ?? store.seed.team;
  const view = openViewFor(store, user, team.id);
  const home = store.homeView(team.id, user);
  return {
    team: team.name,
    teamId: team.id,
    teams: (scope?.teams ?? [team]).map((t) => {
      const installed = scope ? scope.installed.has(t.id) : true;
      const installUrl = !installed && scope?.installUrl ? installUrlFor(scope.installUrl, t.id) : undefined;
      return { id: t.id, name: t.name, installed, ...(installUrl === undefined ? {} : { installUrl }) };
    }),
    ...(scope?.installUrl === undefined ? {} : { installUrl: scope.installUrl }),
    user,
    channel,
    channels: visibleChannels(store, user, scope),
    users: store.seed.users.map(pageUser),
    messages: messagesSeenBy(store, baseUrl, channel.id, user),
    ...(view === undefined ? {} : { view: pageView(view) }),
    ...(home === undefined ? {} : { home: pageHome(home) }),
    files: referencedFiles(store, baseUrl),
  };
}
