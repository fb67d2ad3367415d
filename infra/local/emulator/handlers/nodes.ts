import { canView, forgetEntity, grantCreator, requireGlobalGrant, requirePermission } from '../auth.js';
import { FIREWALL_IDS, findNodeType, findRegion, STACKSCRIPTS } from '../catalog.js';
import { badRequest, EmulatorError, forbidden } from '../errors.js';
import type {
  ConfigDevice,
  ConfigRecord,
  DeviceSlot,
  InterfaceRecord,
  NodeBackupRecord,
  NodeRecord,
  UserRecord,
  World,
} from '../world.js';
import { DEVICE_SLOTS } from '../world.js';
import { imageVisible } from './images.js';
import { byId, found } from './lookup.js';
import {
  backupContentsOf,
  backupSizeMb,
  chooseConfig,
  clonesRunning,
  configOfNode,
  DEFAULT_SWAP_MB,
  deployImageDisks,
  ipv6Of,
  isBusy,
  MAX_CONCURRENT_CLONES,
  NODE_BOOT_MS,
  NODE_CLONE_MS,
  NODE_PROVISION_MS,
  NODE_RESTORE_MS,
  NODE_SNAPSHOT_MS,
  newConfig,
  newDisk,
  nodeSpecs,
  privateIpv4,
  publicInterface,
  publicIpv4,
  renderConfig,
  renderNode,
  renderNodeBackup,
  SMTP_PORTS,
  SMTP_RESTRICTION_START,
  usableSlots,
  usedDiskMb,
  uuidFrom,
} from './node-model.js';
import { empty, type GroupHandlers, type HandlerContext, json, list, type NodeActionId } from './types.js';

/**
 * Nodes, first part (documents: node create rules 1-7, delete, snapshot, backups cancel, restore,
 * boot config choice, clone and configuration rules, and the node states).
 */

export const WEAK_PASSWORD_REASON = 'Password does not meet strength requirement';

/** At least three of: lower case, upper case, digits, other characters. */
export function isStrongPassword(password: string): boolean {
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((pattern) =>
    pattern.test(password),
  ).length;
  return password.length >= 7 && classes >= 3;
}

export interface NewNodeSpec {
  label: string;
  region: string;
  type: string;
  image: string | null;
  group?: string;
  tags?: string[];
  backupsEnabled?: boolean;
  privateIp?: boolean;
  userData?: string | null;
  status?: NodeRecord['status'];
}

export function newNode(world: World, spec: NewNodeSpec): NodeRecord {
  const now = world.now();
  const id = world.nextId('node', 1001);
  const type = findNodeType(spec.type);
  const node: NodeRecord = {
    id,
    label: spec.label,
    group: spec.group ?? '',
    tags: spec.tags ?? [],
    region: spec.region,
    type: spec.type,
    image: spec.image,
    status: spec.status ?? 'provisioning',
    created: now,
    updated: now,
    ipv4: [publicIpv4(id), ...(spec.privateIp ? [privateIpv4(id)] : [])],
    ipv6: ipv6Of(id),
    alerts: { cpu: 90 * (type?.vcpus ?? 1), network_in: 10, network_out: 10, transfer_quota: 80, io: 10000 },
    backupsEnabled: spec.backupsEnabled ?? false,
    backupSchedule: { day: 'Scheduling', window: 'Scheduling' },
    watchdog_enabled: true,
    host_uuid: uuidFrom(world),
    userData: spec.userData ?? null,
    restrictedOutboundPorts: world.account.created > SMTP_RESTRICTION_START ? [...SMTP_PORTS] : [],
    disks: new Map(),
    configs: new Map(),
    lastBootedConfigId: null,
    automaticBackups: [],
    snapshot: { current: null, inProgress: null },
    clonesRunning: [],
    busyUntil: 0,
  };
  world.nodes.set(id, node);
  return node;
}

/** After `ms`, a node in a transient state settles: running when it boots, offline otherwise. */
function settleNode(world: World, node: NodeRecord, ms: number, boot: boolean): void {
  const at = world.workDoneAt(ms);
  node.busyUntil = Math.max(node.busyUntil, at);
  world.schedule(at, (when) => {
    if (world.nodes.get(node.id) !== node) return;
    node.status = boot && node.configs.size > 0 ? 'running' : 'offline';
    if (boot && node.lastBootedConfigId === null) {
      const [first] = node.configs.values();
      if (first) markBooted(node, first);
    }
    node.updated = when;
  });
}

