/**
 * Request values the two documents in spec/ allow, written out by hand from their field tables,
 * endpoint tables, rules and limits: every literal value they name (`0.0.0.0/0`, `W10`,
 * `node/grub2`, `any`, `*`, ...), every enum member, both ends of every documented range, every
 * "nullable", "empty ... allowed" and "default ..." they state, and each deployment form the rules
 * describe. The documents give no whole example bodies; each entry is the smallest request the
 * documents allow around one such value, with the sentence it comes from.
 *
 * Inputs are flat, the way the bot's operations and the emulator's request check take them: path
 * parameters and body fields side by side.
 */

export interface DocumentedValue {
  /** The operation, `METHOD /path`, as the documents' endpoint tables name it. */
  readonly at: string;
  readonly input: Readonly<Record<string, unknown>>;
  /** Where the documents allow it. */
  readonly source: string;
}

const COMPUTE = 'compute document';
const PROFILE = 'profile document';
const MANAGED = 'managed document';

/** A password that meets the strength requirement (node create: root_pass 7..128). */
const ROOT_PASS = 'c0rrect-Horse-battery';
const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGZ0b2tlbnRvdGVzdHdpdGhzb21lYnl0ZXM ops@example.org';

function variants(
  at: string,
  base: Record<string, unknown>,
  source: string,
  changes: readonly Record<string, unknown>[],
): DocumentedValue[] {
  return changes.map((change) => ({ at, input: { ...base, ...change }, source }));
}

// ---------------------------------------------------------------------------------------------
// Managed databases

const ENGINES = [
  { kind: 'mysql', engine: 'mysql/8.0.26', highAvailability: ['asynch', 'semi_synch'] },
  { kind: 'postgresql', engine: 'postgresql/13.2', highAvailability: ['asynch'] },
] as const;

const ALLOW_LISTS = [['203.0.113.7'], ['192.0.2.0/24'], ['0.0.0.0/0'], ['203.0.113.7', '192.0.2.0/24'], []];

const MAINTENANCE_WINDOWS = [
  { day_of_week: 1, duration: 1, frequency: 'weekly', hour_of_day: 0, week_of_month: null },
  { day_of_week: 7, duration: 3, frequency: 'monthly', hour_of_day: 23, week_of_month: 4 },
  { frequency: 'monthly', week_of_month: 1 },
  { day_of_week: 2 },
  { frequency: 'weekly' },
];

