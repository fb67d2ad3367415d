import { durationWords } from './field-words.js';
import { escapeMrkdwn } from './text.js';

/**
 * An account event (API-FACTS-MORE.md §8) as a line of an incident timeline: what it acted on,
 * by kind and label (`node *web-1*`), what happened to it in words (`resized`, `attached to node
 * *db-1*`), its status as a word and its duration with a unit. The events report and
 * `/cloud events list|view` both word events here, so an event reads the same wherever it shows.
 */

/** The parts of an event these words read; the API's `Event` has them all. */
export interface EventFacts {
  readonly action: string;
  readonly status: string;
  readonly entity?: EventEntity | null | undefined;
  readonly secondary_entity?: EventEntity | null | undefined;
  readonly duration?: number | null | undefined;
  readonly percent_complete?: number | null | undefined;
}

export interface EventEntity {
  readonly id?: number | string | null | undefined;
  readonly label?: string | null | undefined;
  readonly type?: string | null | undefined;
}

// ---------------------------------------------------------------------------------------------
// What it acted on

/**
 * The kinds of `entity.type` (§8's enum of 22) in words. `disks` and `backups` events carry the
 * node's id (§8); a disk event's label is the disk's.
 */
const ENTITY_KIND_WORDS: Readonly<Record<string, string>> = {
  account: 'the account',
  backups: 'node',
  community: 'community post',
  disks: 'disk',
  domain: 'domain',
  entity_transfer: 'service transfer',
  firewall: 'firewall',
  image: 'image',
  ipaddress: 'IP address',
  node: 'node',
  longview: 'Longview client',
  managed_service: 'managed service',
  nodebalancer: 'NodeBalancer',
  oauth_client: 'OAuth app',
  profile: 'profile',
  stackscript: 'StackScript',
  tag: 'tag',
  ticket: 'support ticket',
  token: 'API token',
  user: 'user',
  user_ssh_key: 'SSH key',
  volume: 'volume',
};

/** `SSH key`, `node`; a kind the enum does not list yet in words (`lke_cluster` → `lke cluster`). */
export function entityKindWords(type: string): string {
  return ENTITY_KIND_WORDS[type] ?? type.replace(/_/g, ' ');
}

/** The entity as a timeline names it: `node *web-1*`, `disk *boot* of node 12`, `the account`. */
export function entityWords(entity: EventEntity | null | undefined): { plain: string; mrkdwn: string } {
  const type = entity?.type ?? '';
  if (!entity || type === '' || type === 'account') return { plain: 'the account', mrkdwn: 'the account' };
  const kind = entityKindWords(type);
  const label = entity.label?.trim() ?? '';
  const id = entity.id === undefined || entity.id === null ? '' : String(entity.id);
  const name = label !== '' ? label : id;
  // Disk events carry the node's id with the disk's label (§8).
  const ofNode = type === 'disks' && id !== '' && label !== '' ? ` of node ${id}` : '';
  if (name === '') return { plain: kind, mrkdwn: escapeMrkdwn(kind) };
  return {
    plain: `${kind} ${name}${ofNode}`,
    mrkdwn: `${escapeMrkdwn(kind)} *${escapeMrkdwn(name).replace(/\*/g, '∗')}*${ofNode}`,
  };
}

// ---------------------------------------------------------------------------------------------
// What happened to it

/**
 * One action as a sentence about its subject: `{subject} {participle}{rest}`, where `{t}` is the
 * entity and `{s}` the secondary entity. The status makes the tense: `resized`, `is being resized`,
 * `will be resized`, `could not be resized`.
 */
interface ActionPhrase {
  readonly subject: string;
  readonly participle: string;
  readonly rest?: string;
  /** `{s}` is unknown: the rest to say instead. */
  readonly restWithout?: string;
  readonly plural?: boolean;
}

/**
 * Actions whose sentence is not `{entity} {verb}ed`. The secondary entity of `volume_attach` and
 * `volume_detach` is the node (the provider's own console words them "Volume X has been attached
 * to Linode Y" from `secondary_entity`, its public source `features/Events/factories/volume.tsx`).
 */
