import * as z from 'zod';
import {
  bool,
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
import '../../zod-settings.js';

// ---------------------------------------------------------------------------------------------
// Responses

export const nodeSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    label: z.string(),
    /** Deprecated display group. */
    group: z.string().optional(),
    tags: z.array(z.string()).optional(),
    region: z.string(),
    type: z.string(),
    image: z.string().nullable().optional(),
    status: z.string(),
    hypervisor: z.string().optional(),
    created: DateTimeSchema.optional(),
    updated: DateTimeSchema.optional(),
    ipv4: z.array(z.string()).optional(),
    ipv6: z.string().nullable().optional(),
    specs: z
      .object({
        disk: z.number().int().optional(),
        memory: z.number().int().optional(),
        vcpus: z.number().int().optional(),
        gpus: z.number().int().optional(),
        transfer: z.number().int().optional(),
      })
      .optional(),
    alerts: z
      .object({
        cpu: z.number().int().optional(),
        network_in: z.number().int().optional(),
        network_out: z.number().int().optional(),
        transfer_quota: z.number().int().optional(),
        io: z.number().int().optional(),
      })
      .optional(),
    backups: z
      .object({
        enabled: z.boolean().optional(),
        available: z.boolean().optional(),
        schedule: z
          .object({
            day: z.string().nullable().optional(),
            window: z.string().nullable().optional(),
          })
          .optional(),
        // A node that has never been backed up has no last successful backup.
        last_successful: DateTimeSchema.nullable().optional(),
      })
      .optional(),
    watchdog_enabled: z.boolean().optional(),
    host_uuid: z.string().optional(),
    has_user_data: z.boolean().optional(),
  }),
);
export type Node = z.infer<ReturnType<typeof nodeSchema>>;

export const nodeBackupSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    type: z.string(),
    status: z.string(),
    /** False while the backup is under maintenance. */
    available: z.boolean().optional(),
    created: DateTimeSchema.optional(),
    updated: DateTimeSchema.optional(),
    // A running backup has not finished yet.
    finished: DateTimeSchema.nullable().optional(),
    /** Snapshots only. */
    label: z.string().nullable().optional(),
    /** Labels of the configuration profiles it holds. */
    configs: z.array(z.string()).optional(),
    disks: z
      .array(
        z.object({
          size: z.number().int().optional(),
          filesystem: z.string().optional(),
          label: z.string().optional(),
        }),
      )
      .optional(),
  }),
);
export type NodeBackup = z.infer<ReturnType<typeof nodeBackupSchema>>;

/** The node's backups; no snapshot is in progress or kept most of the time, hence the nulls. */
export const nodeBackupsSchema = lazySchema(() =>
  z.object({
    automatic: z.array(nodeBackupSchema()),
    snapshot: z.object({
      in_progress: nodeBackupSchema().nullable(),
      current: nodeBackupSchema().nullable(),
    }),
  }),
);
export type NodeBackups = z.infer<ReturnType<typeof nodeBackupsSchema>>;

export const nodeConfigInterfaceSchema = lazySchema(() =>
  z.object({
    id: z.number().int().optional(),
    purpose: z.string(),
    label: z.string().nullable().optional(),
    ipam_address: z.string().nullable().optional(),
    primary: z.boolean().optional(),
    active: z.boolean().optional(),
    vpc_id: z.number().int().nullable().optional(),
    subnet_id: z.number().int().nullable().optional(),
    ipv4: z
      .object({
        vpc: z.string().nullable().optional(),
        nat_1_1: z.string().nullable().optional(),
      })
      .nullable()
      .optional(),
    ip_ranges: z.array(z.string()).nullable().optional(),
  }),
);
export type NodeConfigInterface = z.infer<ReturnType<typeof nodeConfigInterfaceSchema>>;

const deviceSchema = lazySchema(() =>
  z
    .object({
      disk_id: z.number().int().nullable().optional(),
      volume_id: z.number().int().nullable().optional(),
    })
    .nullable()
    .optional(),
);