const databases: DocumentedValue[] = ENGINES.flatMap(({ kind, engine, highAvailability }) => {
  const create = `POST /databases/${kind}/instances`;
  const update = `PUT /databases/${kind}/instances/{instanceId}`;
  const base = { label: 'orders', region: 'us-east', type: 'g6-nanode-1', engine };
  return [
    ...variants(create, base, `${COMPUTE}, managed database: label, region, type, engine required`, [{}]),
    ...variants(
      create,
      base,
      `${COMPUTE}, managed database: allow_list "Single IPs or CIDR ranges", default empty array, 0.0.0.0/0 allows all`,
      ALLOW_LISTS.map((allow_list) => ({ allow_list })),
    ),
    ...variants(create, base, `${COMPUTE}, limits: database label 3..32 characters`, [
      { label: 'abc' },
      { label: 'a'.repeat(32) },
    ]),
    ...variants(
      create,
      base,
      `${COMPUTE}, managed database: cluster_size 1 or 3, encrypted, ssl_connection`,
      [
        { cluster_size: 1 },
        { cluster_size: 3 },
        { encrypted: true, ssl_connection: false },
        { encrypted: false, ssl_connection: true },
      ],
    ),
    ...variants(
      create,
      base,
      `${COMPUTE}, managed database: replication_type none for one node, ${highAvailability.join(' or ')} for high availability`,
      [
        { cluster_size: 1, replication_type: 'none' },
        ...highAvailability.map((replication_type) => ({ cluster_size: 3, replication_type })),
      ],
    ),
    ...(kind === 'postgresql'
      ? [
          ...variants(
            create,
            base,
            `${COMPUTE}, managed database: replication_commit_type on, local, remote_write, remote_apply, off`,
            ['on', 'local', 'remote_write', 'remote_apply', 'off'].map((replication_commit_type) => ({
              replication_commit_type,
            })),
          ),
          ...variants(
            create,
            base,
            `${COMPUTE}, managed database: replication_commit_type local or off when replication_type is asynch`,
            ['local', 'off'].map((replication_commit_type) => ({
              cluster_size: 3,
              replication_type: 'asynch',
              replication_commit_type,
            })),
          ),
        ]
      : []),
    ...variants(
      update,
      { instanceId: 1 },
      `${COMPUTE}, managed database update: allow_list "Single IPs or CIDR ranges"; a new list overwrites the old`,
      ALLOW_LISTS.map((allow_list) => ({ allow_list })),
    ),
    ...variants(update, { instanceId: 1 }, `${COMPUTE}, managed database update: label (3..32), type`, [
      { label: 'orders-v2' },
      { type: 'g6-standard-2' },
    ]),
    ...variants(
      update,
      { instanceId: 1 },
      `${COMPUTE}, updates: day_of_week 1..7, duration 1..3, frequency weekly (default) or monthly, hour_of_day 0..23, week_of_month 1..4 for monthly, null for weekly`,
      MAINTENANCE_WINDOWS.map((updates) => ({ updates })),
    ),
    ...variants(
      `POST /databases/${kind}/instances/{instanceId}/backups`,
      { instanceId: 1 },
      `${COMPUTE}, database snapshot: label 1..30 ASCII letters, digits, underscore; target primary (default) or secondary`,
      [
        { label: 'before_upgrade' },
        { label: 'a' },
        { label: 'A'.repeat(30) },
        { label: 'nightly_2', target: 'primary' },
        { label: 'replica_copy', target: 'secondary' },
      ],
    ),
  ];
});

// ---------------------------------------------------------------------------------------------
// Volumes

const volumes: DocumentedValue[] = [
  ...variants('POST /volumes', { label: 'data' }, `${COMPUTE}, volume rule 2: region only without node_id`, [
    { region: 'us-east' },
    { region: 'us-east', size: 20, tags: ['prod'] },
    { node_id: 1 },
    { node_id: 1, config_id: 2 },
    { region: 'us-east', label: 'a' },
    { region: 'us-east', label: 'a'.repeat(32) },
  ]),
  ...variants('PUT /volumes/{volumeId}', { volumeId: 1 }, `${COMPUTE}, volumes: label (1..32), tags`, [
    { label: 'a' },
    { label: 'a'.repeat(32) },
    { tags: ['prod', 'db'] },
    { tags: [] },
  ]),
  ...variants(
    'POST /volumes/{volumeId}/attach',
    { volumeId: 1, node_id: 1 },
    `${COMPUTE}, volume rule 3: config_id optional; persist_across_boots defaults to true, false without config_id`,
    [{}, { config_id: 2 }, { persist_across_boots: true, config_id: 2 }, { persist_across_boots: false }],
  ),
  ...variants('POST /volumes/{volumeId}/clone', { volumeId: 1 }, `${COMPUTE}, volumes: clone label 1..32`, [
    { label: 'copy' },
    { label: 'a' },
    { label: 'a'.repeat(32) },
  ]),
  ...variants('POST /volumes/{volumeId}/resize', { volumeId: 1 }, `${COMPUTE}, volumes: resize size in GiB`, [
    { size: 40 },
  ]),
];

// ---------------------------------------------------------------------------------------------
// Images

