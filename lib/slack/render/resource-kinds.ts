import type { DatabaseEngineAction, OperationId } from '../../api/operations/index.js';
import { enumWords } from '../../slack-kit/enum-words.js';
import {
  type EventEntity,
  type EventFacts,
  eventDurationWords,
  eventSentence,
  eventStatusWords,
} from '../../slack-kit/event-words.js';
import {
  fieldValue,
  issueTitle,
  quantityWords,
  serviceName,
  typeSizeWords,
} from '../../slack-kit/field-words.js';
import {
  capitalize,
  codeSpan,
  countOf,
  escapeMrkdwn,
  formatMegabytes,
  link,
  slackDate,
  statusText,
  type TimeStyle,
} from '../../slack-kit/text.js';
import { dollars } from './cost.js';
import { booleanAt, type Item, idOf, numberAt, stringAt, stringsAt, titleOf, valueAt } from './items.js';
import type { PathValue, ResourceRef } from './related-operations.js';

/**
 * What the renderers know about each kind of resource, as data: what it is called, which facts make
 * a compact list row, which fields a detail view leads with, and which next actions it offers.
 * Kinds are found by route (the operation's path with parameter names blanked), so they cover every
 * operation of an area without naming operation ids.
 */

/** A label and an already formatted mrkdwn value. */
export type Field = readonly [string, string];

/**
 * The operation a next action runs: its id, or for kinds both database engines share, the action
 * that follows `databases.<engine>-` (the engine is the item's own).
 */
export type NextOperation = OperationId | { readonly engine: DatabaseEngineAction };

export interface NextAction {
  readonly label: string;
  readonly operation: NextOperation;
  /** Path values for an operation of another resource (a config boots its node); default: the item's. */
  readonly values?: (item: Item, ref: ResourceRef) => PathValue[];
  /** Input beyond the path parameters. */
  readonly extra?: (item: Item, ref: ResourceRef) => Record<string, unknown>;
  readonly when?: (item: Item) => boolean;
  /**
   * The operation needs more input than the ids (a snapshot label, the node to attach to). The
   * button sends what is known and the listener asks for the rest with the operation's form.
   */
  readonly form?: boolean;
  /** Also offered in the overflow menu of list rows (never for destructive operations). */
  readonly inMenu?: boolean;
}

export interface ResourceKind {
  readonly key: string;
  readonly noun: string;
  readonly plural: string;
  /** The collection route, anchored. */
  readonly collection: RegExp;
  /** Only the collection route itself belongs to the kind (profile, stats), not routes below it. */
  readonly singleton?: boolean;
  readonly title?: (item: Item) => string | undefined;
  /** The facts of a compact list row, each formatted mrkdwn. */
  readonly rowFacts?: (item: Item) => string[];
  /** The fields a detail view leads with. */
  readonly fields?: (item: Item) => Field[];
  /** Top-level keys the generic rest of a detail view leaves out (shown by `fields`, or noise). */
  readonly omit?: readonly string[];
  readonly actions?: readonly NextAction[];
  /** The item route of a listed item when it differs from collection + `/{}` (databases of every engine). */
  readonly itemRoute?: (item: Item, collectionRoute: string) => string | undefined;
  /** Past tense of DELETE for this kind (`revoked` for tokens). */
  readonly deleted?: string;
}

// ---------------------------------------------------------------------------------------------
// Formatting of common facts

function fact(value: string | undefined, format: (v: string) => string = escapeMrkdwn): string[] {
  return value === undefined ? [] : [format(value)];
}

/**
 * The item's `size` in words with its unit for `kind` (`20 GB`), when it has one: words of the
 * bot's own, shown as they are (`fact(sizeAt(…), String)`).
 */
function sizeAt(item: Item, kind: string): string | undefined {
  const size = numberAt(item, 'size');
  return size === undefined ? undefined : quantityWords(size, 'size', kind);
}

/** An enum value of the API in words (`asynch` → `asynchronous`), as a row fact. */
function enumFact(item: Item, key: string): string[] {
  return fact(enumAt(item, key));
}

/** An enum value of the API in words, plain text. */
function enumAt(item: Item, key: string): string | undefined {
  const value = stringAt(item, key);
  return value === undefined ? undefined : enumWords(key, value);
}

function status(item: Item, path = 'status'): string[] {
  return fact(stringAt(item, path), statusText);
}