export function markBooted(node: NodeRecord, config: ConfigRecord): void {
  node.lastBootedConfigId = config.id;
  for (const other of node.configs.values()) {
    for (const iface of other.interfaces) iface.active = other === config;
  }
}

export function nodeFor(
  ctx: HandlerContext,
  permission: 'read_only' | 'read_write',
  field = 'nodeId',
): NodeRecord {
  const id = ctx.input.int(field);
  const node = ctx.world.nodes.get(id);
  if (!node) {
    if (field === 'nodeId') found(undefined, 'Node');
    throw badRequest(`Node ${id} does not exist`, field);
  }
  requirePermission(ctx.user, 'node', node.id, permission);
  return node;
}

function checkUniqueLabel(world: World, label: string, exceptId?: number): void {
  for (const node of world.nodes.values()) {
    if (node.label === label && node.id !== exceptId)
      throw badRequest('must be unique among your nodes', 'label');
  }
}

function defaultLabel(world: World): string {
  let n = world.nodes.size + 1;
  while ([...world.nodes.values()].some((node) => node.label === `node${n}`)) n++;
  return `node${n}`;
}

/** Only unrestricted users may add or modify tags on nodes (authentication rule 4). */
function checkTagsAllowed(user: UserRecord, tags: string[] | undefined): void {
  if (tags !== undefined && user.restricted)
    throw forbidden('Only unrestricted users may add or modify tags', 'tags');
}

function interfacesFrom(
  world: World,
  raw: unknown[] | undefined,
  region: string,
  field: string,
): InterfaceRecord[] {
  if (raw === undefined || raw.length === 0) return [publicInterface(world)];
  const interfaces = raw.map((entry) => {
    const i = entry as Record<string, unknown>;
    const purpose = i.purpose as InterfaceRecord['purpose'];
    const ipv4 = i.ipv4 as { vpc?: string | null; nat_1_1?: string | null } | null | undefined;
    return {
      id: world.nextId('interface', 90001),
      purpose,
      label: purpose === 'vlan' ? ((i.label as string | undefined) ?? null) : null,
      ipam_address: purpose === 'vlan' ? (i.ipam_address as string | undefined) || null : null,
      primary: i.primary === true,
      subnet_id: purpose === 'vpc' ? ((i.subnet_id as number | undefined) ?? null) : null,
      vpc_id: purpose === 'vpc' ? 5000 + ((i.subnet_id as number | undefined) ?? 0) : null,
      ipv4:
        purpose === 'vpc'
          ? { vpc: ipv4?.vpc || `10.0.0.${world.random.int(3, 250)}`, nat_1_1: ipv4?.nat_1_1 || null }
          : null,
      ip_ranges: purpose === 'vpc' ? ((i.ip_ranges as string[] | null | undefined) ?? []) : [],
      active: false,
    } satisfies InterfaceRecord;
  });
  if (interfaces.some((i) => i.purpose === 'vlan') && !findRegion(region)?.capabilities.includes('Vlans')) {
    throw badRequest(`VLANs are not available in ${region}`, field);
  }
  // If none is marked primary, the first non-vlan interface is.
  if (!interfaces.some((i) => i.primary)) {
    const first = interfaces.find((i) => i.purpose !== 'vlan');
    if (first) first.primary = true;
  }
  return interfaces;
}