const images: DocumentedValue[] = [
  ...variants(
    'POST /images',
    { disk_id: 1 },
    `${COMPUTE}, images: disk_id required; label defaults to the disk's; description; cloud_init`,
    [{}, { label: 'golden', description: 'Base image', cloud_init: true }, { cloud_init: false }],
  ),
  ...variants(
    'POST /images/upload',
    { label: 'uploaded', region: 'us-east' },
    `${COMPUTE}, images: upload label and region required; description; cloud_init`,
    [{}, { description: 'From a build', cloud_init: true }],
  ),
  ...variants(
    'PUT /images/{imageId}',
    { imageId: 'private/1' },
    `${COMPUTE}, images: update label, description (nullable, 1..65000); private images only`,
    [{ label: 'golden-v2' }, { description: null }, { description: 'a' }, { description: 'a'.repeat(65000) }],
  ),
  ...variants(
    'GET /images/{imageId}',
    {},
    `${COMPUTE}, image id: public prefix node/, private prefix private/`,
    [{ imageId: 'node/debian12' }, { imageId: 'private/1' }],
  ),
];

// ---------------------------------------------------------------------------------------------
// Nodes

const INTERFACES: readonly { interfaces: unknown[]; source: string }[] = [
  { interfaces: [], source: 'Interface: an empty interfaces array yields a default public interface only' },
  { interfaces: [{ purpose: 'public' }], source: 'Interface: purpose public' },
  {
    interfaces: [{ purpose: 'public', label: '', ipam_address: '' }],
    source: 'Interface: for public, label and ipam_address are empty string or null in requests',
  },
  {
    interfaces: [{ purpose: 'public', label: null, ipam_address: null }],
    source: 'Interface: for public, label and ipam_address are empty string or null in requests',
  },
  {
    interfaces: [{ purpose: 'public', ipv4: null, subnet_id: null, ip_ranges: [] }],
    source:
      'Interface: ipv4 only for vpc, null if none; subnet_id null otherwise; ip_ranges empty for others',
  },
  {
    interfaces: [
      { purpose: 'public', primary: true },
      { purpose: 'vlan', label: 'my-vlan', ipam_address: '10.0.0.1/24', primary: false },
    ],
    source: 'Interface: a vlan has a label and a CIDR ipam_address, primary false; public in position 0',
  },
  {
    interfaces: [
      {
        purpose: 'vpc',
        subnet_id: 101,
        ipv4: { vpc: '10.0.0.2', nat_1_1: 'any' },
        ip_ranges: ['10.0.0.64/26'],
      },
    ],
    source:
      'Interface: a vpc has subnet_id; ipv4.vpc a subnet address; nat_1_1 the value any; ip_ranges IPv4 CIDR',
  },
  {
    interfaces: [
      { purpose: 'vpc', subnet_id: 101, ipv4: { vpc: null, nat_1_1: null }, label: '', ipam_address: null },
    ],
    source:
      'Interface: ipv4.vpc auto-assigned if omitted; nat_1_1 null means no NAT; vpc label empty string or null',
  },
  {
    interfaces: [{ purpose: 'vpc', subnet_id: 101, ipv4: { nat_1_1: '' }, ip_ranges: null }],
    source: 'Interface: nat_1_1 empty string means no NAT; ip_ranges nullable',
  },
  {
    interfaces: [
      { purpose: 'public' },
      { purpose: 'vlan', label: 'vlan-a', ipam_address: '10.0.1.1/24' },
      { purpose: 'vlan', label: 'vlan-b', ipam_address: '10.0.2.1/24' },
    ],
    source: 'limits: node interfaces 1..3 per config (eth0, eth1, eth2)',
  },
];

const NODE = { region: 'us-east', type: 'g6-standard-1' };
const FROM_IMAGE = { ...NODE, image: 'node/debian12', root_pass: ROOT_PASS };

