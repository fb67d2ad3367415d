import * as z from 'zod';
import {
  bool,
  defineOperation,
  EmptyResultSchema,
  IdSchema,
  lazySchema,
  oneOf,
  PageQuerySchema,
  text,
  textList,
} from '../operation.js';
import { deviceRequestSchema, nodeSchema, userDataSchema } from './nodes.js';
import { volumeSchema } from './volumes.js';
import '../../zod-settings.js';

/**
 * What people reach for in an incident: a node's lifecycle actions (reboot, shut down, resize,
 * rebuild, rescue, migrate, mutate, root password reset) and its reads (addresses, stats,
 * transfer, volumes). The documents: API-FACTS-MORE.md §2 and §3, `cloud-api-more.openapi.json`.
 */

// ---------------------------------------------------------------------------------------------
// Responses

const ipAddressSchema = lazySchema(() =>
  z.object({
    address: z.string(),
    gateway: z.string().nullable().optional(),
    subnet_mask: z.string().optional(),
    prefix: z.number().int().optional(),
    type: z.string(),
    public: z.boolean().optional(),
    rdns: z.string().nullable().optional(),
    node_id: z.number().int().optional(),
    region: z.string().optional(),
    // Null when the address has no 1:1 NAT (vpc interfaces only).
    vpc_nat_1_1: z
      .object({
        vpc_id: z.number().int().optional(),
        subnet_id: z.number().int().optional(),
        address: z.string().optional(),
      })
      .nullable()
      .optional(),
  }),
);

const ipv6RangeSchema = lazySchema(() =>
  z.object({
    range: z.string(),
    prefix: z.number().int().optional(),
    region: z.string().optional(),
    route_target: z.string().nullable().optional(),
  }),
);

/** One entry of `ipv4.vpc`: the published schema types it as a whole page of VPC addresses (§1.2). */
const vpcAddressPageSchema = lazySchema(() =>
  z.object({
    data: z.array(
      z.object({
        address: z.string().nullable().optional(),
        address_range: z.string().nullable().optional(),
        vpc_id: z.number().int().optional(),
        subnet_id: z.number().int().optional(),
        config_id: z.number().int().optional(),
        interface_id: z.number().int().optional(),
        node_id: z.number().int().optional(),
        active: z.boolean().optional(),
        nat_1_1: z.string().nullable().optional(),
        gateway: z.string().nullable().optional(),
        prefix: z.number().int().nullable().optional(),
        subnet_mask: z.string().optional(),
        region: z.string().optional(),
      }),
    ),
    page: z.number().int(),
    pages: z.number().int(),
    results: z.number().int(),
  }),
);

export const nodeIpsSchema = lazySchema(() =>
  z.object({
    ipv4: z.object({
      public: z.array(ipAddressSchema()),
      private: z.array(ipAddressSchema()),
      shared: z.array(ipAddressSchema()),
      reserved: z.array(ipAddressSchema()),
      vpc: z.array(vpcAddressPageSchema()).optional(),
    }),
    ipv6: z.object({
      link_local: ipAddressSchema().nullable().optional(),
      slaac: ipAddressSchema().nullable().optional(),
      global: z.array(ipv6RangeSchema()),
    }),
  }),
);
export type NodeIps = z.infer<ReturnType<typeof nodeIpsSchema>>;

/** `[timestamp in ms, reading]` pairs (§3.2). */
const seriesSchema = lazySchema(() => z.array(z.array(z.number())));

export const nodeStatsSchema = lazySchema(() =>
  z.object({
    title: z.string(),
    cpu: seriesSchema(),
    io: z.object({ io: seriesSchema(), swap: seriesSchema() }),
    netv4: z.object({
      in: seriesSchema(),
      out: seriesSchema(),
      private_in: seriesSchema(),
      private_out: seriesSchema(),
    }),
    netv6: z.object({
      in: seriesSchema(),
      out: seriesSchema(),
      private_in: seriesSchema(),
      private_out: seriesSchema(),
    }),
  }),
);
export type NodeStats = z.infer<ReturnType<typeof nodeStatsSchema>>;

/** `used` in bytes; `quota` and `billable` in GB (§3.3). */
export const nodeTransferSchema = lazySchema(() =>
  z.object({
    used: z.number().int(),
    quota: z.number().int(),
    billable: z.number().int(),
  }),
);
export type NodeTransfer = z.infer<ReturnType<typeof nodeTransferSchema>>;

// ---------------------------------------------------------------------------------------------
// Requests

const NodeRef = { nodeId: IdSchema };

/** Resize's `migration_type` and migrate's `type`: cold powers the node down, warm keeps it running. */
const MIGRATION_TYPES = ['warm', 'cold'] as const;

const MAX_STACKSCRIPT_DATA_CHARS = 65535;

const asObject = {
  error: (issue: z.core.$ZodRawIssue) => {
    if (issue.code !== 'invalid_type') return undefined;
    return issue.input === undefined ? 'is required' : 'must be an object';
  },
};

