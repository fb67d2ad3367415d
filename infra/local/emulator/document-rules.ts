import type { FieldError } from './errors.js';

/**
 * The documents' numbered rules that tie one request field to another, which a JSON Schema cannot
 * say: checked after the published field rules, before the handler runs. Written from the spec
 * documents, not from the bot's table, so the two can disagree.
 */

type Input = Readonly<Record<string, unknown>>;
type Rule = (input: Input) => FieldError[];

function given(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPrivateIp(address: string): boolean {
  const host = /^[a-z][a-z0-9+.-]*:\/\/([^/:]+)/i.exec(address)?.[1] ?? address.split(':')[0] ?? '';
  const octets = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host)?.slice(1).map(Number);
  if (!octets || octets.some((o) => o > 255)) return false;
  const [a = 0, b = 0] = octets;
  return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
}

/** Compute document, database rule 4: allow_list and type cannot change in one request. */
const databaseUpdate: Rule = (v) => [
  ...(given(v.allow_list) && given(v.type)
    ? [{ field: 'type', reason: 'cannot be changed together with allow_list' }]
    : []),
  ...maintenanceWindow(v.updates),
];

/** Compute document, maintenance window: week_of_month goes with a monthly frequency only. */
function maintenanceWindow(updates: unknown): FieldError[] {
  if (!isRecord(updates)) return [];
  const monthly = (updates.frequency ?? 'weekly') === 'monthly';
  if (monthly && !given(updates.week_of_month)) {
    return [{ field: 'updates.week_of_month', reason: 'is required when frequency is monthly' }];
  }
  if (!monthly && given(updates.week_of_month)) {
    return [{ field: 'updates.week_of_month', reason: 'must be null when frequency is weekly' }];
  }
  return [];
}

/** Compute document, database create: a one-node cluster has no replication, three nodes need it. */
function databaseCreate(highAvailability: string[], preferred: string): Rule {
  return (v) => {
    const errors = maintenanceWindow(v.updates);
    const size = v.cluster_size ?? 1;
    const replication = v.replication_type;
    if (size === 1 && given(replication) && replication !== 'none') {
      errors.push({ field: 'replication_type', reason: 'must be none for a one-node cluster' });
    }
    if (size === 3 && replication === 'none') {
      errors.push({
        field: 'replication_type',
        reason: `must be ${highAvailability.join(' or ')} for a three-node cluster`,
      });
    }
    const effective = replication ?? (size === 3 ? preferred : 'none');
    if (
      effective === 'asynch' &&
      given(v.replication_commit_type) &&
      !['local', 'off'].includes(String(v.replication_commit_type))
    ) {
      errors.push({
        field: 'replication_commit_type',
        reason: 'must be local or off when replication_type is asynch',
      });
    }
    return errors;
  };
}

/** Compute document, volume rule 2. */
const volumeCreate: Rule = (v) => [
  ...(!given(v.node_id) && !given(v.region)
    ? [{ field: 'region', reason: 'is required when node_id is not given' }]
    : []),
  ...(given(v.config_id) && !given(v.node_id)
    ? [{ field: 'config_id', reason: 'may only be given with node_id' }]
    : []),
];

/** Compute document, volume rule 3. */
const volumeAttach: Rule = (v) =>
  v.persist_across_boots === false && given(v.config_id)
    ? [{ field: 'config_id', reason: 'must not be given when persist_across_boots is false' }]
    : [];

/** Compute document, node create rules 3-5. */
const nodeCreate: Rule = (v) => {
  const errors: FieldError[] = [];
  if (given(v.backup_id) && given(v.image))
    errors.push({ field: 'backup_id', reason: 'cannot be given together with image' });
  if ((given(v.image) || given(v.stackscript_id)) && !given(v.root_pass)) {
    errors.push({
      field: 'root_pass',
      reason: 'is required when deploying from an image or with a StackScript',
    });
  }
  if (given(v.stackscript_id)) {
    if (given(v.backup_id)) errors.push({ field: 'stackscript_id', reason: 'cannot be used with backup_id' });
    else if (!given(v.image))
      errors.push({ field: 'image', reason: 'is required when stackscript_id is given' });
    else if (String(v.image).startsWith('private/'))
      errors.push({ field: 'stackscript_id', reason: 'cannot be used with a private image' });
  }
  if (given(v.metadata) && !given(v.image))
    errors.push({ field: 'metadata', reason: 'needs an image with cloud-init' });
  if (isRecord(v.stackscript_data) && JSON.stringify(v.stackscript_data).length > 65535) {
    errors.push({ field: 'stackscript_data', reason: 'must be at most 65535 characters as JSON' });
  }
  return errors;
};

const NEW_NODE_ONLY = ['region', 'type', 'label', 'backups_enabled', 'private_ip', 'metadata'];

