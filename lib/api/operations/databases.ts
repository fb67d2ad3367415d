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
  StringIdSchema,
  text,
} from '../operation.js';
import '../../zod-settings.js';

// ---------------------------------------------------------------------------------------------
// Responses

export const databaseEngineSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    engine: z.string(),
    version: z.string(),
    total_disk_size_gb: z.number().int().optional(),
    used_disk_size_gb: z.number().int().optional(),
  }),
);
export type DatabaseEngine = z.infer<ReturnType<typeof databaseEngineSchema>>;

const databaseTypeEngineSchema = lazySchema(() =>
  z.object({
    quantity: z.number().int(),
    price: z.object({ hourly: z.number(), monthly: z.number() }),
  }),
);

export const databaseTypeSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    label: z.string(),
    engines: z
      .object({
        mysql: z.array(databaseTypeEngineSchema()).optional(),
        postgresql: z.array(databaseTypeEngineSchema()).optional(),
      })
      .optional(),
    memory: z.number().int().optional(),
    disk: z.number().int().optional(),
    vcpus: z.number().int().optional(),
    deprecated: z.boolean().optional(),
    class: z.string().optional(),
  }),
);
export type DatabaseType = z.infer<ReturnType<typeof databaseTypeSchema>>;

const maintenanceWindowSchema = lazySchema(() =>
  z.object({
    frequency: z.string(),
    duration: z.number().int(),
    hour_of_day: z.number().int(),
    day_of_week: z.number().int(),
    week_of_month: z.number().int().nullable().optional(),
  }),
);

/** The fields every database record has, whatever its engine (the all-kinds list returns these). */
export const databaseSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    label: z.string(),
    type: z.string(),
    engine: z.string(),
    version: z.string(),
    region: z.string(),
    status: z.string(),
    encrypted: z.boolean().optional(),
    allow_list: z.array(z.string()).optional(),
    cluster_size: z.number().int().optional(),
    // Assigned once provisioning is complete.
    hosts: z
      .object({
        primary: z.string().nullable().optional(),
        secondary: z.string().nullable().optional(),
      })
      .optional(),
    created: DateTimeSchema.optional(),
    updated: DateTimeSchema.optional(),
    updates: maintenanceWindowSchema().optional(),
    instance_uri: z.string().optional(),
  }),
);
export type Database = z.infer<ReturnType<typeof databaseSchema>>;

// replication_type stays a plain string: the published examples use values outside the enum.
const engineDatabaseFields = lazySchema(() => ({
  ssl_connection: z.boolean().optional(),
  replication_type: z.string().optional(),
  port: z.number().int().optional(),
  total_disk_size_gb: z.number().int().optional(),
  used_disk_size_gb: z.number().int().optional(),
}));

export const mySqlDatabaseSchema = lazySchema(() => databaseSchema().extend(engineDatabaseFields()));
export type MySqlDatabase = z.infer<ReturnType<typeof mySqlDatabaseSchema>>;

export const postgreSqlDatabaseSchema = lazySchema(() =>
  databaseSchema().extend({
    ...engineDatabaseFields(),
    replication_commit_type: z.string().optional(),
  }),
);
export type PostgreSqlDatabase = z.infer<ReturnType<typeof postgreSqlDatabaseSchema>>;

export const databaseBackupSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    type: z.string(),
    label: z.string(),
    created: DateTimeSchema.optional(),
  }),
);
export type DatabaseBackup = z.infer<ReturnType<typeof databaseBackupSchema>>;

/** Root user and password: shown only to the person who asked. */
export const databaseCredentialsSchema = lazySchema(() =>
  z.object({
    username: z.string(),
    password: z.string(),
  }),
);
export type DatabaseCredentials = z.infer<ReturnType<typeof databaseCredentialsSchema>>;

export const databaseSslSchema = lazySchema(() =>
  z.object({
    /** Base64-encoded CA certificate. */
    ca_certificate: z.string(),
  }),
);
export type DatabaseSsl = z.infer<ReturnType<typeof databaseSslSchema>>;

// ---------------------------------------------------------------------------------------------
// Requests

type EngineKind = 'mysql' | 'postgresql';

const databaseLabelSchema = lazySchema(() => text(3, 32));