const nodeCreate: DocumentedValue[] = [
  ...variants('POST /node/instances', NODE, `${COMPUTE}, node create rule 2: an empty node`, [{}]),
  ...variants('POST /node/instances', NODE, `${COMPUTE}, node create rule 2: from an image, with root_pass`, [
    { image: 'node/debian12', root_pass: ROOT_PASS },
    { image: 'private/1', root_pass: ROOT_PASS },
    { image: 'node/debian12', root_pass: 'a'.repeat(7).replace(/^.{4}/, 'Ab1-') },
  ]),
  ...variants('POST /node/instances', FROM_IMAGE, `${COMPUTE}, node create and update fields`, [
    { booted: false, swap_size: 512 },
    { authorized_keys: [SSH_KEY], authorized_users: ['demo'] },
    { backups_enabled: true, private_ip: true, firewall_id: 1 },
    { tags: ['web'], group: 'legacy' },
    { label: 'web-1' },
    { label: 'a.b' },
    { label: `w${'a_b-c.d'.repeat(8)}abcdef1` },
    { metadata: { user_data: 'I2Nsb3VkLWNvbmZpZwo=' } },
    { stackscript_id: 1 },
    { stackscript_id: 1, stackscript_data: { hostname: 'web-1' } },
  ]),
  ...variants('POST /node/instances', NODE, `${COMPUTE}, node create rule 2: from another node's backup`, [
    { backup_id: 1 },
  ]),
  ...INTERFACES.map(({ interfaces, source }) => ({
    at: 'POST /node/instances',
    input: { ...FROM_IMAGE, interfaces },
    source: `${COMPUTE}, ${source}`,
  })),
];

const SCHEDULE_DAYS = [
  'Scheduling',
  'Sunday',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
];
const SCHEDULE_WINDOWS = ['Scheduling', ...Array.from({ length: 12 }, (_, i) => `W${i * 2}`)];

const nodeUpdate: DocumentedValue[] = [
  ...variants(
    'PUT /node/instances/{nodeId}',
    { nodeId: 1 },
    `${COMPUTE}, node update: alerts are integers, 0 disables an alert`,
    [
      { alerts: { cpu: 0, io: 0, network_in: 0, network_out: 0, transfer_quota: 0 } },
      { alerts: { cpu: 180, io: 10000, network_in: 10, network_out: 10, transfer_quota: 80 } },
    ],
  ),
  ...variants(
    'PUT /node/instances/{nodeId}',
    { nodeId: 1 },
    `${COMPUTE}, node update: backups.schedule day and window enums, nullable; W10 is 10:00 to 12:00`,
    [
      ...SCHEDULE_DAYS.map((day) => ({ backups: { schedule: { day } } })),
      ...SCHEDULE_WINDOWS.map((window) => ({ backups: { schedule: { window } } })),
      { backups: { schedule: { day: 'Saturday', window: 'W10' } } },
      { backups: { schedule: { day: null, window: null } } },
    ],
  ),
  ...variants(
    'PUT /node/instances/{nodeId}',
    { nodeId: 1 },
    `${COMPUTE}, node update: group, label (3..64), tags, watchdog_enabled`,
    [
      { group: 'legacy' },
      { label: 'abc' },
      { label: `a${'b'.repeat(63)}` },
      { tags: [] },
      { watchdog_enabled: false },
    ],
  ),
];

const nodeActions: DocumentedValue[] = [
  ...variants(
    'POST /node/instances/{nodeId}/backups',
    { nodeId: 1 },
    `${COMPUTE}, limits: node snapshot label 1..255`,
    [{ label: 'a' }, { label: 'a'.repeat(255) }],
  ),
  ...variants(
    'POST /node/instances/{nodeId}/backups/{backupId}/restore',
    { nodeId: 1, backupId: 1, node_id: 2 },
    `${COMPUTE}, nodes: restore node_id required, overwrite boolean`,
    [{}, { overwrite: true }, { overwrite: false }],
  ),
  ...variants(
    'POST /node/instances/{nodeId}/boot',
    { nodeId: 1 },
    `${COMPUTE}, nodes: boot config_id optional`,
    [{}, { config_id: 1 }],
  ),
  ...variants('POST /node/instances/{nodeId}/clone', { nodeId: 1 }, `${COMPUTE}, clone request fields`, [
    { region: 'us-east', type: 'g6-standard-1' },
    { region: 'us-east', type: 'g6-standard-1', label: 'web-copy', backups_enabled: true, private_ip: true },
    { region: 'us-east', type: 'g6-standard-1', configs: [], disks: [] },
    { region: 'us-east', type: 'g6-standard-1', configs: [1], disks: [2], group: 'legacy' },
    { region: 'us-east', type: 'g6-standard-1', metadata: { user_data: 'I2Nsb3VkLWNvbmZpZwo=' } },
    { node_id: 2 },
    { node_id: 2, configs: [1], disks: [] },
  ]),
];