export const stackScriptDataSchema = lazySchema(() =>
  z
    .record(z.string(), z.unknown(), { error: 'must be a JSON object' })
    .refine(
      (data) => JSON.stringify(data).length <= MAX_STACKSCRIPT_DATA_CHARS,
      `must be at most ${MAX_STACKSCRIPT_DATA_CHARS} characters as JSON`,
    ),
);

/** 7..128 characters (DiskRequest.root_pass); the API also scores its strength. */
export const rootPasswordSchema = lazySchema(() => text(7, 128));

const rebuildRequestSchema = lazySchema(() =>
  z
    .strictObject({
      ...NodeRef,
      image: text(1),
      root_pass: rootPasswordSchema(),
      authorized_keys: textList().optional(),
      authorized_users: textList().optional(),
      stackscript_id: IdSchema.optional(),
      stackscript_data: stackScriptDataSchema().optional(),
      booted: bool().optional(),
      metadata: z.strictObject({ user_data: userDataSchema().optional() }, asObject).optional(),
      type: text(1).optional(),
    })
    .superRefine((v, ctx) => {
      // §2.4: a StackScript needs a compatible public image, never a private one.
      if (v.stackscript_id !== undefined && v.image.startsWith('private/')) {
        ctx.addIssue({
          code: 'custom',
          path: ['stackscript_id'],
          message: 'cannot be used with a private image',
        });
      }
    }),
);

/** sda..sdg: `sdh` is reserved during rescue (§2.5). */
const rescueDevicesSchema = lazySchema(() =>
  z.strictObject(
    {
      sda: deviceRequestSchema(),
      sdb: deviceRequestSchema(),
      sdc: deviceRequestSchema(),
      sdd: deviceRequestSchema(),
      sde: deviceRequestSchema(),
      sdf: deviceRequestSchema(),
      sdg: deviceRequestSchema(),
    },
    asObject,
  ),
);

// ---------------------------------------------------------------------------------------------
// Operations

/** Where a node's lifecycle action ends: running again, or off (a failed boot leaves it offline). */
const NODE_SETTLED = ['running', 'offline', 'stopped'];
/** These actions answer `{}`: the node they act on is the one the path names. */
const WATCH_THIS_NODE = {
  statusField: 'status',
  final: NODE_SETTLED,
  view: 'nodes.view',
  target: { nodeId: 'nodeId' },
} as const;

