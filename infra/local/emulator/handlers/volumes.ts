import { canView, forgetEntity, grantCreator, requireGlobalGrant, requirePermission } from '../auth.js';
import { findRegion } from '../catalog.js';
import { apiTime, MINUTE } from '../clock.js';
import { badRequest } from '../errors.js';
import type { NodeRecord, VolumeRecord, World } from '../world.js';
import { byId, found } from './lookup.js';
import { chooseConfig, configOfNode, freeSlot, ramGb, removeVolumeFromConfigs } from './node-model.js';
import { empty, type GroupHandlers, type HandlerContext, json, list } from './types.js';

/** Volumes (documents: volumes rules 1-7). */

export const VOLUME_CREATE_MS = MINUTE;
export const VOLUME_RESIZE_MS = MINUTE;
export const DEFAULT_VOLUME_SIZE = 20;
/** Volumes a node takes without config persistence, below 16 GB of RAM. */
const DEFAULT_ATTACH_LIMIT = 8;
const MAX_ATTACH_LIMIT = 64;

export function renderVolume(world: World, volume: VolumeRecord): Record<string, unknown> {
  const node = volume.nodeId === null ? undefined : world.nodes.get(volume.nodeId);
  return {
    id: volume.id,
    label: volume.label,
    filesystem_path: `/dev/disk/by-id/scsi-0Node_Volume_${volume.label}`,
    status: volume.status,
    size: volume.size,
    region: volume.region,
    node_id: node ? node.id : null,
    node_label: node ? node.label : null,
    created: apiTime(volume.created),
    updated: apiTime(volume.updated),
    tags: [...volume.tags],
    hardware_type: volume.hardware_type,
  };
}

function settleAfter(world: World, volume: VolumeRecord, ms: number): void {
  world.schedule(world.workDoneAt(ms), (at) => {
    if (world.volumes.get(volume.id) === volume && volume.status !== 'active') {
      volume.status = 'active';
      volume.updated = at;
    }
  });
}

export function newVolume(
  world: World,
  spec: {
    label: string;
    size: number;
    region: string;
    tags?: string[];
    nodeId?: number | null;
    status?: VolumeRecord['status'];
  },
): VolumeRecord {
  const now = world.now();
  const volume: VolumeRecord = {
    id: world.nextId('volume', 2001),
    label: spec.label,
    status: spec.status ?? 'creating',
    size: spec.size,
    region: spec.region,
    nodeId: spec.nodeId ?? null,
    created: now,
    updated: now,
    tags: spec.tags ?? [],
    hardware_type: findRegion(spec.region)?.volumeHardware ?? 'hdd',
    migratingUntil: null,
  };
  world.volumes.set(volume.id, volume);
  if (volume.status !== 'active') settleAfter(world, volume, VOLUME_CREATE_MS);
  return volume;
}

function checkUniqueLabel(world: World, label: string, exceptId?: number): void {
  for (const volume of world.volumes.values()) {
    if (volume.label === label && volume.id !== exceptId)
      throw badRequest('must be unique among your volumes', 'label');
  }
}

function volumeFor(ctx: HandlerContext, permission: 'read_only' | 'read_write'): VolumeRecord {
  const volume = found(ctx.world.volumes.get(ctx.input.int('volumeId')), 'Volume');
  requirePermission(ctx.user, 'volume', volume.id, permission);
  return volume;
}

function nodeFor(ctx: HandlerContext, nodeId: number, field: string): NodeRecord {
  const node = ctx.world.nodes.get(nodeId);
  if (!node) throw badRequest(`Node ${nodeId} does not exist`, field);
  requirePermission(ctx.user, 'node', node.id, 'read_write');
  return node;
}

/** Volumes attached to a node without a config slot count against its RAM-based limit. */
function attachLimit(node: NodeRecord): number {
  const ram = ramGb(node);
  return ram >= 16 ? Math.min(ram, MAX_ATTACH_LIMIT) : DEFAULT_ATTACH_LIMIT;
}

function attachedCount(world: World, node: NodeRecord): number {
  let count = 0;
  for (const volume of world.volumes.values()) if (volume.nodeId === node.id) count++;
  return count;
}

/** Puts the volume into a free device slot of the profile. */
function addToConfig(node: NodeRecord, configId: number, volume: VolumeRecord): void {
  const config = node.configs.get(configId);
  if (!config) return;
  const slot = freeSlot(config);
  if (!slot) throw badRequest(`Configuration profile ${config.id} has no free device slot`, 'config_id');
  config.devices[slot] = { volume_id: volume.id };
}