export const nodeConfigSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    label: z.string(),
    kernel: z.string().optional(),
    comments: z.string().nullable().optional(),
    memory_limit: z.number().int().optional(),
    run_level: z.string().optional(),
    virt_mode: z.string().optional(),
    helpers: z
      .object({
        updatedb_disabled: z.boolean().optional(),
        distro: z.boolean().optional(),
        modules_dep: z.boolean().optional(),
        network: z.boolean().optional(),
        devtmpfs_automount: z.boolean().optional(),
      })
      .optional(),
    devices: z
      .object({
        sda: deviceSchema(),
        sdb: deviceSchema(),
        sdc: deviceSchema(),
        sdd: deviceSchema(),
        sde: deviceSchema(),
        sdf: deviceSchema(),
        sdg: deviceSchema(),
        sdh: deviceSchema(),
      })
      .optional(),
    root_device: z.string().optional(),
    interfaces: z.array(nodeConfigInterfaceSchema()).optional(),
  }),
);
export type NodeConfig = z.infer<ReturnType<typeof nodeConfigSchema>>;

// ---------------------------------------------------------------------------------------------
// Requests

function idList() {
  return z.array(IdSchema, {
    error: (issue) => (issue.input === undefined ? 'is required' : 'must be a list'),
  });
}

/** Nested objects of a request name a wrong type like the field builders do; other issues keep zod's words. */
const asObject = {
  error: (issue: z.core.$ZodRawIssue) => {
    if (issue.code !== 'invalid_type') return undefined;
    return issue.input === undefined ? 'is required' : 'must be an object';
  },
};

/** 3..64 characters; alphanumeric at both ends; only alphanumerics and `-_.`, never two of those in a row. */
const nodeLabelSchema = lazySchema(() =>
  text(3, 64)
    .regex(/^[A-Za-z0-9._-]*$/, 'may contain only letters, digits, hyphens, underscores and periods')
    .regex(/^[A-Za-z0-9](.*[A-Za-z0-9])?$/, 'must begin and end with a letter or digit')
    .refine((label) => !/[-_.]{2}/.test(label), 'must not have two hyphens, underscores or periods in a row'),
);

const tagsSchema = lazySchema(() => textList());

function isBlank(value: string | null | undefined): value is '' | null | undefined {
  return value === undefined || value === null || value === '';
}

function isAddressWithNetmask(value: string): boolean {
  return z.cidrv4().safeParse(value).success || z.cidrv6().safeParse(value).success;
}

/** One network interface of a configuration profile (eth0..eth2 by position). */
const interfaceRequestSchema = lazySchema(() =>
  z
    .strictObject(
      {
        purpose: oneOf(['public', 'vlan', 'vpc']),
        label: text(undefined, 64).nullable().optional(),
        ipam_address: text().nullable().optional(),
        primary: bool().optional(),
        subnet_id: IdSchema.nullable().optional(),
        ipv4: z
          .strictObject(
            { vpc: text().nullable().optional(), nat_1_1: text().nullable().optional() },
            asObject,
          )
          .nullable()
          .optional(),
        ip_ranges: textList().nullable().optional(),
      },
      asObject,
    )
    .superRefine((i, ctx) => {
      const flag = (field: string, message: string) =>
        ctx.addIssue({ code: 'custom', path: [field], message });
      if (i.purpose === 'vlan') {
        // A new vlan label creates the VLAN.
        if (isBlank(i.label)) {
          flag('label', 'is required for a vlan interface');
        } else if (!/^[A-Za-z0-9-]+$/.test(i.label)) {
          flag('label', 'may contain only ASCII letters, digits and hyphens');
        } else if (i.label.includes('--')) {
          flag('label', 'must not contain two hyphens in a row');
        }
        if (i.primary === true) {
          flag('primary', 'must be false for a vlan interface');
        }
        if (!isBlank(i.ipam_address) && !isAddressWithNetmask(i.ipam_address)) {
          flag('ipam_address', 'must be an address with a netmask, e.g. 10.0.0.1/24');
        }
      } else {
        const emptyHere = `must be empty or null for a ${i.purpose} interface`;
        if (!isBlank(i.label)) flag('label', emptyHere);
        if (!isBlank(i.ipam_address)) flag('ipam_address', emptyHere);
      }
      if (i.purpose === 'vpc') {
        if (i.subnet_id === undefined || i.subnet_id === null) {
          flag('subnet_id', 'is required for a vpc interface');
        }
      } else {
        const onlyForVpc = 'may only be given for a vpc interface';
        if (i.subnet_id !== undefined && i.subnet_id !== null) flag('subnet_id', onlyForVpc);
        if (i.ipv4 && (!isBlank(i.ipv4.vpc) || !isBlank(i.ipv4.nat_1_1))) flag('ipv4', onlyForVpc);
        if (i.ip_ranges && i.ip_ranges.length > 0) flag('ip_ranges', onlyForVpc);
      }
    }),
);