const ACTION_PHRASES: Readonly<Record<string, ActionPhrase>> = {
  node_resize_create: { subject: '{t}', participle: 'queued for a resize' },
  node_mutate_create: { subject: '{t}', participle: 'queued for an upgrade' },
  node_mutate: { subject: '{t}', participle: 'upgraded' },
  node_migrate: { subject: '{t}', participle: 'migrated to another host' },
  node_migrate_datacenter_create: { subject: '{t}', participle: 'queued for a move to another data center' },
  node_migrate_datacenter: { subject: '{t}', participle: 'moved to another data center' },
  node_snapshot: { subject: 'a snapshot', participle: 'taken', rest: ' of {t}' },
  node_addip: { subject: 'an IP address', participle: 'added', rest: ' to {t}' },
  node_deleteip: { subject: 'an IP address', participle: 'removed', rest: ' from {t}' },
  node_shutdown: { subject: '{t}', participle: 'shut down' },
  node_rebuild: { subject: '{t}', participle: 'rebuilt' },
  node_boot: { subject: '{t}', participle: 'booted' },
  node_reboot: { subject: '{t}', participle: 'rebooted' },
  host_reboot: { subject: '{t}', participle: 'rebooted', rest: ' by its host' },
  lassie_reboot: { subject: '{t}', participle: 'rebooted', rest: ' by the watchdog' },
  lish_boot: { subject: '{t}', participle: 'booted', rest: ' from the console' },
  password_reset: { subject: 'the root password', participle: 'reset', rest: ' on {t}' },
  backups_enable: { subject: 'backups', participle: 'turned on', rest: ' for {t}', plural: true },
  backups_cancel: { subject: 'backups', participle: 'cancelled', rest: ' for {t}', plural: true },
  backups_restore: { subject: 'a backup', participle: 'restored', rest: ' to {t}' },
  disk_imagize: { subject: '{t}', participle: 'made into an image' },
  volume_attach: { subject: '{t}', participle: 'attached', rest: ' to {s}', restWithout: ' to a node' },
  volume_detach: { subject: '{t}', participle: 'detached', rest: ' from {s}', restWithout: ' from its node' },
  volume_clone: { subject: '{t}', participle: 'cloned', rest: ' to {s}', restWithout: '' },
  user_ssh_key_add: { subject: '{t}', participle: 'added' },
  tfa_enabled: { subject: 'two-factor sign-in', participle: 'turned on', rest: ' for {t}' },
  tfa_disabled: { subject: 'two-factor sign-in', participle: 'turned off', rest: ' for {t}' },
  managed_enabled: { subject: 'Managed', participle: 'turned on', rest: ' for the account' },
  managed_disabled: { subject: 'Managed', participle: 'turned off', rest: ' for the account' },
  account_update: { subject: 'the account details', participle: 'updated', plural: true },
  account_settings_update: { subject: 'the account settings', participle: 'updated', plural: true },
  credit_card_updated: { subject: 'the credit card', participle: 'updated' },
  payment_method_add: { subject: 'a payment method', participle: 'added' },
  payment_submitted: { subject: 'a payment', participle: 'submitted' },
  firewall_device_add: { subject: '{s}', participle: 'added', rest: ' to {t}', restWithout: '' },
  firewall_device_remove: { subject: '{s}', participle: 'removed', rest: ' from {t}', restWithout: '' },
  entity_transfer_stale: { subject: '{t}', participle: 'expired' },
  entity_transfer_fail: { subject: '{t}', participle: 'failed' },
  community_question_reply: { subject: '{t}', participle: 'answered' },
  community_like: { subject: '{t}', participle: 'liked' },
  ticket_attachment_upload: { subject: 'an attachment', participle: 'uploaded', rest: ' to {t}' },
};

/** The last word of an action as a participle: `create` → `created`. */
const PARTICIPLES: Readonly<Record<string, string>> = {
  accept: 'accepted',
  add: 'added',
  attach: 'attached',
  boot: 'booted',
  cancel: 'cancelled',
  clone: 'cloned',
  create: 'created',
  delete: 'deleted',
  detach: 'detached',
  disable: 'disabled',
  duplicate: 'duplicated',
  enable: 'enabled',
  import: 'imported',
  publicize: 'made public',
  reboot: 'rebooted',
  remove: 'removed',
  reset: 'reset',
  resize: 'resized',
  restore: 'restored',
  revise: 'revised',
  update: 'updated',
  upload: 'uploaded',
};

/** `config` in `node_config_create`, `dns record`: the part an action names below its entity. */
const PART_WORDS: Readonly<Record<string, string>> = {
  config: 'configuration profile',
  'dns record': 'DNS record',
  'dns zone': 'DNS zone',
  'secret reset': 'secret',
  'obj access key': 'Object Storage key',
};

