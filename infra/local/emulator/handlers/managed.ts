import { isPrivateIpAddress } from '../../../../lib/api/operations/managed.js';
import { findRegion } from '../catalog.js';
import { apiTime, DAY, MINUTE } from '../clock.js';
import { badRequest } from '../errors.js';
import type {
  ManagedContactRecord,
  ManagedCredentialRecord,
  ManagedIssueRecord,
  ManagedServiceRecord,
  ManagedSshSettings,
  NodeRecord,
  World,
} from '../world.js';
import { byId, found } from './lookup.js';
import { empty, type GroupHandlers, type HandlerContext, json, list } from './types.js';

/**
 * Managed monitoring (documents: managed rules 1-4; unrestricted users only, enforced from the
 * rows' grants). A new or re-enabled service is `pending` until its first check passes.
 */

export const SERVICE_FIRST_CHECK_MS = 5 * MINUTE;
const STATS_STEP_MS = 5 * MINUTE;

function renderContact(contact: ManagedContactRecord) {
  return {
    id: contact.id,
    name: contact.name,
    email: contact.email,
    phone: { ...contact.phone },
    group: contact.group,
    updated: apiTime(contact.updated),
  };
}

function renderCredential(credential: ManagedCredentialRecord) {
  return {
    id: credential.id,
    label: credential.label,
    last_decrypted: credential.last_decrypted === null ? null : apiTime(credential.last_decrypted),
  };
}

export function renderIssue(issue: ManagedIssueRecord) {
  return {
    id: issue.id,
    created: apiTime(issue.created),
    services: [...issue.services],
    entity: { ...issue.entity },
  };
}

function renderService(service: ManagedServiceRecord) {
  return {
    id: service.id,
    status: service.status,
    service_type: service.service_type,
    label: service.label,
    address: service.address,
    timeout: service.timeout,
    body: service.body,
    consultation_group: service.consultation_group,
    notes: service.notes,
    // Managed rule 4: a region exists only for private-IP addresses; null for the others.
    region: service.region,
    credentials: [...service.credentials],
    created: apiTime(service.created),
    updated: apiTime(service.updated),
  };
}

export function defaultSshSettings(node: NodeRecord): ManagedSshSettings {
  return { access: true, ip: node.ipv4[0] ?? '0.0.0.0', port: null, user: null };
}

function renderNodeSettings(world: World, node: NodeRecord) {
  const ssh = world.nodeSettings.get(node.id) ?? defaultSshSettings(node);
  return { id: node.id, label: node.label, group: node.group, ssh: { ...ssh } };
}

/** A deterministic value per series and time: the same chart on every call. */
function statValue(series: number, x: number, base: number, swing: number): number {
  const step = x / STATS_STEP_MS;
  const wave = Math.sin((step / 288) * 2 * Math.PI + series) * swing;
  const jitter = (((step * 2654435761 + series * 97) >>> 0) % 1000) / 1000;
  return Math.max(0, Math.round(base + wave + jitter * swing * 0.3));
}

export function managedStats(now: number) {
  const end = Math.floor(now / STATS_STEP_MS) * STATS_STEP_MS;
  const xs: number[] = [];
  for (let x = end - DAY + STATS_STEP_MS; x <= end; x += STATS_STEP_MS) xs.push(x);
  const series = (index: number, base: number, swing: number) =>
    xs.map((x) => ({ x, y: statValue(index, x, base, swing) }));
  return {
    cpu: series(0, 35, 20),
    disk: series(1, 120, 60),
    swap: series(2, 4, 3),
    net_in: series(3, 800, 400),
    net_out: series(4, 1500, 700),
  };
}

function checkRegionRule(address: string, region: string | null): void {
  const isPrivate = isPrivateIpAddress(address);
  if (isPrivate && region === null) throw badRequest('is required when address is a private IP', 'region');
  if (!isPrivate && region !== null)
    throw badRequest('may only be given when address is a private IP', 'region');
  if (region !== null && !findRegion(region)) throw badRequest(`${region} is not a region`, 'region');
}

function checkCredentialIds(world: World, ids: number[] | undefined): void {
  ids?.forEach((id, index) => {
    if (!world.credentials.has(id))
      throw badRequest(`credential ${id} does not exist`, `credentials.${index}`);
  });
}

function checkUniqueCredentialLabel(world: World, label: string, exceptId?: number): void {
  for (const credential of world.credentials.values()) {
    if (credential.label === label && credential.id !== exceptId) throw badRequest('must be unique', 'label');
  }
}