/**
 * Up to three interfaces. An empty list is accepted: the documents give it a meaning (a default
 * public interface only), so only the upper bound of 1..3 is enforced.
 */
const interfacesSchema = lazySchema(() =>
  z
    .array(interfaceRequestSchema(), {
      error: (issue) => (issue.input === undefined ? 'is required' : 'must be a list'),
    })
    .max(3, 'must have at most 3 interfaces')
    .superRefine((interfaces, ctx) => {
      const flag = (index: number, field: string, message: string) =>
        ctx.addIssue({ code: 'custom', path: [index, field], message });
      let hasPublic = false;
      let hasPrimary = false;
      const vlanLabels = new Set<string>();
      const vlanAddresses = new Set<string>();
      interfaces.forEach((i, index) => {
        if (i.purpose === 'public') {
          if (hasPublic) flag(index, 'purpose', 'only one public interface is allowed');
          hasPublic = true;
        }
        if (i.primary === true) {
          if (hasPrimary) flag(index, 'primary', 'only one interface may be primary');
          hasPrimary = true;
        }
        if (i.purpose !== 'vlan') return;
        if (!isBlank(i.label)) {
          if (vlanLabels.has(i.label)) flag(index, 'label', 'must be unique among the interfaces');
          vlanLabels.add(i.label);
        }
        if (!isBlank(i.ipam_address)) {
          if (vlanAddresses.has(i.ipam_address))
            flag(index, 'ipam_address', 'must be unique among the interfaces');
          vlanAddresses.add(i.ipam_address);
        }
      });
    }),
);

const MAX_USER_DATA_BYTES = 65535;

/** Base64 cloud-config text of at most 65535 bytes before encoding (a create's and a rebuild's, §2.4). */
export const userDataSchema = lazySchema(() =>
  text().superRefine((encoded, ctx) => {
    if (encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) {
      ctx.addIssue({ code: 'custom', message: 'must be base64-encoded' });
      return;
    }
    const padding = encoded.endsWith('==') ? 2 : encoded.endsWith('=') ? 1 : 0;
    if ((encoded.length / 4) * 3 - padding > MAX_USER_DATA_BYTES) {
      ctx.addIssue({
        code: 'custom',
        message: `must be at most ${MAX_USER_DATA_BYTES} bytes before encoding`,
      });
    }
  }),
);

const metadataSchema = lazySchema(() => z.strictObject({ user_data: userDataSchema().optional() }, asObject));

const MAX_STACKSCRIPT_DATA_CHARS = 65535;

const stackScriptDataSchema = lazySchema(() =>
  z
    .record(z.string(), z.unknown(), { error: 'must be a JSON object' })
    .refine(
      (data) => JSON.stringify(data).length <= MAX_STACKSCRIPT_DATA_CHARS,
      `must be at most ${MAX_STACKSCRIPT_DATA_CHARS} characters as JSON`,
    ),
);

const rootPasswordSchema = lazySchema(() => text(7, 128));