/** Compute document, managed database: "single IPs or CIDR ranges", e.g. 203.0.113.7 or 192.0.2.0/24. */
const allowListSchema = lazySchema(() =>
  z.array(
    text().refine(
      (entry) => z.ipv4().safeParse(entry).success || z.cidrv4().safeParse(entry).success,
      'must be an IPv4 address or CIDR range, e.g. 203.0.113.7 or 192.0.2.0/24',
    ),
    { error: (issue) => (issue.input === undefined ? 'is required' : 'must be a list') },
  ),
);

const clusterSizeSchema = lazySchema(() => z.literal([1, 3], { error: 'must be 1 or 3' }));

/** Patch maintenance window. week_of_month is required for monthly and must be null for weekly. */
const maintenanceWindowRequestSchema = lazySchema(() =>
  z
    .strictObject(
      {
        day_of_week: integer(1, 7).optional(),
        duration: integer(1, 3).optional(),
        frequency: oneOf(['weekly', 'monthly']).optional(),
        hour_of_day: integer(0, 23).optional(),
        week_of_month: integer(1, 4).nullable().optional(),
      },
      { error: (issue) => (issue.code === 'invalid_type' ? 'must be an object' : undefined) },
    )
    .superRefine((v, ctx) => {
      // frequency defaults to weekly.
      const frequency = v.frequency ?? 'weekly';
      if (frequency === 'monthly' && (v.week_of_month === undefined || v.week_of_month === null)) {
        ctx.addIssue({
          code: 'custom',
          path: ['week_of_month'],
          message: 'is required when frequency is monthly',
        });
      }
      if (frequency === 'weekly' && v.week_of_month !== undefined && v.week_of_month !== null) {
        ctx.addIssue({
          code: 'custom',
          path: ['week_of_month'],
          message: 'must be null when frequency is weekly',
        });
      }
    }),
);

const databaseCreateFields = lazySchema(() => ({
  label: databaseLabelSchema(),
  region: text(1),
  type: text(1),
  allow_list: allowListSchema().optional(),
  cluster_size: clusterSizeSchema().optional(),
  encrypted: bool().optional(),
  ssl_connection: bool().optional(),
}));

function engineIdOf(kind: EngineKind, exampleVersion: string) {
  return text().regex(
    new RegExp(`^${kind}/[^/\\s]+$`),
    `must be in engine/version format, e.g. ${kind}/${exampleVersion}`,
  );
}

/**
 * replication_type follows the cluster size: `none` for one node, a replicating type for three.
 * Returns the type in effect (given, or the default for the cluster size) so engine-specific
 * rules can build on it.
 */
function checkReplicationType(
  v: { cluster_size?: 1 | 3 | undefined; replication_type?: string | undefined },
  highAvailability: { readonly allowed: readonly string[]; readonly default: string },
  ctx: z.RefinementCtx,
): string {
  const clusterSize = v.cluster_size ?? 1;
  if (clusterSize === 1 && v.replication_type !== undefined && v.replication_type !== 'none') {
    ctx.addIssue({
      code: 'custom',
      path: ['replication_type'],
      message: 'must be none for a one-node cluster',
    });
  }
  if (clusterSize === 3 && v.replication_type === 'none') {
    ctx.addIssue({
      code: 'custom',
      path: ['replication_type'],
      message: `must be ${highAvailability.allowed.join(' or ')} for a three-node cluster`,
    });
  }
  return v.replication_type ?? (clusterSize === 3 ? highAvailability.default : 'none');
}

const mySqlDatabaseCreateRequestSchema = lazySchema(() =>
  z
    .strictObject({
      ...databaseCreateFields(),
      engine: engineIdOf('mysql', '8.0.26'),
      replication_type: oneOf(['none', 'asynch', 'semi_synch']).optional(),
    })
    .superRefine((v, ctx) => {
      checkReplicationType(v, { allowed: ['asynch', 'semi_synch'], default: 'semi_synch' }, ctx);
    }),
);

