import { diskEntity, endEvent, nodeEntity, recordEvent } from '../account-events.js';
import { canView } from '../auth.js';
import {
  BACKUP_PRICE_FACTOR,
  findNodeType,
  findRegion,
  KERNELS,
  NODE_TYPES,
  type NodeType,
  REGION_PRICE_FACTORS,
  STACKSCRIPTS,
} from '../catalog.js';
import { apiTime, DAY, MINUTE, SECOND } from '../clock.js';
import { badRequest } from '../errors.js';
import type { DiskRecord, EventRecord, NodeRecord, World } from '../world.js';
import { imageVisible } from './images.js';
import { byId, found } from './lookup.js';
import {
  chooseConfig,
  configOfNode,
  DEFAULT_SWAP_MB,
  deployImageDisks,
  isBusy,
  newDisk,
  nodeSpecs,
  privateIpv4,
  renderNode,
  usedDiskMb,
} from './node-model.js';
import { isStrongPassword, keysOfUsers, markBooted, nodeFor, WEAK_PASSWORD_REASON } from './nodes.js';
import { empty, type Handler, type HandlerContext, json, list, type NodeActionId } from './types.js';
import { renderVolume } from './volumes.js';

/**
 * The node operations of the second document (API-FACTS-MORE.md): lifecycle actions with their
 * state machines, node reads, disks, node types and kernels. Every action writes its account
 * events (§8): `started` when asked, `finished` or `failed` when the work ends.
 */

export const NODE_REBOOT_MS = MINUTE;
export const NODE_SHUTDOWN_MS = 30 * SECOND;
export const NODE_RESIZE_MS = 10 * MINUTE;
export const NODE_REBUILD_MS = 2 * MINUTE;
export const NODE_RESCUE_MS = 30 * SECOND;
export const NODE_MIGRATE_MS = 15 * MINUTE;
export const NODE_MUTATE_MS = 10 * MINUTE;
export const DISK_CREATE_MS = 30 * SECOND;
export const DISK_RESIZE_MS = MINUTE;

const OFF: readonly NodeRecord['status'][] = ['offline', 'stopped'];

function who(ctx: HandlerContext): string {
  return ctx.user.username;
}

/**
 * §2: "if any actions are currently running or queued, they must finish before the new one can
 * start" (reboot, shutdown, resize, mutate; the others move the node too, so they wait as well).
 */
function requireIdle(ctx: HandlerContext, node: NodeRecord): void {
  if (isBusy(node, ctx.now)) throw badRequest(`Node busy: it is ${node.status}; wait for that to finish`);
}

/**
 * Moves the node into `status` for `ms` of work, then runs `done` and finishes `event` (or fails
 * it when the node was deleted meanwhile). `done` decides where the node ends up.
 */
function nodeWork(
  world: World,
  node: NodeRecord,
  spec: { status: NodeRecord['status']; ms: number; event: EventRecord; done: (at: number) => void },
): void {
  node.status = spec.status;
  node.updated = world.now();
  const at = world.workDoneAt(spec.ms);
  node.busyUntil = Math.max(node.busyUntil, at);
  world.schedule(at, (when) => {
    if (world.nodes.get(node.id) !== node) {
      endEvent(spec.event, when, 'failed', 'The node was deleted');
      return;
    }
    spec.done(when);
    node.updated = when;
    endEvent(spec.event, when, 'finished');
  });
}

/** Boots the node's chosen profile at the end of an action, or leaves it offline without one. */
function bootAtEnd(node: NodeRecord, configId: number | null): void {
  const config = configId === null ? undefined : node.configs.get(configId);
  if (!config) {
    node.status = 'offline';
    return;
  }
  markBooted(node, config);
  node.status = 'running';
}

function typeFor(ctx: HandlerContext, field: string): NodeType {
  const id = ctx.input.text(field);
  const type = findNodeType(id);
  if (!type) throw badRequest(`${id} is not a node type`, field);
  return type;
}

/** Non-swap disks: the ones a resize may grow or shrink and a password reset writes to. */
function dataDisks(node: NodeRecord): DiskRecord[] {
  return [...node.disks.values()].filter((disk) => disk.filesystem !== 'swap');
}

/**
 * §2.3: the node must not have more disk allocated than the new type allows. With
 * `allow_auto_disk_resize` (default true) and one data disk, that disk is grown or shrunk to fill
 * the new type; otherwise a node that does not fit is refused.
 */