const nodeCreateRequestSchema = lazySchema(() =>
  z
    .strictObject({
      region: text(1),
      type: text(1),
      label: nodeLabelSchema().optional(),
      image: text(1).optional(),
      root_pass: rootPasswordSchema().optional(),
      authorized_keys: textList().optional(),
      authorized_users: textList().optional(),
      backup_id: IdSchema.optional(),
      backups_enabled: bool().optional(),
      booted: bool().optional(),
      firewall_id: IdSchema.optional(),
      group: text().optional(),
      interfaces: interfacesSchema().optional(),
      metadata: metadataSchema().optional(),
      private_ip: bool().optional(),
      stackscript_id: IdSchema.optional(),
      stackscript_data: stackScriptDataSchema().optional(),
      swap_size: integer().optional(),
      tags: tagsSchema().optional(),
    })
    .superRefine((v, ctx) => {
      const flag = (path: (string | number)[], message: string) =>
        ctx.addIssue({ code: 'custom', path, message });
      // Rule 4: a node is deployed from a backup or from an image, never both.
      if (v.backup_id !== undefined && v.image !== undefined) {
        flag(['backup_id'], 'cannot be given together with image');
      }
      if ((v.image !== undefined || v.stackscript_id !== undefined) && v.root_pass === undefined) {
        flag(['root_pass'], 'is required when deploying from an image or with a StackScript');
      }
      if (v.stackscript_id !== undefined) {
        if (v.backup_id !== undefined) {
          flag(['stackscript_id'], 'cannot be used with backup_id');
        } else if (v.image === undefined) {
          flag(['image'], 'is required when stackscript_id is given');
        } else if (v.image.startsWith('private/')) {
          flag(['stackscript_id'], 'cannot be used with a private image');
        }
      }
      // cloud-init metadata needs an image with the cloud-init capability.
      if (v.metadata !== undefined && v.image === undefined) {
        flag(['metadata'], 'needs an image with cloud-init');
      }
      // A specific 1:1 NAT address cannot be set at creation; only `any` can.
      v.interfaces?.forEach((i, index) => {
        const nat = i.ipv4?.nat_1_1;
        if (!isBlank(nat) && nat !== 'any') {
          flag(['interfaces', index, 'ipv4', 'nat_1_1'], 'can only be any when creating a node');
        }
      });
    }),
);

const BACKUP_DAYS = [
  'Scheduling',
  'Sunday',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
] as const;
const BACKUP_WINDOWS = [
  'Scheduling',
  'W0',
  'W2',
  'W4',
  'W6',
  'W8',
  'W10',
  'W12',
  'W14',
  'W16',
  'W18',
  'W20',
  'W22',
] as const;

const NodeRef = { nodeId: IdSchema };
const BackupRef = { nodeId: IdSchema, backupId: IdSchema };
const ConfigRef = { nodeId: IdSchema, configId: IdSchema };

/** Alert thresholds, averaged over two hours; 0 turns an alert off. */
const alertsSchema = lazySchema(() =>
  z.strictObject(
    {
      cpu: integer(0).optional(),
      io: integer(0).optional(),
      network_in: integer(0).optional(),
      network_out: integer(0).optional(),
      transfer_quota: integer(0).optional(),
    },
    asObject,
  ),
);

const nodeUpdateRequestSchema = lazySchema(() =>
  z.strictObject({
    ...NodeRef,
    alerts: alertsSchema().optional(),
    backups: z
      .strictObject(
        {
          schedule: z
            .strictObject(
              {
                day: oneOf(BACKUP_DAYS).nullable().optional(),
                window: oneOf(BACKUP_WINDOWS).nullable().optional(),
              },
              asObject,
            )
            .optional(),
        },
        asObject,
      )
      .optional(),
    group: text().optional(),
    label: nodeLabelSchema().optional(),
    tags: tagsSchema().optional(),
    watchdog_enabled: bool().optional(),
  }),
);

