import * as z from 'zod';
import {
  bool,
  DateTimeSchema,
  defineOperation,
  EmptyResultSchema,
  IdSchema,
  integer,
  lazySchema,
  PageQuerySchema,
  text,
  textList,
} from '../operation.js';
import '../../zod-settings.js';

export const volumeSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    label: z.string(),
    filesystem_path: z.string().optional(),
    status: z.string(),
    size: z.number().int(),
    region: z.string(),
    node_id: z.number().int().nullable().optional(),
    node_label: z.string().nullable().optional(),
    created: DateTimeSchema.optional(),
    updated: DateTimeSchema.optional(),
    tags: z.array(z.string()).optional(),
    hardware_type: z.string().optional(),
  }),
);
export type Volume = z.infer<ReturnType<typeof volumeSchema>>;

const volumeLabelSchema = lazySchema(() => text(1, 32));
const tagsSchema = lazySchema(() => textList());
const VolumeRef = { volumeId: IdSchema };

export const volumeOperations = [
  defineOperation({
    group: 'volumes',
    action: 'list',
    aliases: ['ls'],
    summary: 'List the volumes you may view',
    method: 'GET',
    path: '/volumes',
    scopes: ['volumes:read_only'],
    paginated: true,
    filterable: ['label', 'tags'],
    request: () => z.strictObject({ ...PageQuerySchema.shape }),
    response: volumeSchema,
    example: 'volumes list --label my-volume',
  }),
  defineOperation({
    group: 'volumes',
    action: 'create',
    summary: 'Create a volume (starts charges)',
    method: 'POST',
    path: '/volumes',
    scopes: ['volumes:read_write'],
    grants: ['add_volumes'],
    charges: true,
    paginated: false,
    // Rule 2: region only without node_id; config_id only with node_id.
    events: { actions: ['volume_create'], source: 'API-FACTS-MORE.md §8' },
    request: () =>
      z
        .strictObject({
          label: volumeLabelSchema(),
          config_id: IdSchema.optional(),
          node_id: IdSchema.optional(),
          region: text(1).optional(),
          size: integer(1, 10240).optional(),
          tags: tagsSchema().optional(),
        })
        .superRefine((v, ctx) => {
          if (v.node_id === undefined && v.region === undefined) {
            ctx.addIssue({
              code: 'custom',
              path: ['region'],
              message: 'is required when node_id is not given',
            });
          }
          if (v.config_id !== undefined && v.node_id === undefined) {
            ctx.addIssue({ code: 'custom', path: ['config_id'], message: 'may only be given with node_id' });
          }
        }),
    response: volumeSchema,
    watch: { statusField: 'status', final: ['active'], view: 'volumes.view' },
    example: 'volumes create --label db-data --region us-east --size 50',
  }),
  defineOperation({
    group: 'volumes',
    action: 'view',
    aliases: ['show', 'get'],
    summary: 'Show one volume',
    method: 'GET',
    path: '/volumes/{volumeId}',
    scopes: ['volumes:read_only'],
    paginated: false,
    request: () => z.strictObject(VolumeRef),
    response: volumeSchema,
    example: 'volumes view 12',
  }),
  defineOperation({
    group: 'volumes',
    action: 'update',
    summary: "Change a volume's label or tags",
    method: 'PUT',
    path: '/volumes/{volumeId}',
    scopes: ['volumes:read_write'],
    paginated: false,
    events: { actions: ['volume_update'], entityId: 'volumeId', source: 'API-FACTS-MORE.md §8' },
    request: () =>
      z.strictObject({
        ...VolumeRef,
        label: volumeLabelSchema().optional(),
        tags: tagsSchema().optional(),
      }),
    response: volumeSchema,
    example: 'volumes update 12 --label db-data-old',
  }),
  defineOperation({
    group: 'volumes',
    action: 'delete',
    aliases: ['rm'],
    summary: 'Delete a volume',
    method: 'DELETE',
    path: '/volumes/{volumeId}',
    scopes: ['volumes:read_write'],
    paginated: false,
    destructive: { consequence: 'Deletes the volume and all its data; this cannot be undone.' },
    events: { actions: ['volume_delete'], entityId: 'volumeId', source: 'API-FACTS-MORE.md §8' },
    request: () => z.strictObject(VolumeRef),
    response: EmptyResultSchema,
    example: 'volumes delete 12',
  }),
  defineOperation({
    group: 'volumes',
    action: 'attach',
    summary: 'Attach a volume to a node',
    method: 'POST',
    path: '/volumes/{volumeId}/attach',
    scopes: ['volumes:read_write', 'nodes:read_write'],
    paginated: false,
    // Rule 3: with persist_across_boots false, config_id must not be passed.
    events: { actions: ['volume_attach'], entityId: 'volumeId', source: 'API-FACTS-MORE.md §8' },
    request: () =>
      z
        .strictObject({
          ...VolumeRef,
          node_id: IdSchema,
          config_id: IdSchema.optional(),
          persist_across_boots: bool().optional(),
        })
        .superRefine((v, ctx) => {
          if (v.persist_across_boots === false && v.config_id !== undefined) {
            ctx.addIssue({
              code: 'custom',
              path: ['config_id'],
              message: 'must not be given when persist_across_boots is false',
            });
          }
        }),
    response: volumeSchema,
    example: 'volumes attach 12 --node-id 34',
  }),
  defineOperation({
    group: 'volumes',
    action: 'clone',
    summary: 'Clone a volume (same size and data; starts charges)',
    method: 'POST',
    path: '/volumes/{volumeId}/clone',
    scopes: ['volumes:read_write'],
    grants: ['add_volumes'],
    charges: true,
    paginated: false,
    request: () => z.strictObject({ ...VolumeRef, label: volumeLabelSchema() }),
    response: volumeSchema,
    watch: { statusField: 'status', final: ['active'], view: 'volumes.view' },
    example: 'volumes clone 12 --label db-data-copy',
  }),
  defineOperation({
    group: 'volumes',
    action: 'detach',
    summary: 'Detach a volume from its node',
    method: 'POST',
    path: '/volumes/{volumeId}/detach',
    scopes: ['volumes:read_write', 'nodes:read_write'],
    paginated: false,
    events: { actions: ['volume_detach'], entityId: 'volumeId', source: 'API-FACTS-MORE.md §8' },
    request: () => z.strictObject(VolumeRef),
    response: EmptyResultSchema,
    example: 'volumes detach 12',
  }),
  defineOperation({
    group: 'volumes',
    action: 'resize',
    summary: 'Grow a volume (only upward)',
    method: 'POST',
    path: '/volumes/{volumeId}/resize',
    scopes: ['volumes:read_write'],
    charges: true,
    paginated: false,
    events: { actions: ['volume_resize'], entityId: 'volumeId', source: 'API-FACTS-MORE.md §8' },
    request: () =>
      z.strictObject({
        ...VolumeRef,
        size: integer(1, 10240),
      }),
    response: volumeSchema,
    watch: { statusField: 'status', final: ['active'], view: 'volumes.view' },
    example: 'volumes resize 12 --size 100',
  }),
] as const;