/** Monitoring begins: the service reports `pending` until its first check. */
function startMonitoring(world: World, service: ManagedServiceRecord): void {
  service.status = 'pending';
  world.schedule(world.workDoneAt(SERVICE_FIRST_CHECK_MS), (at) => {
    if (service.status === 'pending' && world.services.get(service.id) === service) {
      service.status = 'ok';
      service.updated = at;
    }
  });
}

function contactPhone(ctx: HandlerContext, current: ManagedContactRecord['phone']) {
  const phone = ctx.input.optionalObject('phone');
  if (!phone) return current;
  return {
    primary: typeof phone.primary === 'string' ? phone.primary : current.primary,
    // Managed rule 1: secondary may be null.
    secondary: phone.secondary === undefined ? current.secondary : (phone.secondary as string | null),
  };
}

const contact = (ctx: HandlerContext) => found(ctx.world.contacts.get(ctx.input.int('contactId')), 'Contact');
const credential = (ctx: HandlerContext) =>
  found(ctx.world.credentials.get(ctx.input.int('credentialId')), 'Credential');
const service = (ctx: HandlerContext) => found(ctx.world.services.get(ctx.input.int('serviceId')), 'Service');
const settingsNode = (ctx: HandlerContext) => found(ctx.world.nodes.get(ctx.input.int('nodeId')), 'Node');

