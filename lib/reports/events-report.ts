import type { AccountEvent } from '../api/operations/events.js';
import { findOperation } from '../api/operations/index.js';
import { mrkdwnFallback, type RenderedMessage, sectionBlock, truncateMrkdwn } from '../slack-kit/blocks.js';
import {
  eventDurationWords,
  eventSentence,
  eventStatusEmoji,
  eventStatusWords,
} from '../slack-kit/event-words.js';
import {
  capitalize,
  codeSpan,
  escapeMrkdwn,
  parseApiDate,
  slackDate,
  userMention,
} from '../slack-kit/text.js';
import type { AuditEntry, AuditLogRepository } from '../store/audit-log.js';
import type { ReportFilter, ReportSubscription } from '../store/report-subscriptions.js';
import { truncate } from '../truncate.js';
import { apiDateTime, EVENT_OVERLAP_MS, eventsReadFrom } from './account-feed.js';
import {
  type DeliveryContext,
  type DeliveryResult,
  type PostMarker,
  type PostRun,
  postGroupOnce,
} from './deliver.js';
import { inQuietHours, quietHoursJustEnded, quietHoursText } from './quiet-hours.js';

/**
 * The events report's own parts: which events a subscription's filter keeps, which of them the
 * bot made (and for whom), and the message for one event. Its deliverer is `deliverEvents` below,
 * which posts a run's events as one message and its thread, each event once under the alerts'
 * claims (`postGroupOnce` in `deliver.ts`).
 */

// ---------------------------------------------------------------------------------------------
// Filter

