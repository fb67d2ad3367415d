import type { AnyOperation } from '../../../lib/api/operation.js';
import type { OperationId } from '../../../lib/api/operations/index.js';
import type { Caller } from './auth.js';
import { apiTime, DAY } from './clock.js';
import type { EventRecord, EventStatus, NodeRecord, World } from './world.js';

/**
 * Account events (API-FACTS-MORE.md §8): what happens in the emulator is written down the way the
 * API lists it, whoever asked for it (the bot, a script calling the API directly, the provider's
 * own work). Long work writes a `started` event and finishes it when the work ends; the lifecycle
 * handlers do that themselves, and `recordOperationEvent` does it for the operations of the first
 * document, which predate events.
 */

/** "Events from the last 90 days" (§8). */
export const EVENT_HISTORY_MS = 90 * DAY;

export interface EventEntity {
  id: number | null;
  label: string;
  type: string;
  url: string;
}

export function nodeEntity(node: Pick<NodeRecord, 'id' | 'label'>): EventEntity {
  return { id: node.id, label: node.label, type: 'node', url: `/v4/node/instances/${node.id}` };
}

/** §8: disk events carry the node's id, with the disk's label. */
export function diskEntity(node: Pick<NodeRecord, 'id'>, disk: { id: number; label: string }): EventEntity {
  return {
    id: node.id,
    label: disk.label,
    type: 'disks',
    url: `/v4/node/instances/${node.id}/disks/${disk.id}`,
  };
}

export function recordEvent(
  world: World,
  spec: {
    action: string;
    entity: EventEntity;
    username: string | null;
    status?: EventStatus;
    message?: string | null;
    secondaryEntity?: EventRecord['secondaryEntity'];
    /** When it happened, for seeded history; default now. */
    at?: number;
  },
): EventRecord {
  const now = spec.at ?? world.now();
  const status = spec.status ?? 'finished';
  const event: EventRecord = {
    id: world.nextId('event', 500001),
    action: spec.action,
    created: now,
    status,
    percentComplete: status === 'started' || status === 'scheduled' ? 0 : 100,
    ended: status === 'started' || status === 'scheduled' ? null : now,
    username: spec.username,
    message: spec.message ?? null,
    entity: spec.entity,
    secondaryEntity: spec.secondaryEntity ?? null,
    read: false,
    seen: false,
  };
  world.events.set(event.id, event);
  return event;
}

/** Ends a started event when its work ends. */
export function endEvent(
  event: EventRecord,
  at: number,
  outcome: 'finished' | 'failed',
  message?: string,
): void {
  if (event.status !== 'started' && event.status !== 'scheduled') return;
  event.status = outcome;
  event.ended = at;
  if (outcome === 'finished') event.percentComplete = 100;
  if (message !== undefined) event.message = message;
}

export function renderEvent(event: EventRecord): Record<string, unknown> {
  const { entity } = event;
  return {
    id: event.id,
    action: event.action,
    created: apiTime(event.created),
    duration: event.ended === null ? 0 : Math.round((event.ended - event.created) / 1000),
    status: event.status,
    percent_complete: event.percentComplete,
    time_remaining: null,
    read: event.read,
    seen: event.seen,
    username: event.username,
    message: event.message,
    entity: {
      ...(entity.id === null ? {} : { id: entity.id }),
      label: entity.label,
      type: entity.type,
      url: entity.url,
    },
    ...(event.secondaryEntity && { secondary_entity: { ...event.secondaryEntity } }),
  };
}

// ---------------------------------------------------------------------------------------------
// Events of the first document's operations

type Kind = 'node' | 'volume' | 'image' | 'profile' | 'token' | 'user_ssh_key' | 'managed_service';

interface OperationEvent {
  /** A value of the published `action` enum. */
  readonly action: string;
  readonly kind: Kind;
  /** The node's work runs on after the answer: the event stays `started` until the node settles. */
  readonly untilNodeSettles?: boolean;
}

/**
 * The actions of the published enum that name an operation of the first document. Database
 * operations have no action in the enum and write no event.
 */
