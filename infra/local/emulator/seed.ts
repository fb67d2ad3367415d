import { nodeEntity, recordEvent } from './account-events.js';
import { createUser, issueToken } from './accounts.js';
import { PUBLIC_IMAGES, REGIONS } from './catalog.js';
import type { Clock } from './clock.js';
import { DAY, HOUR, MINUTE } from './clock.js';
import { newDatabase } from './handlers/databases.js';
import { newPrivateImage } from './handlers/images.js';
import { defaultSshSettings, SERVICE_FIRST_CHECK_MS } from './handlers/managed.js';
import { deployImageDisks } from './handlers/node-model.js';
import { newNode, newNodeBackup } from './handlers/nodes.js';
import { newVolume } from './handlers/volumes.js';
import type { ManagedIssueRecord, NodeRecord, UserRecord } from './world.js';
import { World } from './world.js';

/**
 * Deterministic demo data: the same options give the same account, ids, labels and tokens on
 * every run. The amount of nodes and volumes is configurable (thousands for benchmarks).
 */

export interface SeedOptions {
  /** Nodes over the three regions; default 30 (so lists page at page_size 25). */
  nodes?: number;
  /** Volumes; default 12, a third of them attached. */
  volumes?: number;
  /** Seed of the generator behind ids, codes and secrets; default 1. */
  random?: number;
  /** When the account was created (decides the outbound SMTP restriction); default 2021-03-10. */
  accountCreated?: string | number;
}

export interface SeedTokens {
  /** Unrestricted owner `demo`, all scopes. */
  demo: string;
  /** `demo` again, every area read-only. */
  demoReadOnly: string;
  /** Restricted user `dev`, all scopes (grants decide). */
  restricted: string;
}

export interface SeededWorld {
  world: World;
  tokens: SeedTokens;
}

const ROLES = ['web', 'api', 'worker', 'cache', 'db', 'batch'] as const;
const NODE_TYPES = [
  'g6-nanode-1',
  'g6-standard-1',
  'g6-standard-2',
  'g6-standard-4',
  'g6-standard-6',
  'g6-dedicated-2',
];
const DEPLOY_IMAGES = ['node/debian12', 'node/ubuntu24.04', 'node/ubuntu22.04', 'node/almalinux9'];

export function seedWorld(clock: Clock, options: SeedOptions = {}): SeededWorld {
  const accountCreated =
    options.accountCreated === undefined
      ? Date.parse('2021-03-10T12:00:00Z')
      : new Date(options.accountCreated).getTime();
  const random = options.random ?? 1;
  const world = new World(clock, random, {
    created: accountCreated,
    managedSshKey: `ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC${'x'.repeat(40)}${random} managedservices@example`,
  });
  const now = clock.now();

  const demo = createUser(world, { username: 'demo', email: 'demo@example.com' });
  const dev = createUser(world, {
    username: 'dev',
    email: 'dev@example.com',
    restricted: true,
    globalGrants: { add_volumes: true, account_access: 'read_only' },
  });
  const tokens: SeedTokens = {
    demo: issueToken(world, demo, { label: 'demo', scopes: '*', token: `demo-token-${world.random.hex(53)}` })
      .token,
    demoReadOnly: issueToken(world, demo, {
      label: 'demo read-only',
      scopes: 'account:read_only databases:read_only images:read_only nodes:read_only volumes:read_only',
      token: `demo-readonly-${world.random.hex(50)}`,
    }).token,
    restricted: issueToken(world, dev, {
      label: 'dev',
      scopes: '*',
      token: `dev-token-${world.random.hex(54)}`,
    }).token,
  };
  seedProfile(world, demo, now);
  seedProfile(world, dev, now);

  seedImages(world, now);
  const nodes = seedNodes(world, options.nodes ?? 30, now);
  seedVolumes(world, nodes, options.volumes ?? 12, now);
  seedDatabases(world, now);
  seedManaged(world, nodes, now);
  seedEvents(world, nodes, now);

  // The restricted user sees a few entities.
  const [first, second] = nodes;
  if (first) dev.grants.entities.node.set(String(first.id), 'read_write');
  if (second) dev.grants.entities.node.set(String(second.id), 'read_only');
  const [firstVolume] = world.volumes.values();
  if (firstVolume) dev.grants.entities.volume.set(String(firstVolume.id), 'read_write');
  const privateImage = [...world.images.values()].find((image) => !image.is_public);
  if (privateImage) dev.grants.entities.image.set(privateImage.id, 'read_only');
  const [firstDatabase] = world.databases.values();
  if (firstDatabase) dev.grants.entities.database.set(String(firstDatabase.id), 'read_only');

  return { world, tokens };
}

