import type { AnyOperation } from './operation.js';
import type { OperationId } from './operations/index.js';

/**
 * What an approver decides on, per kind of target: the fields whose change makes an approved
 * request a different request, so it is not run. Fields the provider moves by itself (an `updated`
 * time, a `last_decrypted` or `last_authenticated` stamp) are not among them, and a status counts
 * only when it leaves the resource's own path toward its settled state: an image that was
 * `creating` when the card was posted and is `available` at the vote is the image the approver
 * chose to delete. Any other status move (a running node now `offline`, a database now `failed`)
 * is a change.
 *
 * A target's kind is found from the single-resource read of the operation (`KIND_OF_VIEW`), named
 * as in `RESOURCE_KINDS` (`lib/slack/render/resource-kinds.ts`) where that has the kind; a test
 * checks that every operation other than a read, whose target can be read, targets a kind here.
 *
 * Statuses and their paths come from `../shared/spec/compute-storage-images-databases.md`
 * ("States and transitions") and `../shared/spec/account-profile-and-managed-monitoring.md`, and the
 * status enums from `../shared/reference/API-FACTS.md` §2.
 */

/** One field a person decided on: a top-level or dotted path, and what people call it. */
export interface DecidedField {
  readonly path: string;
  /**
   * A noun phrase for "… changed" where the field's own name says it badly (`is_public`:
   * `visibility (public or private)`); otherwise the surface words the name as it words every field.
   */
  readonly words?: string;
}

export interface DecidedFields {
  readonly fields: readonly DecidedField[];
  /**
   * The resource's own path toward its settled state: each status and the statuses it reaches by
   * itself. A move along it is no change; any other status move is. Absent: no status field.
   */
  readonly settles?: Readonly<Record<string, readonly string[]>>;
  /** Statuses that say a delete is under way: such a target is not "still there as it was". */
  readonly deleting?: readonly string[];
}

export type DecidedKind =
  | 'node'
  | 'node-backup'
  | 'config'
  | 'volume'
  | 'image'
  | 'database'
  | 'database-backup'
  | 'token'
  | 'ssh-key'
  | 'app'
  | 'device'
  | 'contact'
  | 'credential'
  | 'service'
  | 'node-settings'
  | 'disk'
  | 'event';

const field = (path: string, words?: string): DecidedField =>
  words === undefined ? { path } : { path, words };
const LABEL = field('label');
const STATUS = field('status');

