/**
 * Resources as the API returns them, from the published examples in
 * `reference/cloud-api.openapi.json` (ids and labels varied where a test needs several).
 */

export const node = {
  id: 123,
  label: 'web-1',
  region: 'us-east',
  image: 'node/debian11',
  type: 'g6-standard-1',
  group: 'Node-Group',
  tags: ['example tag', 'another example'],
  status: 'running',
  hypervisor: 'kvm',
  created: '2018-01-01T00:01:01',
  updated: '2018-01-01T00:01:01',
  ipv4: ['203.0.113.1', '192.0.2.1'],
  ipv6: 'c001:d00d::1337/128',
  specs: { disk: 81920, memory: 4096, vcpus: 2, gpus: 0, transfer: 4000 },
  alerts: { cpu: 180, network_in: 10, network_out: 10, transfer_quota: 80, io: 10000 },
  backups: {
    enabled: true,
    available: true,
    schedule: { day: 'Saturday', window: 'W22' },
    last_successful: '2018-01-01T00:01:01',
  },
  watchdog_enabled: true,
  host_uuid: '3a3ddd59d9a78bb8de041391075df44de62bfec8',
  has_user_data: true,
};

export const volume = {
  id: 12,
  label: 'db-data',
  filesystem_path: '/dev/disk/by-id/scsi-0Node_Volume_db-data',
  status: 'active',
  size: 30,
  region: 'us-east',
  node_id: 12346,
  node_label: 'node123',
  created: '2018-01-01T00:01:01',
  updated: '2018-01-01T00:01:01',
  tags: ['example tag', 'another example'],
  hardware_type: 'nvme',
};

export const detachedVolume = { ...volume, id: 13, label: 'spare', node_id: null, node_label: null };

export const publicImage = {
  id: 'node/debian11',
  label: 'Debian 11',
  created: '2021-08-14T22:44:02',
  updated: '2021-08-14T22:44:02',
  created_by: 'node',
  deprecated: false,
  description: 'Example Image description.',
  is_public: true,
  size: 2500,
  type: 'manual',
  expiry: null,
  eol: '2026-07-01T04:00:00',
  vendor: 'Debian',
  status: 'available',
  capabilities: ['cloud-init'],
};

export const privateImage = {
  ...publicImage,
  id: 'private/15',
  label: 'web-golden',
  created_by: 'exampleUser',
  is_public: false,
  vendor: null,
};

export const database = {
  id: 5,
  label: 'example-db',
  type: 'g6-dedicated-2',
  engine: 'mysql',
  version: '8.0.26',
  region: 'us-east',
  status: 'active',
  encrypted: false,
  allow_list: ['203.0.113.1/32', '192.0.1.0/24'],
  cluster_size: 3,
  hosts: {
    primary: 'lin-123-456-mysql-mysql-primary.servers.example.net',
    secondary: 'lin-123-456-mysql-primary-private.servers.example.net',
  },
  created: '2022-01-01T00:01:01',
  updated: '2022-01-01T00:01:01',
  updates: { frequency: 'weekly', duration: 3, hour_of_day: 0, day_of_week: 1, week_of_month: null },
  instance_uri: '/v4/databases/mysql/instances/5',
  ssl_connection: true,
  replication_type: 'semi_synch',
  port: 3306,
  total_disk_size_gb: 15,
  used_disk_size_gb: 2,
};

export const postgresDatabase = {
  ...database,
  id: 6,
  label: 'analytics',
  engine: 'postgresql',
  version: '13.2',
  instance_uri: '/v4/databases/postgresql/instances/6',
};

export const nodeConfig = {
  id: 23456,
  label: 'My Config',
  kernel: 'node/latest-64bit',
  comments: 'This is my main Config',
  memory_limit: 2048,
  run_level: 'default',
  virt_mode: 'paravirt',
  helpers: {
    updatedb_disabled: true,
    distro: true,
    modules_dep: true,
    network: true,
    devtmpfs_automount: false,
  },
  devices: { sda: { disk_id: 124458, volume_id: null }, sdb: { disk_id: 124459, volume_id: null } },
  root_device: '/dev/sda',
  interfaces: [{ id: 101, purpose: 'public', ipam_address: null, label: null, primary: false }],
};