const EVERY_SLOT_EMPTY = {
  sda: null,
  sdb: null,
  sdc: null,
  sdd: null,
  sde: null,
  sdf: null,
  sdg: null,
  sdh: null,
};

const DEVICES: readonly { devices: Record<string, unknown>; source: string }[] = [
  { devices: {}, source: 'configuration profile: an empty devices map is allowed' },
  { devices: { sda: { disk_id: 1 } }, source: 'configuration profile: a slot holds a disk' },
  { devices: { sdc: { volume_id: 1 } }, source: 'configuration profile: a slot holds a volume' },
  {
    devices: { sda: { disk_id: 1 }, sdb: null },
    source: 'configuration profile: each slot is an object {disk_id, volume_id} or null',
  },
  {
    devices: { sda: { disk_id: 1, volume_id: null }, sdc: { disk_id: null, volume_id: 2 } },
    source: 'configuration profile: a slot is {disk_id, volume_id}, one kind per slot (the other null)',
  },
  {
    devices: EVERY_SLOT_EMPTY,
    source: 'configuration profile: each slot is an object {disk_id, volume_id} or null',
  },
  {
    devices: { ...EVERY_SLOT_EMPTY, sda: { disk_id: 1 }, sdb: { volume_id: 2 } },
    source: 'configuration profile: slots sda..sdh, each an object or null; one kind per slot',
  },
];

const CONFIG_FIELDS: readonly { fields: Record<string, unknown>; source: string }[] = [
  ...['node/latest-64bit', 'node/grub2', 'node/direct-disk'].map((kernel) => ({
    fields: { kernel },
    source:
      'configuration profile: kernel default node/latest-64bit; others include node/grub2, node/direct-disk',
  })),
  ...['default', 'single', 'binbash'].map((run_level) => ({
    fields: { run_level },
    source: 'configuration profile: run_level default, single, binbash',
  })),
  ...['paravirt', 'fullvirt'].map((virt_mode) => ({
    fields: { virt_mode },
    source: 'configuration profile: virt_mode paravirt, fullvirt',
  })),
  {
    fields: { virt_mode: 'fullvirt', devices: { sda: { disk_id: 1 }, sde: null, sdh: null } },
    source: 'configuration profile: sde..sdh unavailable in fullvirt (an empty slot is no device)',
  },
  {
    fields: {
      helpers: {
        devtmpfs_automount: false,
        distro: true,
        modules_dep: true,
        network: true,
        updatedb_disabled: true,
      },
    },
    source: 'configuration profile: helpers are booleans',
  },
  { fields: { root_device: '/dev/sda' }, source: 'configuration profile: root_device defaults to /dev/sda' },
  { fields: { memory_limit: 2048 }, source: 'configuration profile: memory_limit integer' },
  { fields: { comments: null }, source: 'configuration profile: comments string, nullable' },
  { fields: { comments: 'rescue profile' }, source: 'configuration profile: comments string, nullable' },
  ...INTERFACES.map(({ interfaces, source }) => ({ fields: { interfaces }, source })),
];

