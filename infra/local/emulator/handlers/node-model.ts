import { findNodeType } from '../catalog.js';
import { apiTime, MINUTE, SECOND } from '../clock.js';
import { badRequest } from '../errors.js';
import {
  type ConfigDevice,
  type ConfigRecord,
  DEVICE_SLOTS,
  type DeviceSlot,
  type DiskRecord,
  type InterfaceRecord,
  type NodeBackupRecord,
  type NodeRecord,
  type World,
} from '../world.js';

/**
 * Nodes as the other areas see them too: disks, configuration profiles, backups, and the rules
 * for choosing a profile (volume create and attach, boot). Timings of the node's long actions.
 */

export const NODE_PROVISION_MS = MINUTE;
export const NODE_BOOT_MS = 30 * SECOND;
export const NODE_CLONE_MS = 3 * MINUTE;
export const NODE_RESTORE_MS = 3 * MINUTE;
export const NODE_SNAPSHOT_MS = 5 * MINUTE;
export const DEFAULT_SWAP_MB = 512;
export const MAX_CONCURRENT_CLONES = 5;
/** Outbound SMTP is restricted for accounts created after this date (node create rule 7). */
export const SMTP_RESTRICTION_START = Date.parse('2019-11-05T00:00:00Z');
export const SMTP_PORTS = [25, 465, 587];

export function nodeSpecs(node: NodeRecord) {
  const type = findNodeType(node.type);
  return {
    disk: type?.disk ?? 0,
    memory: type?.memory ?? 0,
    vcpus: type?.vcpus ?? 1,
    gpus: type?.gpus ?? 0,
    transfer: type?.transfer ?? 0,
  };
}

export function ramGb(node: NodeRecord): number {
  return Math.floor(nodeSpecs(node).memory / 1024);
}

export function usedDiskMb(node: NodeRecord): number {
  let total = 0;
  for (const disk of node.disks.values()) total += disk.size;
  return total;
}

/** Busy nodes have running or queued actions: clone targets, restores and boots wait. */
export function isBusy(node: NodeRecord, now: number): boolean {
  return (
    node.busyUntil > now ||
    [
      'provisioning',
      'booting',
      'rebooting',
      'shutting_down',
      'cloning',
      'restoring',
      'migrating',
      'rebuilding',
      'deleting',
    ].includes(node.status)
  );
}

export function clonesRunning(node: NodeRecord, now: number): number {
  node.clonesRunning = node.clonesRunning.filter((until) => until > now);
  return node.clonesRunning.length;
}