function planDiskResize(node: NodeRecord, type: NodeType, auto: boolean): (() => void) | undefined {
  const used = usedDiskMb(node);
  const [only, ...others] = dataDisks(node);
  const autoResizable = auto && only !== undefined && others.length === 0;
  if (!autoResizable) {
    if (used > type.disk) {
      throw badRequest(
        `The node has ${used} MB of disks; ${type.id} allows ${type.disk} MB. Delete or shrink disks first`,
        'type',
      );
    }
    return undefined;
  }
  const newSize = only.size + (type.disk - used);
  if (newSize < 1) throw badRequest(`The node's disks cannot fit into ${type.id}`, 'type');
  return () => {
    only.size = newSize;
  };
}

// ---------------------------------------------------------------------------------------------
// Lifecycle

/** §2.1: reboot into the given profile, else the last booted one, else the only one. */
function rebootNode(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_write');
  const configId = ctx.input.raw('config_id');
  const config =
    typeof configId === 'number'
      ? configOfNode(node, configId, 'config_id')
      : chooseConfig(node, 'config_id');
  requireIdle(ctx, node);
  const event = recordEvent(ctx.world, {
    action: 'node_reboot',
    entity: nodeEntity(node),
    username: who(ctx),
    status: 'started',
  });
  nodeWork(ctx.world, node, {
    status: 'rebooting',
    ms: NODE_REBOOT_MS,
    event,
    done: () => bootAtEnd(node, config.id),
  });
  return empty();
}

/** §2.2. */
function shutdownNode(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_write');
  requireIdle(ctx, node);
  if (OFF.includes(node.status)) throw badRequest(`Node ${node.id} is already ${node.status}`);
  const event = recordEvent(ctx.world, {
    action: 'node_shutdown',
    entity: nodeEntity(node),
    username: who(ctx),
    status: 'started',
  });
  nodeWork(ctx.world, node, {
    status: 'shutting_down',
    ms: NODE_SHUTDOWN_MS,
    event,
    done: () => {
      node.status = 'offline';
    },
  });
  return empty();
}

/**
 * §2.3: through `resizing` to the new type. Cold (the default) powers the node down and on again;
 * warm keeps it running until the migration completes. Either way it ends as it was: running or off.
 */
function resizeNode(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_write');
  const type = typeFor(ctx, 'type');
  if (type.id === node.type) throw badRequest(`Node ${node.id} is already a ${type.id}`, 'type');
  if (node.hostMigrationPending) throw badRequest('The node has a pending migration; start it first');
  requireIdle(ctx, node);
  const applyDisks = planDiskResize(node, type, ctx.input.optionalBool('allow_auto_disk_resize') ?? true);
  const wasRunning = node.status === 'running';
  const bootConfig = node.lastBootedConfigId;
  const user = who(ctx);
  recordEvent(ctx.world, { action: 'node_resize_create', entity: nodeEntity(node), username: user });
  const event = recordEvent(ctx.world, {
    action: 'node_resize',
    entity: nodeEntity(node),
    username: user,
    status: 'started',
  });
  nodeWork(ctx.world, node, {
    status: 'resizing',
    ms: NODE_RESIZE_MS,
    event,
    done: () => {
      node.type = type.id;
      applyDisks?.();
      if (wasRunning) bootAtEnd(node, bootConfig);
      else node.status = 'offline';
    },
  });
  return empty();
}

/**
 * §2.4: shuts the node down, deletes all disks and configs, deploys the image; boots unless
 * `booted` is false. With `type`, the resize rules apply too and the work takes longer.
 */