const configs: DocumentedValue[] = [
  ...DEVICES.map(({ devices, source }) => ({
    at: 'POST /node/instances/{nodeId}/configs',
    input: { nodeId: 1, label: 'boot', devices },
    source: `${COMPUTE}, ${source}`,
  })),
  ...variants(
    'POST /node/instances/{nodeId}/configs',
    { nodeId: 1, devices: {} },
    `${COMPUTE}, limits: config label 1..48`,
    [{ label: 'a' }, { label: 'a'.repeat(48) }],
  ),
  ...CONFIG_FIELDS.map(({ fields, source }) => ({
    at: 'POST /node/instances/{nodeId}/configs',
    input: { nodeId: 1, label: 'boot', devices: {}, ...fields },
    source: `${COMPUTE}, ${source}`,
  })),
  {
    at: 'PUT /node/instances/{nodeId}/configs/{configId}',
    input: { nodeId: 1, configId: 1 },
    source: `${COMPUTE}, nodes: configuration fields, all optional`,
  },
  ...DEVICES.map(({ devices, source }) => ({
    at: 'PUT /node/instances/{nodeId}/configs/{configId}',
    input: { nodeId: 1, configId: 1, devices },
    source: `${COMPUTE}, ${source}`,
  })),
  ...CONFIG_FIELDS.map(({ fields, source }) => ({
    at: 'PUT /node/instances/{nodeId}/configs/{configId}',
    input: { nodeId: 1, configId: 1, ...fields },
    source: `${COMPUTE}, ${source}`,
  })),
];

// ---------------------------------------------------------------------------------------------
// Profile

const profile: DocumentedValue[] = [
  ...variants('PUT /profile', {}, `${PROFILE}, profile: optional fields`, [
    { email: 'ops@example.org' },
    { email_notifications: false },
    { authorized_keys: [SSH_KEY] },
    { authorized_keys: null },
    ...['password_keys', 'keys_only', 'disabled'].map((lish_auth_method) => ({ lish_auth_method })),
    { timezone: 'US/Eastern' },
    { two_factor_auth: false },
    { restricted: false },
    { ip_whitelist_enabled: false },
  ]),
  ...variants(
    'POST /profile/phone-number',
    {},
    `${PROFILE}, phone: iso_code two-letter ISO 3166 code, phone_number`,
    [
      { iso_code: 'US', phone_number: '555-555-5555' },
      { iso_code: 'us', phone_number: '+1 555 555 5555' },
    ],
  ),
  ...variants('POST /profile/phone-number/verify', {}, `${PROFILE}, phone: otp_code string`, [
    { otp_code: '123456' },
  ]),
  ...variants('PUT /profile/preferences', {}, `${PROFILE}, preferences: arbitrary JSON object`, [
    {},
    { theme: 'dark', sort: { nodes: ['label', 'asc'] }, count: 3, pinned: null },
  ]),
  ...variants(
    'POST /profile/security-questions',
    {},
    `${PROFILE}, security questions: exactly three unique {question_id, response}`,
    [
      {
        security_questions: [
          { question_id: 1, response: 'Paris' },
          { question_id: 2, response: 'Rex' },
          { question_id: 3, response: 'Blue' },
        ],
      },
    ],
  ),
  ...variants('POST /profile/sshkeys', {}, `${PROFILE}, SSH key: label at most 64, ssh_key`, [
    { label: 'laptop', ssh_key: SSH_KEY },
    { label: 'a'.repeat(64), ssh_key: SSH_KEY },
  ]),
  ...variants('PUT /profile/sshkeys/{sshKeyId}', { sshKeyId: 1 }, `${PROFILE}, rule 7: only the label`, [
    { label: 'laptop-2' },
  ]),
  ...variants('POST /profile/tfa-enable-confirm', {}, `${PROFILE}, 2FA: tfa_code a current code`, [
    { tfa_code: '213456' },
  ]),
  ...variants(
    'POST /profile/tokens',
    {},
    `${PROFILE}, token: label 1..100; scopes space-separated, * all access; expiry optional, UTC with no zone suffix in samples`,
    [
      { label: 'ci', scopes: '*' },
      { label: 'ci', scopes: 'databases:read_only volumes:read_write' },
      { label: 'ci', scopes: 'account:read_only', expiry: '2030-01-01T00:00:00' },
      { label: 'a', scopes: '*' },
      { label: 'a'.repeat(100), scopes: '*' },
    ],
  ),
  ...variants('PUT /profile/tokens/{tokenId}', { tokenId: 1 }, `${PROFILE}, rule 7: only the label`, [
    { label: 'ci-2' },
  ]),
];

// ---------------------------------------------------------------------------------------------
// Managed monitoring