/** A row fact such as `taken 2 days ago`: in a list, how long ago says more than the hour. */
function date(item: Item, path: string, label: string, style: TimeStyle = 'ago'): string[] {
  const value = stringAt(item, path);
  return value ? [`${label} ${slackDate(value, style)}`] : [];
}

/** An event of `/account/events` read for its words, whatever shape it came in. */
function eventFactsOf(e: Item): EventFacts {
  const entityOf = (path: string): EventEntity | undefined => {
    const type = stringAt(e, `${path}.type`);
    if (type === undefined) return undefined;
    const id = valueAt(e, `${path}.id`);
    return {
      type,
      label: stringAt(e, `${path}.label`) ?? null,
      id: typeof id === 'number' || typeof id === 'string' ? id : null,
    };
  };
  return {
    action: stringAt(e, 'action') ?? 'unknown',
    status: stringAt(e, 'status') ?? 'unknown',
    entity: entityOf('entity'),
    secondary_entity: entityOf('secondary_entity'),
    duration: numberAt(e, 'duration') ?? null,
    percent_complete: numberAt(e, 'percent_complete') ?? null,
  };
}

/** Who made an event, as the API names them: `by demo`, or the provider's own work (no user). */
function eventMaker(e: Item): string {
  const username = stringAt(e, 'username');
  return username === undefined ? 'by the provider (no user)' : `by ${escapeMrkdwn(username)}`;
}

function field(label: string, value: string | undefined): Field[] {
  return value === undefined ? [] : [[label, value]];
}

function scalarField(item: Item, path: string, label: string): Field[] {
  const value = valueAt(item, path);
  if (value === undefined) return [];
  return field(label, fieldValue(value, path.split('.').at(-1)));
}

function dateField(item: Item, path: string, label: string): Field[] {
  const value = stringAt(item, path);
  return field(label, value ? slackDate(value) : undefined);
}

function expiry(item: Item): string {
  const value = stringAt(item, 'expiry');
  return value ? `expires ${slackDate(value, 'at')}` : 'never expires';
}

function scopes(item: Item): string[] {
  const value = stringAt(item, 'scopes');
  if (!value) return [];
  return [value === '*' ? 'all scopes' : value.split(/\s+/).map(codeSpan).join(' ')];
}

/** An SSH public key by its type and comment: the key itself is long and not what people scan for. */
function sshKeySummary(key: string | undefined): string | undefined {
  if (!key) return undefined;
  const [type, body, ...comment] = key.trim().split(/\s+/);
  const tail = body ? `…${body.slice(-8)}` : '';
  return escapeMrkdwn([type, tail, comment.join(' ')].filter(Boolean).join(' '));
}

/**
 * The ticket an issue opened, by number (its subject is the issue's title), linked only when the
 * API gives an absolute address; relative ones lead nowhere in Slack.
 */
function ticket(item: Item): string | undefined {
  const id = numberAt(item, 'entity.id');
  const url = stringAt(item, 'entity.url');
  if (id === undefined) return undefined;
  return url && /^https?:\/\//.test(url) ? link(url, `#${id}`) : `#${id}`;
}

/** The services an issue affects; only their ids are known here (`service 9942`). */
function issueServices(item: Item): string[] {
  const services = valueAt(item, 'services');
  if (!Array.isArray(services)) return [];
  return services
    .filter((id): id is number => typeof id === 'number')
    .map((id) => escapeMrkdwn(serviceName(id)));
}

function isPrivateImage(item: Item): boolean {
  const id = idOf(item);
  return typeof id === 'string' && id.startsWith('private/');
}

/** `$5.48/month ($0.0075/hour)` from a `{hourly, monthly}` price in US dollars (API-FACTS-MORE.md §5). */
function monthlyPrice(item: Item, path: string): string | undefined {
  const monthly = numberAt(item, `${path}.monthly`);
  const hourly = numberAt(item, `${path}.hourly`);
  if (monthly === undefined) return undefined;
  return `${dollars(monthly)}/month${hourly === undefined ? '' : ` (${dollars(hourly)}/hour)`}`;
}

/** `ap-south $6.58/month`: the regions whose price differs from the default. */
function regionPrices(item: Item, path: string): string | undefined {
  const prices = valueAt(item, path);
  if (!Array.isArray(prices) || prices.length === 0) return undefined;
  return prices
    .filter((price): price is Item => typeof price === 'object' && price !== null && !Array.isArray(price))
    .map((price) => {
      const monthly = numberAt(price, 'monthly');
      return `${escapeMrkdwn(stringAt(price, 'id') ?? '?')} ${monthly === undefined ? '—' : `${dollars(monthly)}/month`}`;
    })
    .join(', ');
}