function devicesFrom(
  world: World,
  node: NodeRecord,
  raw: Record<string, unknown>,
  virtMode: ConfigRecord['virt_mode'],
): Partial<Record<DeviceSlot, ConfigDevice>> {
  const devices: Partial<Record<DeviceSlot, ConfigDevice>> = {};
  const allowed = virtMode === 'fullvirt' ? DEVICE_SLOTS.slice(0, 4) : DEVICE_SLOTS;
  for (const slot of DEVICE_SLOTS) {
    const device = raw[slot] as { disk_id?: number | null; volume_id?: number | null } | null | undefined;
    if (!device) continue;
    if (!allowed.includes(slot))
      throw badRequest('is not available when virt_mode is fullvirt', `devices.${slot}`);
    if (typeof device.disk_id === 'number') {
      if (!node.disks.has(device.disk_id)) {
        throw badRequest(
          `Disk ${device.disk_id} does not belong to node ${node.id}`,
          `devices.${slot}.disk_id`,
        );
      }
      devices[slot] = { disk_id: device.disk_id };
    } else if (typeof device.volume_id === 'number') {
      const volume = world.volumes.get(device.volume_id);
      if (!volume || volume.nodeId !== node.id) {
        throw badRequest(
          `Volume ${device.volume_id} is not attached to node ${node.id}`,
          `devices.${slot}.volume_id`,
        );
      }
      devices[slot] = { volume_id: device.volume_id };
    }
  }
  return devices;
}

/** Authorized users' profile keys (node create rule 4: each must already have one). */
export function keysOfUsers(world: World, usernames: string[] | undefined): string[] {
  return (usernames ?? []).flatMap((username, index) => {
    const user = world.userByName(username);
    const keys = user ? [...user.sshKeys.values()].map((k) => k.ssh_key) : [];
    if (keys.length === 0) {
      throw badRequest(`${username} has no SSH key on their profile`, `authorized_users.${index}`);
    }
    return keys;
  });
}

// ---------------------------------------------------------------------------------------------
// Create

function createNode(ctx: HandlerContext) {
  const { world, input, user } = ctx;
  // Rule 1.
  requireGlobalGrant(user, 'add_nodes');
  const region = input.text('region');
  const regionInfo = findRegion(region);
  if (!regionInfo?.capabilities.includes('Nodes')) throw badRequest(`${region} is not a region`, 'region');
  const type = findNodeType(input.text('type'));
  if (!type) throw badRequest(`${input.text('type')} is not a node type`, 'type');
  const label = input.optionalText('label') ?? defaultLabel(world);
  checkUniqueLabel(world, label);
  const tags = input.optionalTextList('tags');
  checkTagsAllowed(user, tags);
  const imageId = input.optionalText('image');
  const backupId = input.optionalInt('backup_id');
  // Rule 4.
  if (imageId !== undefined && backupId !== undefined)
    throw badRequest('cannot be given together with image', 'backup_id');
  const firewallId = input.optionalInt('firewall_id');
  if (firewallId !== undefined && !FIREWALL_IDS.includes(firewallId)) {
    throw badRequest(`Firewall ${firewallId} does not exist`, 'firewall_id');
  }
  const authorizedKeys = [
    ...(input.optionalTextList('authorized_keys') ?? []),
    ...keysOfUsers(world, input.optionalTextList('authorized_users')),
  ];
  const userData = (input.optionalObject('metadata')?.user_data as string | undefined) ?? null;
  const rootPass = input.optionalText('root_pass');
  const stackscriptId = input.optionalInt('stackscript_id');
  const interfaces = input.optionalList('interfaces');

  let backup: NodeBackupRecord | undefined;
  let imageLabel = 'Node';
  if (backupId !== undefined) {
    // Rule 2, from a backup: same region, successful, large enough, read_write on the source.
    backup = world.nodeBackups.get(backupId);
    if (!backup) throw badRequest(`Backup ${backupId} does not exist`, 'backup_id');
    requirePermission(user, 'node', backup.nodeId, 'read_write');
    if (backup.region !== region)
      throw badRequest('The backup must be in the same region as the new node', 'backup_id');
    if (backup.status !== 'successful' || !backup.available) {
      throw badRequest('Only successfully completed backups can be deployed', 'backup_id');
    }
    if (backupSizeMb(backup) > type.disk) throw badRequest(`${type.id} is too small for this backup`, 'type');
    if (stackscriptId !== undefined) throw badRequest('cannot be used with backup_id', 'stackscript_id');
  } else if (imageId !== undefined) {
    const image = world.images.get(imageId);
    // Rule 5: a private image needs read_only or read_write permission.
    if (!image || !imageVisible(image, user)) throw badRequest(`Image ${imageId} does not exist`, 'image');
    if (image.status !== 'available')
      throw badRequest(`Image ${imageId} is ${image.status}; only available images deploy`, 'image');
    if (rootPass === undefined) throw badRequest('is required when deploying from an image', 'root_pass');
    if (!isStrongPassword(rootPass)) throw badRequest(WEAK_PASSWORD_REASON, 'root_pass');
    if (stackscriptId !== undefined) {
      const script = STACKSCRIPTS.find((s) => s.id === stackscriptId);
      if (!script) throw badRequest(`StackScript ${stackscriptId} does not exist`, 'stackscript_id');
      if (!image.is_public) throw badRequest('cannot be used with a private image', 'stackscript_id');
      if (!script.images.includes(imageId)) {
        throw badRequest(`StackScript ${stackscriptId} does not support ${imageId}`, 'image');
      }
      const data = input.optionalObject('stackscript_data') ?? {};
      for (const field of script.requiredFields) {
        if (data[field] === undefined) throw badRequest(`needs ${field}`, 'stackscript_data');
      }
    }
    // Rule 2, cloud-init: the image and the region must support it.
    if (userData !== null) {
      if (!image.capabilities.includes('cloud-init'))
        throw badRequest(`${imageId} does not support cloud-init`, 'metadata');
      if (!regionInfo.capabilities.includes('Metadata'))
        throw badRequest(`${region} does not support metadata`, 'metadata');
    }
    imageLabel = image.label;
  } else {
    if (stackscriptId !== undefined) throw badRequest('is required when stackscript_id is given', 'image');
    if (userData !== null) throw badRequest('needs an image with cloud-init', 'metadata');
  }

  const node = newNode(world, {
    label,
    region,
    type: type.id,
    image: imageId ?? null,
    ...(input.optionalText('group') !== undefined && { group: input.text('group') }),
    tags: tags ?? [],
    backupsEnabled: input.optionalBool('backups_enabled') ?? false,
    privateIp: input.optionalBool('private_ip') ?? false,
    userData,
  });
  const configInterfaces = interfacesFrom(world, interfaces, region, 'interfaces');
  if (backup) {
    restoreContents(world, node, backup);
  } else if (imageId !== undefined) {
    // Rule 3: a default profile with a root disk and a swap disk.
    const config = deployImageDisks(world, node, {
      imageLabel,
      swapSize: input.optionalInt('swap_size') ?? DEFAULT_SWAP_MB,
      authorizedKeys,
    });
    config.interfaces = configInterfaces;
  }
  grantCreator(user, 'node', node.id);
  // Deployed nodes run after provisioning unless booted is false; an empty node stays offline.
  const deployed = backup !== undefined || imageId !== undefined;
  settleNode(world, node, NODE_PROVISION_MS, deployed && input.optionalBool('booted') !== false);
  return json(renderNode(node));
}