const CONTACT = {
  name: 'Jo Ops',
  email: 'jo@example.org',
  phone: { primary: '555-555-0100', secondary: null },
};
const SERVICE = { service_type: 'url', label: 'shop', address: 'https://shop.example.org', timeout: 30 };

const managed: DocumentedValue[] = [
  ...['POST /managed/contacts', 'PUT /managed/contacts/{contactId}'].flatMap((at) =>
    variants(
      at,
      at.startsWith('PUT') ? { contactId: 1, ...CONTACT } : CONTACT,
      `${MANAGED}, contact: name 2..64, group nullable 2..50; phone {primary, secondary} with secondary null`,
      [
        {},
        { group: null },
        { group: 'on' },
        { group: 'a'.repeat(50) },
        { name: 'Jo' },
        { name: 'a'.repeat(64) },
        { phone: { primary: '555-555-0100', secondary: '555-555-0101' } },
      ],
    ),
  ),
  ...variants(
    'POST /managed/credentials',
    { label: 'db-admin', password: 'Secret-pass-1' },
    `${MANAGED}, credential: label 2..75, password required, username at most 5000`,
    [{}, { username: 'admin' }, { username: 'a'.repeat(5000) }, { label: 'db' }, { label: 'a'.repeat(75) }],
  ),
  ...variants(
    'PUT /managed/credentials/{credentialId}',
    { credentialId: 1 },
    `${MANAGED}, rule 2: label only`,
    [{ label: 'db-admin-2' }],
  ),
  ...variants(
    'POST /managed/credentials/{credentialId}/update',
    { credentialId: 1, password: 'Secret-pass-2' },
    `${MANAGED}, credential update: password required, username`,
    [{}, { username: 'admin' }],
  ),
  ...variants(
    'PUT /managed/node-settings/{nodeId}',
    { nodeId: 1 },
    `${MANAGED}, node settings: ssh {access, ip, port, user}`,
    [{ ssh: { access: true, ip: '203.0.113.1', port: 22, user: 'root' } }, { ssh: { access: false } }],
  ),
  ...variants(
    'POST /managed/services',
    SERVICE,
    `${MANAGED}, service: service_type url or tcp, label 3..64, address 3..100, timeout 1..255, body at most 100 (nullable), consultation_group at most 50, notes nullable, credentials; region with a private-IP address only`,
    [
      {},
      { service_type: 'tcp' },
      { label: 'abc' },
      { label: 'a'.repeat(64) },
      { timeout: 1 },
      { timeout: 255 },
      { body: null, notes: null },
      { body: 'a'.repeat(100), notes: 'Restart php-fpm first', consultation_group: 'a'.repeat(50) },
      { credentials: [1, 2] },
      { credentials: [] },
      { address: 'https://10.0.0.5', region: 'us-east' },
    ],
  ),
  ...variants(
    'PUT /managed/services/{serviceId}',
    { serviceId: 1 },
    `${MANAGED}, service update: any of the create fields, all optional`,
    [{}, { label: 'shop-2' }, { timeout: 255 }, { body: null }, { service_type: 'tcp' }],
  ),
];

// ---------------------------------------------------------------------------------------------
// The second published document (reference/API-FACTS-MORE.md)

const MORE = 'API-FACTS-MORE';

