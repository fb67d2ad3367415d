import * as z from 'zod';
import {
  DateTimeSchema,
  defineOperation,
  EmptyResultSchema,
  IdSchema,
  lazySchema,
  PageQuerySchema,
} from '../operation.js';
import '../../zod-settings.js';

/** Account events of the last 90 days (API-FACTS-MORE.md §8). */

export const eventSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    /** `node_reboot`, `disk_resize`, …; "new actions may be added in the future", so no enum here. */
    action: z.string(),
    created: DateTimeSchema,
    /** failed, finished, notification, scheduled, started. */
    status: z.string(),
    duration: z.number().nullable().optional(),
    percent_complete: z.number().int().nullable().optional(),
    rate: z.string().nullable().optional(),
    time_remaining: z.string().nullable().optional(),
    read: z.boolean(),
    seen: z.boolean(),
    username: z.string().nullable().optional(),
    message: z.string().nullable().optional(),
    // Account and profile events have no entity id; tag events put the tag name there.
    entity: z
      .object({
        id: z.union([z.number().int(), z.string()]).nullable().optional(),
        label: z.string().nullable().optional(),
        type: z.string(),
        url: z.string().nullable().optional(),
      })
      .nullable()
      .optional(),
    secondary_entity: z
      .object({
        id: z.string().nullable().optional(),
        label: z.string().nullable().optional(),
        type: z.string().nullable().optional(),
        url: z.string().nullable().optional(),
      })
      .nullable()
      .optional(),
  }),
);
export type AccountEvent = z.infer<ReturnType<typeof eventSchema>>;

const EventRef = { eventId: IdSchema };

export const eventOperations = [
  defineOperation({
    group: 'events',
    action: 'list',
    aliases: ['ls'],
    summary: 'List the events of the last 90 days: what happened on the account, and how far it got',
    method: 'GET',
    path: '/account/events',
    scopes: ['events:read_only'],
    paginated: true,
    filterable: ['id', 'action', 'created', 'read', 'entity.id', 'entity.type'],
    request: () => z.strictObject({ ...PageQuerySchema.shape }),
    response: eventSchema,
    example: 'events list --action node_reboot',
  }),
  defineOperation({
    group: 'events',
    action: 'view',
    aliases: ['show', 'get'],
    summary: 'Show one event',
    method: 'GET',
    path: '/account/events/{eventId}',
    scopes: ['events:read_only'],
    paginated: false,
    request: () => z.strictObject(EventRef),
    response: eventSchema,
    example: 'events view 1234',
  }),
  defineOperation({
    group: 'events',
    action: 'mark-seen',
    aliases: ['seen'],
    summary: 'Mark every event up to and including this one as seen',
    method: 'POST',
    path: '/account/events/{eventId}/seen',
    // The spec declares the read-only scope for this write (§1, note 1).
    scopes: ['events:read_only'],
    paginated: false,
    request: () => z.strictObject(EventRef),
    response: EmptyResultSchema,
    example: 'events mark-seen 1234',
  }),
] as const;