/** Disks and profiles of a backup onto a node (disks keep their UUIDs). */
function restoreContents(world: World, node: NodeRecord, backup: NodeBackupRecord): void {
  const disksByLabel = new Map<string, number>();
  for (const saved of backup.disks) {
    const disk = newDisk(world, {
      label: saved.label,
      size: saved.size,
      filesystem: saved.filesystem,
      uuid: saved.uuid,
    });
    node.disks.set(disk.id, disk);
    disksByLabel.set(saved.label, disk.id);
  }
  for (const saved of backup.configs) {
    const devices: Partial<Record<DeviceSlot, ConfigDevice>> = {};
    saved.diskLabels.forEach((label, index) => {
      const diskId = disksByLabel.get(label);
      const slot = DEVICE_SLOTS[index];
      if (diskId !== undefined && slot) devices[slot] = { disk_id: diskId };
    });
    const config = newConfig(world, node, { label: saved.label, kernel: saved.kernel, devices });
    node.configs.set(config.id, config);
  }
}

function updateNode(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_write');
  const { input } = ctx;
  // Rule 6: user data is fixed once provisioned.
  if (input.has('metadata'))
    throw badRequest('user_data cannot be changed after provisioning; clone or rebuild', 'metadata');
  const tags = input.optionalTextList('tags');
  checkTagsAllowed(ctx.user, tags);
  const label = input.optionalText('label');
  if (label !== undefined) {
    checkUniqueLabel(ctx.world, label, node.id);
    node.label = label;
  }
  if (tags !== undefined) node.tags = tags;
  const group = input.optionalText('group');
  if (group !== undefined) node.group = group;
  const alerts = input.optionalObject('alerts');
  if (alerts) node.alerts = { ...node.alerts, ...(alerts as Partial<NodeRecord['alerts']>) };
  const schedule = (input.optionalObject('backups')?.schedule ?? undefined) as
    | { day?: string | null; window?: string | null }
    | undefined;
  if (schedule) {
    if (schedule.day !== undefined) node.backupSchedule.day = schedule.day;
    if (schedule.window !== undefined) node.backupSchedule.window = schedule.window;
  }
  const watchdog = input.optionalBool('watchdog_enabled');
  if (watchdog !== undefined) node.watchdog_enabled = watchdog;
  node.updated = ctx.now;
  return json(renderNode(node));
}