function rebuildNode(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_write');
  const { world, input, user } = ctx;
  const imageId = input.text('image');
  const image = world.images.get(imageId);
  if (!image || !imageVisible(image, user)) throw badRequest(`Image ${imageId} does not exist`, 'image');
  if (image.status !== 'available')
    throw badRequest(`Image ${imageId} is ${image.status}; only available images deploy`, 'image');
  if (!isStrongPassword(input.text('root_pass'))) throw badRequest(WEAK_PASSWORD_REASON, 'root_pass');
  const stackscriptId = input.optionalInt('stackscript_id');
  if (stackscriptId !== undefined) {
    const script = STACKSCRIPTS.find((s) => s.id === stackscriptId);
    if (!script) throw badRequest(`StackScript ${stackscriptId} does not exist`, 'stackscript_id');
    if (!image.is_public) throw badRequest('cannot be used with a private image', 'stackscript_id');
    if (!script.images.includes(imageId))
      throw badRequest(`StackScript ${stackscriptId} does not support ${imageId}`, 'image');
  }
  const userData = (input.optionalObject('metadata')?.user_data as string | undefined) ?? null;
  if (userData !== null && !image.capabilities.includes('cloud-init'))
    throw badRequest(`${imageId} does not support cloud-init`, 'metadata');
  const newTypeId = input.optionalText('type');
  const type = newTypeId === undefined ? undefined : typeFor(ctx, 'type');
  if (type && node.hostMigrationPending) throw badRequest('The node has a pending migration; start it first');
  requireIdle(ctx, node);
  const authorizedKeys = [
    ...(input.optionalTextList('authorized_keys') ?? []),
    ...keysOfUsers(world, input.optionalTextList('authorized_users')),
  ];

  // Everything on the node goes; volumes stay attached to the node but leave its profiles.
  node.disks.clear();
  node.configs.clear();
  node.lastBootedConfigId = null;
  if (type) node.type = type.id;
  node.image = imageId;
  if (userData !== null) node.userData = userData;
  const config = deployImageDisks(world, node, {
    imageLabel: image.label,
    swapSize: DEFAULT_SWAP_MB,
    authorizedKeys,
  });
  const booted = input.optionalBool('booted') ?? true;
  const event = recordEvent(world, {
    action: 'node_rebuild',
    entity: nodeEntity(node),
    username: user.username,
    status: 'started',
    secondaryEntity: { id: imageId, label: image.label, type: 'image', url: `/v4/images/${imageId}` },
  });
  nodeWork(world, node, {
    status: 'rebuilding',
    ms: type ? 2 * NODE_REBUILD_MS : NODE_REBUILD_MS,
    event,
    done: () => {
      if (booted) bootAtEnd(node, config.id);
      else node.status = 'offline';
    },
  });
  return json(renderNode(node));
}

const RESCUE_SLOTS = ['sda', 'sdb', 'sdc', 'sdd', 'sde', 'sdf', 'sdg'] as const;

/**
 * §2.5: boots the recovery environment with the given disks and volumes; `sdh` is reserved. The
 * published action enum has no rescue value: the boot is written as `node_boot`.
 */
function rescueNode(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_write');
  const devices = ctx.input.optionalObject('devices') ?? {};
  if (devices.sdh !== undefined) throw badRequest('sdh is reserved during rescue', 'devices.sdh');
  for (const slot of RESCUE_SLOTS) {
    const device = devices[slot] as { disk_id?: number | null; volume_id?: number | null } | null | undefined;
    if (!device) continue;
    if (typeof device.disk_id === 'number' && !node.disks.has(device.disk_id)) {
      throw badRequest(
        `Disk ${device.disk_id} does not belong to node ${node.id}`,
        `devices.${slot}.disk_id`,
      );
    }
    if (typeof device.volume_id === 'number') {
      const volume = ctx.world.volumes.get(device.volume_id);
      if (!volume || volume.nodeId !== node.id) {
        throw badRequest(
          `Volume ${device.volume_id} is not attached to node ${node.id}`,
          `devices.${slot}.volume_id`,
        );
      }
    }
  }
  requireIdle(ctx, node);
  const event = recordEvent(ctx.world, {
    action: 'node_boot',
    entity: nodeEntity(node),
    username: who(ctx),
    status: 'started',
    message: 'Rescue mode',
  });
  nodeWork(ctx.world, node, {
    status: 'rebooting',
    ms: NODE_RESCUE_MS,
    event,
    done: () => {
      node.status = 'running';
    },
  });
  return empty();
}

/**
 * §2.6: without a region, starts the host migration the provider scheduled; with one, moves the
 * node to that data centre. The node is shut down for it and booted again if it was running.
 */
