import { EventEmitter } from 'node:events';

/**
 * What the Slack stand-in has seen and shown: channels with their messages, modals, files and
 * every Web API call. Tests query it; the browser page subscribes to `change` to stream updates.
 */

/** How long Slack takes to process an upload (about what it takes for a small image); tests set their own. */
export const DEFAULT_FILE_PROCESSING_MS = 1500;

export interface SlackUser {
  readonly id: string;
  readonly name: string;
  readonly real_name: string;
  readonly is_admin: boolean;
  readonly is_owner: boolean;
  readonly is_bot: boolean;
  readonly tz: string;
  readonly tz_offset: number;
  /** The name people see (`profile.display_name`); the handle (`name`) unless set. */
  readonly display_name?: string;
  /** Deactivated: still listed by `users.list`, flagged `deleted` (rule `users-list`). */
  readonly deleted?: boolean;
}

export interface SlackChannel {
  readonly id: string;
  readonly name: string;
  readonly is_private: boolean;
  readonly is_im: boolean;
  readonly is_archived?: boolean;
  /**
   * Who is in it, the bot's user among them or not. Seeded without it, a channel has every seeded
   * user, the bot included, as most tests want a channel the bot can post in.
   */
  readonly members?: readonly string[];
}

/** A channel as the store keeps it: its members and archived state always known. */
export interface KnownChannel extends SlackChannel {
  readonly is_archived: boolean;
  readonly members: readonly string[];
}

export interface NewChannel {
  readonly id?: string;
  readonly name: string;
  readonly is_private?: boolean;
  /** Who is in it; every seeded person but not the bot unless given. */
  readonly members?: readonly string[];
}

export interface SlackSeed {
  readonly team: { readonly id: string; readonly name: string; readonly domain: string };
  /** The bot's own user; its token is the stand-in's bot token. */
  readonly bot: { readonly userId: string; readonly botId: string; readonly name: string };
  readonly users: readonly SlackUser[];
  readonly channels: readonly SlackChannel[];
  /** Usergroup id → member user ids. */
  readonly usergroups: Readonly<Record<string, readonly string[]>>;
  /** Usergroup id → its handle (`@oncall`), for mentions typed by name. */
  readonly usergroupHandles?: Readonly<Record<string, string>>;
}

function person(id: string, name: string, realName: string, tz: string, tzOffset: number): SlackUser {
  return {
    id,
    name,
    real_name: realName,
    is_admin: false,
    is_owner: false,
    is_bot: false,
    tz,
    tz_offset: tzOffset,
  };
}

export const DEFAULT_SLACK_SEED: SlackSeed = {
  team: { id: 'T0LOCAL', name: 'Local workspace', domain: 'local' },
  bot: { userId: 'U0CLOUDBOT', botId: 'B0CLOUDBOT', name: 'cloud' },
  users: [
    { ...person('U0ADMIN', 'ada', 'Ada Admin', 'UTC', 0), is_admin: true, is_owner: true },
    person('U0ALICE', 'alice', 'Alice Operator', 'America/New_York', -18_000),
    person('U0BOB', 'bob', 'Bob Developer', 'Asia/Kolkata', 19_800),
    { ...person('U0CLOUDBOT', 'cloud', 'cloud', 'UTC', 0), is_bot: true },
  ],
  channels: [
    { id: 'C0GENERAL', name: 'general', is_private: false, is_im: false },
    { id: 'C0OPS', name: 'ops', is_private: false, is_im: false },
  ],
  usergroups: { S0ONCALL: ['U0ADMIN', 'U0ALICE'] },
  usergroupHandles: { S0ONCALL: 'oncall' },
};

/** A user group as `usergroups.list` shows it. */
export interface StoredUsergroup {
  readonly id: string;
  readonly handle: string;
  readonly users: readonly string[];
  readonly disabled: boolean;
}