/** Delete: refused while cloning or restoring; disks, backups and configs go; volumes detach. */
function deleteNode(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_write');
  const { world } = ctx;
  if (node.status === 'cloning' || clonesRunning(node, ctx.now) > 0) {
    throw badRequest('The node cannot be deleted while a clone from or to it is in progress');
  }
  if (node.status === 'restoring') {
    throw badRequest('The node cannot be deleted while a backup is being restored onto it');
  }
  for (const volume of world.volumes.values()) {
    if (volume.nodeId === node.id) {
      volume.nodeId = null;
      volume.updated = ctx.now;
    }
  }
  for (const backup of allBackups(node)) world.nodeBackups.delete(backup.id);
  world.nodes.delete(node.id);
  world.nodeSettings.delete(node.id);
  forgetEntity(world, 'node', node.id);
  return empty();
}

function allBackups(node: NodeRecord): NodeBackupRecord[] {
  return [
    ...node.automaticBackups,
    ...(node.snapshot.current ? [node.snapshot.current] : []),
    ...(node.snapshot.inProgress ? [node.snapshot.inProgress] : []),
  ];
}

// ---------------------------------------------------------------------------------------------
// Backups

export function newNodeBackup(
  world: World,
  node: NodeRecord,
  spec: {
    type: NodeBackupRecord['type'];
    label: string | null;
    status: NodeBackupRecord['status'];
    created?: number;
  },
): NodeBackupRecord {
  const created = spec.created ?? world.now();
  const backup: NodeBackupRecord = {
    id: world.nextId('node-backup', 60001),
    nodeId: node.id,
    region: node.region,
    type: spec.type,
    status: spec.status,
    available: true,
    created,
    updated: created,
    finished: spec.status === 'successful' ? created + 15 * 60_000 : null,
    label: spec.label,
    ...backupContentsOf(node),
  };
  world.nodeBackups.set(backup.id, backup);
  return backup;
}

/** Snapshot create: the new snapshot replaces the previous one once it completes. */
function createSnapshot(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_write');
  const { world } = ctx;
  if (node.snapshot.inProgress) throw badRequest('A snapshot of this node is already being taken');
  const backup = newNodeBackup(world, node, {
    type: 'snapshot',
    label: ctx.input.text('label'),
    status: 'running',
  });
  node.snapshot.inProgress = backup;
  world.schedule(world.workDoneAt(NODE_SNAPSHOT_MS), (at) => {
    if (node.snapshot.inProgress !== backup) return;
    backup.status = 'successful';
    backup.finished = at;
    backup.updated = at;
    if (node.snapshot.current) world.nodeBackups.delete(node.snapshot.current.id);
    node.snapshot = { current: backup, inProgress: null };
  });
  return json(renderNodeBackup(backup));
}

function backupOfNode(ctx: HandlerContext, node: NodeRecord): NodeBackupRecord {
  const backup = ctx.world.nodeBackups.get(ctx.input.int('backupId'));
  return found(backup && backup.nodeId === node.id ? backup : undefined, 'Backup');
}

/**
 * Restore conditions: same region; a successful backup not under maintenance; the target is not
 * taking a backup itself; overwrite clears the target first, otherwise it needs the space.
 */