/** `1 CPU, 1 GB RAM, 25 GB disk` for a node type (disk and memory in MB, §5). */
function nodeTypeSize(t: Item): string | undefined {
  return typeSizeWords({
    vcpus: numberAt(t, 'vcpus'),
    memoryMb: numberAt(t, 'memory'),
    diskMb: numberAt(t, 'disk'),
  });
}

/**
 * A database type's engines in words, each from its cheapest plan: `MySQL from $8.03/month,
 * PostgreSQL from $8.03/month`; the engine names are the API's enum (`mysql`), worded.
 */
function databaseTypeEngines(t: Item): string | undefined {
  const engines = valueAt(t, 'engines');
  if (typeof engines !== 'object' || engines === null || Array.isArray(engines)) return undefined;
  const words = Object.entries(engines).map(([engine, plans]) => {
    const monthly = Array.isArray(plans)
      ? plans
          .map((plan) =>
            typeof plan === 'object' && plan !== null ? numberAt(plan as Item, 'price.monthly') : undefined,
          )
          .filter((price): price is number => price !== undefined)
      : [];
    const name = escapeMrkdwn(enumWords('engine', engine));
    return monthly.length === 0 ? name : `${name} from ${dollars(Math.min(...monthly))}/month`;
  });
  return words.length > 0 ? words.join(', ') : undefined;
}

const parentValue = (_item: Item, ref: ResourceRef) => ref.values.slice(0, 1);

// ---------------------------------------------------------------------------------------------
// The kinds

const remove = (operation: NextOperation): NextAction => ({ label: 'Delete', operation });
const revoke = (operation: NextOperation): NextAction => ({ label: 'Revoke', operation });