function migrateNode(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_write');
  const { world, input } = ctx;
  const regionId = input.optionalText('region');
  const warm = input.optionalText('type') === 'warm';
  const user = who(ctx);
  let event: EventRecord;
  let moveTo: string | undefined;
  if (regionId === undefined) {
    if (!node.hostMigrationPending) throw badRequest(`Node ${node.id} has no pending migration`);
    requireIdle(ctx, node);
    node.hostMigrationPending = false;
    event = recordEvent(world, {
      action: 'node_migrate',
      entity: nodeEntity(node),
      username: user,
      status: 'started',
    });
  } else {
    const region = findRegion(regionId);
    if (!region?.capabilities.includes('Nodes')) throw badRequest(`${regionId} is not a region`, 'region');
    if (region.id === node.region) throw badRequest(`Node ${node.id} is already in ${region.id}`, 'region');
    if (warm) throw badRequest('Warm migrations are not available for data centre migrations', 'type');
    // The emulator's types have no newer generation: no free upgrade exists anywhere.
    if (input.optionalBool('upgrade') === true) throw badRequest('No free upgrade is available', 'upgrade');
    const interfaces = [...node.configs.values()].flatMap((config) => config.interfaces);
    if (interfaces.some((i) => i.purpose === 'vpc'))
      throw badRequest('Nodes with a vpc interface cannot change data centre', 'region');
    if (interfaces.some((i) => i.purpose === 'vlan') && !region.capabilities.includes('Vlans'))
      throw badRequest(`VLANs are not available in ${region.id}`, 'region');
    requireIdle(ctx, node);
    // A data centre migration cancels a pending host migration that has not started.
    node.hostMigrationPending = false;
    moveTo = region.id;
    recordEvent(world, {
      action: 'node_migrate_datacenter_create',
      entity: nodeEntity(node),
      username: user,
    });
    event = recordEvent(world, {
      action: 'node_migrate_datacenter',
      entity: nodeEntity(node),
      username: user,
      status: 'started',
    });
  }
  const wasRunning = node.status === 'running';
  const bootConfig = node.lastBootedConfigId;
  nodeWork(world, node, {
    status: 'migrating',
    ms: NODE_MIGRATE_MS,
    event,
    done: () => {
      if (moveTo !== undefined) node.region = moveTo;
      if (wasRunning) bootAtEnd(node, bootConfig);
      else node.status = 'offline';
    },
  });
  return empty();
}

/** §2.7: a deprecated type moves to its successor; the node restarts if it was running. */
function mutateNode(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_write');
  const current = findNodeType(node.type);
  const successor = current?.successor ? findNodeType(current.successor) : undefined;
  if (!successor) throw badRequest(`Node ${node.id} is not on a type that can be upgraded`);
  requireIdle(ctx, node);
  const applyDisks = planDiskResize(
    node,
    successor,
    ctx.input.optionalBool('allow_auto_disk_resize') ?? true,
  );
  const wasRunning = node.status === 'running';
  const bootConfig = node.lastBootedConfigId;
  const user = who(ctx);
  recordEvent(ctx.world, { action: 'node_mutate_create', entity: nodeEntity(node), username: user });
  const event = recordEvent(ctx.world, {
    action: 'node_mutate',
    entity: nodeEntity(node),
    username: user,
    status: 'started',
  });
  nodeWork(ctx.world, node, {
    status: 'migrating',
    ms: NODE_MUTATE_MS,
    event,
    done: () => {
      node.type = successor.id;
      applyDisks?.();
      if (wasRunning) bootAtEnd(node, bootConfig);
      else node.status = 'offline';
    },
  });
  return empty();
}

/**
 * §2.8: the node must be shut down; with more than one disk (swap not counted) the per-disk reset
 * is needed. Success writes `password_reset`.
 */
function resetRootPassword(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_write');
  if (!OFF.includes(node.status) || isBusy(node, ctx.now)) {
    throw badRequest(`Node ${node.id} must be shut down to reset its root password; it is ${node.status}`);
  }
  const disks = dataDisks(node);
  if (disks.length === 0) throw badRequest(`Node ${node.id} has no disk to reset a password on`);
  if (disks.length > 1)
    throw badRequest(`Node ${node.id} has several disks; reset the password of one disk instead`);
  if (!isStrongPassword(ctx.input.text('root_pass'))) throw badRequest(WEAK_PASSWORD_REASON, 'root_pass');
  recordEvent(ctx.world, { action: 'password_reset', entity: nodeEntity(node), username: who(ctx) });
  return empty();
}

// ---------------------------------------------------------------------------------------------
// Reads