const postgreSqlDatabaseCreateRequestSchema = lazySchema(() =>
  z
    .strictObject({
      ...databaseCreateFields(),
      engine: engineIdOf('postgresql', '13.2'),
      replication_type: oneOf(['none', 'asynch']).optional(),
      replication_commit_type: oneOf(['on', 'local', 'remote_write', 'remote_apply', 'off']).optional(),
    })
    .superRefine((v, ctx) => {
      const replicationType = checkReplicationType(v, { allowed: ['asynch'], default: 'asynch' }, ctx);
      if (
        replicationType === 'asynch' &&
        v.replication_commit_type !== undefined &&
        v.replication_commit_type !== 'local' &&
        v.replication_commit_type !== 'off'
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['replication_commit_type'],
          message: 'must be local or off when replication_type is asynch',
        });
      }
    }),
);

const InstanceRef = { instanceId: IdSchema };
const BackupRef = { instanceId: IdSchema, backupId: IdSchema };

// Rule 4: allow_list and type cannot be changed in one request.
const databaseUpdateRequestSchema = lazySchema(() =>
  z
    .strictObject({
      ...InstanceRef,
      allow_list: allowListSchema().optional(),
      label: databaseLabelSchema().optional(),
      type: text(1).optional(),
      updates: maintenanceWindowRequestSchema().optional(),
    })
    .superRefine((v, ctx) => {
      if (v.allow_list !== undefined && v.type !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['type'],
          message: 'cannot be changed together with allow_list',
        });
      }
    }),
);

const snapshotRequestSchema = lazySchema(() =>
  z.strictObject({
    ...InstanceRef,
    label: text(1, 30).regex(/^[A-Za-z0-9_]*$/, 'may contain only ASCII letters, digits and underscores'),
    target: oneOf(['primary', 'secondary']).optional(),
  }),
);

// ---------------------------------------------------------------------------------------------
// Operations

const ENGINE_KINDS = {
  mysql: {
    title: 'MySQL',
    database: mySqlDatabaseSchema,
    createRequest: mySqlDatabaseCreateRequestSchema,
    createExample:
      'databases mysql-create --label orders --region us-east --type g6-dedicated-2 --engine mysql/8.0.26 --cluster-size 3',
  },
  postgresql: {
    title: 'PostgreSQL',
    database: postgreSqlDatabaseSchema,
    createRequest: postgreSqlDatabaseCreateRequestSchema,
    createExample:
      'databases postgresql-create --label analytics --region us-east --type g6-dedicated-2 --engine postgresql/13.2',
  },
} as const;

const DATABASE_FILTERABLE = ['label', 'type', 'engine', 'version', 'region', 'status'];