const OPERATION_EVENTS: Partial<Record<OperationId, OperationEvent>> = {
  'nodes.create': { action: 'node_create', kind: 'node', untilNodeSettles: true },
  'nodes.update': { action: 'node_update', kind: 'node' },
  'nodes.delete': { action: 'node_delete', kind: 'node' },
  'nodes.snapshot': { action: 'node_snapshot', kind: 'node' },
  'nodes.backups-cancel': { action: 'backups_cancel', kind: 'node' },
  'nodes.backups-enable': { action: 'backups_enable', kind: 'node' },
  'nodes.backups-restore': { action: 'backups_restore', kind: 'node', untilNodeSettles: true },
  'nodes.boot': { action: 'node_boot', kind: 'node', untilNodeSettles: true },
  'nodes.clone': { action: 'node_clone', kind: 'node', untilNodeSettles: true },
  'nodes.configs-create': { action: 'node_config_create', kind: 'node' },
  'nodes.configs-update': { action: 'node_config_update', kind: 'node' },
  'nodes.configs-delete': { action: 'node_config_delete', kind: 'node' },
  'volumes.create': { action: 'volume_create', kind: 'volume' },
  'volumes.update': { action: 'volume_update', kind: 'volume' },
  'volumes.delete': { action: 'volume_delete', kind: 'volume' },
  'volumes.attach': { action: 'volume_attach', kind: 'volume' },
  'volumes.detach': { action: 'volume_detach', kind: 'volume' },
  'volumes.clone': { action: 'volume_clone', kind: 'volume' },
  'volumes.resize': { action: 'volume_resize', kind: 'volume' },
  'images.update': { action: 'image_update', kind: 'image' },
  'images.delete': { action: 'image_delete', kind: 'image' },
  'images.upload': { action: 'image_upload', kind: 'image' },
  'profile.update': { action: 'profile_update', kind: 'profile' },
  'profile.tokens-create': { action: 'token_create', kind: 'token' },
  'profile.tokens-update': { action: 'token_update', kind: 'token' },
  'profile.tokens-delete': { action: 'token_delete', kind: 'token' },
  'profile.sshkeys-create': { action: 'user_ssh_key_add', kind: 'user_ssh_key' },
  'profile.sshkeys-update': { action: 'user_ssh_key_update', kind: 'user_ssh_key' },
  'profile.sshkeys-delete': { action: 'user_ssh_key_delete', kind: 'user_ssh_key' },
  'profile.tfa-confirm': { action: 'tfa_enabled', kind: 'profile' },
  'profile.tfa-disable': { action: 'tfa_disabled', kind: 'profile' },
  'managed.services-create': { action: 'managed_service_create', kind: 'managed_service' },
  'managed.services-delete': { action: 'managed_service_delete', kind: 'managed_service' },
};

const PATH_ID: Record<Kind, string | undefined> = {
  node: 'nodeId',
  volume: 'volumeId',
  image: 'imageId',
  profile: undefined,
  token: 'tokenId',
  user_ssh_key: 'sshKeyId',
  managed_service: 'serviceId',
};

function recordOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The entity an operation acted on: the created one's id from the answer, else the path's. */
function entityOf(
  world: World,
  kind: Kind,
  input: Readonly<Record<string, unknown>>,
  body: unknown,
  username: string,
): EventEntity | undefined {
  if (kind === 'profile') return { id: null, label: username, type: 'profile', url: '/v4/profile' };
  const answer = recordOf(body);
  // An upload answers {image, upload_to}.
  const resource = recordOf(answer?.image) ?? answer;
  const pathName = PATH_ID[kind];
  const raw = (pathName && input[pathName]) ?? resource?.id;
  const label = typeof resource?.label === 'string' ? resource.label : undefined;
  if (kind === 'node') {
    const id = Number(raw);
    const node = world.nodes.get(id);
    return nodeEntity({ id, label: node?.label ?? label ?? String(id) });
  }
  if (kind === 'image') {
    // Image ids are text (`private/15`); the event's entity id is an integer.
    const id = Number(String(raw).replace(/^private\//, ''));
    return {
      id: Number.isFinite(id) ? id : null,
      label: label ?? String(raw),
      type: 'image',
      url: `/v4/images/${String(raw)}`,
    };
  }
  const id = Number(raw);
  if (!Number.isInteger(id)) return undefined;
  const url = {
    volume: `/v4/volumes/${id}`,
    token: `/v4/profile/tokens/${id}`,
    user_ssh_key: `/v4/profile/sshkeys/${id}`,
    managed_service: `/v4/managed/services/${id}`,
  }[kind];
  const known = kind === 'volume' ? world.volumes.get(id)?.label : undefined;
  return { id, label: known ?? label ?? String(id), type: kind, url };
}

/**
 * The secondary entity of an attach: the node the volume goes to. The schema's `secondary_entity`
 * is "additional information for events such as, but not limited to" boots and clones (§8, its
 * `id` a string); the provider's own console words `volume_attach` as "Volume X has been attached
 * to Linode Y" from it (its public source, `features/Events/factories/volume.tsx`).
 */
function secondaryEntityOf(
  world: World,
  action: string,
  input: Readonly<Record<string, unknown>>,
): EventRecord['secondaryEntity'] | undefined {
  if (action !== 'volume_attach') return undefined;
  const node = world.nodes.get(Number(input.node_id));
  if (!node) return undefined;
  const { id, label, type, url } = nodeEntity(node);
  return { id: String(id), label, type, url };
}

/**
 * Writes the event of a successful change made through the API, whoever made it. The lifecycle
 * operations of the second document write their own (they know when their work ends).
 */
export function recordOperationEvent(
  world: World,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  body: unknown,
  caller: Caller | undefined,
): void {
  const spec = OPERATION_EVENTS[op.id as OperationId];
  if (!spec || !caller) return;
  const entity = entityOf(world, spec.kind, input, body, caller.user.username);
  if (!entity) return;
  const node = spec.kind === 'node' && entity.id !== null ? world.nodes.get(entity.id) : undefined;
  const waits = spec.untilNodeSettles === true && node !== undefined && node.busyUntil > world.now();
  const secondaryEntity = secondaryEntityOf(world, spec.action, input);
  const event = recordEvent(world, {
    action: spec.action,
    entity,
    username: caller.user.username,
    status: waits ? 'started' : 'finished',
    ...(secondaryEntity && { secondaryEntity }),
  });
  if (waits && node) {
    world.schedule(node.busyUntil, (at) => {
      endEvent(event, at, world.nodes.get(node.id) === node ? 'finished' : 'failed');
    });
  }
}