export function uuidFrom(world: World): string {
  const hex = world.random.hex(32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function publicIpv4(id: number): string {
  return `172.104.${(id >> 8) & 255}.${id & 255}`;
}

export function privateIpv4(id: number): string {
  return `192.168.${128 + ((id >> 8) & 127)}.${id & 255}`;
}

export function ipv6Of(id: number): string {
  return `2600:3c03::f03c:91ff:fe${(id & 0xff).toString(16).padStart(2, '0')}:${(id >> 8).toString(16)}/128`;
}

export function newDisk(
  world: World,
  spec: {
    label: string;
    size: number;
    filesystem: DiskRecord['filesystem'];
    uuid?: string;
    authorizedKeys?: string[];
  },
): DiskRecord {
  const now = world.now();
  return {
    id: world.nextId('disk', 20001),
    label: spec.label,
    size: spec.size,
    filesystem: spec.filesystem,
    created: now,
    updated: now,
    uuid: spec.uuid ?? uuidFrom(world),
    authorizedKeys: spec.authorizedKeys ?? [],
  };
}

export function defaultInterfaces(world: World): InterfaceRecord[] {
  return [publicInterface(world)];
}

export function publicInterface(world: World, active = true): InterfaceRecord {
  return {
    id: world.nextId('interface', 90001),
    purpose: 'public',
    label: null,
    ipam_address: null,
    primary: true,
    subnet_id: null,
    vpc_id: null,
    ipv4: null,
    ip_ranges: [],
    active,
  };
}

export function newConfig(
  world: World,
  node: NodeRecord,
  spec: Partial<Omit<ConfigRecord, 'id' | 'created' | 'updated'>> & { label: string },
): ConfigRecord {
  const now = world.now();
  return {
    id: world.nextId('config', 30001),
    label: spec.label,
    kernel: spec.kernel ?? 'node/latest-64bit',
    comments: spec.comments ?? null,
    memory_limit: spec.memory_limit ?? nodeSpecs(node).memory,
    run_level: spec.run_level ?? 'default',
    virt_mode: spec.virt_mode ?? 'paravirt',
    helpers: spec.helpers ?? {
      updatedb_disabled: true,
      distro: true,
      modules_dep: true,
      network: true,
      devtmpfs_automount: false,
    },
    devices: spec.devices ?? {},
    root_device: spec.root_device ?? '/dev/sda',
    interfaces: spec.interfaces ?? defaultInterfaces(world),
    created: now,
    updated: now,
  };
}

/**
 * Node create rule 3: a root disk and a swap disk (512 MB unless swap_size says otherwise) with a
 * default profile that mounts both.
 */
export function deployImageDisks(
  world: World,
  node: NodeRecord,
  spec: { imageLabel: string; swapSize: number; authorizedKeys: string[] },
): ConfigRecord {
  const total = nodeSpecs(node).disk;
  const root = newDisk(world, {
    label: `${spec.imageLabel} Disk`,
    size: Math.max(1, total - spec.swapSize),
    filesystem: 'ext4',
    authorizedKeys: spec.authorizedKeys,
  });
  const swap = newDisk(world, {
    label: `${spec.swapSize} MB Swap Image`,
    size: spec.swapSize,
    filesystem: 'swap',
  });
  node.disks.set(root.id, root);
  node.disks.set(swap.id, swap);
  const config = newConfig(world, node, {
    label: `My ${spec.imageLabel} Disk Profile`,
    devices: { sda: { disk_id: root.id }, sdb: { disk_id: swap.id } },
  });
  node.configs.set(config.id, config);
  return config;
}

/**
 * Which profile a volume joins or a boot uses when none is named: the only profile, else the
 * last booted one; otherwise the caller must say (volume rule 2, boot config choice).
 */
export function chooseConfig(node: NodeRecord, field: string): ConfigRecord {
  const configs = [...node.configs.values()];
  if (configs.length === 1 && configs[0]) return configs[0];
  const lastBooted = node.lastBootedConfigId === null ? undefined : node.configs.get(node.lastBootedConfigId);
  if (lastBooted) return lastBooted;
  if (configs.length === 0) throw badRequest(`Node ${node.id} has no configuration profile`, field);
  throw badRequest(
    `Node ${node.id} has several configuration profiles and none was booted last; give ${field}`,
    field,
  );
}

export function configOfNode(node: NodeRecord, configId: number, field: string): ConfigRecord {
  const config = node.configs.get(configId);
  if (!config)
    throw badRequest(`Configuration profile ${configId} does not belong to node ${node.id}`, field);
  return config;
}

export function usableSlots(config: ConfigRecord): readonly DeviceSlot[] {
  return config.virt_mode === 'fullvirt' ? DEVICE_SLOTS.slice(0, 4) : DEVICE_SLOTS;
}

export function freeSlot(config: ConfigRecord): DeviceSlot | undefined {
  return usableSlots(config).find((slot) => config.devices[slot] === undefined);
}

export function volumeSlotOf(config: ConfigRecord, volumeId: number): DeviceSlot | undefined {
  return DEVICE_SLOTS.find((slot) => {
    const device = config.devices[slot];
    return device !== undefined && 'volume_id' in device && device.volume_id === volumeId;
  });
}

export function removeVolumeFromConfigs(node: NodeRecord, volumeId: number): void {
  for (const config of node.configs.values()) {
    const slot = volumeSlotOf(config, volumeId);
    if (slot) delete config.devices[slot];
  }
}

// ---------------------------------------------------------------------------------------------
// Rendering

export function renderNode(node: NodeRecord): Record<string, unknown> {
  const lastSuccessful = [...node.automaticBackups, ...(node.snapshot.current ? [node.snapshot.current] : [])]
    .filter((b) => b.status === 'successful' && b.finished !== null)
    .reduce<number | null>(
      (latest, b) => (latest === null || (b.finished ?? 0) > latest ? b.finished : latest),
      null,
    );
  return {
    id: node.id,
    label: node.label,
    group: node.group,
    tags: [...node.tags],
    region: node.region,
    type: node.type,
    image: node.image,
    status: node.status,
    hypervisor: 'kvm',
    created: apiTime(node.created),
    updated: apiTime(node.updated),
    ipv4: [...node.ipv4],
    ipv6: node.ipv6,
    specs: nodeSpecs(node),
    alerts: { ...node.alerts },
    backups: {
      enabled: node.backupsEnabled,
      available: node.backupsEnabled,
      schedule: { ...node.backupSchedule },
      last_successful: lastSuccessful === null ? null : apiTime(lastSuccessful),
    },
    watchdog_enabled: node.watchdog_enabled,
    host_uuid: node.host_uuid,
    has_user_data: node.userData !== null,
  };
}

// One kind per slot: the other kind's key is null, as the schema describes a Device.
function renderDevice(device: ConfigDevice) {
  return 'disk_id' in device
    ? { disk_id: device.disk_id, volume_id: null }
    : { disk_id: null, volume_id: device.volume_id };
}

export function renderInterface(iface: InterfaceRecord) {
  return {
    id: iface.id,
    purpose: iface.purpose,
    label: iface.label,
    ipam_address: iface.ipam_address,
    primary: iface.primary,
    active: iface.active,
    vpc_id: iface.vpc_id,
    subnet_id: iface.subnet_id,
    ipv4: iface.ipv4 === null ? null : { ...iface.ipv4 },
    ip_ranges: [...iface.ip_ranges],
  };
}

export function renderConfig(config: ConfigRecord): Record<string, unknown> {
  // Every slot is listed; an empty one is null (compute document, configuration profile).
  const devices: Record<string, unknown> = {};
  for (const slot of DEVICE_SLOTS) {
    const device = config.devices[slot];
    devices[slot] = device ? renderDevice(device) : null;
  }
  return {
    id: config.id,
    label: config.label,
    kernel: config.kernel,
    comments: config.comments,
    memory_limit: config.memory_limit,
    run_level: config.run_level,
    virt_mode: config.virt_mode,
    helpers: { ...config.helpers },
    devices,
    root_device: config.root_device,
    interfaces: config.interfaces.map(renderInterface),
  };
}

export function renderNodeBackup(backup: NodeBackupRecord): Record<string, unknown> {
  return {
    id: backup.id,
    type: backup.type,
    status: backup.status,
    available: backup.available,
    created: apiTime(backup.created),
    updated: apiTime(backup.updated),
    finished: backup.finished === null ? null : apiTime(backup.finished),
    label: backup.label,
    configs: backup.configs.map((c) => c.label),
    disks: backup.disks.map((d) => ({ size: d.size, filesystem: d.filesystem, label: d.label })),
  };
}

/** A picture of the node's disks and profiles, as a backup keeps them. */
export function backupContentsOf(node: NodeRecord): Pick<NodeBackupRecord, 'configs' | 'disks'> {
  return {
    disks: [...node.disks.values()].map((d) => ({
      size: d.size,
      filesystem: d.filesystem,
      label: d.label,
      uuid: d.uuid,
    })),
    configs: [...node.configs.values()].map((config) => ({
      label: config.label,
      kernel: config.kernel,
      diskLabels: DEVICE_SLOTS.flatMap((slot) => {
        const device = config.devices[slot];
        if (!device || !('disk_id' in device)) return [];
        const disk = node.disks.get(device.disk_id);
        return disk ? [disk.label] : [];
      }),
    })),
  };
}

export function backupSizeMb(backup: NodeBackupRecord): number {
  return backup.disks.reduce((total, d) => total + d.size, 0);
}