export const volumeHandlers: GroupHandlers<'volumes'> = {
  'volumes.list': (ctx) =>
    list(
      byId(ctx.world.volumes.values()).filter((volume) => canView(ctx.user, 'volume', volume.id)),
      (volume) => renderVolume(ctx.world, volume),
    ),

  // Rules 1 and 2.
  'volumes.create': (ctx) => {
    requireGlobalGrant(ctx.user, 'add_volumes');
    const label = ctx.input.text('label');
    checkUniqueLabel(ctx.world, label);
    const nodeId = ctx.input.optionalInt('node_id');
    const configId = ctx.input.optionalInt('config_id');
    let region = ctx.input.optionalText('region');
    let node: NodeRecord | undefined;
    let chosenConfig: number | undefined;
    if (nodeId !== undefined) {
      node = nodeFor(ctx, nodeId, 'node_id');
      if (region !== undefined && region !== node.region) {
        throw badRequest(`must match the node's region (${node.region})`, 'region');
      }
      region = node.region;
      chosenConfig =
        configId !== undefined
          ? configOfNode(node, configId, 'config_id').id
          : chooseConfig(node, 'config_id').id;
    } else if (configId !== undefined) {
      throw badRequest('may only be given with node_id', 'config_id');
    }
    if (region === undefined) throw badRequest('is required when node_id is not given', 'region');
    const regionInfo = findRegion(region);
    if (!regionInfo?.capabilities.includes('Block Storage'))
      throw badRequest(`${region} does not offer volumes`, 'region');
    const volume = newVolume(ctx.world, {
      label,
      size: ctx.input.optionalInt('size') ?? DEFAULT_VOLUME_SIZE,
      region,
      tags: ctx.input.optionalTextList('tags') ?? [],
      nodeId: node?.id ?? null,
    });
    if (node && chosenConfig !== undefined) {
      try {
        addToConfig(node, chosenConfig, volume);
      } catch (error) {
        ctx.world.volumes.delete(volume.id);
        throw error;
      }
    }
    grantCreator(ctx.user, 'volume', volume.id);
    return json(renderVolume(ctx.world, volume));
  },

  'volumes.view': (ctx) => json(renderVolume(ctx.world, volumeFor(ctx, 'read_only'))),

  'volumes.update': (ctx) => {
    const volume = volumeFor(ctx, 'read_write');
    const label = ctx.input.optionalText('label');
    if (label !== undefined) {
      checkUniqueLabel(ctx.world, label, volume.id);
      volume.label = label;
    }
    const tags = ctx.input.optionalTextList('tags');
    if (tags !== undefined) volume.tags = tags;
    volume.updated = ctx.now;
    return json(renderVolume(ctx.world, volume));
  },

  // Rule 6: irreversible; not while migrating.
  'volumes.delete': (ctx) => {
    const volume = volumeFor(ctx, 'read_write');
    if (volume.migratingUntil !== null && volume.migratingUntil > ctx.now) {
      throw badRequest('Volume is migrating; it can be deleted once the migration has finished');
    }
    const node = volume.nodeId === null ? undefined : ctx.world.nodes.get(volume.nodeId);
    if (node) removeVolumeFromConfigs(node, volume.id);
    ctx.world.volumes.delete(volume.id);
    forgetEntity(ctx.world, 'volume', volume.id);
    return empty();
  },

  // Rule 3.
  'volumes.attach': (ctx) => {
    const volume = volumeFor(ctx, 'read_write');
    const node = nodeFor(ctx, ctx.input.int('node_id'), 'node_id');
    if (volume.nodeId !== null) throw badRequest(`Volume is already attached to node ${volume.nodeId}`);
    if (volume.status !== 'active')
      throw badRequest(`Volume is ${volume.status}; only active volumes can be attached`);
    if (volume.region !== node.region) {
      throw badRequest(
        `Volume (${volume.region}) and node (${node.region}) must be in the same region`,
        'node_id',
      );
    }
    const persist = ctx.input.optionalBool('persist_across_boots') ?? true;
    if (persist) {
      const configId = ctx.input.optionalInt('config_id');
      const config =
        configId === undefined ? chooseConfig(node, 'config_id') : configOfNode(node, configId, 'config_id');
      addToConfig(node, config.id, volume);
    } else {
      if (node.status !== 'running')
        throw badRequest('The node must be running to attach without a profile', 'node_id');
      if (attachedCount(ctx.world, node) >= attachLimit(node)) {
        throw badRequest(`Node ${node.id} can take at most ${attachLimit(node)} volumes`, 'node_id');
      }
    }
    volume.nodeId = node.id;
    volume.updated = ctx.now;
    return json(renderVolume(ctx.world, volume));
  },

  // Rules 1 and 4: the source must be active; the copy has its size and data.
  'volumes.clone': (ctx) => {
    requireGlobalGrant(ctx.user, 'add_volumes');
    const source = volumeFor(ctx, 'read_only');
    if (source.status !== 'active')
      throw badRequest(`Volume is ${source.status}; only active volumes can be cloned`);
    const label = ctx.input.text('label');
    checkUniqueLabel(ctx.world, label);
    const copy = newVolume(ctx.world, {
      label,
      size: source.size,
      region: source.region,
      tags: [...source.tags],
    });
    grantCreator(ctx.user, 'volume', copy.id);
    return json(renderVolume(ctx.world, copy));
  },

  'volumes.detach': (ctx) => {
    const volume = volumeFor(ctx, 'read_write');
    if (volume.nodeId === null) throw badRequest('Volume is not attached to a node');
    const node = ctx.world.nodes.get(volume.nodeId);
    if (node) {
      requirePermission(ctx.user, 'node', node.id, 'read_write');
      removeVolumeFromConfigs(node, volume.id);
    }
    volume.nodeId = null;
    volume.updated = ctx.now;
    return empty();
  },

  // Rule 5: only upward, only when active.
  'volumes.resize': (ctx) => {
    const volume = volumeFor(ctx, 'read_write');
    const size = ctx.input.int('size');
    if (volume.status !== 'active')
      throw badRequest(`Volume is ${volume.status}; only active volumes can be resized`);
    if (size <= volume.size)
      throw badRequest(`must be larger than the current size (${volume.size})`, 'size');
    volume.size = size;
    volume.status = 'resizing';
    volume.updated = ctx.now;
    settleAfter(ctx.world, volume, VOLUME_RESIZE_MS);
    return json(renderVolume(ctx.world, volume));
  },
};
