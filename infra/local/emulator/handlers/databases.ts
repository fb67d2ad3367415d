import type { DatabaseEngineAction } from '../../../../lib/api/operations/index.js';
import { canView, forgetEntity, grantCreator, requireGlobalGrant, requirePermission } from '../auth.js';
import {
  DATABASE_ENGINES,
  DATABASE_TYPE_IDS,
  type EngineKind,
  findNodeType,
  findRegion,
  type NodeType,
} from '../catalog.js';
import { apiTime, DAY, HOUR, MINUTE, SECOND } from '../clock.js';
import { badRequest } from '../errors.js';
import type {
  DatabaseBackupRecord,
  DatabaseRecord,
  DatabaseStatus,
  MaintenanceWindow,
  World,
} from '../world.js';
import { byId, found } from './lookup.js';
import { empty, type GroupHandlers, type Handler, type HandlerContext, json, list } from './types.js';

/**
 * Managed databases (documents: databases rules 1-9). Provisioning takes 20 minutes; snapshots,
 * restores, resizes and patches take minutes; a credentials reset a few seconds.
 */

export const DATABASE_PROVISION_MS = 20 * MINUTE;
export const DATABASE_SNAPSHOT_MS = 5 * MINUTE;
export const DATABASE_RESTORE_MS = 10 * MINUTE;
export const DATABASE_RESIZE_MS = 10 * MINUTE;
export const DATABASE_PATCH_MS = 10 * MINUTE;
export const DATABASE_UPDATE_MS = MINUTE;
export const CREDENTIALS_RESET_MS = 5 * SECOND;
export const MAX_SNAPSHOTS = 3;
const AUTO_BACKUP_RETENTION_MS = 7 * DAY;
const ENGINE_PORTS: Record<EngineKind, number> = { mysql: 3306, postgresql: 5432 };

export function databaseTypes(): NodeType[] {
  return DATABASE_TYPE_IDS.flatMap((id) => {
    const type = findNodeType(id);
    return type ? [type] : [];
  });
}

function renderDatabaseType(type: NodeType) {
  const prices = (engineFactor: number) =>
    [1, 3].map((quantity) => {
      const hourly = Math.round(type.hourly * quantity * engineFactor * 1000) / 1000;
      return { quantity, price: { hourly, monthly: Math.round(hourly * 730 * 100) / 100 } };
    });
  return {
    id: type.id,
    label: `DBaaS - ${type.label}`,
    engines: { mysql: prices(1.5), postgresql: prices(1.5) },
    memory: type.memory,
    disk: type.disk,
    vcpus: type.vcpus,
    deprecated: type.deprecated,
    class: type.class,
  };
}

function weekdayOf(ms: number): number {
  return new Date(ms).getUTCDay() || 7;
}

/** Whether `now` falls in the patch window (rule 8: patches also run on their own then). */
export function inMaintenanceWindow(window: MaintenanceWindow, now: number): boolean {
  for (const daysBack of [0, 1]) {
    const day = Math.floor(now / DAY) * DAY - daysBack * DAY;
    if (weekdayOf(day) !== window.day_of_week) continue;
    if (window.frequency === 'monthly') {
      const weekOfMonth = Math.floor((new Date(day).getUTCDate() - 1) / 7) + 1;
      if (weekOfMonth !== window.week_of_month) continue;
    }
    const start = day + window.hour_of_day * HOUR;
    if (now >= start && now < start + window.duration * HOUR) return true;
  }
  return false;
}

/**
 * The status callers see: during the maintenance window a one-node cluster is down for patching
 * (rule 8); a three-node cluster patches one member at a time and stays active.
 */
export function statusOf(db: DatabaseRecord, now: number): DatabaseStatus {
  if (db.status === 'active' && db.cluster_size === 1 && inMaintenanceWindow(db.updates, now))
    return 'updating';
  return db.status;
}

function totalDiskGb(db: DatabaseRecord): number {
  return Math.round((findNodeType(db.type)?.disk ?? 0) / 1024);
}

