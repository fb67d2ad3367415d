/**
 * What the provider offers, as fixed data: regions, node types, database engines and types,
 * public images, StackScripts and the security questions. It does not change while the emulator
 * runs; the account's own resources live in the world.
 */

export interface Region {
  id: string;
  label: string;
  /** `Metadata` allows cloud-init user data; `Vlans` marks a next-generation data centre. */
  capabilities: readonly string[];
  /** Volumes in next-generation data centres are NVMe-backed. */
  volumeHardware: 'nvme' | 'hdd';
  country: string;
  /** `ok` or `outage` (API-FACTS-MORE §7). */
  status: 'ok' | 'outage';
  /** DNS resolvers as comma-separated addresses. */
  resolvers: { ipv4: string; ipv6: string };
}

export const REGIONS: readonly Region[] = [
  {
    id: 'us-east',
    label: 'Newark, NJ',
    capabilities: ['Nodes', 'Block Storage', 'Metadata', 'Vlans', 'VPCs', 'Managed Databases'],
    volumeHardware: 'nvme',
    country: 'us',
    status: 'ok',
    resolvers: resolvers(5),
  },
  {
    id: 'eu-west',
    label: 'London, UK',
    capabilities: ['Nodes', 'Block Storage', 'Vlans', 'Managed Databases'],
    volumeHardware: 'nvme',
    country: 'gb',
    status: 'ok',
    resolvers: resolvers(7),
  },
  {
    id: 'ap-south',
    label: 'Singapore, SG',
    capabilities: ['Nodes', 'Block Storage', 'Managed Databases'],
    volumeHardware: 'hdd',
    country: 'sg',
    status: 'ok',
    resolvers: resolvers(9),
  },
];

function resolvers(site: number): Region['resolvers'] {
  const v4 = [5, 6, 7].map((host) => `139.144.${site}.${host}`).join(',');
  const v6 = [5, 6, 7].map((host) => `2600:3c0${site % 10}::${host}`).join(',');
  return { ipv4: v4, ipv6: v6 };
}

export function findRegion(id: string): Region | undefined {
  return REGIONS.find((r) => r.id === id);
}

export interface NodeType {
  id: string;
  label: string;
  class: string;
  /** MB */
  memory: number;
  /** MB */
  disk: number;
  vcpus: number;
  gpus: number;
  /** GB per month */
  transfer: number;
  hourly: number;
  /** US dollars a month: what a resize's price change is read from. */
  monthly: number;
  /** Outbound bandwidth, Mbit/s. */
  networkOut: number;
  deprecated: boolean;
  /** The type a mutate moves to; null when it cannot be mutated (API-FACTS-MORE §2.7, §5). */
  successor: string | null;
}

/**
 * Regions whose prices differ from a type's default (API-FACTS-MORE §5): here one region, dearer
 * by a fifth, so a resize card can show that the region decides the price.
 */
export const REGION_PRICE_FACTORS: ReadonlyMap<string, number> = new Map([['ap-south', 1.2]]);
/** The backup add-on costs a quarter of the type's price. */
export const BACKUP_PRICE_FACTOR = 0.25;

export const NODE_TYPES: readonly NodeType[] = [
  nodeType('g6-nanode-1', 'Nanode 1GB', 'nano', 1, 25, 1, 1000, 0.0075),
  nodeType('g6-standard-1', 'Standard 2GB', 'standard', 2, 50, 1, 2000, 0.018),
  nodeType('g6-standard-2', 'Standard 4GB', 'standard', 4, 80, 2, 4000, 0.036),
  nodeType('g6-standard-4', 'Standard 8GB', 'standard', 8, 160, 4, 5000, 0.072),
  nodeType('g6-standard-6', 'Standard 16GB', 'standard', 16, 320, 6, 8000, 0.144),
  nodeType('g6-standard-8', 'Standard 32GB', 'standard', 32, 640, 8, 16000, 0.288),
  nodeType('g6-dedicated-2', 'Dedicated 4GB', 'dedicated', 4, 80, 2, 4000, 0.054),
  nodeType('g6-dedicated-4', 'Dedicated 8GB', 'dedicated', 8, 160, 4, 5000, 0.108),
  nodeType('g6-dedicated-16', 'Dedicated 32GB', 'dedicated', 32, 640, 16, 7000, 0.432),
  nodeType('g6-dedicated-32', 'Dedicated 64GB', 'dedicated', 64, 1280, 32, 8000, 0.864),
  {
    ...nodeType('g5-standard-1', 'Linode 2GB (legacy)', 'standard', 2, 30, 1, 2000, 0.015),
    deprecated: true,
    successor: 'g6-standard-1',
  },
];

function nodeType(
  id: string,
  label: string,
  typeClass: string,
  memoryGb: number,
  diskGb: number,
  vcpus: number,
  transfer: number,
  hourly: number,
): NodeType {
  return {
    id,
    label,
    class: typeClass,
    memory: memoryGb * 1024,
    disk: diskGb * 1024,
    vcpus,
    gpus: 0,
    transfer,
    hourly,
    // A month of hours at the hourly rate, as database types are priced.
    monthly: Math.round(hourly * 730 * 100) / 100,
    networkOut: Math.min(1000 * vcpus, 12000),
    deprecated: false,
    successor: null,
  };
}

export function findNodeType(id: string): NodeType | undefined {
  return NODE_TYPES.find((t) => t.id === id);
}

/** Node types offered for database clusters. */
export const DATABASE_TYPE_IDS = [
  'g6-nanode-1',
  'g6-standard-1',
  'g6-standard-2',
  'g6-dedicated-2',
  'g6-dedicated-4',
  'g5-standard-1',
] as const;