function address(node: NodeRecord, value: string, isPublic: boolean) {
  return {
    address: value,
    gateway: isPublic ? value.replace(/\.\d+$/, '.1') : null,
    subnet_mask: isPublic ? '255.255.255.0' : '255.255.128.0',
    prefix: isPublic ? 24 : 17,
    type: 'ipv4',
    public: isPublic,
    rdns: isPublic ? `${value.replaceAll('.', '-')}.ip.example.net` : null,
    node_id: node.id,
    region: node.region,
    vpc_nat_1_1: null,
  };
}

/** §3.1. */
function nodeIps(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_only');
  const isPrivate = (ip: string) => ip === privateIpv4(node.id);
  const slaac = node.ipv6?.replace(/\/\d+$/, '') ?? null;
  const v6 = (value: string, prefix: number) => ({
    address: value,
    gateway: 'fe80::1',
    subnet_mask: 'ffff:ffff:ffff:ffff::',
    prefix,
    type: 'ipv6',
    public: prefix !== 10,
    rdns: '',
    node_id: node.id,
    region: node.region,
  });
  return json({
    ipv4: {
      public: node.ipv4.filter((ip) => !isPrivate(ip)).map((ip) => address(node, ip, true)),
      private: node.ipv4
        .filter(isPrivate)
        .map((ip) => ({ ...address(node, ip, false), gateway: ip.replace(/\.\d+$/, '.1'), rdns: '' })),
      shared: [],
      reserved: [],
      vpc: [],
    },
    ipv6: {
      ...(slaac && {
        slaac: v6(slaac, 64),
        link_local: v6(`fe80::${(node.id & 0xffff).toString(16)}`, 64),
      }),
      global: [],
    },
  });
}

const STATS_STEP_MS = 5 * MINUTE;

/** Readings that wander around a level, the same for a node and a time whenever asked. */
function series(node: NodeRecord, end: number, level: number, salt: number): number[][] {
  const points: number[][] = [];
  const first = Math.floor((end - DAY) / STATS_STEP_MS) * STATS_STEP_MS;
  for (let at = first + STATS_STEP_MS; at <= end; at += STATS_STEP_MS) {
    const wave = Math.sin((at / STATS_STEP_MS + node.id * 7 + salt) / 9);
    points.push([at, node.status === 'running' ? Math.round(level * (1 + 0.5 * wave) * 100) / 100 : 0]);
  }
  return points;
}

/** §3.2: 24 hours of 5-minute averages, `[timestamp in ms, reading]`. */
function nodeStats(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_only');
  const now = ctx.now;
  return json({
    title: `example.com - ${node.label} (node${node.id}) - day (5 min avg)`,
    cpu: series(node, now, 4, 1),
    io: { io: series(node, now, 2, 2), swap: series(node, now, 0.1, 3) },
    netv4: {
      in: series(node, now, 2000, 4),
      out: series(node, now, 5000, 5),
      private_in: series(node, now, 100, 6),
      private_out: series(node, now, 100, 7),
    },
    netv6: {
      in: series(node, now, 500, 8),
      out: series(node, now, 800, 9),
      private_in: series(node, now, 0, 10),
      private_out: series(node, now, 0, 11),
    },
  });
}

/** §3.3: bytes used this month; the quota and the billable part in GB. */
function nodeTransfer(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_only');
  const startOfMonth = new Date(ctx.now);
  startOfMonth.setUTCDate(1);
  startOfMonth.setUTCHours(0, 0, 0, 0);
  const hours = Math.max(
    0,
    Math.floor((ctx.now - Math.max(startOfMonth.getTime(), node.created)) / 3_600_000),
  );
  const used = hours * (50 + (node.id % 50)) * 1_000_000;
  const quota = nodeSpecs(node).transfer;
  const billable = Math.max(0, Math.floor(used / 1e9) - quota);
  return json({ used, quota, billable });
}

// ---------------------------------------------------------------------------------------------
// Disks

function renderDisk(disk: DiskRecord): Record<string, unknown> {
  return {
    id: disk.id,
    label: disk.label,
    status: disk.status ?? 'ready',
    size: disk.size,
    filesystem: disk.filesystem,
    created: apiTime(disk.created),
    updated: apiTime(disk.updated),
  };
}