export const DECIDED_FIELDS: Readonly<Record<DecidedKind, DecidedFields>> = {
  // Node statuses (API-FACTS §2.1). The spec shows no transitions but says a node created runs
  // after provisioning unless `booted` is false, and an empty one stays offline. Booting,
  // rebooting and shutting down name their own ends (the spec does not list them); reaching them
  // is the node finishing what the approver saw it doing. Running → offline, anything →
  // deleting, migrating, rebuilding, restoring: someone acted on it since.
  node: {
    fields: [LABEL, field('region'), field('type', 'plan (type)'), field('image'), STATUS],
    settles: {
      provisioning: ['booting', 'running', 'offline'],
      booting: ['running'],
      rebooting: ['booting', 'running'],
      shutting_down: ['offline', 'stopped'],
    },
    deleting: ['deleting'],
  },
  // Two shapes share the route: one backup (a restore's source; its status runs pending →
  // running → needsPostProcessing → successful by itself), and the node's backups list, where a
  // snapshot replaces `snapshot.current` (the card names it).
  'node-backup': {
    fields: [
      LABEL,
      field('type'),
      field('available', 'availability'),
      STATUS,
      field('snapshot.current.id', 'current snapshot'),
    ],
    settles: {
      pending: ['running', 'needsPostProcessing', 'successful'],
      running: ['needsPostProcessing', 'successful'],
      needsPostProcessing: ['successful'],
    },
  },
  // A config profile has no status; what it boots is its kernel, root device and disks.
  config: {
    fields: [LABEL, field('kernel'), field('root_device'), field('devices', 'disks and volumes')],
  },
  // Volume statuses creating, active, resizing; `active` is the settled one. A finished resize
  // shows in `size`, so resizing → active needs no second look. Being attached to a node since
  // the card is a different thing to delete.
  volume: {
    fields: [LABEL, field('size'), field('region'), field('node_id', 'attached node'), STATUS],
    settles: { creating: ['active'], resizing: ['active'] },
  },
  // Image states table: creating → available (capture done), pending_upload → available (upload
  // done). `expiry` and `updated` are the provider's.
  image: {
    fields: [
      LABEL,
      field('size'),
      field('type'),
      field('is_public', 'visibility (public or private)'),
      STATUS,
    ],
    settles: { creating: ['available'], pending_upload: ['available'] },
  },
  // Database: provisioning (15 to 30 minutes after create) → active is documented. Backing up,
  // updating, resuming and restoring name work under way whose end is active (transitions are
  // not shown; taken from the names and the operations that start them). Failed, degraded,
  // suspending, suspended: the approver would want to know.
  database: {
    fields: [
      LABEL,
      field('engine'),
      field('version'),
      field('region'),
      field('type', 'plan (type)'),
      field('cluster_size'),
      STATUS,
    ],
    settles: {
      provisioning: ['active'],
      backing_up: ['active'],
      updating: ['active'],
      resuming: ['active'],
      restoring: ['active'],
    },
  },
  // A backup has no status; what it holds is fixed when it is taken.
  'database-backup': { fields: [LABEL, field('type'), field('created', 'time taken')] },
  token: { fields: [LABEL, field('scopes'), field('expiry')] },
  'ssh-key': { fields: [LABEL, field('ssh_key', 'key')] },
  app: { fields: [LABEL, field('scopes'), field('website')] },
  // `last_authenticated` and `last_remote_addr` move with every sign-in; the device is its browser.
  device: { fields: [field('user_agent', 'browser (user agent)')] },
  contact: { fields: [field('name'), field('email'), field('phone'), field('group')] },
  // `last_decrypted` moves whenever monitoring reads it.
  credential: { fields: [LABEL] },
  // Service statuses disabled, pending, ok, problem; transitions not shown. A new service's first
  // check (pending → ok) is its own path; a service now with a problem, or disabled, is news.
  service: {
    fields: [LABEL, field('service_type'), field('address'), field('region'), STATUS],
    settles: { pending: ['ok'] },
  },
  'node-settings': { fields: [LABEL, field('ssh', 'SSH access settings')] },
  // Disk statuses `ready`, `not ready`, `deleting` (API-FACTS-MORE.md §6); a new disk being made
  // ready is its own path.
  disk: {
    fields: [LABEL, field('size'), field('filesystem'), STATUS],
    settles: { 'not ready': ['ready'] },
    deleting: ['deleting'],
  },
  // An account event changes only by being marked seen, which is what marking it seen asks for.
  event: { fields: [field('action'), field('entity.id', 'what it is about'), field('seen')] },
};

/** The kind each single-resource read returns: how a change's target finds its row above. */
const KIND_OF_VIEW: Readonly<Partial<Record<OperationId, DecidedKind>>> = {
  'nodes.view': 'node',
  'nodes.backups-view': 'node-backup',
  // Taking a snapshot or switching backups on or off acts on the node's backups as a whole.
  'nodes.backups-list': 'node-backup',
  'nodes.configs-view': 'config',
  'nodes.disks-view': 'disk',
  'volumes.view': 'volume',
  'images.view': 'image',
  'databases.mysql-view': 'database',
  'databases.postgresql-view': 'database',
  'databases.mysql-backup-view': 'database-backup',
  'databases.postgresql-backup-view': 'database-backup',
  'profile.tokens-view': 'token',
  'profile.sshkeys-view': 'ssh-key',
  'profile.apps-view': 'app',
  'profile.devices-view': 'device',
  'managed.contacts-view': 'contact',
  'managed.credentials-view': 'credential',
  'managed.services-view': 'service',
  'managed.node-settings-view': 'node-settings',
  'events.view': 'event',
};

/** The kind of what a single-resource read returns; `generic` for a read no row names. */
export function decidedKindOf(view: Pick<AnyOperation, 'id'>): string {
  return KIND_OF_VIEW[view.id as OperationId] ?? 'generic';
}