export interface StoredFile {
  readonly id: string;
  readonly name: string;
  /** The length announced in `files.getUploadURLExternal`. */
  readonly declaredLength: number;
  readonly title?: string;
  /** The workspace it was uploaded in (the seeded one when unset): only its bot may download it. */
  readonly team?: string;
  /** Who uploaded it, when a person did (through a modal's `file_input`). */
  readonly user?: string;
  readonly bytes?: Buffer;
  readonly uploadedAt?: number;
  /** Set once `files.completeUploadExternal` has accepted the file. */
  readonly completedAt?: number;
  /** When Slack finishes processing it (`fileProcessingMs` after completion); shared from then on. */
  readonly processedAt?: number;
  /** Where it is shared: empty until processed, and for a file uploaded to no channel. */
  readonly channels: readonly string[];
  /** The share asked for at completion, carried out once the file is processed. */
  readonly pendingShare?: PendingShare;
}

/** A file's share message, as `files.completeUploadExternal` asked for it. */
export interface PendingShare {
  readonly channels: readonly string[];
  readonly text: string;
  readonly blocks: readonly unknown[];
  readonly thread_ts?: string;
  readonly user?: string;
  readonly botId?: string;
}

export interface StoredMessage {
  readonly ts: string;
  readonly channel: string;
  /** Who posted it; for the bot's messages its bot user, alongside `botId`. */
  readonly user?: string;
  readonly botId?: string;
  readonly text: string;
  readonly blocks: readonly unknown[];
  readonly thread_ts?: string;
  readonly ephemeral: boolean;
  /** For an ephemeral message, the only user who sees it. */
  readonly visibleTo?: string;
  readonly files?: readonly StoredFile[];
  /** Clock time (ms) of posting and of the last change. */
  readonly postedAt: number;
  readonly updatedAt?: number;
  /**
   * How it arrived: the Web API method, `response_url`, or `slash_command` for the command a person
   * typed, shown to the channel by an in_channel answer (rule `in-channel-command-echo`).
   */
  readonly via: string;
  /** Slack's message metadata, as the app sent it with `chat.postMessage`. */
  readonly metadata?: MessageMetadata;
}

export interface MessageMetadata {
  readonly event_type: string;
  readonly event_payload: Readonly<Record<string, unknown>>;
}

export type NewMessage = Omit<StoredMessage, 'ts' | 'postedAt'>;

export interface ViewRevision {
  readonly method: string;
  readonly view: Readonly<Record<string, unknown>>;
  readonly at: number;
}

export interface StoredView {
  readonly id: string;
  /** The view as Slack returns it (with `id`, `hash`, `root_view_id`, `state`...). */
  readonly view: Readonly<Record<string, unknown>>;
  readonly user?: string;
  readonly externalId?: string;
  readonly rootViewId: string;
  readonly previousViewId?: string;
  readonly openedAt: number;
  /** The workspace whose bot opened it. */
  readonly team?: string;
  readonly closed: boolean;
  readonly history: readonly ViewRevision[];
}

export interface RecordedCall {
  readonly method: string;
  /** The arguments as received, without the token. */
  readonly body: Readonly<Record<string, unknown>>;
  readonly at: number;
  readonly ok: boolean;
  readonly error?: string;
  /** The workspace whose bot token made the call (never the token itself). */
  readonly team?: string;
}

export interface RecordedPost {
  readonly channel: string;
  readonly at: number;
  readonly accepted: boolean;
}

export type StoreChange =
  | { readonly kind: 'message_added'; readonly message: StoredMessage }
  | { readonly kind: 'message_changed'; readonly message: StoredMessage }
  | { readonly kind: 'message_deleted'; readonly channel: string; readonly ts: string }
  | { readonly kind: 'view_changed'; readonly view: StoredView }
  | { readonly kind: 'file_changed'; readonly file: StoredFile }
  | { readonly kind: 'channel_changed'; readonly channel: KnownChannel }
  | { readonly kind: 'call'; readonly call: RecordedCall }
  | { readonly kind: 'reset' };

interface StoreEvents {
  change: [StoreChange];
}