const NEW_NODE_ONLY = ['region', 'type', 'label', 'backups_enabled', 'private_ip', 'metadata'] as const;

/** Without node_id the clone is a new node; with node_id it goes onto that existing node. */
const nodeCloneRequestSchema = lazySchema(() =>
  z
    .strictObject({
      ...NodeRef,
      backups_enabled: bool().optional(),
      configs: idList().optional(),
      disks: idList().optional(),
      group: text().optional(),
      label: nodeLabelSchema().optional(),
      node_id: IdSchema.optional(),
      metadata: metadataSchema().optional(),
      private_ip: bool().optional(),
      region: text(1).optional(),
      type: text(1).optional(),
    })
    .superRefine((v, ctx) => {
      if (v.node_id === undefined) {
        for (const field of ['region', 'type'] as const) {
          if (v[field] === undefined) {
            ctx.addIssue({
              code: 'custom',
              path: [field],
              message: 'is required when cloning to a new node',
            });
          }
        }
        return;
      }
      for (const field of NEW_NODE_ONLY) {
        if (v[field] !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [field],
            message: 'may only be given when cloning to a new node (without node_id)',
          });
        }
      }
    }),
);

/** A device slot holds one disk or one volume (a config's, and rescue's, §2.5 of API-FACTS-MORE.md). */
export const deviceRequestSchema = lazySchema(() =>
  z
    .strictObject(
      {
        disk_id: IdSchema.nullable().optional(),
        volume_id: IdSchema.nullable().optional(),
      },
      asObject,
    )
    .superRefine((device, ctx) => {
      const given = [device.disk_id, device.volume_id].filter((id) => id !== undefined && id !== null);
      if (given.length !== 1) {
        ctx.addIssue({ code: 'custom', message: 'must name exactly one of disk_id or volume_id' });
      }
    })
    .nullable()
    .optional(),
);

const devicesRequestSchema = lazySchema(() =>
  z.strictObject(
    {
      sda: deviceRequestSchema(),
      sdb: deviceRequestSchema(),
      sdc: deviceRequestSchema(),
      sdd: deviceRequestSchema(),
      sde: deviceRequestSchema(),
      sdf: deviceRequestSchema(),
      sdg: deviceRequestSchema(),
      sdh: deviceRequestSchema(),
    },
    asObject,
  ),
);

const configLabelSchema = lazySchema(() => text(1, 48));

const configFields = lazySchema(() => ({
  comments: text().nullable().optional(),
  helpers: z
    .strictObject(
      {
        devtmpfs_automount: bool().optional(),
        distro: bool().optional(),
        modules_dep: bool().optional(),
        network: bool().optional(),
        updatedb_disabled: bool().optional(),
      },
      asObject,
    )
    .optional(),
  interfaces: interfacesSchema().optional(),
  kernel: text(1).optional(),
  memory_limit: integer(0).optional(),
  root_device: text().optional(),
  run_level: oneOf(['default', 'single', 'binbash']).optional(),
  virt_mode: oneOf(['paravirt', 'fullvirt']).optional(),
}));

const FULLVIRT_UNAVAILABLE_SLOTS = ['sde', 'sdf', 'sdg', 'sdh'] as const;

function checkFullvirtDevices(
  v: {
    virt_mode?: 'paravirt' | 'fullvirt' | undefined;
    devices?: z.infer<ReturnType<typeof devicesRequestSchema>> | undefined;
  },
  ctx: z.RefinementCtx,
) {
  if (v.virt_mode !== 'fullvirt' || v.devices === undefined) return;
  for (const slot of FULLVIRT_UNAVAILABLE_SLOTS) {
    const device = v.devices[slot];
    if (device !== undefined && device !== null) {
      ctx.addIssue({
        code: 'custom',
        path: ['devices', slot],
        message: 'is not available when virt_mode is fullvirt',
      });
    }
  }
}

