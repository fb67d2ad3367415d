import type { WebClient } from '@slack/web-api';
import * as z from 'zod';
import { rateLimitedFor, slackErrorOf } from './slack-refusals.js';
import '../zod-settings.js';

/**
 * A workspace's channels, people and user groups by the names people write (`#ops`, `@alice`,
 * `@oncall`) and by id, for text that people write and read rather than type into a command (a
 * settings document). Each kind is listed once per directory, the first time it is asked for,
 * page by page, with the workspace's bot token; what the listing does not hold is unknown, so a
 * private channel the bot is not in, or another workspace's channel or person, is never named.
 *
 * Every answer says, per input and in input order, what the input resolved to or why it did not.
 * The listings are kept in `Map`s, so a name such as `__proto__` is only a name nobody has.
 */

export type DirectoryKind = 'channel' | 'user' | 'usergroup';

/** Why a written name is not one this kind can have, read without asking Slack. */
export type MalformedProblem =
  | 'empty'
  | 'too_long'
  | 'control_characters'
  /** A mention of another kind: `<@U…>` or `@alice` where a channel belongs. */
  | 'other_kind'
  /** Something in angle brackets that names nothing here (`<!here>`, a link). */
  | 'not_a_mention'
  /** A name where only an id is taken (`channelNames` and the other id readers). */
  | 'not_an_id';

/** A written name read on its own: an id, a name to look up, or why it is neither. */
export type WrittenName =
  | { readonly form: 'id'; readonly id: string }
  | { readonly form: 'name'; readonly name: string }
  | { readonly form: 'malformed'; readonly problem: MalformedProblem };

/**
 * Longest written name read. Slack's channel names, handles and display names are at most 80
 * characters (https://api.slack.com/methods/conversations.create, errors `invalid_name_maxlength`;
 * the profile's display name field); a mention adds the id (at most 21, as
 * `lib/commands/slack-ids.ts` bounds them) and its brackets.
 */
export const MAX_WRITTEN_NAME_LENGTH = 200;

interface FormRule {
  /** Letters an id of this kind starts with (`D` is a channel: the bot's direct messages). */
  readonly idShape: RegExp;
  readonly mention: RegExp;
  /** How a name of this kind starts when written with its sigil. */
  readonly sigil: '#' | '@';
}

