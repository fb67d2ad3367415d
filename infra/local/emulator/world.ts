import type { EngineKind } from './catalog.js';
import type { Clock } from './clock.js';
import { SeededRandom } from './seeded-random.js';

/**
 * The emulator's whole state: users and their tokens, and the account's resources. Records hold
 * what the API shows plus what it needs to enforce the documents' rules; each area's handlers turn
 * records into response bodies. Timed transitions are scheduled on the world's timeline and run
 * when a request (or a clock advance) finds them due.
 */

export type Permission = 'read_only' | 'read_write';
export type EntityKind = 'node' | 'volume' | 'image' | 'database';
export const ENTITY_KINDS: readonly EntityKind[] = ['node', 'volume', 'image', 'database'];

export const GLOBAL_GRANT_FLAGS = [
  'add_databases',
  'add_domains',
  'add_firewalls',
  'add_images',
  'add_nodes',
  'add_longview',
  'add_nodebalancers',
  'add_stackscripts',
  'add_volumes',
  'add_vpcs',
  'cancel_account',
  'longview_subscription',
] as const;
export type GlobalGrantFlag = (typeof GLOBAL_GRANT_FLAGS)[number];

export type GlobalGrants = Record<GlobalGrantFlag, boolean> & { account_access: Permission | null };

export interface UserGrants {
  global: GlobalGrants;
  /** Per-entity permissions, keyed by the entity id as text. */
  entities: Record<EntityKind, Map<string, Permission>>;
}

export interface AppRecord {
  id: number;
  label: string;
  scopes: string;
  created: number;
  expiry: number | null;
  thumbnail_url: string;
  website: string;
}

export interface DeviceRecord {
  id: number;
  created: number;
  expiry: number;
  last_authenticated: number;
  last_remote_addr: string;
  user_agent: string;
}

export interface LoginRecord {
  id: number;
  datetime: number;
  ip: string;
  restricted: boolean;
  status: 'successful' | 'failed';
  username: string;
}

export interface SshKeyRecord {
  id: number;
  label: string;
  ssh_key: string;
  created: number;
}

export interface PendingPhoneCode {
  code: string;
  phoneNumber: string;
  isoCode: string;
  expiresAt: number;
}

export interface UserRecord {
  uid: number;
  username: string;
  email: string;
  restricted: boolean;
  grants: UserGrants;
  timezone: string;
  email_notifications: boolean;
  ip_whitelist_enabled: boolean;
  lish_auth_method: 'password_keys' | 'keys_only' | 'disabled';
  authorized_keys: string[] | null;
  two_factor_auth: boolean;
  verified_phone_number: string | null;
  /** Answers by question id; a question without an answer is absent. */
  securityAnswers: Map<number, string>;
  tfaPending: { secret: string; expiresAt: number } | null;
  phoneCode: PendingPhoneCode | null;
  /** Preferences per OAuth client; personal access tokens share one. */
  preferences: Map<string, Record<string, unknown>>;
  apps: Map<number, AppRecord>;
  devices: Map<number, DeviceRecord>;
  logins: Map<number, LoginRecord>;
  sshKeys: Map<number, SshKeyRecord>;
}

export interface TokenRecord {
  id: number;
  uid: number;
  label: string;
  /** `*` or space-separated scopes, as created. */
  scopes: string;
  created: number;
  expiry: number | null;
  /** The first 16 characters; the full token is never stored. */
  prefix: string;
  hash: string;
  /** OAuth client the token belongs to; personal access tokens have none. */
  appId: number | null;
}

/** A token as handed out, kept only for the control interface (tests read it like the SMS outbox). */
export interface IssuedToken {
  token: string;
  username: string;
  createdAt: number;
}

export interface SmsMessage {
  username: string;
  phoneNumber: string;
  code: string;
  sentAt: number;
}

export interface DiskRecord {
  id: number;
  label: string;
  /** MB */
  size: number;
  filesystem: 'raw' | 'swap' | 'ext3' | 'ext4' | 'initrd';
  created: number;
  updated: number;
  /** Kept when restored from a backup (the documents' UUID collision). */
  uuid: string;
  /** Public keys placed on the disk at deployment; they stay when profile keys are removed. */
  authorizedKeys: string[];
  /** `not ready` while it is created or resized (API-FACTS-MORE §3.4); absent means ready. */
  status?: DiskStatus;
}