const incidentActions: DocumentedValue[] = [
  ...variants(
    'POST /node/instances/{nodeId}/reboot',
    { nodeId: 1 },
    `${MORE} §2.1: config_id optional; null or omitted reboots into the last booted profile`,
    [{}, { config_id: null }, { config_id: 30001 }],
  ),
  ...variants(
    'POST /node/instances/{nodeId}/resize',
    { nodeId: 1, type: 'g6-standard-2' },
    `${MORE} §2.3: type required; allow_auto_disk_resize default true; migration_type warm or cold, default cold`,
    [{}, { allow_auto_disk_resize: false }, { migration_type: 'warm' }, { migration_type: 'cold' }],
  ),
  ...variants(
    'POST /node/instances/{nodeId}/rebuild',
    { nodeId: 1, image: 'node/debian12', root_pass: ROOT_PASS },
    `${MORE} §2.4: image and root_pass required; authorized_keys, authorized_users, stackscript_id/data, booted, metadata.user_data, type optional`,
    [
      {},
      { booted: false },
      { authorized_keys: [SSH_KEY], authorized_users: ['demo'] },
      { stackscript_id: 402, stackscript_data: {} },
      { metadata: { user_data: 'I2Nsb3VkLWNvbmZpZw==' } },
      { type: 'g6-standard-2' },
    ],
  ),
  ...variants(
    'POST /node/instances/{nodeId}/rescue',
    { nodeId: 1 },
    `${MORE} §2.5: devices sda..sdg, each a disk or a volume, one kind per slot, may be null`,
    [
      {},
      { devices: {} },
      { devices: { sda: { disk_id: 20001 }, sdb: { volume_id: 1 } } },
      { devices: { sda: { disk_id: 20001, volume_id: null }, sdc: null } },
    ],
  ),
  ...variants(
    'POST /node/instances/{nodeId}/migrate',
    { nodeId: 1 },
    `${MORE} §2.6: region optional (omitted: a pending host migration); upgrade default false; type warm or cold, default cold`,
    [{}, { region: 'eu-west' }, { region: 'eu-west', upgrade: false }, { type: 'warm' }, { type: 'cold' }],
  ),
  ...variants(
    'POST /node/instances/{nodeId}/mutate',
    { nodeId: 1 },
    `${MORE} §2.7: allow_auto_disk_resize, default true`,
    [{}, { allow_auto_disk_resize: false }],
  ),
  ...variants('POST /node/instances/{nodeId}/password', { nodeId: 1 }, `${MORE} §2.8: root_pass required`, [
    { root_pass: ROOT_PASS },
  ]),
  ...variants(
    'POST /node/instances/{nodeId}/disks',
    { nodeId: 1 },
    `${MORE} §4.1: size required (MB); label 1..48 for an empty disk; filesystem raw, swap, ext3, ext4, initrd; image with root_pass 7..128`,
    [
      { size: 1, label: 'a' },
      { size: 2048, label: 'a'.repeat(48), filesystem: 'raw' },
      ...['swap', 'ext3', 'ext4', 'initrd'].map((filesystem) => ({
        size: 512,
        label: 'scratch',
        filesystem,
      })),
      { size: 2048, image: 'node/debian12', root_pass: ROOT_PASS },
      { size: 2048, image: 'node/debian12', root_pass: 'a'.repeat(7) },
      { size: 2048, image: 'node/debian12', root_pass: 'a'.repeat(128), authorized_keys: [SSH_KEY] },
    ],
  ),
  ...variants(
    'PUT /node/instances/{nodeId}/disks/{diskId}',
    { nodeId: 1, diskId: 1 },
    `${MORE} §4.2: body {label} only, 1..48`,
    [{}, { label: 'a' }, { label: 'a'.repeat(48) }],
  ),
  ...variants(
    'POST /node/instances/{nodeId}/disks/{diskId}/resize',
    { nodeId: 1, diskId: 1 },
    `${MORE} §4.2: size required, integer of at least 1 (MB)`,
    [{ size: 1 }, { size: 81920 }],
  ),
];

// ---------------------------------------------------------------------------------------------
// List parameters

const LISTS = [
  'GET /volumes',
  'GET /node/instances',
  'GET /databases/instances',
  'GET /profile/sshkeys',
  'GET /node/kernels',
  'GET /account/events',
];

const listing: DocumentedValue[] = LISTS.flatMap((at) =>
  variants(at, {}, `${COMPUTE}, conventions: page minimum 1; page_size 25..500, default 100`, [
    {},
    { page: 1 },
    { page_size: 25 },
    { page_size: 500 },
  ]),
);

export const DOCUMENTED_VALUES: readonly DocumentedValue[] = [
  ...databases,
  ...volumes,
  ...images,
  ...nodeCreate,
  ...nodeUpdate,
  ...nodeActions,
  ...configs,
  ...profile,
  ...managed,
  ...incidentActions,
  ...listing,
];
