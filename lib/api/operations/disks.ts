import * as z from 'zod';
import {
  DateTimeSchema,
  defineOperation,
  EmptyResultSchema,
  IdSchema,
  integer,
  lazySchema,
  oneOf,
  PageQuerySchema,
  text,
  textList,
} from '../operation.js';
import { rootPasswordSchema, stackScriptDataSchema } from './node-actions.js';
import '../../zod-settings.js';

/** A node's disks (API-FACTS-MORE.md §3.4 and §4; `Disk`, `DiskRequest` in the published schema). */

export const DISK_FILESYSTEMS = ['raw', 'swap', 'ext3', 'ext4', 'initrd'] as const;

export const diskSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    label: z.string(),
    /** `ready`, `not ready`, `deleting`. */
    status: z.string(),
    /** MB */
    size: z.number().int(),
    filesystem: z.string(),
    created: DateTimeSchema.optional(),
    updated: DateTimeSchema.optional(),
  }),
);
export type Disk = z.infer<ReturnType<typeof diskSchema>>;

const diskLabelSchema = lazySchema(() => text(1, 48));
const NodeRef = { nodeId: IdSchema };
const DiskRef = { nodeId: IdSchema, diskId: IdSchema };

const diskCreateRequestSchema = lazySchema(() =>
  z
    .strictObject({
      ...NodeRef,
      size: integer(),
      label: diskLabelSchema().optional(),
      filesystem: oneOf(DISK_FILESYSTEMS).optional(),
      image: text(1).optional(),
      root_pass: rootPasswordSchema().optional(),
      authorized_keys: textList().optional(),
      authorized_users: textList().optional(),
      stackscript_id: IdSchema.optional(),
      stackscript_data: stackScriptDataSchema().optional(),
    })
    .superRefine((v, ctx) => {
      const flag = (field: string, message: string) =>
        ctx.addIssue({ code: 'custom', path: [field], message });
      // §4.1: an empty disk needs a label; a disk from an image needs its root password.
      if (v.image === undefined && v.label === undefined)
        flag('label', 'is required for an empty disk (no image)');
      if (v.image !== undefined && v.root_pass === undefined) flag('root_pass', 'is required with image');
    }),
);

export const diskOperations = [
  defineOperation({
    group: 'nodes',
    action: 'disks-list',
    aliases: ['disks-ls', 'disks'],
    summary: "List a node's disks",
    method: 'GET',
    path: '/node/instances/{nodeId}/disks',
    scopes: ['nodes:read_only'],
    paginated: true,
    filterable: ['label', 'size'],
    request: () => z.strictObject({ ...NodeRef, ...PageQuerySchema.shape }),
    response: diskSchema,
    example: 'nodes disks-list 123',
  }),
  defineOperation({
    group: 'nodes',
    action: 'disks-create',
    aliases: ['disk-create'],
    summary: 'Add a disk to a node, empty or deployed from an image',
    method: 'POST',
    path: '/node/instances/{nodeId}/disks',
    scopes: ['nodes:read_write'],
    paginated: false,
    request: diskCreateRequestSchema,
    response: diskSchema,
    // `not ready` until it is written (§3.4).
    watch: { statusField: 'status', final: ['ready'], view: 'nodes.disks-view' },
    events: { actions: ['disk_create'], entityId: 'nodeId', source: 'API-FACTS-MORE.md §4.1' },
    example: 'nodes disks-create 123 --size 2048 --label scratch --filesystem ext4',
  }),
  defineOperation({
    group: 'nodes',
    action: 'disks-view',
    aliases: ['disk-view'],
    summary: 'Show one disk of a node',
    method: 'GET',
    path: '/node/instances/{nodeId}/disks/{diskId}',
    scopes: ['nodes:read_only'],
    paginated: false,
    request: () => z.strictObject(DiskRef),
    response: diskSchema,
    example: 'nodes disks-view 123 25674',
  }),
  defineOperation({
    group: 'nodes',
    action: 'disks-update',
    aliases: ['disk-update'],
    summary: "Rename a node's disk",
    method: 'PUT',
    path: '/node/instances/{nodeId}/disks/{diskId}',
    scopes: ['nodes:read_write'],
    paginated: false,
    request: () => z.strictObject({ ...DiskRef, label: diskLabelSchema().optional() }),
    response: diskSchema,
    events: { actions: ['disk_update'], entityId: 'nodeId', source: 'API-FACTS-MORE.md §4.2' },
    example: 'nodes disks-update 123 25674 --label data',
  }),
  defineOperation({
    group: 'nodes',
    action: 'disks-delete',
    aliases: ['disk-delete'],
    summary: "Delete a node's disk",
    method: 'DELETE',
    path: '/node/instances/{nodeId}/disks/{diskId}',
    scopes: ['nodes:read_write'],
    paginated: false,
    destructive: { consequence: 'Deletes the disk and everything on it; this cannot be undone.' },
    request: () => z.strictObject(DiskRef),
    response: EmptyResultSchema,
    events: { actions: ['disk_delete'], entityId: 'nodeId', source: 'API-FACTS-MORE.md §4.2' },
    example: 'nodes disks-delete 123 25674',
  }),
  defineOperation({
    group: 'nodes',
    action: 'disks-resize',
    aliases: ['disk-resize'],
    summary: "Resize a node's disk (shut the node down first, or the resize fails after it starts)",
    method: 'POST',
    path: '/node/instances/{nodeId}/disks/{diskId}/resize',
    scopes: ['nodes:read_write'],
    paginated: false,
    request: () => z.strictObject({ ...DiskRef, size: integer(1) }),
    response: EmptyResultSchema,
    events: { actions: ['disk_resize'], entityId: 'nodeId', source: 'API-FACTS-MORE.md §4.2' },
    example: 'nodes disks-resize 123 25674 --size 4096',
  }),
] as const;