/** The operations of one engine kind: both kinds have identical path shapes. */
function engineKindOperations<K extends EngineKind>(kind: K) {
  const { title, database, createRequest, createExample } = ENGINE_KINDS[kind];
  const instances = `/databases/${kind}/instances`;
  const instance = `${instances}/{instanceId}`;
  return [
    defineOperation({
      group: 'databases',
      action: `${kind}-list`,
      aliases: [`${kind}-ls`],
      summary: `List your ${title} databases`,
      method: 'GET',
      path: instances,
      scopes: ['databases:read_only'],
      paginated: true,
      filterable: DATABASE_FILTERABLE,
      request: () => z.strictObject({ ...PageQuerySchema.shape }),
      response: () => database(),
      example: `databases ${kind}-list --region us-east`,
    }),
    defineOperation({
      group: 'databases',
      action: `${kind}-create`,
      summary: `Provision a ${title} database cluster (takes about 15 to 30 minutes)`,
      method: 'POST',
      path: instances,
      scopes: ['databases:read_write'],
      grants: ['add_databases'],
      charges: true,
      paginated: false,
      request: () => createRequest(),
      response: () => database(),
      watch: {
        statusField: 'status',
        final: ['active', 'failed', 'degraded'],
        view: `databases.${kind}-view`,
      },
      example: createExample,
    }),
    defineOperation({
      group: 'databases',
      action: `${kind}-view`,
      aliases: [`${kind}-show`],
      summary: `Show one ${title} database`,
      method: 'GET',
      path: instance,
      scopes: ['databases:read_only'],
      paginated: false,
      request: () => z.strictObject(InstanceRef),
      response: () => database(),
      example: `databases ${kind}-view 5`,
    }),
    defineOperation({
      group: 'databases',
      action: `${kind}-update`,
      summary: `Change a ${title} database's label, allowed addresses, node type or maintenance window`,
      method: 'PUT',
      path: instance,
      scopes: ['databases:read_write'],
      paginated: false,
      request: databaseUpdateRequestSchema,
      response: () => database(),
      example: `databases ${kind}-update 5 --label orders-v2`,
    }),
    defineOperation({
      group: 'databases',
      action: `${kind}-delete`,
      aliases: [`${kind}-rm`],
      summary: `Delete a ${title} database (unrestricted users only)`,
      method: 'DELETE',
      path: instance,
      scopes: ['databases:read_write'],
      grants: ['unrestricted_only'],
      paginated: false,
      destructive: { consequence: `Deletes the ${title} database cluster and all the data it holds.` },
      request: () => z.strictObject(InstanceRef),
      response: EmptyResultSchema,
      example: `databases ${kind}-delete 5`,
    }),
    defineOperation({
      group: 'databases',
      action: `${kind}-backups-list`,
      aliases: [`${kind}-backups-ls`],
      summary: `List the backups of a ${title} database (daily automatic ones and snapshots)`,
      method: 'GET',
      path: `${instance}/backups`,
      scopes: ['databases:read_write'],
      paginated: true,
      filterable: ['type', 'created'],
      request: () => z.strictObject({ ...InstanceRef, ...PageQuerySchema.shape }),
      response: databaseBackupSchema,
      example: `databases ${kind}-backups-list 5`,
    }),
    defineOperation({
      group: 'databases',
      action: `${kind}-backup-snapshot`,
      aliases: [`${kind}-snapshot`],
      summary: `Take a snapshot backup of a ${title} database (at most 3 kept; takes several minutes)`,
      method: 'POST',
      path: `${instance}/backups`,
      scopes: ['databases:read_write'],
      paginated: false,
      request: snapshotRequestSchema,
      // The documents return the snapshot backup; the published spec returns `{}`.
      response: () => z.union([databaseBackupSchema(), EmptyResultSchema]),
      example: `databases ${kind}-backup-snapshot 5 --label before_migration`,
    }),
    defineOperation({
      group: 'databases',
      action: `${kind}-backup-view`,
      aliases: [`${kind}-backups-view`],
      summary: `Show one backup of a ${title} database`,
      method: 'GET',
      path: `${instance}/backups/{backupId}`,
      scopes: ['databases:read_write'],
      paginated: false,
      request: () => z.strictObject(BackupRef),
      response: databaseBackupSchema,
      example: `databases ${kind}-backup-view 5 9`,
    }),
    defineOperation({
      group: 'databases',
      action: `${kind}-backup-delete`,
      aliases: [`${kind}-backup-rm`],
      summary: `Delete a backup of a ${title} database`,
      method: 'DELETE',
      path: `${instance}/backups/{backupId}`,
      scopes: ['databases:read_write'],
      paginated: false,
      destructive: { consequence: 'Deletes the backup; the database can no longer be restored from it.' },
      request: () => z.strictObject(BackupRef),
      response: EmptyResultSchema,
      example: `databases ${kind}-backup-delete 5 9`,
    }),
    defineOperation({
      group: 'databases',
      action: `${kind}-backup-restore`,
      summary: `Restore a ${title} database from one of its backups`,
      method: 'POST',
      path: `${instance}/backups/{backupId}/restore`,
      scopes: ['databases:read_write'],
      paginated: false,
      destructive: {
        consequence:
          "Erases all existing data of the database and replaces it with the backup's; restoring after a credentials reset leaves the cluster failed.",
      },
      request: () => z.strictObject(BackupRef),
      response: EmptyResultSchema,
      watch: {
        statusField: 'status',
        final: ['active', 'failed', 'degraded'],
        view: `databases.${kind}-view`,
        target: { instanceId: 'instanceId' },
      },
      example: `databases ${kind}-backup-restore 5 9`,
    }),
    defineOperation({
      group: 'databases',
      action: `${kind}-creds-view`,
      aliases: [`${kind}-credentials-view`],
      summary: `Show the root username and password of a ${title} database`,
      method: 'GET',
      path: `${instance}/credentials`,
      scopes: ['databases:read_only'],
      paginated: false,
      sensitive: true,
      request: () => z.strictObject(InstanceRef),
      response: databaseCredentialsSchema,
      example: `databases ${kind}-creds-view 5`,
    }),
    defineOperation({
      group: 'databases',
      action: `${kind}-creds-reset`,
      aliases: [`${kind}-credentials-reset`],
      summary: `Give a ${title} database a new random root password (unrestricted users only)`,
      method: 'POST',
      path: `${instance}/credentials/reset`,
      scopes: ['databases:read_write'],
      grants: ['unrestricted_only'],
      paginated: false,
      destructive: {
        consequence:
          'Replaces the root password with a new random one, so clients using the old one can no longer connect; restoring a backup afterwards leaves the cluster failed.',
      },
      request: () => z.strictObject(InstanceRef),
      response: EmptyResultSchema,
      example: `databases ${kind}-creds-reset 5`,
    }),
    defineOperation({
      group: 'databases',
      action: `${kind}-patch`,
      summary: `Apply operating-system security patches to a ${title} database (a one-node cluster has downtime)`,
      method: 'POST',
      path: `${instance}/patch`,
      scopes: ['databases:read_write'],
      paginated: false,
      request: () => z.strictObject(InstanceRef),
      response: EmptyResultSchema,
      example: `databases ${kind}-patch 5`,
    }),
    defineOperation({
      group: 'databases',
      action: `${kind}-ssl-cert`,
      aliases: [`${kind}-ssl`],
      summary: `Show the SSL CA certificate of a ${title} database`,
      method: 'GET',
      path: `${instance}/ssl`,
      scopes: ['databases:read_only'],
      paginated: false,
      request: () => z.strictObject(InstanceRef),
      response: databaseSslSchema,
      example: `databases ${kind}-ssl-cert 5`,
    }),
  ] as const;
}