const configCreateRequestSchema = lazySchema(() =>
  z
    .strictObject({
      ...NodeRef,
      label: configLabelSchema(),
      devices: devicesRequestSchema(),
      ...configFields(),
    })
    .superRefine(checkFullvirtDevices),
);

const configUpdateRequestSchema = lazySchema(() =>
  z
    .strictObject({
      ...ConfigRef,
      label: configLabelSchema().optional(),
      devices: devicesRequestSchema().optional(),
      ...configFields(),
    })
    .superRefine(checkFullvirtDevices),
);

// ---------------------------------------------------------------------------------------------
// Operations

const NODE_SETTLED = ['running', 'offline', 'stopped'];

export const nodeOperations = [
  defineOperation({
    group: 'nodes',
    action: 'list',
    aliases: ['ls'],
    summary: 'List your nodes',
    method: 'GET',
    path: '/node/instances',
    scopes: ['nodes:read_only'],
    paginated: true,
    filterable: ['id', 'label', 'group', 'tags', 'region', 'image', 'ipv4'],
    request: () => z.strictObject({ ...PageQuerySchema.shape }),
    response: nodeSchema,
    example: 'nodes list --region us-east',
  }),
  defineOperation({
    group: 'nodes',
    action: 'create',
    summary: 'Create a node from an image, a backup or a StackScript, or empty (starts charges)',
    method: 'POST',
    path: '/node/instances',
    scopes: ['nodes:read_write'],
    grants: ['add_nodes'],
    charges: true,
    paginated: false,
    events: { actions: ['node_create'], source: 'API-FACTS-MORE.md §8' },
    request: nodeCreateRequestSchema,
    response: nodeSchema,
    watch: { statusField: 'status', final: NODE_SETTLED, view: 'nodes.view' },
    example:
      "nodes create --region us-east --type g6-standard-1 --image node/debian12 --root-pass '<strong password>' --label web-1",
  }),
  defineOperation({
    group: 'nodes',
    action: 'view',
    aliases: ['show', 'get'],
    summary: 'Show one node',
    method: 'GET',
    path: '/node/instances/{nodeId}',
    scopes: ['nodes:read_only'],
    paginated: false,
    request: () => z.strictObject(NodeRef),
    response: nodeSchema,
    example: 'nodes view 123',
  }),
  defineOperation({
    group: 'nodes',
    action: 'update',
    summary:
      "Change a node's label, tags, alerts, backup schedule or watchdog (tags: unrestricted users only)",
    method: 'PUT',
    path: '/node/instances/{nodeId}',
    scopes: ['nodes:read_write'],
    paginated: false,
    events: { actions: ['node_update'], entityId: 'nodeId', source: 'API-FACTS-MORE.md §8' },
    request: nodeUpdateRequestSchema,
    response: nodeSchema,
    example: 'nodes update 123 --label web-2 --watchdog-enabled false',
  }),
  defineOperation({
    group: 'nodes',
    action: 'delete',
    aliases: ['rm'],
    summary: 'Delete a node (refused while it is being cloned or restored)',
    method: 'DELETE',
    path: '/node/instances/{nodeId}',
    scopes: ['nodes:read_write'],
    paginated: false,
    destructive: {
      consequence:
        'Deletes the node with its disks, backups and configs, gives up its IP addresses and detaches its volumes; this cannot be undone.',
    },
    events: { actions: ['node_delete'], entityId: 'nodeId', source: 'API-FACTS-MORE.md §8' },
    request: () => z.strictObject(NodeRef),
    response: EmptyResultSchema,
    example: 'nodes delete 123',
  }),
  defineOperation({
    group: 'nodes',
    action: 'backups-list',
    aliases: ['backups-ls'],
    summary: "List a node's automatic backups and its snapshot",
    method: 'GET',
    path: '/node/instances/{nodeId}/backups',
    scopes: ['nodes:read_only'],
    paginated: false,
    request: () => z.strictObject(NodeRef),
    response: nodeBackupsSchema,
    example: 'nodes backups-list 123',
  }),
  defineOperation({
    group: 'nodes',
    action: 'snapshot',
    aliases: ['backups-snapshot'],
    summary: 'Take a manual snapshot backup of a node',
    method: 'POST',
    path: '/node/instances/{nodeId}/backups',
    scopes: ['nodes:read_write'],
    paginated: false,
    destructive: { consequence: 'Replaces the existing snapshot: the previous one is deleted.' },
    events: { actions: ['node_snapshot'], entityId: 'nodeId', source: 'API-FACTS-MORE.md §8' },
    request: () => z.strictObject({ ...NodeRef, label: text(1, 255) }),
    response: nodeBackupSchema,
    example: 'nodes snapshot 123 --label before-upgrade',
  }),
  defineOperation({
    group: 'nodes',
    action: 'backups-cancel',
    summary: "Cancel a node's backup service",
    method: 'POST',
    path: '/node/instances/{nodeId}/backups/cancel',
    scopes: ['nodes:read_write'],
    paginated: false,
    destructive: { consequence: 'Cancels the backup service and deletes all existing backups permanently.' },
    events: { actions: ['backups_cancel'], entityId: 'nodeId', source: 'API-FACTS-MORE.md §8' },
    request: () => z.strictObject(NodeRef),
    response: EmptyResultSchema,
    example: 'nodes backups-cancel 123',
  }),
  defineOperation({
    group: 'nodes',
    action: 'backups-enable',
    summary: 'Enrol a node in the backup service',
    method: 'POST',
    path: '/node/instances/{nodeId}/backups/enable',
    scopes: ['nodes:read_write'],
    paginated: false,
    events: { actions: ['backups_enable'], entityId: 'nodeId', source: 'API-FACTS-MORE.md §8' },
    request: () => z.strictObject(NodeRef),
    response: EmptyResultSchema,
    example: 'nodes backups-enable 123',
  }),
  defineOperation({
    group: 'nodes',
    action: 'backups-view',
    aliases: ['backup-view'],
    summary: 'Show one backup of a node',
    method: 'GET',
    path: '/node/instances/{nodeId}/backups/{backupId}',
    scopes: ['nodes:read_only'],
    paginated: false,
    request: () => z.strictObject(BackupRef),
    response: nodeBackupSchema,
    example: 'nodes backups-view 123 456',
  }),
  defineOperation({
    group: 'nodes',
    action: 'backups-restore',
    aliases: ['backup-restore'],
    summary: 'Restore a backup onto a node in the same region',
    method: 'POST',
    path: '/node/instances/{nodeId}/backups/{backupId}/restore',
    scopes: ['nodes:read_write'],
    paginated: false,
    destructive: {
      consequence:
        'Restores the backup onto the target node; with overwrite, all disks and configs on the target are deleted first.',
    },
    request: () => z.strictObject({ ...BackupRef, node_id: IdSchema, overwrite: bool().optional() }),
    response: EmptyResultSchema,
    watch: {
      statusField: 'status',
      final: ['running', 'offline', 'stopped'],
      view: 'nodes.view',
      target: { nodeId: 'node_id' },
    },
    example: 'nodes backups-restore 123 456 --node-id 124 --overwrite true',
  }),
  defineOperation({
    group: 'nodes',
    action: 'boot',
    summary: 'Boot a node, with the given or the last booted configuration profile',
    method: 'POST',
    path: '/node/instances/{nodeId}/boot',
    scopes: ['nodes:read_write'],
    paginated: false,
    request: () => z.strictObject({ ...NodeRef, config_id: IdSchema.optional() }),
    response: EmptyResultSchema,
    // `node_boot` is in the published action enum (API-FACTS-MORE.md §8).
    events: {
      actions: ['node_boot'],
      entityId: 'nodeId',
      source: 'API-FACTS-MORE.md §8',
    },
    // It answers `{}` as the other lifecycle actions do: the node is followed until it is up (or
    // stays off), so what comes after a boot (a runbook's next step) waits for it.
    watch: { statusField: 'status', final: NODE_SETTLED, view: 'nodes.view', target: { nodeId: 'nodeId' } },
    example: 'nodes boot 123 --config-id 23456',
  }),
  defineOperation({
    group: 'nodes',
    action: 'clone',
    summary: 'Clone a node to a new node (starts charges) or onto an existing one',
    method: 'POST',
    path: '/node/instances/{nodeId}/clone',
    scopes: ['nodes:read_write'],
    grants: ['add_nodes'],
    charges: true,
    paginated: false,
    // Only a clone onto an existing node (node_id) destroys anything, but the flag is static, so
    // every clone asks for approval and the card says when it matters.
    destructive: {
      consequence:
        "Cloning onto an existing node (node_id) overwrites that node with the source's disks and configs.",
    },
    request: nodeCloneRequestSchema,
    response: nodeSchema,
    watch: { statusField: 'status', final: NODE_SETTLED, view: 'nodes.view' },
    example: 'nodes clone 123 --region us-east --type g6-standard-2 --label web-1-copy',
  }),
  defineOperation({
    group: 'nodes',
    action: 'configs-list',
    aliases: ['configs-ls'],
    summary: "List a node's configuration profiles",
    method: 'GET',
    path: '/node/instances/{nodeId}/configs',
    scopes: ['nodes:read_only'],
    paginated: true,
    // The published spec also marks interfaces[].label, which is not a top-level X-Filter key.
    filterable: ['label'],
    request: () => z.strictObject({ ...NodeRef, ...PageQuerySchema.shape }),
    response: nodeConfigSchema,
    example: 'nodes configs-list 123',
  }),
  defineOperation({
    group: 'nodes',
    action: 'configs-create',
    aliases: ['config-create'],
    summary: 'Add a configuration profile to a node',
    method: 'POST',
    path: '/node/instances/{nodeId}/configs',
    scopes: ['nodes:read_write'],
    paginated: false,
    events: { actions: ['node_config_create'], entityId: 'nodeId', source: 'API-FACTS-MORE.md §8' },
    request: configCreateRequestSchema,
    response: nodeConfigSchema,
    example: 'nodes configs-create 123 --label rescue --devices \'{"sda":{"disk_id":25674}}\'',
  }),
  defineOperation({
    group: 'nodes',
    action: 'configs-view',
    aliases: ['config-view'],
    summary: 'Show one configuration profile of a node',
    method: 'GET',
    path: '/node/instances/{nodeId}/configs/{configId}',
    scopes: ['nodes:read_only'],
    paginated: false,
    request: () => z.strictObject(ConfigRef),
    response: nodeConfigSchema,
    example: 'nodes configs-view 123 23456',
  }),
  defineOperation({
    group: 'nodes',
    action: 'configs-update',
    aliases: ['config-update'],
    summary: 'Change a configuration profile (interface changes need every interface and a reboot)',
    method: 'PUT',
    path: '/node/instances/{nodeId}/configs/{configId}',
    scopes: ['nodes:read_write'],
    paginated: false,
    events: { actions: ['node_config_update'], entityId: 'nodeId', source: 'API-FACTS-MORE.md §8' },
    request: configUpdateRequestSchema,
    response: nodeConfigSchema,
    example: 'nodes configs-update 123 23456 --kernel node/grub2',
  }),
  defineOperation({
    group: 'nodes',
    action: 'configs-delete',
    aliases: ['config-delete'],
    summary: 'Delete a configuration profile of a node',
    method: 'DELETE',
    path: '/node/instances/{nodeId}/configs/{configId}',
    scopes: ['nodes:read_write'],
    paginated: false,
    destructive: { consequence: 'Deletes the configuration profile; the node can no longer boot with it.' },
    events: { actions: ['node_config_delete'], entityId: 'nodeId', source: 'API-FACTS-MORE.md §8' },
    request: () => z.strictObject(ConfigRef),
    response: EmptyResultSchema,
    example: 'nodes configs-delete 123 23456',
  }),
] as const;