export interface MessageQuery {
  /** Include every ephemeral message (default: none). */
  readonly includeEphemeral?: boolean;
  /** What this user sees: the channel's messages plus the ephemeral ones shown to them. */
  readonly seenBy?: string;
}

export interface SlackStoreOptions {
  readonly seed?: SlackSeed;
  /** Clock in epoch milliseconds. */
  readonly now?: () => number;
  /** Channels of the stand-in's other workspaces, known by name like the seeded ones. */
  readonly otherTeamChannels?: readonly SlackChannel[];
  /** How long Slack takes to process a completed upload before sharing it (on this clock). */
  readonly fileProcessingMs?: number;
}

export class SlackStore extends EventEmitter<StoreEvents> {
  readonly seed: SlackSeed;
  readonly now: () => number;
  /** Channels of the stand-in's other workspaces (seeded, so known by name). */
  readonly otherTeamChannels: readonly SlackChannel[];
  readonly fileProcessingMs: number;
  private channelsById = new Map<string, KnownChannel>();
  private usersById = new Map<string, SlackUser>();
  private disabledUsergroups = new Set<string>();
  private messagesByChannel = new Map<string, StoredMessage[]>();
  private viewsById = new Map<string, StoredView>();
  private filesById = new Map<string, StoredFile>();
  private callLog: RecordedCall[] = [];
  private postLog: RecordedPost[] = [];
  private lastTsMicros = 0;
  private idCounter = 0;

  constructor(options: SlackStoreOptions = {}) {
    super();
    this.seed = options.seed ?? DEFAULT_SLACK_SEED;
    this.now = options.now ?? Date.now;
    this.otherTeamChannels = options.otherTeamChannels ?? [];
    this.fileProcessingMs = options.fileProcessingMs ?? DEFAULT_FILE_PROCESSING_MS;
    this.seedChannels();
  }

  /** Forgets everything that happened; the seeded users and channels stay. */
  reset(): void {
    this.channelsById = new Map();
    this.usersById = new Map();
    this.disabledUsergroups = new Set();
    this.messagesByChannel = new Map();
    this.viewsById = new Map();
    this.filesById = new Map();
    this.callLog = [];
    this.postLog = [];
    this.seedChannels();
    this.emit('change', { kind: 'reset' });
  }

  private seedChannels(): void {
    for (const user of this.seed.users) this.usersById.set(user.id, user);
    const everyone = this.seed.users.map((user) => user.id);
    for (const channel of [...this.seed.channels, ...this.otherTeamChannels]) {
      this.channelsById.set(channel.id, {
        ...channel,
        is_archived: channel.is_archived ?? false,
        members: channel.members ?? everyone,
      });
    }
  }

  /** A fresh id in Slack's style (`V…`, `F…`), unique within this store. */
  newId(prefix: string): string {
    this.idCounter += 1;
    return `${prefix}0${this.idCounter.toString(36).toUpperCase().padStart(8, '0')}`;
  }

  /** A message timestamp in Slack's form (`1700000000.000100`), strictly increasing. */
  nextTs(): string {
    const micros = Math.max(Math.floor(this.now() * 1000), this.lastTsMicros + 1);
    this.lastTsMicros = micros;
    return `${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, '0')}`;
  }

  // Directory

  user(id: string): SlackUser | undefined {
    return this.usersById.get(id);
  }

  /** The seeded workspace's people, the bot's user and the deactivated among them. */
  users(): SlackUser[] {
    return [...this.usersById.values()];
  }

  usergroupMembers(id: string): readonly string[] | undefined {
    return Object.hasOwn(this.seed.usergroups, id) ? this.seed.usergroups[id] : undefined;
  }

  /** The seeded workspace's user groups, with their handles and whether an admin disabled them. */
  usergroups(): StoredUsergroup[] {
    const handles = this.seed.usergroupHandles ?? {};
    return Object.entries(this.seed.usergroups).map(([id, users]) => ({
      id,
      handle: (Object.hasOwn(handles, id) ? handles[id] : undefined) ?? id.toLowerCase(),
      users,
      disabled: this.disabledUsergroups.has(id),
    }));
  }