/** Whether the subscription's `--action` and `--entity` lists (each absent: any) keep the event. */
export function eventPassesFilter(event: AccountEvent, filter: ReportFilter): boolean {
  const actions = filter.action;
  const entities = filter.entity;
  if (actions !== undefined && actions.length > 0 && !actions.includes(event.action)) return false;
  if (entities !== undefined && entities.length > 0) {
    const type = event.entity?.type;
    if (type === undefined || !entities.includes(type)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Made through the bot?

/**
 * How far apart the bot's audit entry and the API's event may be. The bot writes its entry right
 * after the API answers, and the API dates the event when it takes the call: seconds apart, plus
 * retries and the two clocks' difference.
 */
export const BOT_CHANGE_WINDOW_MS = 5 * 60_000;

/** Audit results of a change that went to the API and may have happened. */
const SENT_RESULTS: ReadonlySet<string> = new Set(['succeeded', 'in_doubt', 'unknown']);

/** Audit pages read back at most per run: a busy team's older entries are past the window anyway. */
const MAX_AUDIT_PAGES = 10;
const AUDIT_PAGE_SIZE = 100;

/**
 * Whether an audit entry may be the bot's record of the event. The rule:
 * - the entry is of a change sent to the API (succeeded, in doubt or unknown), named by its
 *   operation id (`nodes.reboot`) and target (`nodeId=12`, or `/profile/sshkeys id=57` for a
 *   create, as `targetOf` writes them);
 * - one of the target's ids is the event's entity id;
 * - the event's action is one the operation's row says it writes (`events` on the row:
 *   `user_ssh_key_add` for `profile.sshkeys-create`); for a row without that data, the
 *   operation's action (its last word: `reboot` of `nodes.reboot`, `enable` of
 *   `nodes.backups-enable`) is a word of the event's action (`node_reboot`, `backups_enable`);
 * - the two are at most `BOT_CHANGE_WINDOW_MS` apart.
 * Account-wide events (no entity id) never match: nothing ties them to one of the bot's changes.
 */
export function auditEntryMatches(event: AccountEvent, entry: AuditEntry): boolean {
  if (!SENT_RESULTS.has(entry.result) || entry.target === null) return false;
  const entityId = event.entity?.id;
  if (entityId === undefined || entityId === null) return false;
  const created = parseApiDate(event.created);
  if (!created || Math.abs(entry.at.getTime() - created.getTime()) > BOT_CHANGE_WINDOW_MS) return false;
  const ids = entry.target
    .split(/\s+/)
    .map((pair) => pair.split('=')[1])
    .filter((value): value is string => value !== undefined);
  if (!ids.includes(String(entityId))) return false;
  const declared = declaredEventActions(entry.action);
  if (declared !== undefined) return declared.includes(event.action);
  const operationAction = entry.action.split('.').at(-1) ?? '';
  const verb = operationAction.split('-').at(-1) ?? '';
  return verb !== '' && event.action.split('_').includes(verb);
}

/** The event actions the operation's row says it writes; undefined when the row has no such data. */
function declaredEventActions(operationId: string): readonly string[] | undefined {
  const evidence = findOperation(operationId)?.events;
  return evidence && 'actions' in evidence ? evidence.actions : undefined;
}

/**
 * The bot's audit entries for `events`, as a lookup: each event gets the matching entry closest in
 * time, and each entry accounts for one event of each action at most (two reboots of one node a
 * minute apart, one through the bot, are not both the bot's; a resize's two events are).
 */
export async function botChangesFor(
  audit: Pick<AuditLogRepository, 'list'>,
  team: string,
  events: readonly AccountEvent[],
): Promise<(event: AccountEvent) => AuditEntry | undefined> {
  const times = events
    .map((event) => parseApiDate(event.created)?.getTime())
    .filter((ms): ms is number => ms !== undefined);
  if (times.length === 0) return () => undefined;
  const oldest = Math.min(...times) - BOT_CHANGE_WINDOW_MS;
  const entries: AuditEntry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_AUDIT_PAGES; page += 1) {
    const read = await audit.list(team, {
      limit: AUDIT_PAGE_SIZE,
      ...(cursor === undefined ? {} : { cursor }),
    });
    entries.push(...read.entries);
    cursor = read.nextCursor;
    const last = read.entries.at(-1);
    // Newest first: once past the oldest event's window, nothing older can match.
    if (cursor === undefined || (last !== undefined && last.at.getTime() < oldest)) break;
  }
  // An entry accounts for one event of each action its change writes: a resize writes both
  // `node_resize_create` and `node_resize` (API-FACTS-MORE.md §2.3), and both are the bot's.
  const taken = new Set<string>();
  const takenKey = (entry: AuditEntry, event: AccountEvent) => `${entry.id}\u0000${event.action}`;
  const byEvent = new Map<number, AuditEntry>();
  for (const event of [...events].sort((a, b) => a.id - b.id)) {
    const created = parseApiDate(event.created)?.getTime() ?? 0;
    const best = entries
      .filter((entry) => !taken.has(takenKey(entry, event)) && auditEntryMatches(event, entry))
      .sort((a, b) => Math.abs(a.at.getTime() - created) - Math.abs(b.at.getTime() - created))[0];
    if (best) {
      taken.add(takenKey(best, event));
      byEvent.set(event.id, best);
    }
  }
  return (event) => byEvent.get(event.id);
}

// ---------------------------------------------------------------------------------------------
// Message

/** Longest line of one event, so ten fit a message under Slack's total (SLACK-FACTS, Block Kit limits). */
const EVENT_LINE_MAX = 1000;
/** The API's own detail under an event, cut to keep the line short. */
const EVENT_MESSAGE_MAX = 300;

/** Who made the event: a Slack user through the bot (from its audit), or someone outside it. */
function makerWords(event: AccountEvent, byBot: AuditEntry | undefined): string {
  if (byBot) return `by ${userMention(byBot.actor)} through the bot`;
  return event.username
    ? `by ${codeSpan(event.username)} outside the bot`
    : 'by the provider (no user), outside the bot';
}

/**
 * One account event as a line of a timeline: what happened to what, its status in words, who made
 * it, when, how long it took, and the API's detail: `:white_check_mark: Node *web-1* resized · done
 * · by <@U0ADA> through the bot · <date> · took 10 s · event 500123`.
 */
export function accountEventLine(event: AccountEvent, byBot: AuditEntry | undefined): string {
  const duration = eventDurationWords(event);
  const facts = [
    capitalize(eventSentence(event).mrkdwn),
    eventStatusWords(event).replace(/^\S+ /, ''),
    makerWords(event, byBot),
    slackDate(event.created),
    ...(duration === undefined ? [] : [duration]),
    `event ${codeSpan(String(event.id))}`,
  ];
  const detail = event.message ? `\n> ${escapeMrkdwn(truncate(event.message, EVENT_MESSAGE_MAX))}` : '';
  return truncateMrkdwn(`${eventStatusEmoji(event.status)} ${facts.join(' · ')}${detail}`, EVENT_LINE_MAX);
}

/** The event in plain words, for a message's notification text: `Node web-1 resized (done)`. */
export function accountEventPlain(event: AccountEvent): string {
  return `${capitalize(eventSentence(event).plain)} (${eventStatusWords(event).replace(/^\S+ /, '')})`;
}

/** One account event alone, as one message (`/cloud reports run` previews, tests). */
export function renderAccountEvent(event: AccountEvent, byBot: AuditEntry | undefined): RenderedMessage {
  return {
    text: mrkdwnFallback(`${escapeMrkdwn(accountEventPlain(event))}, ${makerWords(event, byBot)}`),
    blocks: [sectionBlock(accountEventLine(event, byBot))],
  };
}

/**
 * Events in the message itself, and in each reply of its thread: a group's message shows the first
 * few, with the count; ten lines of at most `EVENT_LINE_MAX` stay under the ~13k characters and
 * the 50 blocks Slack takes in one message (SLACK-FACTS, Block Kit limits).
 */
export const EVENTS_IN_MESSAGE = 5;
export const EVENTS_PER_REPLY = 10;
/** Events one run posts at most (its message and four replies); the next run, due at once, goes on. */
export const EVENTS_PER_GROUP = EVENTS_IN_MESSAGE + 4 * EVENTS_PER_REPLY;

/** The text Slack shows in a notification for these events: the first few in plain words. */
function eventsFallback(head: string, events: readonly AccountEvent[]): string {
  const named = events.slice(0, 3).map(accountEventPlain).join('; ');
  return mrkdwnFallback(escapeMrkdwn(truncate(`${head}: ${named}${events.length > 3 ? '; …' : ''}`, 500)));
}

/**
 * A run's events as one message: alone, the event's line; several, their count and the first few,
 * the rest in its thread (`renderAccountEventReply`).
 */
export function renderAccountEventGroup(
  shown: readonly AccountEvent[],
  all: readonly AccountEvent[],
  madeBy: (event: AccountEvent) => AuditEntry | undefined,
  /** Why they were held, when they were (`while this channel was quiet (…)`). */
  held?: string,
): RenderedMessage {
  const [only] = all;
  if (all.length === 1 && only) return renderAccountEvent(only, madeBy(only));
  const more = all.length - shown.length;
  const head = `${all.length} account events${held === undefined ? '' : ` ${held}`}`;
  return {
    text: eventsFallback(head, all),
    blocks: [
      sectionBlock(
        `*${head}*${more > 0 ? `, the first ${shown.length} here and ${more} more in the thread` : ''}`,
      ),
      ...shown.map((event) => sectionBlock(accountEventLine(event, madeBy(event)))),
    ],
  };
}

/** A reply in a group's thread: the events its message had no room for. */
export function renderAccountEventReply(
  shown: readonly AccountEvent[],
  madeBy: (event: AccountEvent) => AuditEntry | undefined,
): RenderedMessage {
  return {
    text: eventsFallback(`${shown.length} more account events`, shown),
    blocks: shown.map((event) => sectionBlock(accountEventLine(event, madeBy(event)))),
  };
}

// ---------------------------------------------------------------------------------------------
// Delivery

/** How a group's messages are found in the channel, for the in-doubt check (`event`: a single one from before groups). */
const ACCOUNT_EVENT_MARKER: PostMarker = { eventType: 'account_event', idField: 'event' };

/** Ids remembered at most: past it the oldest go, and the claims still keep them from a second post. */
export const MAX_REMEMBERED_EVENTS = 1000;

/**
 * Account events the subscription has not done yet, oldest first, posted as one message (the rest
 * in its thread), each event still under its own claim as alerts are (see `postGroupOnce`); events
 * the filter leaves out are passed over as done. The first run only learns what is there: it reads the overlap before its own time
 * (not the account's whole history) and counts what it finds as done.
 *
 * A run reads only the events dated from the newest done event's time less `EVENT_OVERLAP_MS`
 * (the API's `created` filter), and remembers the ids of the events done within that overlap: an
 * event that the API lists late, with an id lower than others already posted, is still in the
 * window and not among the ids, so it is posted once. The time remembered never passes an event
 * left undone (a run stopped part-way), so the next run reads back to it. A subscription from
 * before the window was kept remembers only the newest id: its next run reads everything and
 * counts every event up to that id as done.
 */
export async function deliverEvents(ctx: DeliveryContext, sub: ReportSubscription): Promise<DeliveryResult> {
  const from = eventsReadFrom([sub], ctx.now);
  const fromMs = from === undefined ? undefined : parseApiDate(from)?.getTime();
  const createdMs = (event: AccountEvent) => parseApiDate(event.created)?.getTime() ?? 0;
  // The shared read may reach back further than this subscription's window.
  const events = (await ctx.feed.events(from)).filter(
    (event) => fromMs === undefined || createdMs(event) >= fromMs,
  );
  // Only the newest id is known (a subscription from before the window, or just subscribed).
  const newestOnly = sub.eventsSeenAt === undefined ? Math.max(0, ...sub.seenIssueIds) : undefined;
  const doneBefore = (event: AccountEvent) =>
    sub.lastRun === null ||
    sub.seenIssueIds.has(event.id) ||
    (newestOnly !== undefined && event.id <= newestOnly);
  const fresh = events
    .filter((event) => !doneBefore(event))
    .sort((a, b) => createdMs(a) - createdMs(b) || a.id - b.id);
  const wanted = fresh.filter((event) => eventPassesFilter(event, sub.filter));
  const { quietHours } = sub.noise;
  if (sub.lastRun !== null && quietHours !== null && inQuietHours(quietHours, ctx.now)) {
    // Quiet: nothing is done, so the window stays where it was and the next run reads them again.
    return {
      messages: 0,
      files: 0,
      alerted: [],
      seenIssueIds: [...sub.seenIssueIds],
      ...(sub.eventsSeenAt === undefined ? {} : { eventsSeenAt: sub.eventsSeenAt }),
    };
  }
  const held = quietHoursJustEnded(quietHours, sub.lastRun?.at, ctx.now)
    ? `while this channel was quiet (${quietHoursText(quietHours)})`
    : undefined;
  const group = wanted.slice(0, EVENTS_PER_GROUP);
  let run: PostRun = { messages: 0, files: 0, done: [], alerted: [] };
  if (group.length > 0) {
    const madeBy = await botChangesFor(ctx.audit, sub.team, group);
    run = await postGroupOnce(ctx, sub, ACCOUNT_EVENT_MARKER, group, {
      inMessage: EVENTS_IN_MESSAGE,
      perReply: EVENTS_PER_REPLY,
      message: (shown, all) => renderAccountEventGroup(shown, all, madeBy, held),
      reply: (shown) => renderAccountEventReply(shown, madeBy),
    });
    // More than one group's worth: the next run, due at once, posts the rest.
    if (wanted.length > group.length && run.error === undefined) run = { ...run, unfinished: true };
  }
  const doneNow = new Set(run.done);
  const wantedIds = new Set(wanted.map((event) => event.id));
  const done = events.filter(
    (event) => doneBefore(event) || doneNow.has(event.id) || !wantedIds.has(event.id),
  );
  return { ...run, ...rememberedEvents(sub, events, done, ctx.now) };
}

/**
 * What to remember after a run: the newest done event's time, held back to the first event left
 * undone, and the done ids dated within the overlap before it (newest `MAX_REMEMBERED_EVENTS`).
 */
function rememberedEvents(
  sub: ReportSubscription,
  read: readonly AccountEvent[],
  done: readonly AccountEvent[],
  now: Date,
): Pick<DeliveryResult, 'seenIssueIds' | 'eventsSeenAt'> {
  const createdMs = (event: AccountEvent) => parseApiDate(event.created)?.getTime() ?? 0;
  const doneIds = new Set(done.map((event) => event.id));
  const newestDone = done.reduce<AccountEvent | undefined>(
    (newest, event) => (newest === undefined || createdMs(event) > createdMs(newest) ? event : newest),
    undefined,
  );
  const firstUndone = read
    .filter((event) => !doneIds.has(event.id))
    .reduce<AccountEvent | undefined>(
      (oldest, event) => (oldest === undefined || createdMs(event) < createdMs(oldest) ? event : oldest),
      undefined,
    );
  // A first run that found no event in its window starts the window at its own time.
  let seenAt =
    newestDone?.created ??
    sub.eventsSeenAt ??
    (sub.lastRun === null ? apiDateTime(now.getTime()) : undefined);
  if (
    firstUndone &&
    (seenAt === undefined || createdMs(firstUndone) < (parseApiDate(seenAt)?.getTime() ?? 0))
  ) {
    seenAt = firstUndone.created;
  }
  if (seenAt === undefined) {
    // Nothing read and no time yet: keep what was known.
    return { seenIssueIds: [...sub.seenIssueIds] };
  }
  const windowStart = (parseApiDate(seenAt)?.getTime() ?? 0) - EVENT_OVERLAP_MS;
  const kept = done
    .filter((event) => createdMs(event) >= windowStart)
    .map((event) => event.id)
    .sort((a, b) => b - a)
    .slice(0, MAX_REMEMBERED_EVENTS);
  return { seenIssueIds: kept, eventsSeenAt: seenAt };
}