export const RESOURCE_KINDS: readonly ResourceKind[] = [
  {
    key: 'node',
    noun: 'node',
    plural: 'nodes',
    collection: /^\/node\/instances$/,
    rowFacts: (n) => [
      ...status(n),
      ...fact(stringAt(n, 'region')),
      ...enumFact(n, 'type'),
      ...fact(stringsAt(n, 'ipv4')[0]),
    ],
    fields: (n) => [
      ...field('Status', status(n)[0]),
      ...scalarField(n, 'region', 'Region'),
      ...scalarField(n, 'type', 'Type'),
      ...scalarField(n, 'image', 'Image'),
      ...scalarField(n, 'ipv4', 'IPv4'),
      ...scalarField(n, 'ipv6', 'IPv6'),
      ...field(
        'Specs',
        numberAt(n, 'specs.vcpus') === undefined
          ? undefined
          : `${countOf(numberAt(n, 'specs.vcpus') ?? 0, 'vCPU')} · ${formatMegabytes(numberAt(n, 'specs.memory') ?? 0)} RAM · ${formatMegabytes(numberAt(n, 'specs.disk') ?? 0)} disk`,
      ),
      ...field(
        'Backups',
        booleanAt(n, 'backups.enabled') === undefined
          ? undefined
          : booleanAt(n, 'backups.enabled')
            ? `enabled${stringAt(n, 'backups.last_successful') ? `, last ${slackDate(stringAt(n, 'backups.last_successful') ?? '', 'ago')}` : ''}`
            : 'not enabled',
      ),
      ...scalarField(n, 'tags', 'Tags'),
      ...dateField(n, 'created', 'Created'),
    ],
    omit: [
      'status',
      'region',
      'type',
      'image',
      'ipv4',
      'ipv6',
      'specs',
      'backups',
      'tags',
      'created',
      'alerts',
      'host_uuid',
    ],
    actions: [
      {
        label: 'Boot',
        operation: 'nodes.boot',
        inMenu: true,
        when: (n) => stringAt(n, 'status') !== 'running',
      },
      { label: 'Backups', operation: 'nodes.backups-list', inMenu: true },
      { label: 'Configs', operation: 'nodes.configs-list', inMenu: true },
      { label: 'Snapshot', operation: 'nodes.snapshot', form: true, inMenu: true },
      {
        label: 'Enable backups',
        operation: 'nodes.backups-enable',
        when: (n) => booleanAt(n, 'backups.enabled') === false,
      },
      remove('nodes.delete'),
    ],
  },
  {
    key: 'node-backup',
    noun: 'backup',
    plural: 'backups',
    collection: /^\/node\/instances\/\{\}\/backups$/,
    title: (b) =>
      stringAt(b, 'label') ??
      `${stringAt(b, 'type') === 'snapshot' ? 'Snapshot' : 'Automatic backup'} ${idOf(b) ?? ''}`.trim(),
    rowFacts: (b) => [
      ...status(b),
      ...enumFact(b, 'type'),
      ...date(b, 'created', 'taken'),
      ...(booleanAt(b, 'available') === false ? ['under maintenance'] : []),
    ],
    actions: [
      {
        label: 'Restore to this node',
        operation: 'nodes.backups-restore',
        extra: (_b, ref) => ({ node_id: ref.values[0] }),
        when: (b) => stringAt(b, 'status') === 'successful',
      },
    ],
  },
  {
    key: 'config',
    noun: 'config',
    plural: 'configs',
    collection: /^\/node\/instances\/\{\}\/configs$/,
    rowFacts: (c) => [
      ...fact(stringAt(c, 'kernel'), codeSpan),
      ...enumFact(c, 'virt_mode'),
      ...fact(stringAt(c, 'root_device'), codeSpan),
      ...(numberAt(c, 'memory_limit') ? [`${formatMegabytes(numberAt(c, 'memory_limit') ?? 0)} limit`] : []),
    ],
    actions: [
      {
        label: 'Boot with this config',
        operation: 'nodes.boot',
        values: parentValue,
        extra: (c) => ({ config_id: idOf(c) }),
        inMenu: true,
      },
      remove('nodes.configs-delete'),
    ],
  },
  {
    key: 'volume',
    noun: 'volume',
    plural: 'volumes',
    collection: /^\/volumes$/,
    rowFacts: (v) => [
      ...status(v),
      ...fact(sizeAt(v, 'volume'), String),
      ...fact(stringAt(v, 'region')),
      numberAt(v, 'node_id') === undefined
        ? 'not attached'
        : `attached to ${escapeMrkdwn(stringAt(v, 'node_label') ?? 'node')} (${numberAt(v, 'node_id')})`,
    ],
    fields: (v) => [
      ...field('Status', status(v)[0]),
      ...field('Size', sizeAt(v, 'volume')),
      ...scalarField(v, 'region', 'Region'),
      ...field(
        'Attached to',
        numberAt(v, 'node_id') === undefined
          ? 'nothing'
          : `${escapeMrkdwn(stringAt(v, 'node_label') ?? 'node')} (${numberAt(v, 'node_id')})`,
      ),
      ...scalarField(v, 'filesystem_path', 'Filesystem path'),
      ...scalarField(v, 'hardware_type', 'Hardware'),
      ...scalarField(v, 'tags', 'Tags'),
      ...dateField(v, 'created', 'Created'),
    ],
    omit: [
      'status',
      'size',
      'region',
      'node_id',
      'node_label',
      'filesystem_path',
      'hardware_type',
      'tags',
      'created',
    ],
    actions: [
      {
        label: 'Detach',
        operation: 'volumes.detach',
        inMenu: true,
        when: (v) => numberAt(v, 'node_id') !== undefined,
      },
      {
        label: 'Attach',
        operation: 'volumes.attach',
        form: true,
        when: (v) => numberAt(v, 'node_id') === undefined,
      },
      remove('volumes.delete'),
    ],
  },
  {
    key: 'image',
    noun: 'image',
    plural: 'images',
    collection: /^\/images$/,
    rowFacts: (i) => [
      ...status(i),
      ...(numberAt(i, 'size') === undefined ? [] : [formatMegabytes(numberAt(i, 'size') ?? 0)]),
      booleanAt(i, 'is_public') ? 'public' : 'private',
      ...(booleanAt(i, 'deprecated') ? ['deprecated'] : []),
    ],
    fields: (i) => [
      ...field('Id', typeof idOf(i) === 'string' ? codeSpan(String(idOf(i))) : undefined),
      ...field('Status', status(i)[0]),
      ...(numberAt(i, 'size') === undefined ? [] : field('Size', formatMegabytes(numberAt(i, 'size') ?? 0))),
      ...scalarField(i, 'vendor', 'Vendor'),
      ...scalarField(i, 'capabilities', 'Capabilities'),
      ...scalarField(i, 'created_by', 'Created by'),
      ...dateField(i, 'created', 'Created'),
      ...dateField(i, 'eol', 'End of life'),
      ...dateField(i, 'expiry', 'Expires'),
      ...scalarField(i, 'description', 'Description'),
    ],
    omit: [
      'id',
      'status',
      'size',
      'vendor',
      'capabilities',
      'created_by',
      'created',
      'eol',
      'expiry',
      'description',
    ],
    actions: [{ ...remove('images.delete'), when: isPrivateImage }],
  },
  {
    key: 'database',
    noun: 'database',
    plural: 'databases',
    collection: /^\/databases\/(?:(?:mysql|postgresql)\/)?instances$/,
    rowFacts: (d) => [
      ...status(d),
      ...fact([enumAt(d, 'engine'), stringAt(d, 'version')].filter(Boolean).join(' ') || undefined),
      ...fact(stringAt(d, 'region')),
      ...(numberAt(d, 'cluster_size') === undefined
        ? []
        : [countOf(numberAt(d, 'cluster_size') ?? 0, 'node')]),
    ],
    fields: (d) => [
      ...field('Status', status(d)[0]),
      ...fact([enumAt(d, 'engine'), stringAt(d, 'version')].filter(Boolean).join(' ') || undefined).map(
        (engine): Field => ['Engine', engine],
      ),
      ...scalarField(d, 'region', 'Region'),
      ...scalarField(d, 'type', 'Type'),
      ...scalarField(d, 'cluster_size', 'Cluster size'),
      ...scalarField(d, 'hosts.primary', 'Primary host'),
      ...scalarField(d, 'hosts.secondary', 'Private host'),
      ...scalarField(d, 'port', 'Port'),
      ...field(
        'Allowed addresses',
        stringsAt(d, 'allow_list').length === 0
          ? 'none (all connections blocked)'
          : fieldValue(stringsAt(d, 'allow_list')),
      ),
      ...scalarField(d, 'encrypted', 'Encrypted'),
      ...scalarField(d, 'ssl_connection', 'SSL required'),
      ...dateField(d, 'created', 'Created'),
    ],
    omit: [
      'status',
      'engine',
      'version',
      'region',
      'type',
      'cluster_size',
      'hosts',
      'port',
      'allow_list',
      'encrypted',
      'ssl_connection',
      'created',
      'instance_uri',
    ],
    itemRoute: (d, collectionRoute) => {
      const engine = stringAt(d, 'engine');
      if (collectionRoute !== '/databases/instances') return `${collectionRoute}/{}`;
      return engine === 'mysql' || engine === 'postgresql' ? `/databases/${engine}/instances/{}` : undefined;
    },
    actions: [
      { label: 'Backups', operation: { engine: 'backups-list' }, inMenu: true },
      { label: 'SSL cert', operation: { engine: 'ssl-cert' }, inMenu: true },
      { label: 'Credentials (private)', operation: { engine: 'creds-view' } },
      { label: 'Snapshot', operation: { engine: 'backup-snapshot' }, form: true },
      { label: 'Reset credentials', operation: { engine: 'creds-reset' } },
      remove({ engine: 'delete' }),
    ],
  },
  {
    key: 'database-backup',
    noun: 'backup',
    plural: 'backups',
    collection: /^\/databases\/(?:mysql|postgresql)\/instances\/\{\}\/backups$/,
    rowFacts: (b) => [...enumFact(b, 'type'), ...date(b, 'created', 'taken')],
    actions: [
      { label: 'Restore', operation: { engine: 'backup-restore' } },
      remove({ engine: 'backup-delete' }),
    ],
  },
  {
    key: 'database-engine',
    noun: 'engine',
    plural: 'database engines',
    collection: /^\/databases\/engines$/,
    title: (e) => [enumAt(e, 'engine'), stringAt(e, 'version')].filter(Boolean).join(' ') || undefined,
    rowFacts: (e) => fact(typeof idOf(e) === 'string' ? String(idOf(e)) : undefined, codeSpan),
  },
  {
    key: 'database-type',
    noun: 'type',
    plural: 'database types',
    collection: /^\/databases\/types$/,
    rowFacts: (t) => {
      const monthly =
        numberAt(t, 'engines.mysql.0.price.monthly') ?? numberAt(t, 'engines.postgresql.0.price.monthly');
      return [
        ...fact(typeof idOf(t) === 'string' ? String(idOf(t)) : undefined, codeSpan),
        ...(numberAt(t, 'vcpus') === undefined ? [] : [countOf(numberAt(t, 'vcpus') ?? 0, 'vCPU')]),
        ...(numberAt(t, 'memory') === undefined
          ? []
          : [`${formatMegabytes(numberAt(t, 'memory') ?? 0)} RAM`]),
        ...(numberAt(t, 'disk') === undefined ? [] : [`${formatMegabytes(numberAt(t, 'disk') ?? 0)} disk`]),
        ...(monthly === undefined ? [] : [`from ${dollars(monthly)}/month`]),
        ...(booleanAt(t, 'deprecated') ? ['deprecated'] : []),
      ];
    },
    fields: (t) => [...field('Engines', databaseTypeEngines(t))],
    omit: ['engines'],
  },
  {
    key: 'node-type',
    noun: 'node type',
    plural: 'node types',
    collection: /^\/node\/types$/,
    rowFacts: (t) => [
      ...enumFact(t, 'class'),
      ...fact(nodeTypeSize(t), (size) => size),
      ...fact(monthlyPrice(t, 'price'), (price) => price),
    ],
    fields: (t) => [
      ...field('Price', monthlyPrice(t, 'price')),
      ...field('Backups add-on', monthlyPrice(t, 'addons.backups.price')),
      ...field('Prices in other regions', regionPrices(t, 'region_prices')),
    ],
    omit: ['price', 'addons', 'region_prices'],
  },
  {
    key: 'disk',
    noun: 'disk',
    plural: 'disks',
    collection: /^\/node\/instances\/\{\}\/disks$/,
    rowFacts: (d) => [...status(d), ...fact(sizeAt(d, 'disk'), String), ...enumFact(d, 'filesystem')],
    actions: [
      { label: 'Resize', operation: 'nodes.disks-resize', form: true, inMenu: true },
      remove('nodes.disks-delete'),
    ],
  },
  {
    // A node's volumes are volumes (API-FACTS-MORE.md §3.4), read under the node's path: their facts
    // and View are a volume's, and no action of the node is offered on them.
    key: 'node-volume',
    noun: 'volume',
    plural: 'volumes',
    collection: /^\/node\/instances\/\{\}\/volumes$/,
    rowFacts: (v) => [...status(v), ...fact(sizeAt(v, 'volume'), String), ...fact(stringAt(v, 'region'))],
    itemRoute: () => '/volumes/{}',
    actions: [
      {
        label: 'Detach',
        operation: 'volumes.detach',
        values: (v) => (idOf(v) === undefined ? [] : [idOf(v) as PathValue]),
        inMenu: true,
      },
    ],
  },
  {
    key: 'token',
    noun: 'token',
    plural: 'tokens',
    collection: /^\/profile\/tokens$/,
    rowFacts: (t) => [...scopes(t), expiry(t), ...date(t, 'created', 'created')],
    fields: (t) => [
      ...field('Scopes', scopes(t)[0]),
      ...field('Expiry', expiry(t)),
      ...dateField(t, 'created', 'Created'),
    ],
    omit: ['scopes', 'expiry', 'created', 'token'],
    actions: [revoke('profile.tokens-delete')],
    deleted: 'revoked',
  },
  {
    key: 'ssh-key',
    noun: 'SSH key',
    plural: 'SSH keys',
    collection: /^\/profile\/sshkeys$/,
    rowFacts: (k) => [
      ...fact(sshKeySummary(stringAt(k, 'ssh_key')), (s) => s),
      ...date(k, 'created', 'added'),
    ],
    actions: [remove('profile.sshkeys-delete')],
  },
  {
    key: 'app',
    noun: 'authorized app',
    plural: 'authorized apps',
    collection: /^\/profile\/apps$/,
    rowFacts: (a) => [...scopes(a), expiry(a), ...fact(stringAt(a, 'website'))],
    // Scopes are the API's names (`nodes:read_only`), shown as code as a token's are.
    fields: (a) => [...field('Scopes', scopes(a)[0])],
    omit: ['scopes'],
    actions: [revoke('profile.apps-revoke')],
    deleted: 'revoked',
  },
  {
    key: 'device',
    noun: 'trusted device',
    plural: 'trusted devices',
    collection: /^\/profile\/devices$/,
    title: (d) => `Device ${idOf(d) ?? ''}`.trim(),
    rowFacts: (d) => [
      ...date(d, 'last_authenticated', 'last used'),
      ...fact(stringAt(d, 'last_remote_addr')),
      expiry(d),
      ...fact(stringAt(d, 'user_agent')?.trim().slice(0, 80)),
    ],
    actions: [revoke('profile.devices-revoke')],
    deleted: 'revoked',
  },
  {
    key: 'login',
    noun: 'login',
    plural: 'logins',
    collection: /^\/profile\/logins$/,
    rowFacts: (l) => [
      ...status(l),
      ...date(l, 'datetime', 'at', 'moment'),
      ...fact(stringAt(l, 'ip')),
      ...(booleanAt(l, 'restricted') ? ['restricted'] : []),
    ],
  },
  {
    key: 'contact',
    noun: 'contact',
    plural: 'managed contacts',
    collection: /^\/managed\/contacts$/,
    rowFacts: (c) => [
      ...fact(stringAt(c, 'email')),
      ...fact(stringAt(c, 'phone.primary')),
      ...fact(stringAt(c, 'group'), (g) => `group ${escapeMrkdwn(g)}`),
    ],
    actions: [remove('managed.contacts-delete')],
  },
  {
    key: 'credential',
    noun: 'credential',
    plural: 'managed credentials',
    collection: /^\/managed\/credentials$/,
    rowFacts: (c) => {
      const decrypted = stringAt(c, 'last_decrypted');
      return [decrypted ? `last decrypted ${slackDate(decrypted, 'ago')}` : 'never decrypted'];
    },
    actions: [remove('managed.credentials-delete')],
  },
  {
    key: 'event',
    noun: 'event',
    plural: 'events',
    collection: /^\/account\/events$/,
    title: (e) => capitalize(eventSentence(eventFactsOf(e)).plain),
    rowFacts: (e) => [
      eventStatusWords(eventFactsOf(e)),
      eventMaker(e),
      ...date(e, 'created', 'at'),
      ...fact(eventDurationWords(eventFactsOf(e)), (d) => d),
    ],
    fields: (e) => [
      ['What happened', capitalize(eventSentence(eventFactsOf(e)).mrkdwn)],
      ['Status', eventStatusWords(eventFactsOf(e))],
      ['By', capitalize(eventMaker(e))],
      ...dateField(e, 'created', 'When'),
      ...field('Duration', eventDurationWords(eventFactsOf(e))?.replace(/^took /, '')),
      ...scalarField(e, 'rate', 'Rate'),
      ...scalarField(e, 'time_remaining', 'Time remaining'),
      ...scalarField(e, 'message', 'Message'),
    ],
    omit: [
      'action',
      'entity',
      'secondary_entity',
      'status',
      'username',
      'created',
      'duration',
      'percent_complete',
      'rate',
      'time_remaining',
      'message',
    ],
  },
  {
    key: 'issue',
    noun: 'issue',
    plural: 'managed issues',
    collection: /^\/managed\/issues$/,
    title: (i) => issueTitle(i),
    rowFacts: (i) => {
      const services = issueServices(i);
      return [
        ...date(i, 'created', 'opened'),
        ...(services.length > 0 ? [`affects ${services.join(', ')}`] : []),
        ...fact(ticket(i), (t) => `ticket ${t}`),
      ];
    },
    fields: (i) => [
      ...dateField(i, 'created', 'Opened'),
      ...field(
        issueServices(i).length === 1 ? 'Service' : 'Services',
        issueServices(i).length > 0 ? issueServices(i).join(', ') : undefined,
      ),
      ...field('Ticket', ticket(i)),
    ],
    omit: ['created', 'services', 'entity'],
  },
  {
    key: 'node-settings',
    noun: 'node settings',
    plural: 'managed node settings',
    collection: /^\/managed\/node-settings$/,
    rowFacts: (s) => [
      `SSH ${escapeMrkdwn(stringAt(s, 'ssh.user') ?? 'root')}@${escapeMrkdwn(stringAt(s, 'ssh.ip') ?? '?')}:${numberAt(s, 'ssh.port') ?? 22}`,
      booleanAt(s, 'ssh.access') ? 'access on' : 'access off',
      ...fact(stringAt(s, 'group'), (g) => `group ${escapeMrkdwn(g)}`),
    ],
    actions: [
      {
        label: 'View node',
        operation: 'nodes.view',
        values: (s) => (idOf(s) === undefined ? [] : [idOf(s) as PathValue]),
      },
    ],
  },
  {
    key: 'service',
    noun: 'service',
    plural: 'managed services',
    collection: /^\/managed\/services$/,
    rowFacts: (s) => [
      ...status(s),
      ...enumFact(s, 'service_type'),
      ...fact(stringAt(s, 'address')),
      ...(numberAt(s, 'timeout') === undefined ? [] : [`timeout ${numberAt(s, 'timeout')} s`]),
    ],
    actions: [
      {
        label: 'Disable',
        operation: 'managed.services-disable',
        inMenu: true,
        when: (s) => stringAt(s, 'status') !== 'disabled',
      },
      {
        label: 'Enable',
        operation: 'managed.services-enable',
        inMenu: true,
        when: (s) => stringAt(s, 'status') === 'disabled',
      },
      remove('managed.services-delete'),
    ],
  },
  // Singletons: one object per route, rendered by their own views in detail.ts.
  { key: 'profile', noun: 'profile', plural: 'profiles', collection: /^\/profile$/, singleton: true },
  { key: 'grants', noun: 'grants', plural: 'grants', collection: /^\/profile\/grants$/, singleton: true },
  {
    key: 'security-questions',
    noun: 'security questions',
    plural: 'security questions',
    collection: /^\/profile\/security-questions$/,
    singleton: true,
  },
  {
    key: 'preferences',
    noun: 'preferences',
    plural: 'preferences',
    collection: /^\/profile\/preferences$/,
    singleton: true,
  },
  {
    key: 'phone-number',
    noun: 'phone number',
    plural: 'phone numbers',
    collection: /^\/profile\/phone-number$/,
    singleton: true,
  },
  {
    key: 'managed-ssh-key',
    noun: 'managed SSH key',
    plural: 'managed SSH keys',
    collection: /^\/managed\/credentials\/sshkey$/,
    singleton: true,
  },
  { key: 'stats', noun: 'stats', plural: 'stats', collection: /^\/managed\/stats$/, singleton: true },
  {
    key: 'node-ips',
    noun: 'IP addresses',
    plural: 'IP addresses',
    collection: /^\/node\/instances\/\{\}\/ips$/,
    singleton: true,
  },
  {
    key: 'node-transfer',
    noun: 'transfer',
    plural: 'transfer',
    collection: /^\/node\/instances\/\{\}\/transfer$/,
    singleton: true,
  },
  {
    key: 'node-stats',
    noun: 'stats',
    plural: 'stats',
    collection: /^\/node\/instances\/\{\}\/stats$/,
    singleton: true,
  },
  {
    key: 'database-ssl',
    noun: 'SSL certificate',
    plural: 'SSL certificates',
    collection: /^\/databases\/(?:mysql|postgresql)\/instances\/\{\}\/ssl$/,
    singleton: true,
  },
  {
    key: 'database-credentials',
    noun: 'credentials',
    plural: 'credentials',
    collection: /^\/databases\/(?:mysql|postgresql)\/instances\/\{\}\/credentials$/,
    singleton: true,
  },
  {
    key: 'image-upload',
    noun: 'image upload',
    plural: 'image uploads',
    collection: /^\/images\/upload$/,
    singleton: true,
  },
];