/** For a kind no row names yet: the label and the status, compared strictly. */
const UNLISTED: DecidedFields = { fields: [LABEL, STATUS], settles: {} };

export function isDecidedKind(kind: string): kind is DecidedKind {
  return Object.hasOwn(DECIDED_FIELDS, kind);
}

export function decidedFieldsOf(kind: string): DecidedFields {
  return isDecidedKind(kind) ? DECIDED_FIELDS[kind] : UNLISTED;
}

type Resource = Readonly<Record<string, unknown>>;

function valueAtPath(resource: Resource, path: string): unknown {
  let value: unknown = resource;
  for (const key of path.split('.')) {
    // A path that leads into nothing (a node without a current snapshot) is a value: none.
    if (value === null) return null;
    if (typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = Object.hasOwn(value, key) ? (value as Resource)[key] : undefined;
  }
  return value;
}

/**
 * What is kept with a request to compare at the vote: the decided fields the target shows, by
 * path. A field the resource does not have is left out, so it is never compared.
 */
export function decidedFingerprint(kind: string, resource: Resource): string {
  const shown = decidedFieldsOf(kind)
    .fields.map(({ path }) => [path, valueAtPath(resource, path)] as const)
    .filter(([, value]) => value !== undefined);
  return JSON.stringify(Object.fromEntries(shown));
}

export type DecidedComparison =
  | { readonly changed: false }
  /** Empty when the recorded fingerprint could not be read. */
  | { readonly changed: true; readonly fields: readonly DecidedField[] };

function parseFingerprint(text: string): Resource | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Resource)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a status move from `before` to `after` is the resource going its own way. */
export function settlesBy(rules: DecidedFields, before: unknown, after: unknown): boolean {
  if (before === after) return true;
  if (typeof before !== 'string' || typeof after !== 'string') return false;
  return rules.settles?.[before]?.includes(after) ?? false;
}

/**
 * Which decided fields differ between the fingerprint kept with the request and the target now.
 * Only fields recorded at the time are compared: what was not recorded was not seen (a request
 * made before a field joined its kind's row is judged by what its card had).
 */
export function compareDecided(kind: string, recorded: string, now: string): DecidedComparison {
  const before = parseFingerprint(recorded);
  const after = parseFingerprint(now);
  if (!before || !after) return { changed: true, fields: [] };
  const rules = decidedFieldsOf(kind);
  const fields = rules.fields
    .filter(({ path }) => Object.hasOwn(before, path))
    .filter(({ path }) =>
      path === STATUS.path
        ? !settlesBy(rules, before[path], after[path])
        : JSON.stringify(before[path]) !== JSON.stringify(after[path] ?? null),
    );
  return fields.length > 0 ? { changed: true, fields } : { changed: false };
}

/** Whether the fingerprint shows the target in one of its kind's deleting statuses. */
export function showsDeleting(kind: string, fingerprint: string): boolean {
  const status = parseFingerprint(fingerprint)?.[STATUS.path];
  return typeof status === 'string' && (decidedFieldsOf(kind).deleting ?? []).includes(status);
}

/** "label", "label and size", "label, size and status". */
export function fieldsInWords(fields: readonly string[]): string {
  if (fields.length <= 1) return fields[0] ?? '';
  return `${fields.slice(0, -1).join(', ')} and ${fields.at(-1)}`;
}

/** What one read of a delete's target proves, once no attempt of the delete can still be at work. */
export type DeleteReadBack = 'deleted' | 'not_deleted' | 'in_doubt';

/**
 * A delete whose every attempt the API answered with a server error, read back once: gone is
 * deleted; there in the state the approvers saw (the same decided fields, status at most gone its
 * own way) and not being deleted did not happen, as nothing is left running that could still
 * delete it. Unreadable, changed or being deleted: still in doubt, checked later.
 */
export function judgeUnansweredDelete(
  kind: string,
  recorded: string | null,
  now: string | null | 'not_found',
): DeleteReadBack {
  if (now === 'not_found') return 'deleted';
  if (now === null || recorded === null) return 'in_doubt';
  if (showsDeleting(kind, now) || compareDecided(kind, recorded, now).changed) return 'in_doubt';
  return 'not_deleted';
}