export const databaseOperations = [
  defineOperation({
    group: 'databases',
    action: 'engines',
    aliases: ['engines-list'],
    summary: 'List the database engines and versions you can deploy',
    method: 'GET',
    path: '/databases/engines',
    access: 'public',
    scopes: [],
    paginated: true,
    filterable: ['engine', 'version'],
    request: () => z.strictObject({ ...PageQuerySchema.shape }),
    response: databaseEngineSchema,
    example: 'databases engines --engine mysql',
  }),
  defineOperation({
    group: 'databases',
    action: 'engines-view',
    aliases: ['engine-view'],
    summary: 'Show one database engine version',
    method: 'GET',
    path: '/databases/engines/{engineId}',
    access: 'public',
    scopes: [],
    paginated: false,
    request: () => z.strictObject({ engineId: StringIdSchema }),
    response: databaseEngineSchema,
    example: 'databases engines-view mysql/8.0.26',
  }),
  defineOperation({
    group: 'databases',
    action: 'list',
    aliases: ['ls'],
    summary: 'List your databases of every engine kind',
    method: 'GET',
    path: '/databases/instances',
    scopes: ['databases:read_only'],
    paginated: true,
    filterable: DATABASE_FILTERABLE,
    request: () => z.strictObject({ ...PageQuerySchema.shape }),
    response: databaseSchema,
    example: 'databases list --status active',
  }),
  ...engineKindOperations('mysql'),
  ...engineKindOperations('postgresql'),
  defineOperation({
    group: 'databases',
    action: 'types',
    aliases: ['types-list'],
    summary: 'List the node types (plans and prices) a database can use',
    method: 'GET',
    path: '/databases/types',
    access: 'public',
    scopes: [],
    paginated: true,
    filterable: ['deprecated'],
    request: () => z.strictObject({ ...PageQuerySchema.shape }),
    response: databaseTypeSchema,
    example: 'databases types --deprecated false',
  }),
  defineOperation({
    group: 'databases',
    action: 'types-view',
    aliases: ['type-view'],
    summary: 'Show one database node type with its prices',
    method: 'GET',
    path: '/databases/types/{typeId}',
    access: 'public',
    scopes: [],
    paginated: false,
    request: () => z.strictObject({ typeId: StringIdSchema }),
    response: databaseTypeSchema,
    example: 'databases types-view g6-dedicated-2',
  }),
] as const;
