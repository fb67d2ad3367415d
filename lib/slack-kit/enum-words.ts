/**
 * The values of the API's enums in people's words, by the field that holds them: `shutting_down`
 * reads `shutting down`, `asynch` reads `asynchronous`. The fields and values are the string enums
 * of the API documents (`../shared/spec/*.md`, which win, then the OpenAPI documents beside the
 * emulator, `infra/local/emulator/*.openapi.json`); a test reads both and holds this table to them.
 * A value the table does not know (a new one the API adds) still reads as words, its underscores
 * as spaces, never raw. Plain text: the caller escapes it for mrkdwn.
 */

/** Words for values that do not read well with their underscores made spaces alone. */
const ENUM_WORDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  // Statuses of nodes, volumes, images, databases, backups, events and managed services.
  status: {
    needsPostProcessing: 'needs post-processing',
    userAborted: 'cancelled by the user',
    backing_up: 'backing up',
    pending_upload: 'waiting for its upload',
    shutting_down: 'shutting down',
    billing_suspension: 'suspended for billing',
    ok: 'OK',
  },
  // Spec, managed databases: `none`, `asynch`, `semi_synch`.
  replication_type: { none: 'none', asynch: 'asynchronous', semi_synch: 'semi-synchronous' },
  // Spec, PostgreSQL: `on`, `local`, `remote_write`, `remote_apply`, `off`.
  replication_commit_type: { remote_write: 'remote write', remote_apply: 'remote apply' },
  engine: { mysql: 'MySQL', postgresql: 'PostgreSQL' },
  // Grants.
  permissions: { read_only: 'read-only', read_write: 'read and write' },
  account_access: { read_only: 'read-only', read_write: 'read and write' },
  // Spec, profile: `password_keys`, `keys_only`, `disabled`.
  lish_auth_method: { password_keys: 'password or SSH keys', keys_only: 'SSH keys only' },
  // Spec, node configs.
  run_level: { default: 'default', single: 'single user', binbash: '/bin/bash shell' },
  virt_mode: { paravirt: 'paravirtualized', fullvirt: 'full virtualization' },
  purpose: { vlan: 'VLAN', vpc: 'VPC' },
  service_type: { url: 'URL', tcp: 'TCP' },
  hardware_type: { hdd: 'HDD', nvme: 'NVMe' },
  architecture: { x86_64: 'x86-64 (64-bit)', i386: 'i386 (32-bit)' },
  hypervisor: { kvm: 'KVM' },
  migration_type: { warm: 'warm (while running)', cold: 'cold (shut down first)' },
  // Backups, images, event entities and IP addresses all call theirs `type`.
  type: {
    auto: 'automatic',
    entity_transfer: 'entity transfer',
    managed_service: 'managed service',
    oauth_client: 'OAuth client',
    user_ssh_key: 'SSH key of a user',
    ipv4: 'IPv4',
    ipv6: 'IPv6',
    'ipv6/pool': 'IPv6 pool',
    'ipv6/range': 'IPv6 range',
  },
};

/**
 * The other string enums of the documents: their values read as they are once underscores go
 * (`weekly`, `primary`, `standard`), or are names (`ext4`, `Sunday`, a backup window `W10`). An
 * event's `action` reads as a sentence in `event-words.ts`; anywhere else it reads as its words.
 */
const OTHER_ENUM_FIELDS = new Set([
  'frequency',
  'target',
  'authentication_type',
  'class',
  'action',
  'filesystem',
  'day',
  'window',
]);

/** Whether a field holds one of the API's enums, so its value is worded here. */
export function isEnumField(key: string): boolean {
  return Object.hasOwn(ENUM_WORDS, key) || OTHER_ENUM_FIELDS.has(key);
}

/** A value in words: the table's, else its own words (`not_a_status` → `not a status`). */
export function enumWords(key: string, value: string): string {
  const words = Object.hasOwn(ENUM_WORDS, key) ? ENUM_WORDS[key] : undefined;
  return words !== undefined && Object.hasOwn(words, value) ? (words[value] ?? value) : ownWords(value);
}

/** A status in words: `shutting_down` → `shutting down`, `ok` → `OK`. */
export function statusWords(status: string): string {
  return enumWords('status', status);
}

/** `semi_synch` → `semi synch`, `needsPostProcessing` → `needs post processing`; `W10` stays. */
function ownWords(value: string): string {
  return value
    .replace(
      /([a-z0-9])([A-Z])(?=[a-z])/g,
      (_m, before: string, upper: string) => `${before} ${upper.toLowerCase()}`,
    )
    .replace(/_+/g, ' ')
    .trim();
}