function diskFor(ctx: HandlerContext, node: NodeRecord): DiskRecord {
  return found(node.disks.get(ctx.input.int('diskId')), 'Disk');
}

function freeSpaceMb(node: NodeRecord): number {
  return nodeSpecs(node).disk - usedDiskMb(node);
}

/** Whether the disk is in the profile the running node booted (§4.2: then a resize fails later). */
function diskInUse(node: NodeRecord, disk: DiskRecord): boolean {
  if (node.status !== 'running' || node.lastBootedConfigId === null) return false;
  const config = node.configs.get(node.lastBootedConfigId);
  return Object.values(config?.devices ?? {}).some(
    (device) => 'disk_id' in device && device.disk_id === disk.id,
  );
}

/** §4.1: empty with a label, or deployed from an image with a strong root password. */
function createDisk(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_write');
  const { world, input, user } = ctx;
  const size = input.int('size');
  const imageId = input.optionalText('image');
  let label = input.optionalText('label');
  let filesystem = input.optionalText('filesystem') as DiskRecord['filesystem'] | undefined;
  if (imageId !== undefined) {
    const image = world.images.get(imageId);
    if (!image || !imageVisible(image, user)) throw badRequest(`Image ${imageId} does not exist`, 'image');
    if (size < image.size) throw badRequest(`must be at least ${image.size} MB for ${imageId}`, 'size');
    const rootPass = input.optionalText('root_pass');
    if (rootPass === undefined) throw badRequest('is required with image', 'root_pass');
    if (!isStrongPassword(rootPass)) throw badRequest(WEAK_PASSWORD_REASON, 'root_pass');
    label ??= `${image.label} Disk`;
    filesystem ??= 'ext4';
  } else if (label === undefined) {
    throw badRequest('is required for an empty disk', 'label');
  }
  if (size > freeSpaceMb(node)) {
    throw badRequest(
      `Not enough free space: node ${node.id} has ${freeSpaceMb(node)} MB unallocated`,
      'size',
    );
  }
  const disk = newDisk(world, {
    label,
    size,
    filesystem: filesystem ?? 'ext4',
    authorizedKeys: [
      ...(input.optionalTextList('authorized_keys') ?? []),
      ...keysOfUsers(world, input.optionalTextList('authorized_users')),
    ],
  });
  disk.status = 'not ready';
  node.disks.set(disk.id, disk);
  const event = recordEvent(world, {
    action: 'disk_create',
    entity: diskEntity(node, disk),
    username: user.username,
    status: 'started',
  });
  world.schedule(world.workDoneAt(DISK_CREATE_MS), (at) => {
    if (node.disks.get(disk.id) !== disk || world.nodes.get(node.id) !== node) {
      endEvent(event, at, 'failed');
      return;
    }
    disk.status = 'ready';
    disk.updated = at;
    endEvent(event, at, 'finished');
  });
  return json(renderDisk(disk));
}

/**
 * §4.2: the request succeeds even when the disk is in use; the resize then fails, leaving the
 * disk as it was, with a failed `disk_resize` event.
 */
function resizeDisk(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_write');
  const disk = diskFor(ctx, node);
  const size = ctx.input.int('size');
  if (disk.status !== undefined && disk.status !== 'ready')
    throw badRequest(`Disk ${disk.id} is ${disk.status}; wait for it to be ready`);
  if (size - disk.size > freeSpaceMb(node)) {
    throw badRequest(
      `Not enough free space: node ${node.id} has ${freeSpaceMb(node)} MB unallocated`,
      'size',
    );
  }
  const { world } = ctx;
  const event = recordEvent(world, {
    action: 'disk_resize',
    entity: diskEntity(node, disk),
    username: who(ctx),
    status: 'started',
  });
  disk.status = 'not ready';
  disk.updated = ctx.now;
  world.schedule(world.workDoneAt(DISK_RESIZE_MS), (at) => {
    if (node.disks.get(disk.id) !== disk || world.nodes.get(node.id) !== node) {
      endEvent(event, at, 'failed');
      return;
    }
    disk.status = 'ready';
    disk.updated = at;
    // Checked when the work runs: the node may have been booted or shut down meanwhile.
    if (diskInUse(node, disk)) {
      endEvent(
        event,
        at,
        'failed',
        'The disk is in use by the running node; shut the node down and try again',
      );
      return;
    }
    disk.size = size;
    endEvent(event, at, 'finished');
  });
  return empty();
}