function restoreBackup(ctx: HandlerContext) {
  const source = nodeFor(ctx, 'read_only');
  const backup = backupOfNode(ctx, source);
  const target = nodeFor(ctx, 'read_write', 'node_id');
  const { world } = ctx;
  if (target.region !== backup.region)
    throw badRequest('Backups cannot be restored across regions', 'node_id');
  if (backup.status !== 'successful') throw badRequest('Only successfully completed backups can be restored');
  if (!backup.available) throw badRequest('The backup is under maintenance; try again later');
  if (target.snapshot.inProgress) throw badRequest('The target node is creating a backup', 'node_id');
  if (isBusy(target, ctx.now)) throw badRequest(`The target node is ${target.status}`, 'node_id');
  const overwrite = ctx.input.optionalBool('overwrite') ?? false;
  if (overwrite) {
    target.disks.clear();
    target.configs.clear();
    target.lastBootedConfigId = null;
  } else if (nodeSpecs(target).disk - usedDiskMb(target) < backupSizeMb(backup)) {
    throw badRequest(
      'Insufficient space on the target node to restore this backup; use overwrite',
      'overwrite',
    );
  }
  target.status = 'restoring';
  target.updated = ctx.now;
  const until = world.workDoneAt(NODE_RESTORE_MS);
  target.busyUntil = until;
  world.schedule(until, (at) => {
    if (world.nodes.get(target.id) !== target) return;
    restoreContents(world, target, backup);
    target.status = 'offline';
    target.updated = at;
  });
  return empty();
}

// ---------------------------------------------------------------------------------------------
// Boot and clone

/** Boot config choice: the given one, else the only one, else the last booted one, else an error. */
function bootNode(ctx: HandlerContext) {
  const node = nodeFor(ctx, 'read_write');
  const configId = ctx.input.optionalInt('config_id');
  const config =
    configId === undefined ? chooseConfig(node, 'config_id') : configOfNode(node, configId, 'config_id');
  if (isBusy(node, ctx.now)) throw badRequest(`Node busy: it is ${node.status}`);
  markBooted(node, config);
  node.status = 'booting';
  node.updated = ctx.now;
  settleNode(ctx.world, node, NODE_BOOT_MS, true);
  return empty();
}

function cloneNode(ctx: HandlerContext) {
  const source = nodeFor(ctx, 'read_only');
  const { world, input, user } = ctx;
  const now = ctx.now;
  // At most five clones from one node at a time: the sixth is a 400.
  if (clonesRunning(source, now) >= MAX_CONCURRENT_CLONES) {
    throw new EmulatorError(400, [
      { reason: `At most ${MAX_CONCURRENT_CLONES} clones of one node may run at the same time` },
    ]);
  }
  const configIds = input.optionalIntList('configs');
  const chosenConfigs =
    configIds === undefined
      ? [...source.configs.values()]
      : configIds.map((id, index) => {
          const config = source.configs.get(id);
          if (!config)
            throw badRequest(`Config ${id} does not belong to node ${source.id}`, `configs.${index}`);
          return config;
        });
  const diskIds = new Set<number>();
  for (const config of chosenConfigs) {
    for (const slot of DEVICE_SLOTS) {
      const device = config.devices[slot];
      if (device && 'disk_id' in device) diskIds.add(device.disk_id);
    }
  }
  (input.optionalIntList('disks') ?? []).forEach((id, index) => {
    if (!source.disks.has(id))
      throw badRequest(`Disk ${id} does not belong to node ${source.id}`, `disks.${index}`);
    diskIds.add(id);
  });
  const cloneSize = [...diskIds].reduce((total, id) => total + (source.disks.get(id)?.size ?? 0), 0);

  const targetId = input.optionalInt('node_id');
  let target: NodeRecord;
  if (targetId !== undefined) {
    target = nodeFor(ctx, 'read_write', 'node_id');
    if (target.id === source.id) throw badRequest('A node cannot be cloned onto itself', 'node_id');
    if (isBusy(target, now)) throw badRequest('The target node has running or queued actions', 'node_id');
    if (nodeSpecs(target).disk - usedDiskMb(target) < cloneSize) {
      throw badRequest('The target node does not have enough disk space for the clone', 'node_id');
    }
  } else {
    requireGlobalGrant(user, 'add_nodes');
    const region = input.text('region');
    if (!findRegion(region)?.capabilities.includes('Nodes'))
      throw badRequest(`${region} is not a region`, 'region');
    const type = findNodeType(input.text('type'));
    if (!type) throw badRequest(`${input.text('type')} is not a node type`, 'type');
    if (type.disk < cloneSize) throw badRequest(`${type.id} is too small for the cloned disks`, 'type');
    if (source.userData !== null && !input.optionalObject('metadata')?.user_data) {
      throw badRequest('is required because the source node has user data', 'metadata');
    }
    const label = input.optionalText('label') ?? defaultLabel(world);
    checkUniqueLabel(world, label);
    target = newNode(world, {
      label,
      region,
      type: type.id,
      image: source.image,
      group: input.optionalText('group') ?? source.group,
      tags: [...source.tags],
      backupsEnabled: input.optionalBool('backups_enabled') ?? false,
      privateIp: input.optionalBool('private_ip') ?? false,
      userData: (input.optionalObject('metadata')?.user_data as string | undefined) ?? null,
      status: 'cloning',
    });
    grantCreator(user, 'node', target.id);
  }
  // VLANs exist only in next-generation data centres: such a clone does not start elsewhere.
  const usesVlan = chosenConfigs.some((config) => config.interfaces.some((i) => i.purpose === 'vlan'));
  if (usesVlan && !findRegion(target.region)?.capabilities.includes('Vlans')) {
    if (targetId === undefined) world.nodes.delete(target.id);
    throw badRequest(`VLANs are not available in ${target.region}; the clone cannot start`, 'region');
  }
  copyDisksAndConfigs(world, source, target, chosenConfigs, diskIds);
  target.status = 'cloning';
  target.updated = now;
  const until = world.workDoneAt(NODE_CLONE_MS);
  source.clonesRunning.push(until);
  settleNode(world, target, NODE_CLONE_MS, false);
  return json(renderNode(target));
}

