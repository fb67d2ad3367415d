import { EVENT_HISTORY_MS, renderEvent } from '../account-events.js';
import { canView } from '../auth.js';
import type { EventRecord, UserRecord } from '../world.js';
import { found } from './lookup.js';
import { empty, type GroupHandlers, type HandlerContext, json, list } from './types.js';

/**
 * Account events (API-FACTS-MORE.md §8): the last 90 days, newest first; "what you get depends on
 * your grants", so a restricted user sees the events of the nodes, volumes and images they may
 * view and none of the account's own.
 */

const ENTITY_KINDS = {
  node: 'node',
  disks: 'node',
  backups: 'node',
  volume: 'volume',
  image: 'image',
} as const;

function visibleTo(user: UserRecord, event: EventRecord): boolean {
  if (!user.restricted) return true;
  const kind = ENTITY_KINDS[event.entity.type as keyof typeof ENTITY_KINDS];
  if (kind === undefined || event.entity.id === null) return event.username === user.username;
  return canView(user, kind, event.entity.id);
}

function recentEvents(ctx: HandlerContext): EventRecord[] {
  const since = ctx.now - EVENT_HISTORY_MS;
  return [...ctx.world.events.values()]
    .filter((event) => event.created >= since && visibleTo(ctx.user, event))
    .sort((a, b) => b.id - a.id);
}

function eventFor(ctx: HandlerContext): EventRecord {
  const id = ctx.input.int('eventId');
  return found(
    recentEvents(ctx).find((event) => event.id === id),
    'Event',
  );
}

export const eventHandlers: GroupHandlers<'events'> = {
  'events.list': (ctx) => list(recentEvents(ctx), renderEvent),
  'events.view': (ctx) => json(renderEvent(eventFor(ctx))),
  // §8: marks every event up to and including this one as seen.
  'events.mark-seen': (ctx) => {
    const through = eventFor(ctx);
    for (const event of recentEvents(ctx)) if (event.id <= through.id) event.seen = true;
    return empty();
  },
};