export type DiskStatus = 'ready' | 'not ready' | 'deleting';

export interface InterfaceRecord {
  id: number;
  purpose: 'public' | 'vlan' | 'vpc';
  label: string | null;
  ipam_address: string | null;
  primary: boolean;
  subnet_id: number | null;
  vpc_id: number | null;
  ipv4: { vpc: string | null; nat_1_1: string | null } | null;
  ip_ranges: string[];
  /** Interface changes take effect after the node boots this profile again. */
  active: boolean;
}

export const DEVICE_SLOTS = ['sda', 'sdb', 'sdc', 'sdd', 'sde', 'sdf', 'sdg', 'sdh'] as const;
export type DeviceSlot = (typeof DEVICE_SLOTS)[number];
export type ConfigDevice = { disk_id: number } | { volume_id: number };

export interface ConfigRecord {
  id: number;
  label: string;
  kernel: string;
  comments: string | null;
  memory_limit: number;
  run_level: 'default' | 'single' | 'binbash';
  virt_mode: 'paravirt' | 'fullvirt';
  helpers: {
    updatedb_disabled: boolean;
    distro: boolean;
    modules_dep: boolean;
    network: boolean;
    devtmpfs_automount: boolean;
  };
  devices: Partial<Record<DeviceSlot, ConfigDevice>>;
  root_device: string;
  interfaces: InterfaceRecord[];
  created: number;
  updated: number;
}

export type NodeBackupStatus =
  | 'paused'
  | 'pending'
  | 'running'
  | 'needsPostProcessing'
  | 'successful'
  | 'failed'
  | 'userAborted';

export interface NodeBackupRecord {
  id: number;
  nodeId: number;
  region: string;
  type: 'auto' | 'snapshot';
  status: NodeBackupStatus;
  /** False while the backup is under maintenance. */
  available: boolean;
  created: number;
  updated: number;
  finished: number | null;
  label: string | null;
  configs: { label: string; kernel: string; diskLabels: string[] }[];
  disks: { size: number; filesystem: DiskRecord['filesystem']; label: string; uuid: string }[];
}

export type NodeStatus =
  | 'running'
  | 'offline'
  | 'booting'
  | 'rebooting'
  | 'shutting_down'
  | 'provisioning'
  | 'deleting'
  | 'migrating'
  | 'resizing'
  | 'rebuilding'
  | 'cloning'
  | 'restoring'
  | 'stopped'
  | 'billing_suspension';

export interface NodeRecord {
  id: number;
  label: string;
  group: string;
  tags: string[];
  region: string;
  type: string;
  image: string | null;
  status: NodeStatus;
  created: number;
  updated: number;
  ipv4: string[];
  ipv6: string | null;
  alerts: { cpu: number; network_in: number; network_out: number; transfer_quota: number; io: number };
  backupsEnabled: boolean;
  backupSchedule: { day: string | null; window: string | null };
  watchdog_enabled: boolean;
  host_uuid: string;
  userData: string | null;
  /** Outbound SMTP ports blocked for accounts created after 5 November 2019 (node create rule 7). */
  restrictedOutboundPorts: number[];
  disks: Map<number, DiskRecord>;
  configs: Map<number, ConfigRecord>;
  lastBootedConfigId: number | null;
  automaticBackups: NodeBackupRecord[];
  snapshot: { current: NodeBackupRecord | null; inProgress: NodeBackupRecord | null };
  /** Clones from this node that are still running, by the time each ends. */
  clonesRunning: number[];
  /** Busy with an action (boot, clone target, restore): other actions wait. */
  busyUntil: number;
  /**
   * A host migration the provider scheduled, which `migrate` without a region starts
   * (API-FACTS-MORE §2.6); set through the control interface.
   */
  hostMigrationPending?: boolean;
}