export const managedHandlers: GroupHandlers<'managed'> = {
  'managed.contacts-list': (ctx) => list(byId(ctx.world.contacts.values()), renderContact),
  'managed.contacts-create': (ctx) => {
    const name = ctx.input.optionalText('name');
    const email = ctx.input.optionalText('email');
    if (name === undefined) throw badRequest('is required', 'name');
    if (email === undefined) throw badRequest('is required', 'email');
    const record: ManagedContactRecord = {
      id: ctx.world.nextId('contact', 501),
      name,
      email,
      phone: contactPhone(ctx, { primary: null, secondary: null }),
      group: ctx.input.nullableText('group') ?? null,
      updated: ctx.now,
    };
    ctx.world.contacts.set(record.id, record);
    return json(renderContact(record));
  },
  'managed.contacts-view': (ctx) => json(renderContact(contact(ctx))),
  'managed.contacts-update': (ctx) => {
    const record = contact(ctx);
    record.name = ctx.input.optionalText('name') ?? record.name;
    record.email = ctx.input.optionalText('email') ?? record.email;
    record.phone = contactPhone(ctx, record.phone);
    const group = ctx.input.nullableText('group');
    if (group !== undefined) record.group = group;
    record.updated = ctx.now;
    return json(renderContact(record));
  },
  'managed.contacts-delete': (ctx) => {
    ctx.world.contacts.delete(contact(ctx).id);
    return empty();
  },

  'managed.credentials-list': (ctx) => list(byId(ctx.world.credentials.values()), renderCredential),
  // Managed rule 3: the row limits the username to 5000 characters.
  'managed.credentials-create': (ctx) => {
    const label = ctx.input.text('label');
    checkUniqueCredentialLabel(ctx.world, label);
    const record: ManagedCredentialRecord = {
      id: ctx.world.nextId('credential', 9901),
      label,
      username: ctx.input.optionalText('username') ?? null,
      password: ctx.input.text('password'),
      last_decrypted: null,
    };
    ctx.world.credentials.set(record.id, record);
    return json(renderCredential(record));
  },
  'managed.credentials-sshkey': (ctx) => json({ ssh_key: ctx.world.account.managedSshKey }),
  'managed.credentials-view': (ctx) => json(renderCredential(credential(ctx))),
  // Managed rule 2: PUT changes only the label.
  'managed.credentials-update': (ctx) => {
    const record = credential(ctx);
    const label = ctx.input.optionalText('label');
    if (label !== undefined) {
      checkUniqueCredentialLabel(ctx.world, label, record.id);
      record.label = label;
    }
    return json(renderCredential(record));
  },
  'managed.credentials-delete': (ctx) => {
    const record = credential(ctx);
    ctx.world.credentials.delete(record.id);
    for (const s of ctx.world.services.values())
      s.credentials = s.credentials.filter((id) => id !== record.id);
    return empty();
  },
  // Managed rule 2: username and password change only here.
  'managed.credentials-update-login': (ctx) => {
    const record = credential(ctx);
    record.password = ctx.input.text('password');
    const username = ctx.input.optionalText('username');
    if (username !== undefined) record.username = username;
    return empty();
  },

  'managed.issues-list': (ctx) =>
    list(
      [...ctx.world.issues.values()].sort((a, b) => b.created - a.created || b.id - a.id),
      renderIssue,
    ),
  'managed.issues-view': (ctx) =>
    json(renderIssue(found(ctx.world.issues.get(ctx.input.int('issueId')), 'Issue'))),

  // One entry per node of the account.
  'managed.node-settings-list': (ctx) =>
    list(byId(ctx.world.nodes.values()), (node) => renderNodeSettings(ctx.world, node)),
  'managed.node-settings-view': (ctx) => json(renderNodeSettings(ctx.world, settingsNode(ctx))),
  'managed.node-settings-update': (ctx) => {
    const node = settingsNode(ctx);
    const current = ctx.world.nodeSettings.get(node.id) ?? defaultSshSettings(node);
    const ssh = ctx.input.optionalObject('ssh') ?? {};
    const next: ManagedSshSettings = {
      access: typeof ssh.access === 'boolean' ? ssh.access : current.access,
      ip: typeof ssh.ip === 'string' ? ssh.ip : current.ip,
      port: ssh.port === undefined ? current.port : (ssh.port as number | null),
      user: ssh.user === undefined ? current.user : (ssh.user as string | null),
    };
    ctx.world.nodeSettings.set(node.id, next);
    return json(renderNodeSettings(ctx.world, node));
  },

  'managed.services-list': (ctx) => list(byId(ctx.world.services.values()), renderService),
  // Managed rule 4: region for a private-IP address, and only then.
  'managed.services-create': (ctx) => {
    const address = ctx.input.text('address');
    const region = ctx.input.optionalText('region') ?? null;
    checkRegionRule(address, region);
    const credentials = ctx.input.optionalIntList('credentials');
    checkCredentialIds(ctx.world, credentials);
    const record: ManagedServiceRecord = {
      id: ctx.world.nextId('service', 9941),
      status: 'pending',
      service_type: ctx.input.text('service_type') as ManagedServiceRecord['service_type'],
      label: ctx.input.text('label'),
      address,
      timeout: ctx.input.int('timeout'),
      body: ctx.input.nullableText('body') ?? null,
      consultation_group: ctx.input.optionalText('consultation_group') ?? '',
      notes: ctx.input.nullableText('notes') ?? null,
      region,
      credentials: credentials ?? [],
      created: ctx.now,
      updated: ctx.now,
    };
    ctx.world.services.set(record.id, record);
    startMonitoring(ctx.world, record);
    return json(renderService(record));
  },
  'managed.services-view': (ctx) => json(renderService(service(ctx))),
  'managed.services-update': (ctx) => {
    const record = service(ctx);
    const address = ctx.input.optionalText('address') ?? record.address;
    const region = ctx.input.has('region')
      ? ctx.input.text('region')
      : isPrivateIpAddress(address)
        ? record.region
        : null;
    checkRegionRule(address, region);
    const credentials = ctx.input.optionalIntList('credentials');
    checkCredentialIds(ctx.world, credentials);
    record.address = address;
    record.region = region;
    if (credentials) record.credentials = credentials;
    const serviceType = ctx.input.optionalText('service_type');
    if (serviceType !== undefined) record.service_type = serviceType as ManagedServiceRecord['service_type'];
    record.label = ctx.input.optionalText('label') ?? record.label;
    record.timeout = ctx.input.optionalInt('timeout') ?? record.timeout;
    const body = ctx.input.nullableText('body');
    if (body !== undefined) record.body = body;
    record.consultation_group = ctx.input.optionalText('consultation_group') ?? record.consultation_group;
    const notes = ctx.input.nullableText('notes');
    if (notes !== undefined) record.notes = notes;
    record.updated = ctx.now;
    return json(renderService(record));
  },
  'managed.services-delete': (ctx) => {
    ctx.world.services.delete(service(ctx).id);
    return empty();
  },
  'managed.services-disable': (ctx) => {
    const record = service(ctx);
    record.status = 'disabled';
    record.updated = ctx.now;
    return json(renderService(record));
  },
  'managed.services-enable': (ctx) => {
    const record = service(ctx);
    if (record.status === 'disabled') startMonitoring(ctx.world, record);
    record.updated = ctx.now;
    return json(renderService(record));
  },

  'managed.stats': (ctx) => json({ data: managedStats(ctx.now) }),
};