function deleteDisk(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_write');
  const disk = diskFor(ctx, node);
  if (diskInUse(node, disk))
    throw badRequest(`Disk ${disk.id} is in use by the running node; shut it down first`);
  node.disks.delete(disk.id);
  for (const config of node.configs.values()) {
    for (const [slot, device] of Object.entries(config.devices)) {
      if ('disk_id' in device && device.disk_id === disk.id)
        delete config.devices[slot as keyof typeof config.devices];
    }
  }
  recordEvent(ctx.world, { action: 'disk_delete', entity: diskEntity(node, disk), username: who(ctx) });
  return empty();
}

// ---------------------------------------------------------------------------------------------
// Types and kernels

function roundCents(value: number): number {
  return Math.round(value * 100) / 100;
}

function renderNodeType(type: NodeType): Record<string, unknown> {
  const regionPrices = (factor: number) =>
    [...REGION_PRICE_FACTORS].map(([id, regionFactor]) => ({
      id,
      hourly: Math.round(type.hourly * factor * regionFactor * 1000) / 1000,
      monthly: roundCents(type.monthly * factor * regionFactor),
    }));
  return {
    id: type.id,
    label: type.label,
    class: type.class,
    disk: type.disk,
    memory: type.memory,
    vcpus: type.vcpus,
    gpus: type.gpus,
    network_out: type.networkOut,
    transfer: type.transfer,
    price: { hourly: type.hourly, monthly: type.monthly },
    region_prices: regionPrices(1),
    addons: {
      backups: {
        price: {
          hourly: Math.round(type.hourly * BACKUP_PRICE_FACTOR * 1000) / 1000,
          monthly: roundCents(type.monthly * BACKUP_PRICE_FACTOR),
        },
        region_prices: regionPrices(BACKUP_PRICE_FACTOR),
      },
    },
    successor: type.successor,
  };
}

function renderKernel(kernel: (typeof KERNELS)[number]): Record<string, unknown> {
  return { ...kernel };
}

export const nodeActionHandlers: { readonly [Id in NodeActionId]: Handler } = {
  'nodes.reboot': rebootNode,
  'nodes.shutdown': shutdownNode,
  'nodes.resize': resizeNode,
  'nodes.rebuild': rebuildNode,
  'nodes.rescue': rescueNode,
  'nodes.migrate': migrateNode,
  'nodes.mutate': mutateNode,
  'nodes.password': resetRootPassword,
  'nodes.ips': nodeIps,
  'nodes.stats': nodeStats,
  'nodes.transfer': nodeTransfer,
  'nodes.volumes': (ctx) => {
    const node = nodeFor(ctx, 'read_only');
    const attached = byId(ctx.world.volumes.values()).filter(
      (volume) => volume.nodeId === node.id && canView(ctx.user, 'volume', volume.id),
    );
    return list(attached, (volume) => renderVolume(ctx.world, volume));
  },

  'nodes.disks-list': (ctx) => list(byId(nodeFor(ctx, 'read_only').disks.values()), renderDisk),
  'nodes.disks-create': createDisk,
  'nodes.disks-view': (ctx) => json(renderDisk(diskFor(ctx, nodeFor(ctx, 'read_only')))),
  'nodes.disks-update': (ctx) => {
    const node = nodeFor(ctx, 'read_write');
    const disk = diskFor(ctx, node);
    const label = ctx.input.optionalText('label');
    if (label !== undefined) disk.label = label;
    disk.updated = ctx.now;
    recordEvent(ctx.world, { action: 'disk_update', entity: diskEntity(node, disk), username: who(ctx) });
    return json(renderDisk(disk));
  },
  'nodes.disks-delete': deleteDisk,
  'nodes.disks-resize': resizeDisk,

  'nodes.types': () => list(NODE_TYPES, renderNodeType),
  'nodes.types-view': (ctx) => {
    const id = ctx.input.text('typeId');
    return json(renderNodeType(found(findNodeType(id), 'Node type')));
  },
  'nodes.kernels-list': () => list(KERNELS, renderKernel),
  'nodes.kernels-view': (ctx) => {
    const id = ctx.input.text('kernelId');
    return json(
      renderKernel(
        found(
          KERNELS.find((k) => k.id === id),
          'Kernel',
        ),
      ),
    );
  },
};