function copyDisksAndConfigs(
  world: World,
  source: NodeRecord,
  target: NodeRecord,
  configs: ConfigRecord[],
  diskIds: Set<number>,
): void {
  const newIds = new Map<number, number>();
  for (const id of diskIds) {
    const disk = source.disks.get(id);
    if (!disk) continue;
    const copy = newDisk(world, {
      label: disk.label,
      size: disk.size,
      filesystem: disk.filesystem,
      authorizedKeys: [...disk.authorizedKeys],
    });
    target.disks.set(copy.id, copy);
    newIds.set(id, copy.id);
  }
  for (const config of configs) {
    const devices: Partial<Record<DeviceSlot, ConfigDevice>> = {};
    for (const slot of DEVICE_SLOTS) {
      const device = config.devices[slot];
      const copied = device && 'disk_id' in device ? newIds.get(device.disk_id) : undefined;
      if (copied !== undefined) devices[slot] = { disk_id: copied };
    }
    const copy = newConfig(world, target, {
      ...config,
      devices,
      helpers: { ...config.helpers },
      // A vpc interface with 1:1 NAT in the active profile gets `any` NAT in the clone.
      interfaces: config.interfaces.map((iface) => ({
        ...iface,
        id: world.nextId('interface', 90001),
        active: false,
        ipv4: iface.ipv4 && { vpc: null, nat_1_1: iface.ipv4.nat_1_1 ? 'any' : null },
        ip_ranges: [...iface.ip_ranges],
      })),
    });
    target.configs.set(copy.id, copy);
  }
}

// ---------------------------------------------------------------------------------------------
// Configuration profiles

function configFor(ctx: HandlerContext, node: NodeRecord): ConfigRecord {
  const config = node.configs.get(ctx.input.int('configId'));
  return found(config, 'Config');
}