const GENERIC: ResourceKind = { key: 'generic', noun: 'item', plural: 'items', collection: /$^/ };

/** Where a route sits: the kind, how many leading segments make its collection, and the collection route. */
export interface KindMatch {
  readonly kind: ResourceKind;
  readonly collectionRoute: string;
  /** Route segments after the collection (`['{}', 'attach']`). */
  readonly rest: readonly string[];
}

/**
 * The kind of resource a route is about: the longest collection route that the route equals or
 * continues with an item id (`/volumes/{}/attach` is about volumes, `/node/instances/{}/configs`
 * about configs). Routes matching nothing get the generic kind.
 */
export function kindOfRoute(route: string): KindMatch {
  const segments = route.split('/').filter(Boolean);
  for (let length = segments.length; length > 0; length--) {
    const collectionRoute = `/${segments.slice(0, length).join('/')}`;
    const rest = segments.slice(length);
    const candidates = RESOURCE_KINDS.filter((kind) => kind.collection.test(collectionRoute));
    for (const kind of candidates) {
      if (kind.singleton ? rest.length === 0 : rest.length === 0 || rest[0] === '{}') {
        return { kind, collectionRoute, rest };
      }
    }
  }
  return { kind: GENERIC, collectionRoute: route, rest: [] };
}

export function isGenericKind(kind: ResourceKind): boolean {
  return kind === GENERIC;
}

/** The title of an item of a kind: its label or name, else `<noun> <id>`. */
export function itemTitle(kind: ResourceKind, item: Item): string {
  return kind.title?.(item) ?? titleOf(item) ?? kind.noun;
}