export const nodeBackup = {
  id: 123456,
  type: 'snapshot',
  status: 'successful',
  available: true,
  created: '2018-01-15T00:01:01',
  updated: '2018-01-15T00:01:01',
  finished: '2018-01-15T00:01:01',
  label: 'Webserver-Backup-2018',
  configs: ['My Debian 9 Config'],
  disks: [{ size: 9001, filesystem: 'ext4', label: 'My Debian 9 Disk' }],
};

/** The first 16 characters of a token, as token listings carry them. */
export const TOKEN_PREFIX = 'abcdefghijklmnop';
export const FULL_TOKEN = `${TOKEN_PREFIX}0123456789abcdef0123456789abcdef0123456789abcdef`;

export const token = {
  id: 123,
  scopes: 'nodes:read_only volumes:read_write',
  created: '2018-01-01T00:01:01',
  label: 'cli-token',
  token: TOKEN_PREFIX,
  expiry: '2018-01-01T13:46:32',
};

export const sshKey = {
  id: 42,
  label: 'My SSH Key',
  ssh_key: 'ssh-rsa AAAA_valid_public_ssh_key_123456785== user@their-computer',
  created: '2018-01-01T00:01:01',
};

export const managedIssue = {
  id: 823,
  created: '2018-01-01T00:01:01',
  services: [654],
  entity: { id: 98765, type: 'ticket', label: 'Managed Issue opened!', url: '/support/tickets/98765' },
};

export const managedService = {
  id: 9944,
  status: 'problem',
  service_type: 'url',
  label: 'prod-1',
  address: 'https://example.org',
  timeout: 30,
  body: 'it worked',
  consultation_group: 'on-call',
  notes: 'The service name is my-cool-application',
  region: null,
  credentials: [9991],
  created: '2018-01-01T00:01:01',
  updated: '2018-03-01T00:01:01',
};

export const managedContact = {
  id: 567,
  name: 'John Doe',
  email: 'john.doe@example.org',
  phone: { primary: '123-456-7890', secondary: null },
  group: 'on-call',
  updated: '2018-01-01T00:01:01',
};

export const login = {
  id: 1234,
  datetime: '2018-01-01T00:01:01',
  ip: '192.0.2.0',
  username: 'example_user',
  status: 'successful',
  restricted: true,
};

export const databaseType = {
  id: 'g6-nano-1',
  label: 'DBaaS - Nano 1GB',
  engines: {
    mysql: [{ quantity: 1, price: { hourly: 0.03, monthly: 20 } }],
    postgresql: [{ quantity: 1, price: { hourly: 0.03, monthly: 20 } }],
  },
  memory: 1024,
  disk: 25600,
  vcpus: 1,
  deprecated: false,
  class: 'nano',
};

export function page<T>(data: T[], page = 1, pages = 1, results = data.length) {
  return { data, page, pages, results };
}

/**
 * The part of a list one message shows: `items` from `start` on, of a list of `results` items
 * (all reachable unless said), as page `page`.
 */
export function listOf(
  items: readonly unknown[],
  at: {
    start?: number;
    page?: number;
    results?: number;
    reachable?: number;
    pages?: number;
    previousStart?: number;
  } = {},
) {
  const results = at.results ?? items.length + (at.start ?? 0);
  return {
    items,
    start: at.start ?? 0,
    page: at.page ?? 1,
    results,
    reachable: at.reachable ?? results,
    pages: at.pages,
    previousStart: at.previousStart,
  };
}

/** `count` copies of an item with ids from 1 and labels of `labelLength` characters. */
export function many<T extends { id: unknown; label?: unknown }>(
  item: T,
  count: number,
  labelLength = 12,
): T[] {
  return Array.from({ length: count }, (_, i) => ({
    ...item,
    id: i + 1,
    label: `${'x'.repeat(Math.max(0, labelLength - String(i + 1).length))}${i + 1}`,
  }));
}