/**
 * The phrase of any action: from the table, else from its words: `volume_resize` on a volume →
 * `{t} resized`; `node_config_create` on a node → `configuration profile created on {t}`; an
 * action with no known verb → `{t}: <action in words>`.
 */
function phraseOf(action: string, entityType: string): ActionPhrase {
  const known = ACTION_PHRASES[action];
  if (known) return known;
  const words = action.split('_');
  const verb = words.at(-1) ?? '';
  const participle = PARTICIPLES[verb];
  if (participle === undefined) return { subject: '{t}', participle: action.replace(/_/g, ' ') };
  const typeWords = (entityType === 'disks' ? 'disk' : entityType).split('_');
  let part = words.slice(0, -1);
  if (typeWords.every((word, i) => part[i] === word)) part = part.slice(typeWords.length);
  if (part.length === 0) return { subject: '{t}', participle };
  const joined = part.join(' ');
  const subject = PART_WORDS[joined] ?? joined;
  return { subject: `a ${subject}`, participle, rest: ' on {t}' };
}

/** The tense a status gives: done, under way, to come, or failed (§8's five statuses). */
function tensed(phrase: ActionPhrase, status: string): string {
  const be = phrase.plural ? 'are' : 'is';
  switch (status) {
    case 'started':
      return `${be} being ${phrase.participle}`;
    case 'scheduled':
      return `will be ${phrase.participle}`;
    case 'failed':
      return `could not be ${phrase.participle}`;
    default:
      return phrase.participle;
  }
}

/**
 * What happened, as a sentence starting in lower case: `node *web-1* resized`, `volume *data*
 * attached to node *web-1*`, `node *web-1* is being resized`, `node *web-1* could not be resized`.
 */
export function eventSentence(event: EventFacts): { plain: string; mrkdwn: string } {
  const target = entityWords(event.entity);
  const secondary = event.secondary_entity?.type ? entityWords(event.secondary_entity) : undefined;
  const phrase = phraseOf(event.action, event.entity?.type ?? '');
  const write = (t: string, s: string | undefined): string => {
    const rest =
      s === undefined && phrase.restWithout !== undefined ? phrase.restWithout : (phrase.rest ?? '');
    const subject = phrase.subject.replace('{t}', t).replace('{s}', s ?? 'a device');
    return `${subject} ${tensed(phrase, event.status)}${rest.replace('{t}', t).replace('{s}', s ?? '')}`;
  };
  const plain = write(target.plain, secondary?.plain);
  const mrkdwn = write(target.mrkdwn, secondary?.mrkdwn);
  return { plain, mrkdwn };
}

// ---------------------------------------------------------------------------------------------
// Status, duration, progress

/** §8's statuses in words, each with its emoji: never a bare `finished` under a question mark. */
const STATUS_WORDS: Readonly<Record<string, { readonly emoji: string; readonly words: string }>> = {
  failed: { emoji: ':x:', words: 'failed' },
  finished: { emoji: ':white_check_mark:', words: 'done' },
  started: { emoji: ':arrows_counterclockwise:', words: 'in progress' },
  scheduled: { emoji: ':calendar:', words: 'scheduled' },
  notification: { emoji: ':bell:', words: 'notice' },
};

/** `:white_check_mark: done`, `:arrows_counterclockwise: in progress, 40% done`. */
export function eventStatusWords(event: Pick<EventFacts, 'status' | 'percent_complete'>): string {
  const known = STATUS_WORDS[event.status];
  const words = known?.words ?? escapeMrkdwn(event.status.replace(/_/g, ' '));
  const progress =
    event.status === 'started' && typeof event.percent_complete === 'number'
      ? `, ${event.percent_complete}% done`
      : '';
  return `${known?.emoji ?? ':information_source:'} ${words}${progress}`;
}

/** The emoji of an event's status alone. */
export function eventStatusEmoji(status: string): string {
  return STATUS_WORDS[status]?.emoji ?? ':information_source:';
}

/** `took 2 min 5 s`; nothing for an event still under way or one the API gives no duration. */
export function eventDurationWords(event: Pick<EventFacts, 'status' | 'duration'>): string | undefined {
  if (event.status === 'started' || event.status === 'scheduled') return undefined;
  if (typeof event.duration !== 'number' || !Number.isFinite(event.duration)) return undefined;
  return `took ${durationWords(event.duration)}`;
}
