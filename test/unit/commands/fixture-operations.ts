import * as z from 'zod';
import {
  bool,
  defineOperation,
  EmptyResultSchema,
  IdSchema,
  integer,
  oneOf,
  PageQuerySchema,
  text,
  textList,
} from '../../../lib/api/operation.js';
import { createRegistry } from '../../../lib/commands/registry.js';

/**
 * Rows written for the command tests: every kind of field the parser must handle, independent of
 * how the real table's rows are written.
 */

const ServerSchema = z.object({
  id: z.number().int(),
  label: z.string(),
  tags: z.array(z.string()),
  deprecated: z.boolean(),
  size: z.number().int(),
  status: z.string(),
});

export const listServers = defineOperation({
  group: 'nodes',
  action: 'list',
  aliases: ['ls'],
  summary: 'List servers',
  method: 'GET',
  path: '/servers',
  scopes: ['nodes:read_only'],
  paginated: true,
  filterable: ['label', 'tags', 'deprecated', 'size', 'status'],
  unorderable: ['status'],
  request: z.strictObject({ ...PageQuerySchema.shape }),
  response: ServerSchema,
  example: 'nodes list --label web',
});

export const listUnfilterable = defineOperation({
  group: 'nodes',
  action: 'events-list',
  summary: 'List events (no page parameters, no filters)',
  method: 'GET',
  path: '/servers/events',
  scopes: ['nodes:read_only'],
  paginated: true,
  pageParams: false,
  request: z.strictObject({}),
  response: z.object({ id: z.number().int() }),
  example: 'nodes events-list',
});

export const rebuildServer = defineOperation({
  group: 'nodes',
  action: 'rebuild',
  summary: 'Rebuild a server',
  method: 'POST',
  path: '/servers/{nodeId}/rebuild',
  scopes: ['nodes:read_write'],
  grants: ['read_write'],
  paginated: false,
  destructive: { consequence: 'Deletes every disk of the server.' },
  request: z
    .strictObject({
      nodeId: IdSchema,
      image: text(1),
      root_pass: text(7, 128),
      label: text(3, 64).optional(),
      size: integer(1, 100).optional(),
      booted: bool().optional(),
      tags: textList().optional(),
      configs: z.array(IdSchema).optional(),
      authorized_keys: textList().optional(),
      cluster_size: z.literal([1, 3], { error: 'must be 1 or 3' }).optional(),
      group: text(2, 50).nullable().optional(),
      updates: z
        .strictObject({
          day_of_week: integer(1, 7).optional(),
          frequency: oneOf(['weekly', 'monthly']).optional(),
        })
        .optional(),
      phone: z.strictObject({ primary: text(1), secondary: text(1).nullable().optional() }).optional(),
      devices: z
        .record(
          z.string(),
          z.strictObject({ disk_id: IdSchema.optional(), volume_id: IdSchema.optional() }).nullable(),
        )
        .optional(),
      interfaces: z
        .array(
          z.strictObject({ purpose: oneOf(['public', 'vlan']), label: text(1, 64).nullable().optional() }),
        )
        .max(3, 'must have at most 3 interfaces')
        .optional(),
    })
    .superRefine((v, ctx) => {
      if (v.booted === false && v.configs !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['configs'],
          message: 'must not be given when booted is false',
        });
      }
    }),
  response: EmptyResultSchema,
  example: 'nodes rebuild 7 --image node/debian12 --root-pass "c0rrect-Horse"',
});

export const restoreBackup = defineOperation({
  group: 'databases',
  action: 'mysql-backup-restore',
  summary: 'Restore a backup over a database',
  method: 'POST',
  path: '/databases/mysql/instances/{instanceId}/backups/{backupId}/restore',
  scopes: ['databases:read_write'],
  paginated: false,
  destructive: { consequence: 'Erases all data and replaces it with the backup.' },
  request: z.strictObject({ instanceId: IdSchema, backupId: IdSchema }),
  response: EmptyResultSchema,
  example: 'databases mysql-backup-restore 5 9',
});

export const confirmCode = defineOperation({
  group: 'profile',
  action: 'tfa-confirm',
  summary: 'Confirm a code',
  method: 'POST',
  path: '/profile/tfa-enable-confirm',
  scopes: ['account:read_write'],
  paginated: false,
  sensitive: true,
  request: z.strictObject({
    tfa_code: text(6, 6),
    password: text(8).optional(),
    attempts: integer(1, 3).optional(),
  }),
  response: z.object({ scratch: z.string() }),
  example: 'profile tfa-confirm --tfa-code 123456',
});

export const FIXTURE_OPERATIONS = [listServers, listUnfilterable, rebuildServer, restoreBackup, confirmCode];

export const fixtureRegistry = createRegistry(FIXTURE_OPERATIONS);