export type EngineKind = 'mysql' | 'postgresql';

export interface DatabaseEngine {
  id: string;
  engine: EngineKind;
  version: string;
}

export const DATABASE_ENGINES: readonly DatabaseEngine[] = [
  { id: 'mysql/8.0.30', engine: 'mysql', version: '8.0.30' },
  { id: 'mysql/8.0.26', engine: 'mysql', version: '8.0.26' },
  { id: 'mysql/5.7.39', engine: 'mysql', version: '5.7.39' },
  { id: 'postgresql/16.2', engine: 'postgresql', version: '16.2' },
  { id: 'postgresql/14.6', engine: 'postgresql', version: '14.6' },
  { id: 'postgresql/13.2', engine: 'postgresql', version: '13.2' },
];

export interface PublicImage {
  id: string;
  label: string;
  vendor: string;
  /** MB */
  size: number;
  cloudInit: boolean;
  deprecated: boolean;
  eol: string | null;
}

export const PUBLIC_IMAGES: readonly PublicImage[] = [
  {
    id: 'node/debian12',
    label: 'Debian 12',
    vendor: 'Debian',
    size: 1300,
    cloudInit: true,
    deprecated: false,
    eol: '2028-06-30T04:00:00',
  },
  {
    id: 'node/debian11',
    label: 'Debian 11',
    vendor: 'Debian',
    size: 1100,
    cloudInit: true,
    deprecated: false,
    eol: '2026-08-31T04:00:00',
  },
  {
    id: 'node/ubuntu24.04',
    label: 'Ubuntu 24.04 LTS',
    vendor: 'Ubuntu',
    size: 2500,
    cloudInit: true,
    deprecated: false,
    eol: '2029-05-31T04:00:00',
  },
  {
    id: 'node/ubuntu22.04',
    label: 'Ubuntu 22.04 LTS',
    vendor: 'Ubuntu',
    size: 2400,
    cloudInit: true,
    deprecated: false,
    eol: '2027-04-01T04:00:00',
  },
  {
    id: 'node/almalinux9',
    label: 'AlmaLinux 9',
    vendor: 'AlmaLinux',
    size: 2300,
    cloudInit: true,
    deprecated: false,
    eol: '2032-05-31T04:00:00',
  },
  {
    id: 'node/alpine3.19',
    label: 'Alpine 3.19',
    vendor: 'Alpine',
    size: 300,
    cloudInit: false,
    deprecated: false,
    eol: '2025-11-01T04:00:00',
  },
  {
    id: 'node/centos7',
    label: 'CentOS 7',
    vendor: 'CentOS',
    size: 2000,
    cloudInit: false,
    deprecated: true,
    eol: '2024-06-30T04:00:00',
  },
];

export interface StackScript {
  id: number;
  label: string;
  images: readonly string[];
  /** Names the deployment must supply in `stackscript_data`. */
  requiredFields: readonly string[];
}

export const STACKSCRIPTS: readonly StackScript[] = [
  {
    id: 401,
    label: 'LAMP stack',
    images: ['node/debian12', 'node/ubuntu22.04'],
    requiredFields: ['db_password'],
  },
  {
    id: 402,
    label: 'Docker host',
    images: ['node/debian12', 'node/ubuntu24.04', 'node/almalinux9'],
    requiredFields: [],
  },
];

export const SECURITY_QUESTIONS: readonly { id: number; question: string }[] = [
  { id: 1, question: 'In what city were you born?' },
  { id: 2, question: 'What was the name of your first pet?' },
  { id: 3, question: 'What is your favourite colour?' },
  { id: 4, question: 'What was the make of your first car?' },
  { id: 5, question: 'What is the name of your primary school?' },
  { id: 6, question: "What is your mother's maiden name?" },
  { id: 7, question: 'What was your childhood nickname?' },
  { id: 8, question: 'In what street did you grow up?' },
  { id: 9, question: 'What is your favourite book?' },
  { id: 10, question: 'What was your first job?' },
];

export interface Kernel {
  id: string;
  label: string;
  version: string;
  kvm: boolean;
  architecture: 'x86_64' | 'i386';
  pvops: boolean;
  deprecated: boolean;
  built: string;
}

/** Kernels a configuration profile can name (API-FACTS-MORE §6; ids as the profiles use them). */
export const KERNELS: readonly Kernel[] = [
  kernel(
    'node/latest-64bit',
    'Latest 64 bit (6.8.9-x86_64-node166)',
    '6.8.9',
    'x86_64',
    '2024-05-06T18:21:00',
  ),
  kernel('node/latest-32bit', 'Latest 32 bit (6.8.9-x86-node166)', '6.8.9', 'i386', '2024-05-06T18:21:00'),
  kernel('node/grub2', 'GRUB 2', '2.06', 'x86_64', '2022-08-29T14:00:00'),
  kernel('node/direct-disk', 'Direct Disk', '', 'x86_64', '2015-05-04T21:51:00'),
  kernel('node/grub-legacy', 'GRUB (Legacy)', '2.0.0', 'x86_64', '2015-04-29T15:32:30'),
  {
    ...kernel(
      'node/4.14.296-x86_64-node157',
      '4.14.296-x86_64-node157',
      '4.14.296',
      'x86_64',
      '2022-11-01T14:11:00',
    ),
    deprecated: true,
  },
];

function kernel(
  id: string,
  label: string,
  version: string,
  architecture: Kernel['architecture'],
  built: string,
): Kernel {
  return { id, label, version, kvm: true, architecture, pvops: true, deprecated: false, built };
}

/** Firewalls that exist on the account (node create may attach one). */
export const FIREWALL_IDS: readonly number[] = [7001, 7002];