  /**
   * The conversation a `channel` argument names, as Slack reads it: a channel id, `#name`, or a
   * user id for the bot's direct messages with that user. An id nobody created is unknown, as in
   * Slack (`channel_not_found`).
   */
  channel(idOrName: string): KnownChannel | undefined {
    const known = this.channelsById.get(idOrName);
    if (known) return known;
    if (idOrName.startsWith('#')) {
      const name = idOrName.slice(1);
      return this.channels().find((channel) => channel.name === name);
    }
    const user = this.user(idOrName);
    if (user) return this.directMessages(user.id);
    return undefined;
  }

  /** The bot's direct messages with a person: both are in it, and it never goes away. */
  private directMessages(user: string): KnownChannel {
    const id = `D${user}`;
    const existing = this.channelsById.get(id);
    if (existing) return existing;
    const created: KnownChannel = {
      id,
      name: id.toLowerCase(),
      is_private: true,
      is_im: true,
      is_archived: false,
      members: [user, this.seed.bot.userId],
    };
    this.channelsById.set(id, created);
    return created;
  }

  /** Whether `user` (a person or the bot's user) is in the channel. */
  isMember(channel: KnownChannel, user: string): boolean {
    return channel.members.includes(user);
  }

  // Controls for tests and the sandbox page: what people do in Slack's own client.

  /** Someone creates a channel; the bot is not in it unless `members` names it. */
  createChannel(input: NewChannel): KnownChannel {
    const id = input.id ?? this.newId(input.is_private ? 'G' : 'C');
    if (this.channelsById.has(id)) throw new Error(`Channel ${id} exists already.`);
    const created: KnownChannel = {
      id,
      name: input.name,
      is_private: input.is_private ?? false,
      is_im: false,
      is_archived: false,
      members: input.members ?? this.seed.users.filter((user) => !user.is_bot).map((user) => user.id),
    };
    this.channelsById.set(id, created);
    return created;
  }

  archiveChannel(id: string): KnownChannel {
    return this.changeChannel(id, { is_archived: true });
  }

  unarchiveChannel(id: string): KnownChannel {
    return this.changeChannel(id, { is_archived: false });
  }

  /** `user` joins (or is invited to) the channel; joining twice changes nothing. */
  addMember(id: string, user: string): KnownChannel {
    const channel = this.requireChannel(id);
    if (channel.members.includes(user)) return channel;
    return this.changeChannel(id, { members: [...channel.members, user] });
  }

  /** `user` leaves (or is removed from) the channel. */
  removeMember(id: string, user: string): KnownChannel {
    const channel = this.requireChannel(id);
    return this.changeChannel(id, { members: channel.members.filter((member) => member !== user) });
  }

  /** `/invite @cloud`: the bot joins the channel. */
  inviteBot(id: string): KnownChannel {
    return this.addMember(id, this.seed.bot.userId);
  }

  /**
   * `/invite @cloud` typed in the channel, or the bot's own `conversations.join`: the bot is in,
   * and the channel shows Slack's line saying so (once; a second invite changes nothing).
   */
  botJoined(id: string): KnownChannel {
    const bot = this.seed.bot.userId;
    const before = this.requireChannel(id);
    if (before.members.includes(bot)) return before;
    const joined = this.inviteBot(id);
    // Slack's own line, in the bot user's name: not a message the bot posted (or may edit).
    this.addMessage({
      user: bot,
      channel: id,
      text: `<@${bot}> has joined the channel`,
      blocks: [],
      ephemeral: false,
      via: 'join',
    });
    return joined;
  }

  /** Someone joins the workspace. */
  addUser(user: SlackUser): SlackUser {
    if (this.usersById.has(user.id)) throw new Error(`User ${user.id} exists already.`);
    this.usersById.set(user.id, user);
    return user;
  }