/** Compute document, clone: without node_id a new node (region and type needed), else only the copy. */
const nodeClone: Rule = (v) =>
  given(v.node_id)
    ? NEW_NODE_ONLY.filter((f) => v[f] !== undefined).map((field) => ({
        field,
        reason: 'may only be given when cloning to a new node (without node_id)',
      }))
    : ['region', 'type']
        .filter((f) => !given(v[f]))
        .map((field) => ({ field, reason: 'is required when cloning to a new node' }));

/** Compute document, config profiles: a slot holds one disk or one volume; fullvirt has sda-sdd. */
const configDevices: Rule = (v) => {
  if (!isRecord(v.devices)) return [];
  const errors: FieldError[] = [];
  for (const [slot, device] of Object.entries(v.devices)) {
    if (!isRecord(device)) continue;
    if ([device.disk_id, device.volume_id].filter(given).length !== 1) {
      errors.push({ field: `devices.${slot}`, reason: 'must name exactly one of disk_id or volume_id' });
    } else if (v.virt_mode === 'fullvirt' && ['sde', 'sdf', 'sdg', 'sdh'].includes(slot)) {
      errors.push({ field: `devices.${slot}`, reason: 'is not available when virt_mode is fullvirt' });
    }
  }
  return errors;
};

/**
 * Compute document, Interface: a vlan's label is required; public and vpc interfaces take an
 * empty string there (a published-schema override), a vlan does not.
 */
const vlanInterfaces: Rule = (v) => {
  if (!Array.isArray(v.interfaces)) return [];
  return v.interfaces.flatMap((entry, index) =>
    isRecord(entry) && entry.purpose === 'vlan' && !given(entry.label)
      ? [{ field: `interfaces.${index}.label`, reason: 'is required for a vlan interface' }]
      : [],
  );
};

function both(...rules: Rule[]): Rule {
  return (v) => rules.flatMap((rule) => rule(v));
}

/** Managed document, rule 4: region goes with a private-IP address, and only with one. */
const serviceCreate: Rule = (v) => {
  if (typeof v.address !== 'string') return [];
  const isPrivate = isPrivateIp(v.address);
  if (isPrivate && !given(v.region))
    return [{ field: 'region', reason: 'is required when address is a private IP' }];
  if (!isPrivate && given(v.region))
    return [{ field: 'region', reason: 'may only be given when address is a private IP' }];
  return [];
};

const serviceUpdate: Rule = (v) =>
  typeof v.address === 'string' && given(v.region) && !isPrivateIp(v.address)
    ? [{ field: 'region', reason: 'may only be given when address is a private IP' }]
    : [];

/** Profile document: exactly three unique questions. */
const securityAnswers: Rule = (v) => {
  if (!Array.isArray(v.security_questions)) return [];
  const seen = new Set<unknown>();
  return v.security_questions.flatMap((answer, index) => {
    const id = isRecord(answer) ? answer.question_id : undefined;
    const repeated = seen.has(id);
    seen.add(id);
    return repeated
      ? [{ field: `security_questions.${index}.question_id`, reason: 'repeats a question already answered' }]
      : [];
  });
};

/** Profile document: preferences are at most 65,535 characters as JSON. */
const preferences: Rule = (v) =>
  JSON.stringify(v).length > 65535
    ? [{ reason: 'preferences must be at most 65,535 characters as JSON' }]
    : [];

const ENGINE_RULES = (
  kind: 'mysql' | 'postgresql',
  highAvailability: string[],
  preferred: string,
): Record<string, Rule> => ({
  [`POST /databases/${kind}/instances`]: databaseCreate(highAvailability, preferred),
  [`PUT /databases/${kind}/instances/{instanceId}`]: databaseUpdate,
});

export const DOCUMENT_RULES: Readonly<Record<string, Rule>> = {
  ...ENGINE_RULES('mysql', ['asynch', 'semi_synch'], 'semi_synch'),
  ...ENGINE_RULES('postgresql', ['asynch'], 'asynch'),
  'POST /volumes': volumeCreate,
  'POST /volumes/{volumeId}/attach': volumeAttach,
  'POST /node/instances': both(nodeCreate, vlanInterfaces),
  'POST /node/instances/{nodeId}/clone': nodeClone,
  'POST /node/instances/{nodeId}/configs': both(configDevices, vlanInterfaces),
  'PUT /node/instances/{nodeId}/configs/{configId}': both(configDevices, vlanInterfaces),
  'POST /managed/services': serviceCreate,
  'PUT /managed/services/{serviceId}': serviceUpdate,
  'POST /profile/security-questions': securityAnswers,
  'PUT /profile/preferences': preferences,
};

/** Errors of the documents' cross-field rules for one operation's validated input. */
export function documentRuleErrors(signature: string, input: Input): FieldError[] {
  return DOCUMENT_RULES[signature]?.(input) ?? [];
}