export function renderDatabase(db: DatabaseRecord, now: number, withUri = false): Record<string, unknown> {
  const provisioned = db.status !== 'provisioning';
  const host = `${db.kind}-${db.id}-${db.label}`.toLowerCase();
  return {
    id: db.id,
    label: db.label,
    type: db.type,
    engine: db.kind,
    version: db.version,
    region: db.region,
    status: statusOf(db, now),
    encrypted: db.encrypted,
    allow_list: [...db.allow_list],
    cluster_size: db.cluster_size,
    hosts: {
      primary: provisioned ? `${host}.db.example.com` : null,
      secondary: provisioned ? `${host}-private.db.example.com` : null,
    },
    created: apiTime(db.created),
    updated: apiTime(db.updated),
    updates: { ...db.updates },
    ssl_connection: db.ssl_connection,
    replication_type: db.replication_type,
    ...(db.kind === 'postgresql' && { replication_commit_type: db.replication_commit_type }),
    port: db.port,
    total_disk_size_gb: totalDiskGb(db),
    used_disk_size_gb: db.used_disk_size_gb,
    ...(withUri && { instance_uri: `/v4/databases/${db.kind}/instances/${db.id}` }),
  };
}

function renderBackup(backup: DatabaseBackupRecord) {
  return { id: backup.id, type: backup.type, label: backup.label, created: apiTime(backup.created) };
}