  /** An admin deactivates someone: Slack keeps the account, flagged `deleted`. */
  deactivateUser(id: string): SlackUser {
    const user = this.usersById.get(id);
    if (!user) throw new Error(`No user ${id} in the stand-in.`);
    const deactivated = { ...user, deleted: true };
    this.usersById.set(id, deactivated);
    return deactivated;
  }

  /** An admin disables a user group (`usergroups.disable`); it keeps its id and handle. */
  disableUsergroup(id: string): void {
    if (!Object.hasOwn(this.seed.usergroups, id)) throw new Error(`No user group ${id} in the stand-in.`);
    this.disabledUsergroups.add(id);
  }

  /** Someone renames the channel; its id stays. */
  renameChannel(id: string, name: string): KnownChannel {
    return this.changeChannel(id, { name });
  }

  /** Someone removes the bot from the channel (`/kick @cloud`). */
  kickBot(id: string): KnownChannel {
    return this.removeMember(id, this.seed.bot.userId);
  }

  private requireChannel(id: string): KnownChannel {
    const channel = this.channelsById.get(id);
    if (!channel) throw new Error(`No channel ${id} in the stand-in.`);
    return channel;
  }

  private changeChannel(
    id: string,
    patch: Partial<Pick<KnownChannel, 'is_archived' | 'members' | 'name'>>,
  ): KnownChannel {
    const changed = { ...this.requireChannel(id), ...patch };
    this.channelsById.set(id, changed);
    this.emit('change', { kind: 'channel_changed', channel: changed });
    return changed;
  }

  channels(): KnownChannel[] {
    return [...this.channelsById.values()];
  }

  // Messages

  addMessage(input: NewMessage): StoredMessage {
    const message: StoredMessage = { ...input, ts: this.nextTs(), postedAt: this.now() };
    const list = this.messagesByChannel.get(message.channel) ?? [];
    list.push(message);
    this.messagesByChannel.set(message.channel, list);
    this.emit('change', { kind: 'message_added', message });
    return message;
  }

  findMessage(channel: string, ts: string): StoredMessage | undefined {
    this.shareProcessedFiles();
    return this.messagesByChannel.get(channel)?.find((message) => message.ts === ts);
  }

  updateMessage(
    channel: string,
    ts: string,
    patch: Partial<Pick<StoredMessage, 'text' | 'blocks' | 'ephemeral' | 'visibleTo' | 'files'>>,
  ): StoredMessage | undefined {
    const list = this.messagesByChannel.get(channel);
    const index = list?.findIndex((message) => message.ts === ts) ?? -1;
    const current = list?.[index];
    if (!list || !current) return undefined;
    const updated: StoredMessage = { ...current, ...patch, updatedAt: this.now() };
    list[index] = updated;
    this.emit('change', { kind: 'message_changed', message: updated });
    return updated;
  }

  deleteMessage(channel: string, ts: string): boolean {
    const list = this.messagesByChannel.get(channel);
    const index = list?.findIndex((message) => message.ts === ts) ?? -1;
    if (!list || index < 0) return false;
    list.splice(index, 1);
    this.emit('change', { kind: 'message_deleted', channel, ts });
    return true;
  }

  /** The channel's messages in posting order, thread replies included. */
  messages(channel: string, query: MessageQuery = {}): StoredMessage[] {
    this.shareProcessedFiles();
    return (this.messagesByChannel.get(channel) ?? []).filter(
      (message) =>
        !message.ephemeral ||
        query.includeEphemeral === true ||
        (query.seenBy !== undefined && message.visibleTo === query.seenBy),
    );
  }

  lastMessage(channel: string, query: MessageQuery = {}): StoredMessage | undefined {
    return this.messages(channel, query).at(-1);
  }