function seedProfile(world: World, user: UserRecord, now: number): void {
  for (const [label, key] of [
    ['laptop', `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${world.random.hex(32)} ${user.username}@laptop`],
    [
      'workstation',
      `ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ${world.random.hex(40)} ${user.username}@workstation`,
    ],
  ] as const) {
    const id = world.nextId('sshkey', 51);
    user.sshKeys.set(id, { id, label, ssh_key: key, created: now - 200 * DAY });
  }
  const appId = world.nextId('app', 11);
  user.apps.set(appId, {
    id: appId,
    label: 'Example Dashboard',
    scopes: 'nodes:read_only volumes:read_only',
    created: now - 30 * DAY,
    expiry: now + 335 * DAY,
    thumbnail_url: 'https://apps.example.com/dashboard.png',
    website: 'https://apps.example.com/dashboard',
  });
  // The app's OAuth token: revoking the app ends it.
  issueToken(world, user, {
    label: 'Example Dashboard',
    scopes: 'nodes:read_only volumes:read_only',
    appId,
    token: `app-${appId}-${user.username}-${world.random.hex(40)}`,
  });
  const backupAppId = world.nextId('app', 11);
  user.apps.set(backupAppId, {
    id: backupAppId,
    label: 'Backup Reporter',
    scopes: '*',
    created: now - 90 * DAY,
    expiry: null,
    thumbnail_url: 'https://apps.example.com/reporter.png',
    website: 'https://apps.example.com/reporter',
  });
  for (const [agent, daysAgo] of [
    ['Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0', 3],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) Safari/605.1.15', 12],
  ] as const) {
    const id = world.nextId('device', 21);
    user.devices.set(id, {
      id,
      created: now - daysAgo * DAY,
      expiry: now + (30 - daysAgo) * DAY,
      last_authenticated: now - daysAgo * HOUR,
      last_remote_addr: `203.0.113.${id}`,
      user_agent: agent,
    });
  }
  for (const daysAgo of [1, 4, 9, 30, 120]) {
    const id = world.nextId('login', 71);
    user.logins.set(id, {
      id,
      datetime: now - daysAgo * DAY,
      ip: `198.51.100.${id}`,
      restricted: user.restricted,
      status: 'successful',
      username: user.username,
    });
  }
}

function seedImages(world: World, now: number): void {
  for (const image of PUBLIC_IMAGES) {
    world.images.set(image.id, {
      id: image.id,
      label: image.label,
      description: null,
      capabilities: image.cloudInit ? ['cloud-init'] : [],
      created: now - 400 * DAY,
      updated: now - 30 * DAY,
      created_by: 'node',
      deprecated: image.deprecated,
      eol: image.eol,
      expiry: null,
      is_public: true,
      size: image.size,
      type: 'manual',
      vendor: image.vendor,
      status: 'available',
      region: null,
      uploadDeadline: null,
    });
  }
  newPrivateImage(world, {
    label: 'web-golden',
    description: 'Web server base image, patched monthly',
    capabilities: ['cloud-init'],
    size: 2600,
    status: 'available',
    region: 'us-east',
    created_by: 'demo',
  });
  newPrivateImage(world, {
    label: 'legacy-app',
    description: null,
    capabilities: [],
    size: 4100,
    status: 'available',
    region: 'eu-west',
    created_by: 'demo',
  });
}