function applyConfigFields(ctx: HandlerContext, node: NodeRecord, config: ConfigRecord): void {
  const { input } = ctx;
  const label = input.optionalText('label');
  if (label !== undefined) config.label = label;
  const comments = input.nullableText('comments');
  if (comments !== undefined) config.comments = comments;
  const kernel = input.optionalText('kernel');
  if (kernel !== undefined) config.kernel = kernel;
  const memory = input.optionalInt('memory_limit');
  if (memory !== undefined) config.memory_limit = memory === 0 ? nodeSpecs(node).memory : memory;
  const runLevel = input.optionalText('run_level');
  if (runLevel !== undefined) config.run_level = runLevel as ConfigRecord['run_level'];
  const virtMode = input.optionalText('virt_mode');
  if (virtMode !== undefined) config.virt_mode = virtMode as ConfigRecord['virt_mode'];
  const rootDevice = input.optionalText('root_device');
  if (rootDevice !== undefined)
    config.root_device = /^\/dev\/sd[a-h]$/.test(rootDevice) ? rootDevice : '/dev/sda';
  const helpers = input.optionalObject('helpers');
  if (helpers) config.helpers = { ...config.helpers, ...(helpers as Partial<ConfigRecord['helpers']>) };
  const devices = input.optionalObject('devices');
  if (devices) config.devices = devicesFrom(ctx.world, node, devices, config.virt_mode);
  for (const slot of DEVICE_SLOTS) {
    if (config.devices[slot] && !usableSlots(config).includes(slot)) {
      throw badRequest('is not available when virt_mode is fullvirt', `devices.${slot}`);
    }
  }
  // Configuration rules: new interfaces replace all of them and take effect after a reboot.
  const interfaces = input.optionalList('interfaces');
  if (interfaces !== undefined)
    config.interfaces = interfacesFrom(ctx.world, interfaces, node.region, 'interfaces');
  config.updated = ctx.now;
}

/** The first document's node operations; the second's are in `node-actions.ts`. */
export const nodeHandlers: Omit<GroupHandlers<'nodes'>, NodeActionId> = {
  'nodes.list': (ctx) =>
    list(
      byId(ctx.world.nodes.values()).filter((node) => canView(ctx.user, 'node', node.id)),
      renderNode,
    ),
  'nodes.create': createNode,
  'nodes.view': (ctx) => json(renderNode(nodeFor(ctx, 'read_only'))),
  'nodes.update': updateNode,
  'nodes.delete': deleteNode,

  'nodes.backups-list': (ctx) => {
    const node = nodeFor(ctx, 'read_only');
    return json({
      automatic: node.automaticBackups.map((b) => ({ ...renderNodeBackup(b), type: 'auto' })),
      snapshot: {
        in_progress: node.snapshot.inProgress ? renderNodeBackup(node.snapshot.inProgress) : null,
        current: node.snapshot.current ? renderNodeBackup(node.snapshot.current) : null,
      },
    });
  },
  'nodes.snapshot': createSnapshot,
  // Backups cancel: every existing backup is deleted permanently.
  'nodes.backups-cancel': (ctx) => {
    const node = nodeFor(ctx, 'read_write');
    for (const backup of allBackups(node)) ctx.world.nodeBackups.delete(backup.id);
    node.automaticBackups = [];
    node.snapshot = { current: null, inProgress: null };
    node.backupsEnabled = false;
    node.updated = ctx.now;
    return empty();
  },
  'nodes.backups-enable': (ctx) => {
    const node = nodeFor(ctx, 'read_write');
    node.backupsEnabled = true;
    node.updated = ctx.now;
    return empty();
  },
  'nodes.backups-view': (ctx) => json(renderNodeBackup(backupOfNode(ctx, nodeFor(ctx, 'read_only')))),
  'nodes.backups-restore': restoreBackup,
  'nodes.boot': bootNode,
  'nodes.clone': cloneNode,

  'nodes.configs-list': (ctx) => list(byId(nodeFor(ctx, 'read_only').configs.values()), renderConfig),
  'nodes.configs-create': (ctx) => {
    const node = nodeFor(ctx, 'read_write');
    const config = newConfig(ctx.world, node, {
      label: ctx.input.text('label'),
      interfaces: [publicInterface(ctx.world, false)],
    });
    applyConfigFields(ctx, node, config);
    node.configs.set(config.id, config);
    return json(renderConfig(config));
  },
  'nodes.configs-view': (ctx) => {
    const node = nodeFor(ctx, 'read_only');
    return json(renderConfig(configFor(ctx, node)));
  },
  'nodes.configs-update': (ctx) => {
    const node = nodeFor(ctx, 'read_write');
    const config = configFor(ctx, node);
    applyConfigFields(ctx, node, config);
    return json(renderConfig(config));
  },
  'nodes.configs-delete': (ctx) => {
    const node = nodeFor(ctx, 'read_write');
    const config = configFor(ctx, node);
    node.configs.delete(config.id);
    if (node.lastBootedConfigId === config.id) node.lastBootedConfigId = null;
    return empty();
  },
};