export interface VolumeRecord {
  id: number;
  label: string;
  status: 'creating' | 'active' | 'resizing';
  /** GiB */
  size: number;
  region: string;
  nodeId: number | null;
  created: number;
  updated: number;
  tags: string[];
  hardware_type: 'nvme' | 'hdd';
  /** A migrating volume cannot be deleted until the migration ends (volumes rule 6). */
  migratingUntil: number | null;
}

export interface ImageRecord {
  id: string;
  label: string;
  description: string | null;
  capabilities: string[];
  created: number;
  updated: number;
  created_by: string;
  deprecated: boolean;
  eol: string | null;
  expiry: number | null;
  is_public: boolean;
  /** MB */
  size: number;
  type: 'manual' | 'automatic';
  vendor: string | null;
  status: 'creating' | 'pending_upload' | 'available';
  region: string | null;
  /** When a pending upload is cancelled and the image removed (images rule 3). */
  uploadDeadline: number | null;
}

export interface UploadSession {
  id: string;
  imageId: string;
  expiresAt: number;
}

export interface DatabaseBackupRecord {
  id: number;
  type: 'snapshot' | 'auto';
  label: string;
  created: number;
  /** What restoring it brings back. */
  usedDiskSizeGb: number;
}

export type DatabaseStatus =
  | 'provisioning'
  | 'active'
  | 'suspending'
  | 'suspended'
  | 'resuming'
  | 'restoring'
  | 'failed'
  | 'degraded'
  | 'updating'
  | 'backing_up';

export interface MaintenanceWindow {
  frequency: 'weekly' | 'monthly';
  duration: number;
  hour_of_day: number;
  day_of_week: number;
  week_of_month: number | null;
}

export interface DatabaseRecord {
  id: number;
  kind: EngineKind;
  label: string;
  type: string;
  version: string;
  region: string;
  status: DatabaseStatus;
  encrypted: boolean;
  allow_list: string[];
  cluster_size: 1 | 3;
  created: number;
  updated: number;
  updates: MaintenanceWindow;
  ssl_connection: boolean;
  replication_type: string;
  replication_commit_type: string;
  port: number;
  used_disk_size_gb: number;
  username: string;
  password: string;
  /** A credentials reset in progress: the new password applies at `at`. */
  passwordReset: { password: string; at: number } | null;
  credentialsResetAt: number | null;
  backups: DatabaseBackupRecord[];
  /** A snapshot being taken; it joins `backups` when done. */
  snapshotInProgress: { backup: DatabaseBackupRecord; until: number } | null;
  /** An allow_list/label/window change still being applied. */
  updateUntil: number | null;
  /** A type change (resize) still running. */
  resizeUntil: number | null;
  /** The latest midnight whose automatic backup exists. */
  autoBackupsThrough: number;
  caCertificate: string;
}

export interface ManagedContactRecord {
  id: number;
  name: string;
  email: string;
  phone: { primary: string | null; secondary: string | null };
  group: string | null;
  updated: number;
}

export interface ManagedCredentialRecord {
  id: number;
  label: string;
  username: string | null;
  password: string;
  last_decrypted: number | null;
}

export interface ManagedIssueRecord {
  id: number;
  created: number;
  services: number[];
  entity: { id: number; label: string; type: 'ticket'; url: string };
  /**
   * When the services' checks passed again (the control's resolve). Not part of the API's
   * ManagedIssue, which has no state: a resolved issue stays listed among the recent ones.
   */
  resolved?: number;
}

export interface ManagedServiceRecord {
  id: number;
  status: 'disabled' | 'pending' | 'ok' | 'problem';
  service_type: 'url' | 'tcp';
  label: string;
  address: string;
  timeout: number;
  body: string | null;
  consultation_group: string;
  notes: string | null;
  region: string | null;
  credentials: number[];
  created: number;
  updated: number;
}

export interface ManagedSshSettings {
  access: boolean;
  ip: string;
  port: number | null;
  user: string | null;
}

/** An account event (API-FACTS-MORE §8). */
export type EventStatus = 'failed' | 'finished' | 'notification' | 'scheduled' | 'started';