const FORM_RULES: { readonly [K in DirectoryKind]: FormRule } = {
  channel: { idShape: /^[CGD][A-Z0-9]{2,20}$/, mention: /^<#([A-Z0-9]{3,21})(?:\|[^>]*)?>$/, sigil: '#' },
  user: { idShape: /^[UW][A-Z0-9]{2,20}$/, mention: /^<@([A-Z0-9]{3,21})(?:\|[^>]*)?>$/, sigil: '@' },
  usergroup: {
    idShape: /^S[A-Z0-9]{2,20}$/,
    mention: /^<!subteam\^([A-Z0-9]{3,21})(?:\|[^>]*)?>$/,
    sigil: '@',
  },
};

/** Mentions of each kind, to tell "a person where a channel belongs" from a broken mention. */
const MENTION_STARTS: { readonly [K in DirectoryKind]: string } = {
  channel: '<#',
  user: '<@',
  usergroup: '<!subteam^',
};

/** Unicode's control characters (general category Cc: C0, DEL and C1). */
const CONTROL_CHARACTERS = /\p{Cc}/u;

/**
 * What `text` names for `kind`: a mention (`<#C123|ops>`, `<@U123>`, `<!subteam^S123|@oncall>`)
 * or a bare id (`C0123ABC`, `U0123`, `S0123`) is an id; `#ops`, `@alice`, `@oncall` or the bare
 * name is a name. Channel names and handles are lower case in Slack, so an upper-case word with an
 * id's first letter is read as an id.
 */
export function readWrittenName(kind: DirectoryKind, text: string): WrittenName {
  if (text.length > MAX_WRITTEN_NAME_LENGTH) return { form: 'malformed', problem: 'too_long' };
  const trimmed = text.trim();
  if (trimmed === '') return { form: 'malformed', problem: 'empty' };
  if (CONTROL_CHARACTERS.test(trimmed)) return { form: 'malformed', problem: 'control_characters' };
  const rule = FORM_RULES[kind];
  if (trimmed.startsWith('<')) {
    const id = rule.mention.exec(trimmed)?.[1];
    if (id !== undefined) return { form: 'id', id };
    const otherKind = (Object.keys(MENTION_STARTS) as DirectoryKind[]).some(
      (other) => other !== kind && trimmed.startsWith(MENTION_STARTS[other]),
    );
    return { form: 'malformed', problem: otherKind ? 'other_kind' : 'not_a_mention' };
  }
  if (trimmed.startsWith('#') || trimmed.startsWith('@')) {
    if (trimmed[0] !== rule.sigil) return { form: 'malformed', problem: 'other_kind' };
    const name = trimmed.slice(1).trim();
    return name === '' ? { form: 'malformed', problem: 'empty' } : { form: 'name', name };
  }
  if (rule.idShape.test(trimmed)) return { form: 'id', id: trimmed };
  return { form: 'name', name: trimmed };
}

/** Names compare as Slack shows them: the same letters in any case and any Unicode composition. */
function comparable(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/** A channel, person or user group as the directory names it back. */
export interface DirectoryEntry {
  readonly id: string;
  /** The channel's name, the person's handle (`name`), the group's handle; without `#` or `@`. */
  readonly name: string;
  /** How a document writes it: `#ops`, `@alice`, `@oncall`. */
  readonly written: string;
}

/** Why a kind's listing could not be read; every input that needed it is answered with this. */
export type ListingFailure =
  | { readonly kind: 'rate_limited'; readonly retryAfterSeconds: number }
  | { readonly kind: 'missing_scope'; readonly needed: string | undefined }
  | { readonly kind: 'refused'; readonly error: string }
  /** More pages than `MAX_LISTING_PAGES`, or a cursor Slack gave twice. */
  | { readonly kind: 'too_large' }
  | { readonly kind: 'failed' };

export type Resolution = { readonly input: string } & (
  | ({ readonly kind: 'found' } & DirectoryEntry)
  | { readonly kind: 'malformed'; readonly problem: MalformedProblem }
  | { readonly kind: 'unknown' }
  /** Several people share the display name (and none has it as handle). */
  | { readonly kind: 'ambiguous'; readonly candidates: readonly DirectoryEntry[] }
  /** An archived channel, a deactivated person, a disabled user group: known, but not usable. */
  | ({ readonly kind: 'archived' | 'deleted' | 'disabled' } & DirectoryEntry)
  /** The workspace's plan has no user groups (`plan_upgrade_required`). */
  | { readonly kind: 'no_user_groups' }
  | { readonly kind: 'unreadable'; readonly cause: ListingFailure }
);

export interface SlackDirectory {
  /** Channel ids (or channel mentions) to names. */
  channelNames(ids: readonly string[]): Promise<readonly Resolution[]>;
  /** Channels as written (`#ops`, `ops`, `<#C123|ops>`, `C0123ABC`) to ids. */
  channelIds(names: readonly string[]): Promise<readonly Resolution[]>;
  /** User ids (or mentions) to handles. */
  userNames(ids: readonly string[]): Promise<readonly Resolution[]>;
  /** People as written (`@alice`, `alice`, a display name, `<@U123>`, `U0123`) to ids. */
  userIds(names: readonly string[]): Promise<readonly Resolution[]>;
  /** User group ids (or mentions) to handles. */
  groupHandles(ids: readonly string[]): Promise<readonly Resolution[]>;
  /** User groups as written (`@oncall`, `oncall`, `<!subteam^S123|@oncall>`, `S0123`) to ids. */
  groupIds(handles: readonly string[]): Promise<readonly Resolution[]>;
}

/** Items asked for per page; Slack's pagination guide recommends no more than 200. */
export const LISTING_PAGE_SIZE = 200;
/** Pages read before a listing is given up as too large (100,000 items at 200 a page). */
export const MAX_LISTING_PAGES = 500;

// What Slack answers, parsed where it enters; only the fields the directory reads.

const NextCursorSchema = z
  .object({ next_cursor: z.string().optional() })
  .optional()
  .transform((metadata) => metadata?.next_cursor ?? '');

const ConversationsPageSchema = z.object({
  channels: z
    .array(z.object({ id: z.string(), name: z.string().optional(), is_archived: z.boolean().optional() }))
    .default([]),
  response_metadata: NextCursorSchema,
});

const UsersPageSchema = z.object({
  members: z
    .array(
      z.object({
        id: z.string(),
        name: z.string().optional(),
        deleted: z.boolean().optional(),
        profile: z.object({ display_name: z.string().optional() }).optional(),
      }),
    )
    .default([]),
  response_metadata: NextCursorSchema,
});

const UsergroupsSchema = z.object({
  usergroups: z
    .array(z.object({ id: z.string(), handle: z.string().optional(), date_delete: z.number().optional() }))
    .default([]),
});

/** One listed channel, person or group, with what its lookups compare. */
interface Listed {
  readonly entry: DirectoryEntry;
  /** Archived, deactivated or disabled. */
  readonly retired: boolean;
  /** Compared first (the channel's name, the person's handle, the group's handle). */
  readonly primary: string;
  /** Compared when no `primary` matches: a person's display name. */
  readonly secondary?: string;
}

interface Listing {
  readonly byId: ReadonlyMap<string, Listed>;
  readonly byPrimary: ReadonlyMap<string, readonly Listed[]>;
  readonly bySecondary: ReadonlyMap<string, readonly Listed[]>;
}

type ListingRead =
  | { readonly kind: 'listed'; readonly listing: Listing }
  | { readonly kind: 'no_user_groups' }
  | { readonly kind: 'unreadable'; readonly cause: ListingFailure };

function indexed(rows: readonly Listed[]): Listing {
  const byId = new Map<string, Listed>();
  const byPrimary = new Map<string, Listed[]>();
  const bySecondary = new Map<string, Listed[]>();
  const add = (map: Map<string, Listed[]>, key: string, row: Listed) =>
    map.set(key, [...(map.get(key) ?? []), row]);
  for (const row of rows) {
    byId.set(row.entry.id, row);
    add(byPrimary, comparable(row.primary), row);
    if (row.secondary !== undefined && row.secondary !== '') add(bySecondary, comparable(row.secondary), row);
  }
  return { byId, byPrimary, bySecondary };
}

function failureOf(error: unknown): ListingFailure {
  const retryAfterSeconds = rateLimitedFor(error);
  if (retryAfterSeconds !== undefined) return { kind: 'rate_limited', retryAfterSeconds };
  const slackError = slackErrorOf(error);
  if (slackError === 'missing_scope') {
    const needed = (error as { data?: { needed?: unknown } }).data?.needed;
    return { kind: 'missing_scope', needed: typeof needed === 'string' ? needed : undefined };
  }
  if (slackError !== undefined) return { kind: 'refused', error: slackError };
  return { kind: 'failed' };
}

class ListingTooLargeError extends Error {
  override readonly name = 'ListingTooLargeError';
}

/** Every page of a cursor-paged listing, until Slack's `next_cursor` is empty. */
async function allPages<T>(readPage: (cursor: string | undefined) => Promise<{ items: T[]; next: string }>) {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LISTING_PAGES; page++) {
    const answer = await readPage(cursor);
    items.push(...answer.items);
    if (answer.next === '') return items;
    if (seen.has(answer.next)) break;
    seen.add(answer.next);
    cursor = answer.next;
  }
  throw new ListingTooLargeError('The listing did not end within its page budget.');
}

async function listChannels(client: WebClient): Promise<Listed[]> {
  const channels = await allPages(async (cursor) => {
    const page = ConversationsPageSchema.parse(
      await client.conversations.list({
        // Private channels are listed only where the bot is a member (rule `conversations-list`).
        types: 'public_channel,private_channel',
        limit: LISTING_PAGE_SIZE,
        ...(cursor === undefined ? {} : { cursor }),
      }),
    );
    return { items: page.channels, next: page.response_metadata };
  });
  return channels.map((channel) => {
    const name = channel.name ?? '';
    return {
      entry: { id: channel.id, name, written: `#${name}` },
      retired: channel.is_archived === true,
      primary: name,
    };
  });
}

/**
 * People are matched by handle (`name`) first, then by display name (`profile.display_name`).
 * The handle is unique in a workspace and is what Slack itself turns `@alice` into a mention by
 * (rule `escaping` of the Slack stand-in, from https://api.slack.com/interactivity/slash-commands,
 * "Escape channels, users, and links"); display names are what people see but are not unique
 * (https://api.slack.com/types/user: `display_name`, and `name` kept for compatibility), so a
 * display name two people share is ambiguous rather than guessed.
 */
async function listUsers(client: WebClient): Promise<Listed[]> {
  const members = await allPages(async (cursor) => {
    const page = UsersPageSchema.parse(
      await client.users.list({ limit: LISTING_PAGE_SIZE, ...(cursor === undefined ? {} : { cursor }) }),
    );
    return { items: page.members, next: page.response_metadata };
  });
  return members.map((member) => {
    const name = member.name ?? '';
    const displayName = member.profile?.display_name;
    return {
      entry: { id: member.id, name, written: `@${name}` },
      retired: member.deleted === true,
      primary: name,
      ...(displayName === undefined ? {} : { secondary: displayName }),
    };
  });
}

/** User groups are one page (usergroups.list takes no cursor); disabled ones too, to say so. */
async function listUsergroups(client: WebClient): Promise<Listed[]> {
  const answer = UsergroupsSchema.parse(await client.usergroups.list({ include_disabled: true }));
  return answer.usergroups.map((group) => {
    const handle = group.handle ?? '';
    return {
      entry: { id: group.id, name: handle, written: `@${handle}` },
      retired: (group.date_delete ?? 0) > 0,
      primary: handle,
    };
  });
}

const RETIRED: { readonly [K in DirectoryKind]: 'archived' | 'deleted' | 'disabled' } = {
  channel: 'archived',
  user: 'deleted',
  usergroup: 'disabled',
};

/** The one row among `rows` a name means: the only one in use, else the only one at all. */
function chosen(input: string, rows: readonly Listed[] | undefined): Resolution | undefined {
  if (rows === undefined || rows.length === 0) return undefined;
  const inUse = rows.filter((row) => !row.retired);
  if (inUse.length === 1 && inUse[0]) return { input, kind: 'found', ...inUse[0].entry };
  if (inUse.length > 1) return { input, kind: 'ambiguous', candidates: inUse.map((row) => row.entry) };
  return undefined;
}

function resolved(kind: DirectoryKind, input: string, written: WrittenName, listing: Listing): Resolution {
  if (written.form === 'malformed') return { input, kind: 'malformed', problem: written.problem };
  if (written.form === 'id') {
    const row = listing.byId.get(written.id);
    if (!row) return { input, kind: 'unknown' };
    return row.retired
      ? { input, kind: RETIRED[kind], ...row.entry }
      : { input, kind: 'found', ...row.entry };
  }
  const key = comparable(written.name);
  const primary = listing.byPrimary.get(key);
  const secondary = listing.bySecondary.get(key);
  const inUse = chosen(input, primary) ?? chosen(input, secondary);
  if (inUse) return inUse;
  const retired = [...(primary ?? []), ...(secondary ?? [])][0];
  return retired ? { input, kind: RETIRED[kind], ...retired.entry } : { input, kind: 'unknown' };
}

/** The directory of the workspace `client`'s bot token belongs to; listings kept for its life. */
export function slackDirectory(client: WebClient): SlackDirectory {
  const listers: { readonly [K in DirectoryKind]: () => Promise<Listed[]> } = {
    channel: () => listChannels(client),
    user: () => listUsers(client),
    usergroup: () => listUsergroups(client),
  };
  const listings = new Map<DirectoryKind, Promise<ListingRead>>();

  function listingOf(kind: DirectoryKind): Promise<ListingRead> {
    const kept = listings.get(kind);
    if (kept) return kept;
    const read = listers[kind]().then(
      (rows): ListingRead => ({ kind: 'listed', listing: indexed(rows) }),
      (error: unknown): ListingRead => {
        // A failed listing is not kept: the next question asks Slack again.
        listings.delete(kind);
        if (error instanceof ListingTooLargeError)
          return { kind: 'unreadable', cause: { kind: 'too_large' } };
        if (kind === 'usergroup' && slackErrorOf(error) === 'plan_upgrade_required') {
          return { kind: 'no_user_groups' };
        }
        return { kind: 'unreadable', cause: failureOf(error) };
      },
    );
    listings.set(kind, read);
    return read;
  }

  async function resolveAll(kind: DirectoryKind, inputs: readonly string[], idsOnly: boolean) {
    const written = inputs.map((input): WrittenName => {
      const reading = readWrittenName(kind, typeof input === 'string' ? input : '');
      return idsOnly && reading.form === 'name' ? { form: 'malformed', problem: 'not_an_id' } : reading;
    });
    // Slack is asked only when some input needs looking up.
    const read = written.some((one) => one.form !== 'malformed') ? await listingOf(kind) : undefined;
    return inputs.map((input, index): Resolution => {
      const one = written[index] ?? { form: 'malformed', problem: 'empty' };
      if (one.form === 'malformed' || read === undefined) {
        return { input, kind: 'malformed', problem: one.form === 'malformed' ? one.problem : 'empty' };
      }
      if (read.kind === 'no_user_groups') return { input, kind: 'no_user_groups' };
      if (read.kind === 'unreadable') return { input, kind: 'unreadable', cause: read.cause };
      return resolved(kind, input, one, read.listing);
    });
  }

  return {
    channelNames: (ids) => resolveAll('channel', ids, true),
    channelIds: (names) => resolveAll('channel', names, false),
    userNames: (ids) => resolveAll('user', ids, true),
    userIds: (names) => resolveAll('user', names, false),
    groupHandles: (ids) => resolveAll('usergroup', ids, true),
    groupIds: (handles) => resolveAll('usergroup', handles, false),
  };
}