function seedNodes(world: World, count: number, now: number): NodeRecord[] {
  const nodes: NodeRecord[] = [];
  for (let i = 0; i < count; i++) {
    const region = REGIONS[i % REGIONS.length]?.id ?? 'us-east';
    const role = ROLES[i % ROLES.length] ?? 'web';
    const image = DEPLOY_IMAGES[i % DEPLOY_IMAGES.length] ?? 'node/debian12';
    const node = newNode(world, {
      label: `${role}-${region}-${String(i + 1).padStart(3, '0')}`,
      region,
      type: NODE_TYPES[i % NODE_TYPES.length] ?? 'g6-standard-1',
      image,
      group: role,
      tags: [i % 3 === 0 ? 'staging' : 'prod', role],
      backupsEnabled: i % 4 === 0,
      privateIp: i % 2 === 0,
      status: i % 7 === 6 ? 'offline' : 'running',
    });
    node.created = now - (120 - (i % 100)) * DAY;
    node.updated = now - (i % 10) * DAY;
    const label = PUBLIC_IMAGES.find((p) => p.id === image)?.label ?? 'Debian';
    const config = deployImageDisks(world, node, { imageLabel: label, swapSize: 512, authorizedKeys: [] });
    if (node.status === 'running') node.lastBootedConfigId = config.id;
    else for (const iface of config.interfaces) iface.active = false;
    if (node.backupsEnabled) {
      for (let day = 3; day >= 1; day--) {
        node.automaticBackups.push(
          newNodeBackup(world, node, {
            type: 'auto',
            label: null,
            status: 'successful',
            created: now - day * DAY,
          }),
        );
      }
      node.snapshot.current = newNodeBackup(world, node, {
        type: 'snapshot',
        label: `before-upgrade-${node.id}`,
        status: 'successful',
        created: now - 5 * DAY,
      });
    }
    nodes.push(node);
  }
  return nodes;
}

function seedVolumes(world: World, nodes: NodeRecord[], count: number, now: number): void {
  for (let i = 0; i < count; i++) {
    const node = i % 3 === 0 ? nodes[i] : undefined;
    const region = node?.region ?? REGIONS[i % REGIONS.length]?.id ?? 'us-east';
    const volume = newVolume(world, {
      label: `data-${String(i + 1).padStart(3, '0')}`,
      size: 20 + (i % 5) * 20,
      region,
      tags: i % 2 === 0 ? ['prod'] : [],
      nodeId: node?.id ?? null,
      status: 'active',
    });
    volume.created = now - (90 - (i % 90)) * DAY;
    volume.updated = volume.created;
    if (node) {
      const config = node.lastBootedConfigId === null ? undefined : node.configs.get(node.lastBootedConfigId);
      const [fallback] = node.configs.values();
      const target = config ?? fallback;
      if (target) target.devices.sdc = { volume_id: volume.id };
    }
  }
}

function seedDatabases(world: World, now: number): void {
  const window = {
    frequency: 'weekly' as const,
    duration: 3,
    hour_of_day: 2,
    day_of_week: 7,
    week_of_month: null,
  };
  const orders = newDatabase(world, {
    kind: 'mysql',
    label: 'orders',
    type: 'g6-standard-1',
    version: '8.0.30',
    region: 'us-east',
    status: 'active',
    encrypted: true,
    allow_list: ['203.0.113.0/24'],
    cluster_size: 1,
    updates: window,
    ssl_connection: true,
    replication_type: 'none',
    replication_commit_type: 'local',
    used_disk_size_gb: 12,
  });
  orders.created = now - 40 * DAY;
  orders.autoBackupsThrough = Math.floor((now - 10 * DAY) / DAY) * DAY;
  orders.backups.push({
    id: world.nextId('database-backup', 8001),
    type: 'snapshot',
    label: 'before_migration',
    created: now - 2 * DAY,
    usedDiskSizeGb: 10,
  });
  const analytics = newDatabase(world, {
    kind: 'postgresql',
    label: 'analytics',
    type: 'g6-dedicated-2',
    version: '16.2',
    region: 'eu-west',
    status: 'active',
    encrypted: false,
    allow_list: ['198.51.100.0/24', '203.0.113.7/32'],
    cluster_size: 3,
    updates: { ...window, day_of_week: 6 },
    ssl_connection: true,
    replication_type: 'asynch',
    replication_commit_type: 'local',
    used_disk_size_gb: 31,
  });
  analytics.created = now - 60 * DAY;
  analytics.autoBackupsThrough = Math.floor((now - 10 * DAY) / DAY) * DAY;
  // Provisioning: created ten minutes ago, active ten minutes from now.
  const inventory = newDatabase(world, {
    kind: 'mysql',
    label: 'inventory',
    type: 'g6-nanode-1',
    version: '8.0.30',
    region: 'ap-south',
    status: 'provisioning',
    encrypted: false,
    allow_list: [],
    cluster_size: 1,
    updates: window,
    ssl_connection: true,
    replication_type: 'none',
    replication_commit_type: 'local',
    used_disk_size_gb: 0,
    createdAt: now - 10 * MINUTE,
  });
  inventory.updated = inventory.created;
}

