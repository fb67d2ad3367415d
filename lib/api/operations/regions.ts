import * as z from 'zod';
import { defineOperation, lazySchema, StringIdSchema } from '../operation.js';
import '../../zod-settings.js';

/** Regions (API-FACTS-MORE.md §7): public, nothing filterable. */

export const regionSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    label: z.string(),
    country: z.string(),
    /** `Nodes`, `Block Storage`, `Metadata`, `Premium Plans`, `GPU Nodes`, …: the spec gives no enum. */
    capabilities: z.array(z.string()),
    /** `ok` or `outage`. */
    status: z.string(),
    resolvers: z.object({ ipv4: z.string(), ipv6: z.string() }).optional(),
  }),
);
export type Region = z.infer<ReturnType<typeof regionSchema>>;

export const regionOperations = [
  defineOperation({
    group: 'regions',
    action: 'list',
    aliases: ['ls'],
    summary: 'List the regions, with what each offers and whether it has an outage',
    method: 'GET',
    path: '/regions',
    access: 'public',
    scopes: [],
    paginated: true,
    // The envelope is returned, but the spec declares no page parameters (§1, note 2).
    pageParams: false,
    request: () => z.strictObject({}),
    response: regionSchema,
    example: 'regions list',
  }),
  defineOperation({
    group: 'regions',
    action: 'view',
    aliases: ['show', 'get'],
    summary: 'Show one region',
    method: 'GET',
    path: '/regions/{regionId}',
    access: 'public',
    scopes: [],
    paginated: false,
    request: () => z.strictObject({ regionId: StringIdSchema }),
    response: regionSchema,
    example: 'regions view us-east',
  }),
] as const;