  /** Ephemeral messages shown to one user, in any channel or in the given one. */
  ephemeralFor(user: string, channel?: string): StoredMessage[] {
    this.shareProcessedFiles();
    const channels = channel === undefined ? [...this.messagesByChannel.keys()] : [channel];
    return channels
      .flatMap((id) => this.messagesByChannel.get(id) ?? [])
      .filter((message) => message.ephemeral && message.visibleTo === user)
      .sort((a, b) => Number(a.ts) - Number(b.ts));
  }

  /** A thread: its parent message followed by the replies. */
  thread(channel: string, ts: string): StoredMessage[] {
    return this.messages(channel).filter((message) => message.ts === ts || message.thread_ts === ts);
  }

  // Views

  putView(view: StoredView): void {
    this.viewsById.set(view.id, view);
    this.emit('change', { kind: 'view_changed', view });
  }

  view(id: string): StoredView | undefined {
    return this.viewsById.get(id);
  }

  viewByExternalId(externalId: string): StoredView | undefined {
    return [...this.viewsById.values()].find((view) => view.externalId === externalId);
  }

  /** The Home tab `views.publish` last gave `user` in `team`'s workspace. */
  homeView(team: string, user: string): StoredView | undefined {
    return [...this.viewsById.values()].find(
      (view) => view.view.type === 'home' && view.user === user && view.team === team,
    );
  }

  views(): StoredView[] {
    return [...this.viewsById.values()];
  }

  /** The user closed the modal (or submitted it): the whole stack goes away. */
  closeView(id: string): void {
    const root = this.viewsById.get(id)?.rootViewId;
    for (const view of this.viewsById.values()) {
      if (view.rootViewId === root && !view.closed) this.putView({ ...view, closed: true });
    }
  }

  // Files

  putFile(file: StoredFile): void {
    this.filesById.set(file.id, file);
    this.emit('change', { kind: 'file_changed', file });
    if (file.pendingShare && file.processedAt !== undefined) {
      // The live page has no reader to trigger the share: a timer does (tests read after moving their clock).
      setTimeout(() => this.shareProcessedFiles(), Math.max(0, file.processedAt - this.now()) + 5).unref();
    }
  }

  file(id: string): StoredFile | undefined {
    this.shareProcessedFiles();
    return this.filesById.get(id);
  }

  files(): StoredFile[] {
    this.shareProcessedFiles();
    return [...this.filesById.values()];
  }

  /**
   * Carries out the shares of files whose processing is done by now: the file becomes visible in
   * its channels and its share message appears, as Slack does some time after the upload's answer.
   * Runs before every read, so what the clock says is what is seen.
   */
  shareProcessedFiles(): void {
    const now = this.now();
    for (const file of this.filesById.values()) {
      const share = file.pendingShare;
      if (!share || file.processedAt === undefined || file.processedAt > now) continue;
      const { pendingShare: _done, ...rest } = file;
      const shared: StoredFile = { ...rest, channels: share.channels };
      this.filesById.set(file.id, shared);
      this.emit('change', { kind: 'file_changed', file: shared });
      for (const channel of share.channels) {
        this.addMessage({
          channel,
          text: share.text,
          blocks: share.blocks,
          files: [shared],
          ephemeral: false,
          via: 'files.completeUploadExternal',
          ...(share.user === undefined ? {} : { user: share.user }),
          ...(share.botId === undefined ? {} : { botId: share.botId }),
          ...(share.thread_ts === undefined ? {} : { thread_ts: share.thread_ts }),
        });
      }
    }
  }

  // Calls and posting rate

  recordCall(call: RecordedCall): void {
    this.callLog.push(call);
    this.emit('change', { kind: 'call', call });
  }

  calls(): readonly RecordedCall[] {
    return this.callLog;
  }

  callsTo(method: string): RecordedCall[] {
    return this.callLog.filter((call) => call.method === method);
  }

  recordPost(post: RecordedPost): void {
    this.postLog.push(post);
  }

  /** Every `chat.postMessage` attempt with its time, to check the bot's posting rate. */
  posts(channel?: string): RecordedPost[] {
    return this.postLog.filter((post) => channel === undefined || post.channel === channel);
  }
}