function autoBackupLabel(midnight: number): string {
  return `auto_${new Date(midnight).toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/**
 * Rule 9: an automatic backup every day at 0:00 UTC while the database runs, each kept 7 days.
 * Computed when backups are read, from the clock.
 */
export function ensureAutoBackups(world: World, db: DatabaseRecord): void {
  const now = world.now();
  if (db.status === 'provisioning') return;
  for (let midnight = db.autoBackupsThrough + DAY; midnight <= now; midnight += DAY) {
    db.backups.push({
      id: world.nextId('database-backup', 8001),
      type: 'auto',
      label: autoBackupLabel(midnight),
      created: midnight,
      usedDiskSizeGb: db.used_disk_size_gb,
    });
    db.autoBackupsThrough = midnight;
  }
  db.backups = db.backups.filter((b) => b.type !== 'auto' || b.created > now - AUTO_BACKUP_RETENTION_MS);
}

export function newDatabase(
  world: World,
  spec: Omit<
    DatabaseRecord,
    | 'id'
    | 'created'
    | 'updated'
    | 'port'
    | 'username'
    | 'password'
    | 'passwordReset'
    | 'credentialsResetAt'
    | 'backups'
    | 'snapshotInProgress'
    | 'updateUntil'
    | 'resizeUntil'
    | 'autoBackupsThrough'
    | 'caCertificate'
  > & { createdAt?: number },
): DatabaseRecord {
  const { createdAt, ...fields } = spec;
  const now = createdAt ?? world.now();
  const db: DatabaseRecord = {
    ...fields,
    id: world.nextId('database', 41),
    created: now,
    updated: now,
    port: ENGINE_PORTS[spec.kind],
    username: spec.kind === 'mysql' ? 'root' : 'postgres',
    password: world.random.hex(24),
    passwordReset: null,
    credentialsResetAt: null,
    backups: [],
    snapshotInProgress: null,
    updateUntil: null,
    resizeUntil: null,
    autoBackupsThrough: Math.floor(now / DAY) * DAY,
    caCertificate: Buffer.from(
      `-----BEGIN CERTIFICATE-----\nMIIDemulator${world.random.hex(48)}\n-----END CERTIFICATE-----\n`,
    ).toString('base64'),
  };
  world.databases.set(db.id, db);
  if (db.status === 'provisioning') {
    world.schedule(world.workDoneAt(DATABASE_PROVISION_MS, now), (at) => {
      if (world.databases.get(db.id) === db && db.status === 'provisioning') {
        db.status = 'active';
        db.updated = at;
        db.autoBackupsThrough = Math.floor(at / DAY) * DAY;
      }
    });
  }
  return db;
}

// ---------------------------------------------------------------------------------------------
// Preconditions (rule 3)

function requireStatus(
  db: DatabaseRecord,
  now: number,
  allowed: readonly DatabaseStatus[],
  action: string,
): void {
  const status = statusOf(db, now);
  if (!allowed.includes(status)) {
    throw badRequest(`The database is ${status}; ${action} needs it to be ${allowed.join(' or ')}`);
  }
}

function requireProvisioned(db: DatabaseRecord, action: string): void {
  if (db.status === 'provisioning')
    throw badRequest(`The database is still provisioning; ${action} must wait`);
}

function settleStatus(
  world: World,
  db: DatabaseRecord,
  ms: number,
  next: (db: DatabaseRecord) => DatabaseStatus,
): void {
  world.schedule(world.workDoneAt(ms), (at) => {
    if (world.databases.get(db.id) !== db) return;
    db.status = next(db);
    db.updated = at;
  });
}

function kindOfPath(ctx: HandlerContext): EngineKind {
  return ctx.op.path.startsWith('/databases/postgresql') ? 'postgresql' : 'mysql';
}

function databaseFor(ctx: HandlerContext, permission: 'read_only' | 'read_write'): DatabaseRecord {
  const db = ctx.world.databases.get(ctx.input.int('instanceId'));
  const visible = db && db.kind === kindOfPath(ctx) ? db : undefined;
  const record = found(visible, 'Database');
  requirePermission(ctx.user, 'database', record.id, permission);
  return record;
}

function backupOf(ctx: HandlerContext, db: DatabaseRecord): DatabaseBackupRecord {
  ensureAutoBackups(ctx.world, db);
  return found(
    db.backups.find((b) => b.id === ctx.input.int('backupId')),
    'Backup',
  );
}

function checkUniqueLabel(world: World, label: string, exceptId?: number): void {
  for (const db of world.databases.values()) {
    if (db.label === label && db.id !== exceptId)
      throw badRequest('must be unique among your databases', 'label');
  }
}

function checkDatabaseType(typeId: string, field = 'type'): NodeType {
  const type = databaseTypes().find((t) => t.id === typeId);
  if (!type) throw badRequest(`${typeId} is not a database type`, field);
  return type;
}

// ---------------------------------------------------------------------------------------------
// Handlers

function createDatabase(ctx: HandlerContext) {
  // Rule 1.
  requireGlobalGrant(ctx.user, 'add_databases');
  const kind = kindOfPath(ctx);
  const engineId = ctx.input.text('engine');
  const engine = DATABASE_ENGINES.find((e) => e.id === engineId);
  if (!engine || engine.engine !== kind)
    throw badRequest(`${engineId} is not a ${kind} engine version`, 'engine');
  const region = ctx.input.text('region');
  if (!findRegion(region)?.capabilities.includes('Managed Databases')) {
    throw badRequest(`${region} does not offer managed databases`, 'region');
  }
  checkDatabaseType(ctx.input.text('type'));
  const label = ctx.input.text('label');
  checkUniqueLabel(ctx.world, label);
  const clusterSize = (ctx.input.optionalInt('cluster_size') ?? 1) as 1 | 3;
  const highAvailability = clusterSize === 3;
  const replicationType =
    ctx.input.optionalText('replication_type') ??
    (highAvailability ? (kind === 'mysql' ? 'semi_synch' : 'asynch') : 'none');
  const db = newDatabase(ctx.world, {
    kind,
    label,
    type: ctx.input.text('type'),
    version: engine.version,
    region,
    status: 'provisioning',
    encrypted: ctx.input.optionalBool('encrypted') ?? false,
    allow_list: ctx.input.optionalTextList('allow_list') ?? [],
    cluster_size: clusterSize,
    updates: { frequency: 'weekly', duration: 3, hour_of_day: 0, day_of_week: 7, week_of_month: null },
    ssl_connection: ctx.input.optionalBool('ssl_connection') ?? true,
    replication_type: replicationType,
    replication_commit_type: ctx.input.optionalText('replication_commit_type') ?? 'local',
    used_disk_size_gb: 0,
  });
  grantCreator(ctx.user, 'database', db.id);
  return json(renderDatabase(db, ctx.now));
}

function updateDatabase(ctx: HandlerContext) {
  // Rule 2: read_write on the database.
  const db = databaseFor(ctx, 'read_write');
  const now = ctx.now;
  const typeId = ctx.input.optionalText('type');
  const allowList = ctx.input.optionalTextList('allow_list');
  // Rule 4: one kind of change at a time.
  if (typeId !== undefined && allowList !== undefined) {
    throw badRequest('cannot be changed together with allow_list', 'type');
  }
  if (db.resizeUntil !== null && db.resizeUntil > now) {
    throw badRequest('A resize is running; other updates must wait until it has finished');
  }
  if (typeId !== undefined && db.updateUntil !== null && db.updateUntil > now) {
    throw badRequest('An update is still being applied; resize once it has finished', 'type');
  }
  requireStatus(db, now, ['active'], 'an update');
  if (typeId !== undefined && typeId !== db.type) {
    const next = checkDatabaseType(typeId);
    const current = findNodeType(db.type);
    if (current && next.disk <= current.disk) {
      throw badRequest(`must be a type with more disk space than ${db.type}`, 'type');
    }
    db.type = typeId;
    db.status = 'updating';
    db.resizeUntil = ctx.world.workDoneAt(DATABASE_RESIZE_MS);
    settleStatus(ctx.world, db, DATABASE_RESIZE_MS, () => 'active');
  }
  const label = ctx.input.optionalText('label');
  if (label !== undefined) {
    checkUniqueLabel(ctx.world, label, db.id);
    db.label = label;
  }
  const updates = ctx.input.optionalObject('updates');
  if (allowList !== undefined) db.allow_list = allowList;
  if (updates) {
    const merged = { ...db.updates, ...updates } as MaintenanceWindow;
    if (merged.frequency === 'weekly' && merged.week_of_month !== null) {
      throw badRequest('must be null when frequency is weekly', 'updates.week_of_month');
    }
    if (merged.frequency === 'monthly' && merged.week_of_month === null) {
      throw badRequest('is required when frequency is monthly', 'updates.week_of_month');
    }
    db.updates = merged;
  }
  if (allowList !== undefined || updates || label !== undefined)
    db.updateUntil = ctx.world.workDoneAt(DATABASE_UPDATE_MS);
  db.updated = now;
  return json(renderDatabase(db, now));
}

function deleteDatabase(ctx: HandlerContext) {
  const db = databaseFor(ctx, 'read_write');
  requireStatus(db, ctx.now, ['active', 'failed', 'degraded'], 'delete');
  ctx.world.databases.delete(db.id);
  forgetEntity(ctx.world, 'database', db.id);
  return empty();
}

function listBackups(ctx: HandlerContext) {
  const db = databaseFor(ctx, 'read_only');
  requireProvisioned(db, 'listing backups');
  ensureAutoBackups(ctx.world, db);
  return list(
    [...db.backups].sort((a, b) => b.created - a.created || b.id - a.id),
    renderBackup,
  );
}

// Rule 5: at most three snapshots, one backup at a time, a replica only in a three-node cluster.
function createSnapshot(ctx: HandlerContext) {
  const db = databaseFor(ctx, 'read_write');
  requireStatus(db, ctx.now, ['active'], 'a snapshot');
  if (db.snapshotInProgress)
    throw badRequest('A backup is already running; only one backup may run at a time');
  const snapshots = db.backups.filter((b) => b.type === 'snapshot');
  if (snapshots.length >= MAX_SNAPSHOTS) {
    throw badRequest(`A database keeps at most ${MAX_SNAPSHOTS} snapshots; delete one first`);
  }
  const label = ctx.input.text('label');
  if (db.backups.some((b) => b.label === label))
    throw badRequest('must be unique among the backups', 'label');
  if (ctx.input.optionalText('target') === 'secondary' && db.cluster_size !== 3) {
    throw badRequest('secondary needs a high-availability cluster of three nodes', 'target');
  }
  const backup: DatabaseBackupRecord = {
    id: ctx.world.nextId('database-backup', 8001),
    type: 'snapshot',
    label,
    created: ctx.now,
    usedDiskSizeGb: db.used_disk_size_gb,
  };
  const until = ctx.world.workDoneAt(DATABASE_SNAPSHOT_MS);
  db.snapshotInProgress = { backup, until };
  // Listed and viewable by id from the start: the id the create answered with must not be a 404.
  db.backups.push(backup);
  ctx.world.schedule(until, () => {
    if (db.snapshotInProgress?.backup !== backup) return;
    db.snapshotInProgress = null;
  });
  return json(renderBackup(backup));
}

function deleteBackup(ctx: HandlerContext) {
  const db = databaseFor(ctx, 'read_write');
  requireProvisioned(db, 'deleting a backup');
  const backup = backupOf(ctx, db);
  db.backups = db.backups.filter((b) => b !== backup);
  return empty();
}

// Rule 6: the backup's data replaces everything; after a credentials reset the cluster fails.
function restoreBackup(ctx: HandlerContext) {
  const db = databaseFor(ctx, 'read_write');
  requireStatus(db, ctx.now, ['active', 'degraded', 'failed'], 'a restore');
  const backup = backupOf(ctx, db);
  db.status = 'restoring';
  db.updated = ctx.now;
  settleStatus(ctx.world, db, DATABASE_RESTORE_MS, (restored) => {
    restored.used_disk_size_gb = backup.usedDiskSizeGb;
    return restored.credentialsResetAt !== null && restored.credentialsResetAt > backup.created
      ? 'failed'
      : 'active';
  });
  return empty();
}

function viewCredentials(ctx: HandlerContext) {
  const db = databaseFor(ctx, 'read_only');
  requireStatus(db, ctx.now, ['active'], 'viewing credentials');
  return json({ username: db.username, password: db.password });
}

// Rules 2 and 7: unrestricted users only (from the row); the new password applies after a few seconds.
function resetCredentials(ctx: HandlerContext) {
  const db = databaseFor(ctx, 'read_write');
  requireProvisioned(db, 'a credentials reset');
  const password = ctx.world.random.hex(24);
  const at = ctx.world.workDoneAt(CREDENTIALS_RESET_MS);
  db.passwordReset = { password, at };
  db.credentialsResetAt = ctx.now;
  ctx.world.schedule(at, () => {
    if (db.passwordReset?.password !== password) return;
    db.password = password;
    db.passwordReset = null;
  });
  return empty();
}

// Rule 8: OS patches only; the engine version stays.
function patchDatabase(ctx: HandlerContext) {
  const db = databaseFor(ctx, 'read_write');
  requireStatus(db, ctx.now, ['active'], 'patching');
  db.status = 'updating';
  db.updated = ctx.now;
  settleStatus(ctx.world, db, DATABASE_PATCH_MS, () => 'active');
  return empty();
}

function viewSsl(ctx: HandlerContext) {
  const db = databaseFor(ctx, 'read_only');
  requireStatus(db, ctx.now, ['active'], 'viewing the SSL certificate');
  return json({ ca_certificate: db.caCertificate });
}

type EngineHandlers<K extends EngineKind> = {
  readonly [A in DatabaseEngineAction as `databases.${K}-${A}`]: Handler;
};

function engineHandlers<K extends EngineKind>(kind: K): EngineHandlers<K> {
  const byAction: { readonly [A in DatabaseEngineAction]: Handler } = {
    list: (ctx) =>
      list(
        byId(ctx.world.databases.values()).filter(
          (db) => db.kind === kind && canView(ctx.user, 'database', db.id),
        ),
        (db) => renderDatabase(db, ctx.now),
      ),
    create: createDatabase,
    view: (ctx) => json(renderDatabase(databaseFor(ctx, 'read_only'), ctx.now)),
    update: updateDatabase,
    delete: deleteDatabase,
    'backups-list': listBackups,
    'backup-snapshot': createSnapshot,
    'backup-view': (ctx) => {
      const db = databaseFor(ctx, 'read_only');
      requireProvisioned(db, 'viewing a backup');
      return json(renderBackup(backupOf(ctx, db)));
    },
    'backup-delete': deleteBackup,
    'backup-restore': restoreBackup,
    'creds-view': viewCredentials,
    'creds-reset': resetCredentials,
    patch: patchDatabase,
    'ssl-cert': viewSsl,
  };
  // The key type follows from the mapping; Object.fromEntries cannot say so itself.
  return Object.fromEntries(
    Object.entries(byAction).map(([action, handler]) => [`databases.${kind}-${action}`, handler]),
  ) as EngineHandlers<K>;
}

export const databaseHandlers: GroupHandlers<'databases'> = {
  'databases.engines': () =>
    list(DATABASE_ENGINES, (e) => ({ id: e.id, engine: e.engine, version: e.version })),
  'databases.engines-view': (ctx) => {
    const engine = found(
      DATABASE_ENGINES.find((e) => e.id === ctx.input.text('engineId')),
      'Engine',
    );
    return json({ id: engine.id, engine: engine.engine, version: engine.version });
  },
  'databases.list': (ctx) =>
    list(
      byId(ctx.world.databases.values()).filter((db) => canView(ctx.user, 'database', db.id)),
      (db) => renderDatabase(db, ctx.now, true),
    ),
  ...engineHandlers('mysql'),
  ...engineHandlers('postgresql'),
  'databases.types': () => list(databaseTypes(), renderDatabaseType),
  'databases.types-view': (ctx) =>
    json(
      renderDatabaseType(
        found(
          databaseTypes().find((t) => t.id === ctx.input.text('typeId')),
          'Type',
        ),
      ),
    ),
};