export const nodeActionOperations = [
  defineOperation({
    group: 'nodes',
    action: 'reboot',
    summary: 'Reboot a node, into the given or the last booted configuration profile',
    method: 'POST',
    path: '/node/instances/{nodeId}/reboot',
    scopes: ['nodes:read_write'],
    paginated: false,
    request: () => z.strictObject({ ...NodeRef, config_id: IdSchema.nullable().optional() }),
    response: EmptyResultSchema,
    watch: WATCH_THIS_NODE,
    events: {
      actions: ['node_reboot'],
      entityId: 'nodeId',
      source: 'API-FACTS-MORE.md §2.1',
    },
    example: 'nodes reboot 123',
  }),
  defineOperation({
    group: 'nodes',
    action: 'shutdown',
    aliases: ['shut-down', 'stop'],
    summary: 'Shut a node down (it stays billed while offline)',
    method: 'POST',
    path: '/node/instances/{nodeId}/shutdown',
    scopes: ['nodes:read_write'],
    paginated: false,
    request: () => z.strictObject(NodeRef),
    response: EmptyResultSchema,
    watch: WATCH_THIS_NODE,
    // `offline` is not proof: a node that was off already sits there too.
    events: {
      actions: ['node_shutdown'],
      entityId: 'nodeId',
      source: 'API-FACTS-MORE.md §2.2',
    },
    example: 'nodes shutdown 123',
  }),
  defineOperation({
    group: 'nodes',
    action: 'resize',
    summary: 'Move a node to another type (its price changes; cold resizes power it down meanwhile)',
    method: 'POST',
    path: '/node/instances/{nodeId}/resize',
    scopes: ['nodes:read_write'],
    charges: true,
    paginated: false,
    request: () =>
      z.strictObject({
        ...NodeRef,
        type: text(1),
        allow_auto_disk_resize: bool().optional(),
        migration_type: oneOf(MIGRATION_TYPES).optional(),
      }),
    response: EmptyResultSchema,
    watch: WATCH_THIS_NODE,
    events: {
      actions: ['node_resize_create', 'node_resize'],
      entityId: 'nodeId',
      source: 'API-FACTS-MORE.md §2.3',
    },
    example: 'nodes resize 123 --type g6-standard-2',
  }),
  defineOperation({
    group: 'nodes',
    action: 'rebuild',
    summary: 'Rebuild a node from an image: deletes all its disks and configuration profiles first',
    method: 'POST',
    path: '/node/instances/{nodeId}/rebuild',
    scopes: ['nodes:read_write'],
    paginated: false,
    destructive: {
      consequence:
        'Shuts the node down and deletes all its disks and configuration profiles, then deploys the image; the data on the disks cannot be recovered.',
    },
    request: rebuildRequestSchema,
    response: nodeSchema,
    watch: { statusField: 'status', final: NODE_SETTLED, view: 'nodes.view' },
    events: {
      actions: ['node_rebuild'],
      entityId: 'nodeId',
      source: 'API-FACTS-MORE.md §2.4',
    },
    example: "nodes rebuild 123 --image node/debian12 --root-pass '<strong password>'",
  }),
  defineOperation({
    group: 'nodes',
    action: 'rescue',
    summary: 'Boot a node into the recovery environment, with the given disks and volumes as sda..sdg',
    method: 'POST',
    path: '/node/instances/{nodeId}/rescue',
    scopes: ['nodes:read_write'],
    paginated: false,
    request: () => z.strictObject({ ...NodeRef, devices: rescueDevicesSchema().optional() }),
    response: EmptyResultSchema,
    watch: WATCH_THIS_NODE,
    events: { none: 'The published event actions have no rescue-specific value (API-FACTS-MORE.md §2.5).' },
    example: 'nodes rescue 123 --devices \'{"sda":{"disk_id":25674}}\'',
  }),
  defineOperation({
    group: 'nodes',
    action: 'migrate',
    summary: 'Start a pending host migration, or move a node to another region (region prices apply)',
    method: 'POST',
    path: '/node/instances/{nodeId}/migrate',
    scopes: ['nodes:read_write'],
    paginated: false,
    request: () =>
      z.strictObject({
        ...NodeRef,
        region: text(1).optional(),
        upgrade: bool().optional(),
        type: oneOf(MIGRATION_TYPES).optional(),
      }),
    response: EmptyResultSchema,
    watch: WATCH_THIS_NODE,
    events: {
      actions: ['node_migrate', 'node_migrate_datacenter', 'node_migrate_datacenter_create'],
      entityId: 'nodeId',
      source: 'API-FACTS-MORE.md §2.6',
    },
    example: 'nodes migrate 123 --region eu-west',
  }),
  defineOperation({
    group: 'nodes',
    action: 'mutate',
    aliases: ['upgrade'],
    summary: "Upgrade a node on a deprecated type to its type's successor (restarts it if running)",
    method: 'POST',
    path: '/node/instances/{nodeId}/mutate',
    scopes: ['nodes:read_write'],
    charges: true,
    paginated: false,
    request: () => z.strictObject({ ...NodeRef, allow_auto_disk_resize: bool().optional() }),
    response: EmptyResultSchema,
    watch: WATCH_THIS_NODE,
    events: {
      actions: ['node_mutate_create', 'node_mutate'],
      entityId: 'nodeId',
      source: 'API-FACTS-MORE.md §2.7',
    },
    example: 'nodes mutate 123',
  }),
  defineOperation({
    group: 'nodes',
    action: 'password',
    aliases: ['reset-password', 'root-password'],
    summary: "Reset a shut-down node's root password (nodes with one disk besides swap)",
    method: 'POST',
    path: '/node/instances/{nodeId}/password',
    scopes: ['nodes:read_write'],
    paginated: false,
    // The spec declares no length bounds here, only the strength score the API applies.
    request: () => z.strictObject({ ...NodeRef, root_pass: text(1) }),
    response: EmptyResultSchema,
    events: { actions: ['password_reset'], entityId: 'nodeId', source: 'API-FACTS-MORE.md §2.8' },
    example: "nodes password 123 --root-pass '<strong password>'",
  }),
  defineOperation({
    group: 'nodes',
    action: 'ips',
    aliases: ['ips-list', 'ip-list'],
    summary: "Show a node's IPv4 and IPv6 addresses",
    method: 'GET',
    path: '/node/instances/{nodeId}/ips',
    scopes: ['nodes:read_only'],
    paginated: false,
    request: () => z.strictObject(NodeRef),
    response: nodeIpsSchema,
    example: 'nodes ips 123',
  }),
  defineOperation({
    group: 'nodes',
    action: 'stats',
    summary: "A node's CPU, disk IO and network statistics for the past 24 hours",
    method: 'GET',
    path: '/node/instances/{nodeId}/stats',
    scopes: ['nodes:read_only'],
    paginated: false,
    request: () => z.strictObject(NodeRef),
    response: nodeStatsSchema,
    example: 'nodes stats 123',
  }),
  defineOperation({
    group: 'nodes',
    action: 'transfer',
    aliases: ['transfer-view'],
    summary: "A node's network transfer this month: used, its quota and what is billable",
    method: 'GET',
    path: '/node/instances/{nodeId}/transfer',
    scopes: ['nodes:read_only'],
    paginated: false,
    request: () => z.strictObject(NodeRef),
    response: nodeTransferSchema,
    example: 'nodes transfer 123',
  }),
  defineOperation({
    group: 'nodes',
    action: 'volumes',
    aliases: ['volumes-list'],
    summary: 'List the volumes attached to a node',
    method: 'GET',
    path: '/node/instances/{nodeId}/volumes',
    scopes: ['nodes:read_only'],
    paginated: true,
    filterable: ['label', 'tags'],
    request: () => z.strictObject({ ...NodeRef, ...PageQuerySchema.shape }),
    response: volumeSchema,
    example: 'nodes volumes 123',
  }),
] as const;