export interface EventRecord {
  id: number;
  action: string;
  created: number;
  status: EventStatus;
  percentComplete: number;
  /** When it finished or failed; the duration runs from `created`. */
  ended: number | null;
  /** Who caused it; null for what the provider did by itself. */
  username: string | null;
  message: string | null;
  /** `disks` and `backups` events carry the node's id; profile events carry none. */
  entity: { id: number | null; label: string; type: string; url: string };
  secondaryEntity: { id: string; label: string; type: string; url: string } | null;
  read: boolean;
  seen: boolean;
}

interface TimelineEntry {
  at: number;
  order: number;
  run: (at: number) => void;
}

export interface AccountInfo {
  /** Account creation time; decides the outbound SMTP restriction (node create rule 7). */
  created: number;
  managedSshKey: string;
}

export class World {
  readonly clock: Clock;
  readonly random: SeededRandom;
  readonly account: AccountInfo;
  readonly users = new Map<number, UserRecord>();
  readonly tokens = new Map<number, TokenRecord>();
  readonly tokensByHash = new Map<string, TokenRecord>();
  readonly sms: SmsMessage[] = [];
  readonly issuedTokens: IssuedToken[] = [];
  readonly nodes = new Map<number, NodeRecord>();
  readonly volumes = new Map<number, VolumeRecord>();
  readonly images = new Map<string, ImageRecord>();
  readonly uploads = new Map<string, UploadSession>();
  readonly databases = new Map<number, DatabaseRecord>();
  readonly contacts = new Map<number, ManagedContactRecord>();
  readonly credentials = new Map<number, ManagedCredentialRecord>();
  readonly issues = new Map<number, ManagedIssueRecord>();
  readonly services = new Map<number, ManagedServiceRecord>();
  readonly nodeSettings = new Map<number, ManagedSshSettings>();
  /** Backups of deleted nodes are gone; this finds a backup's node quickly. */
  readonly nodeBackups = new Map<number, NodeBackupRecord>();
  /** Account events, oldest first; the API lists those of the last 90 days. */
  readonly events = new Map<number, EventRecord>();
  readonly #counters = new Map<string, number>();
  #timeline: TimelineEntry[] = [];
  #order = 0;

  constructor(clock: Clock, seed: number, account: AccountInfo) {
    this.clock = clock;
    this.random = new SeededRandom(seed);
    this.account = account;
  }

  now(): number {
    return this.clock.now();
  }

  /** The next id of a kind; each kind has its own deterministic range. */
  nextId(kind: string, start: number): number {
    const next = (this.#counters.get(kind) ?? start - 1) + 1;
    this.#counters.set(kind, next);
    return next;
  }

  /**
   * When timed work that takes `durationMs` (a provisioning, a capture, a restore) finishes if it
   * starts at `startedAt` (now, or a seeded past): sooner by the clock's progress speed. Expiries
   * are not work and never use this.
   */
  workDoneAt(durationMs: number, startedAt = this.now()): number {
    return startedAt + Math.ceil(durationMs / this.clock.progressSpeed);
  }

  /** Runs `run` once the clock reaches `at` (on the next request or clock advance after it). */
  schedule(at: number, run: (at: number) => void): void {
    this.#timeline.push({ at, order: this.#order++, run });
  }

  /** Runs every due transition in time order, including those that due ones schedule. */
  settle(): void {
    const now = this.now();
    for (;;) {
      let nextIndex = -1;
      for (let i = 0; i < this.#timeline.length; i++) {
        const entry = this.#timeline[i] as TimelineEntry;
        const best = this.#timeline[nextIndex];
        if (
          entry.at <= now &&
          (!best || entry.at < best.at || (entry.at === best.at && entry.order < best.order))
        ) {
          nextIndex = i;
        }
      }
      if (nextIndex < 0) return;
      const [entry] = this.#timeline.splice(nextIndex, 1);
      entry?.run(entry.at);
    }
  }

  get pendingTransitions(): number {
    return this.#timeline.length;
  }

  userByName(username: string): UserRecord | undefined {
    for (const user of this.users.values()) if (user.username === username) return user;
    return undefined;
  }
}