function seedManaged(world: World, nodes: NodeRecord[], now: number): void {
  for (const [name, group, primary, secondary] of [
    ['Ada Operator', 'on-call', '+1 555-0100', '+1 555-0101'],
    ['Grace Escalation', 'escalation', '+1 555-0200', null],
  ] as const) {
    const id = world.nextId('contact', 501);
    world.contacts.set(id, {
      id,
      name,
      email: `${name.split(' ')[0]?.toLowerCase()}@example.com`,
      phone: { primary, secondary },
      group,
      updated: now - 20 * DAY,
    });
  }
  for (const label of ['prod-db-root', 'web-admin']) {
    const id = world.nextId('credential', 9901);
    world.credentials.set(id, {
      id,
      label,
      username: 'admin',
      password: world.random.hex(16),
      last_decrypted: now - 15 * DAY,
    });
  }
  const [firstCredential] = world.credentials.keys();
  const services = [
    {
      label: 'shop-frontend',
      address: 'https://shop.example.com/health',
      status: 'ok' as const,
      region: null,
    },
    {
      label: 'api-gateway',
      address: 'https://api.example.com/ping',
      status: 'problem' as const,
      region: null,
    },
    { label: 'internal-db', address: 'tcp://192.168.130.10:3306', status: 'ok' as const, region: 'us-east' },
  ];
  for (const [index, spec] of services.entries()) {
    const id = world.nextId('service', 9941);
    world.services.set(id, {
      id,
      status: spec.status,
      service_type: spec.address.startsWith('tcp') ? 'tcp' : 'url',
      label: spec.label,
      address: spec.address,
      timeout: 30,
      body: spec.address.startsWith('http') ? 'ok' : null,
      consultation_group: 'on-call',
      notes: index === 1 ? 'Restart the gateway pods before escalating.' : null,
      region: spec.region,
      credentials: index === 2 && firstCredential !== undefined ? [firstCredential] : [],
      created: now - 50 * DAY - SERVICE_FIRST_CHECK_MS,
      updated: now - 2 * HOUR,
    });
  }
  const serviceIds = [...world.services.keys()];
  /** An issue detected `hoursAgo`, and `resolvedHoursAgo` when its services checked out again. */
  const issue = (
    services: number[],
    hoursAgo: number,
    label: string,
    resolvedHoursAgo?: number,
  ): ManagedIssueRecord => {
    const id = world.nextId('issue', 823);
    const ticket = 98000 + id;
    return {
      id,
      created: now - hoursAgo * HOUR,
      services,
      entity: {
        id: ticket,
        label,
        type: 'ticket',
        url: `https://cloud.example.com/support/tickets/${ticket}`,
      },
      ...(resolvedHoursAgo === undefined ? {} : { resolved: now - resolvedHoursAgo * HOUR }),
    };
  };
  // One ongoing (api-gateway reports a problem) and one over (shop-frontend is ok again).
  const issues = [
    issue(serviceIds.slice(1, 2), 3, 'api-gateway is not responding'),
    issue(serviceIds.slice(0, 1), 26, 'shop-frontend returned unexpected content', 25),
  ];
  for (const record of issues) world.issues.set(record.id, record);
  const [settingsNode] = nodes;
  if (settingsNode)
    world.nodeSettings.set(settingsNode.id, {
      ...defaultSshSettings(settingsNode),
      port: 2222,
      user: 'support',
    });
}

/**
 * Recent history on the account's events (API-FACTS-MORE §8): boots by the demo user over the
 * last hours, and a host reboot the provider made by itself (no username), so an events list
 * has something to page through from the start.
 */
function seedEvents(world: World, nodes: readonly NodeRecord[], now: number): void {
  nodes.slice(0, 10).forEach((node, index) => {
    recordEvent(world, {
      action: 'node_boot',
      entity: nodeEntity(node),
      username: 'demo',
      at: now - (10 - index) * HOUR,
    });
  });
  const [rebooted] = nodes;
  if (rebooted) {
    recordEvent(world, {
      action: 'host_reboot',
      entity: nodeEntity(rebooted),
      username: null,
      at: now - 30 * MINUTE,
    });
  }
}
