import type { KnownBlock } from '@slack/types';
import type { AnyOperation } from '../../api/operation.js';
import {
  actionsBlock,
  codeSections,
  contextBlock,
  fallbackText,
  fieldSections,
  headerBlock,
  type RenderedMessage,
  sectionBlock,
} from '../../slack-kit/blocks.js';
import {
  factLabel,
  fieldValue,
  labelBeside,
  resourceHeading,
  sentenceField,
} from '../../slack-kit/field-words.js';
import { SLACK_LIMITS } from '../../slack-kit/limits.js';
import {
  capitalize,
  codeSpan,
  countOf,
  escapeMrkdwn,
  formatNumber,
  slackDate,
  statusText,
} from '../../slack-kit/text.js';
import { truncate } from '../../truncate.js';
import { type Item, idOf, isItem, isSecretField, stringAt, titleOf } from './items.js';
import { listRow } from './list.js';
import { type AllowedHere, itemRefOf, nextActionButton, nextActionsOf } from './next-actions.js';
import { type PathValue, pathValuesOf, routeOf } from './related-operations.js';
import { type Field, isGenericKind, itemTitle, kindOfRoute } from './resource-kinds.js';

/** Fields a detail view shows at most: two sections of ten. */
export const MAX_DETAIL_FIELDS = 2 * SLACK_LIMITS.sectionFields;
const FIELD_VALUE_MAX = 300;
const NESTED_SUMMARY_ENTRIES = 6;
const CODE_BUDGET = 6000;

/**
 * One resource: a header with its label, its fields (the kind's first, then the other top-level
 * fields, nested objects summarized), buttons for the natural next actions, and its id.
 */
export function renderDetail(
  op: AnyOperation,
  input: Record<string, unknown>,
  output: Item,
  allowed?: AllowedHere,
): RenderedMessage {
  const match = kindOfRoute(routeOf(op.path));
  const special = SINGLETON_VIEWS[match.kind.key];
  if (special) return special(output, op, input);
  if (match.kind.key === 'node-backup' && idOf(output) === undefined)
    return renderNodeBackups(op, input, output, allowed);

  const kind = match.kind;
  const title = isGenericKind(kind) ? (titleOf(output) ?? capitalize(op.summary)) : itemTitle(kind, output);
  const heading = isGenericKind(kind) ? title : resourceHeading(kind.noun, title);
  const blocks: KnownBlock[] = [headerBlock(heading)];

  const fields = [...(kind.fields?.(output) ?? []), ...genericFields(output, kind.omit ?? [], kind.key)];
  blocks.push(...fieldSections(fields.slice(0, MAX_DETAIL_FIELDS), FIELD_VALUE_MAX));
  if (fields.length > MAX_DETAIL_FIELDS) {
    blocks.push(
      contextBlock(
        `${countOf(fields.length - MAX_DETAIL_FIELDS, 'more field')} — add \`--json\` to see everything.`,
      ),
    );
  }

  const collectionValues = collectionValuesOf(op, input, match.collectionRoute);
  const ref = itemRefOf(match, collectionValues, output);
  if (ref) {
    const target = `${kind.noun} ${truncate(title, 40)}`;
    const buttons = nextActionsOf(kind, output, ref, allowed).map((action) =>
      nextActionButton(action, target),
    );
    const actions = actionsBlock(buttons);
    if (actions) blocks.push(actions);
  }

  const footer = footerOf(output);
  if (footer) blocks.push(contextBlock(footer));
  return { text: fallbackText(heading), blocks };
}

/** The path values of the collection the item belongs to (`[34]` for a config of node 34). */
function collectionValuesOf(
  op: AnyOperation,
  input: Record<string, unknown>,
  collectionRoute: string,
): PathValue[] {
  const parents = (collectionRoute.match(/\{\}/g) ?? []).length;
  return pathValuesOf(op, input).slice(0, parents);
}

function footerOf(item: Item): string | undefined {
  const parts: string[] = [];
  const id = idOf(item);
  if (id !== undefined) parts.push(`id ${codeSpan(String(id))}`);
  const updated = stringAt(item, 'updated');
  if (updated) parts.push(`updated ${slackDate(updated)}`);
  return parts.length > 0 ? parts.join(' · ') : undefined;
}

const ALWAYS_OMITTED = new Set(['id', 'label', 'updated']);

/**
 * Top-level fields as label/value pairs: scalars formatted, nested objects summarized as
 * `key value` pairs, lists of objects counted. Secret fields are never shown here.
 */
export function genericFields(item: Item, omit: readonly string[] = [], kind?: string): Field[] {
  const skip = new Set([...ALWAYS_OMITTED, ...omit]);
  const fields: Field[] = [];
  for (const [key, value] of Object.entries(item)) {
    if (skip.has(key) || isSecretField(key) || value === undefined) continue;
    const label = labelBeside(key, value, kind);
    const sentence = sentenceField(key, value);
    if (sentence !== undefined) {
      fields.push(sentence);
      continue;
    }
    if (key === 'status' && typeof value === 'string') {
      fields.push([label, statusText(value)]);
      continue;
    }
    const scalar = fieldValue(value, key, kind);
    if (scalar !== undefined) {
      fields.push([label, truncate(scalar, FIELD_VALUE_MAX)]);
      continue;
    }
    fields.push([label, truncate(summarize(value, kind), FIELD_VALUE_MAX)]);
  }
  return fields;
}

/** One more level, when it is a couple of plain values: a device slot's `disk id 7`. */
function innerOf(value: unknown, kind: string | undefined): string {
  if (!isItem(value)) return '…';
  const shown = Object.entries(value).filter(([key, v]) => !isSecretField(key) && v !== null);
  const scalars = shown.map(([key, v]) => [key, fieldValue(v, key, kind)] as const);
  if (scalars.length === 0 || scalars.length > 2 || scalars.some(([, v]) => v === undefined)) return '…';
  return scalars.map(([key, v]) => `${escapeMrkdwn(factLabel(key))} ${v}`).join(', ');
}

/** A nested value in one line: `disk 81,920 · memory 4,096 · …`, `3 entries: web, db, cache`. */
function summarize(value: unknown, kind: string | undefined): string {
  if (Array.isArray(value)) {
    const titles = value
      .filter(isItem)
      .map((v) => titleOf(v))
      .filter((t): t is string => t !== undefined);
    const head = countOf(value.length, 'entry', 'entries');
    return titles.length > 0
      ? `${head}: ${titles.slice(0, 3).map(escapeMrkdwn).join(', ')}${titles.length > 3 ? ', …' : ''}`
      : head;
  }
  if (!isItem(value)) return escapeMrkdwn(String(value));
  // Empty slots (a config's unused devices, the other kind's id) say nothing in one line.
  const entries = Object.entries(value).filter(([key, nested]) => !isSecretField(key) && nested !== null);
  if (entries.length === 0) return '—';
  const parts = entries.slice(0, NESTED_SUMMARY_ENTRIES).map(([key, nested]) => {
    const scalar = fieldValue(nested, key, kind);
    return `${escapeMrkdwn(factLabel(key))} ${scalar ?? (Array.isArray(nested) ? `(${nested.length})` : innerOf(nested, kind))}`;
  });
  return `${parts.join(' · ')}${entries.length > NESTED_SUMMARY_ENTRIES ? ' · …' : ''}`;
}

// ---------------------------------------------------------------------------------------------
// Singletons: objects that are not an item of a list

type SingletonView = (output: Item, op: AnyOperation, input: Record<string, unknown>) => RenderedMessage;

function fieldsView(heading: string, fields: Field[], notes: string[] = []): RenderedMessage {
  const blocks: KnownBlock[] = [headerBlock(heading)];
  if (fields.length > 0) blocks.push(...fieldSections(fields.slice(0, MAX_DETAIL_FIELDS), FIELD_VALUE_MAX));
  else blocks.push(sectionBlock('Nothing to show.'));
  if (notes.length > 0) blocks.push(contextBlock(...notes));
  return { text: fallbackText(heading), blocks };
}

function codeView(heading: string, intro: string, code: string): RenderedMessage {
  const { sections, complete } = codeSections(code, CODE_BUDGET);
  const blocks: KnownBlock[] = [headerBlock(heading), sectionBlock(intro), ...sections];
  if (!complete) blocks.push(contextBlock('Cut short to fit in Slack; add `--json` for the rest.'));
  return { text: fallbackText(heading), blocks };
}

function profileView(profile: Item): RenderedMessage {
  const keys = profile.authorized_keys;
  const fields: Field[] = [
    ...genericFields(profile, ['username', 'authorized_keys', 'referrals']),
    ['Authorized keys', Array.isArray(keys) ? countOf(keys.length, 'key') : 'none'],
  ];
  return fieldsView(`Profile: ${stringAt(profile, 'username') ?? 'you'}`, fields);
}

const GRANT_ENTITIES = [
  'node',
  'volume',
  'image',
  'database',
  'domain',
  'nodebalancer',
  'stackscript',
  'longview',
  'vpc',
];

function grantsView(grants: Item): RenderedMessage {
  if (!isItem(grants.global)) {
    return fieldsView(
      'Your grants',
      [],
      ['You are an unrestricted user: you may use every operation your token’s scopes allow.'],
    );
  }
  const global = grants.global;
  const allowed = Object.entries(global)
    .filter(([, value]) => value === true)
    .map(([key]) => codeSpan(key));
  const fields: Field[] = [
    ['Account access', fieldValue(global.account_access) ?? '—'],
    ['May', allowed.length > 0 ? allowed.join(' ') : 'add nothing'],
  ];
  for (const entity of GRANT_ENTITIES) {
    const list = grants[entity];
    if (!Array.isArray(list) || list.length === 0) continue;
    const shown = list
      .filter(isItem)
      .slice(0, 5)
      .map(
        (g) =>
          `${escapeMrkdwn(stringAt(g, 'label') ?? String(idOf(g) ?? '?'))} (${escapeMrkdwn(stringAt(g, 'permissions') ?? 'no access')})`,
      );
    fields.push([
      capitalize(entity === 'nodebalancer' ? 'node balancers' : `${entity}s`),
      `${shown.join(', ')}${list.length > 5 ? `, and ${list.length - 5} more` : ''}`,
    ]);
  }
  return fieldsView('Your grants', fields, [
    'You are a restricted user: these grants limit what you may do whatever your token’s scopes.',
  ]);
}

function securityQuestionsView(output: Item): RenderedMessage {
  const list = Array.isArray(output.security_questions) ? output.security_questions.filter(isItem) : [];
  // Answers are secrets of their own (they recover the account): say whether one is set, never what it is.
  const lines = list.slice(0, 30).map((q) => {
    const question =
      stringAt(q, 'question') ??
      stringAt(q, 'security_question') ??
      `question ${String(q.id ?? q.question_id ?? '?')}`;
    const answered = q.response !== null && q.response !== undefined && q.response !== '';
    return `${answered ? ':white_check_mark:' : ':white_circle:'} ${escapeMrkdwn(question)}`;
  });
  const heading = 'Security questions';
  const blocks: KnownBlock[] = [
    headerBlock(heading),
    sectionBlock(
      lines.length > 0 ? truncate(lines.join('\n'), SLACK_LIMITS.sectionText) : 'No security questions.',
    ),
  ];
  if (list.length > 30) blocks.push(contextBlock(`and ${list.length - 30} more`));
  return { text: heading, blocks };
}

function preferencesView(output: Item): RenderedMessage {
  return codeView(
    'Preferences',
    'The preferences stored for this token’s client:',
    JSON.stringify(output, null, 2),
  );
}

function managedSshKeyView(output: Item): RenderedMessage {
  return codeView(
    'Managed SSH key',
    'Add this public key to `authorized_keys` on a node to let support staff log in:',
    stringAt(output, 'ssh_key') ?? '',
  );
}

function sslView(output: Item, _op: AnyOperation, input: Record<string, unknown>): RenderedMessage {
  const encoded = stringAt(output, 'ca_certificate') ?? '';
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const pem = decoded.includes('-----BEGIN') ? decoded : encoded;
  const instance = Object.values(input).find((v) => typeof v === 'number' || typeof v === 'string');
  return codeView(
    `SSL CA certificate${instance === undefined ? '' : ` of database ${instance}`}`,
    'Clients verify the database server with this CA certificate:',
    pem.trim(),
  );
}

const STAT_SERIES: readonly (readonly [string, string])[] = [
  ['cpu', 'CPU'],
  ['disk', 'Disk'],
  ['swap', 'Swap'],
  ['net_in', 'Network in'],
  ['net_out', 'Network out'],
];

function statsView(output: Item): RenderedMessage {
  const heading = 'Managed stats — last 24 hours';
  const data = output.data;
  if (Array.isArray(data)) {
    const messages = data.filter((m): m is string => typeof m === 'string').map(escapeMrkdwn);
    return fieldsView(heading, [], messages.length > 0 ? messages : ['No stats yet.']);
  }
  if (!isItem(data)) return fieldsView(heading, []);
  const fields: Field[] = [];
  for (const [key, label] of STAT_SERIES) {
    const points = Array.isArray(data[key]) ? data[key].filter(isItem) : [];
    const values = points.map((p) => p.y).filter((y): y is number => typeof y === 'number');
    if (values.length === 0) continue;
    fields.push([label, seriesWords(values, round)]);
  }
  // The spec's "Gaps in fields" says so: the unit of a managed stats point is not shown, and the
  // bot does not guess one (a node's own stats have theirs).
  return fieldsView(heading, fields, [
    'The API does not say the units of managed stats; `/cloud nodes stats` with a node’s id shows that node’s with units.',
  ]);
}

/**
 * A node's series and their units, from the OpenAPI document's `NodeStats` (cloud-api-more): `cpu`
 * is the percentage of CPU used, `io.io` and `io.swap` blocks written a second, the network series
 * bits a second. Each point is `[timestamp, reading]`.
 */
const NODE_STAT_SERIES: readonly (readonly [path: readonly string[], label: string, unit: string])[] = [
  [['cpu'], 'CPU', '%'],
  [['io', 'io'], 'Disk IO', 'blocks/s'],
  [['io', 'swap'], 'Swap IO', 'blocks/s'],
  [['netv4', 'in'], 'IPv4 in', 'bits/s'],
  [['netv4', 'out'], 'IPv4 out', 'bits/s'],
  [['netv4', 'private_in'], 'IPv4 private in', 'bits/s'],
  [['netv4', 'private_out'], 'IPv4 private out', 'bits/s'],
  [['netv6', 'in'], 'IPv6 in', 'bits/s'],
  [['netv6', 'out'], 'IPv6 out', 'bits/s'],
  [['netv6', 'private_in'], 'IPv6 private in', 'bits/s'],
  [['netv6', 'private_out'], 'IPv6 private out', 'bits/s'],
];

function nodeStatsView(output: Item, op: AnyOperation, input: Record<string, unknown>): RenderedMessage {
  const node = pathValuesOf(op, input)[0];
  const heading = `Stats of node ${node ?? ''} — last 24 hours`.replace('  ', ' ');
  const fields: Field[] = [];
  for (const [path, label, unit] of NODE_STAT_SERIES) {
    const series = path.reduce<unknown>((at, key) => (isItem(at) ? at[key] : undefined), output);
    const values = (Array.isArray(series) ? series : [])
      .map((point) => (Array.isArray(point) ? point[1] : undefined))
      .filter((y): y is number => typeof y === 'number' && Number.isFinite(y));
    if (values.length === 0) continue;
    fields.push([label, seriesWords(values, (v) => `${round(v)} ${unit}`)]);
  }
  return fieldsView(heading, fields, fields.length === 0 ? ['No stats yet.'] : []);
}

/** `now 20 % · average 19.98 % · peak 29.94 %`: every figure with its unit. */
function seriesWords(values: readonly number[], withUnit: (value: number) => string): string {
  const latest = values[values.length - 1] ?? 0;
  const average = values.reduce((sum, v) => sum + v, 0) / values.length;
  return `now ${withUnit(latest)} · average ${withUnit(average)} · peak ${withUnit(Math.max(...values))}`;
}

function round(value: number): string {
  return formatNumber(Math.round(value * 100) / 100);
}

/**
 * A node's addresses (`GET …/ips`, API-FACTS-MORE.md §3.1), each kind on a line of its own:
 * `172.104.3.233` for IPv4, `2600:3c03::…/64` for SLAAC, ranges as `range/prefix`.
 */
function nodeIpsView(output: Item, op: AnyOperation, input: Record<string, unknown>): RenderedMessage {
  const node = pathValuesOf(op, input)[0];
  const addressesOf = (value: unknown): string[] =>
    (Array.isArray(value) ? value : [value])
      .filter(isItem)
      .map((entry) => {
        const address = stringAt(entry, 'address') ?? stringAt(entry, 'range');
        const prefix = entry.prefix;
        if (address === undefined) return undefined;
        return stringAt(entry, 'range') !== undefined && typeof prefix === 'number'
          ? `${address}/${prefix}`
          : address;
      })
      .filter((address): address is string => address !== undefined);
  const ipv4 = isItem(output.ipv4) ? output.ipv4 : {};
  const ipv6 = isItem(output.ipv6) ? output.ipv6 : {};
  const rows: readonly (readonly [string, unknown])[] = [
    ['Public IPv4', ipv4.public],
    ['Private IPv4', ipv4.private],
    ['Shared IPv4', ipv4.shared],
    ['Reserved IPv4', ipv4.reserved],
    ['VPC IPv4', ipv4.vpc],
    ['IPv6 (SLAAC)', ipv6.slaac],
    ['IPv6 link-local', ipv6.link_local],
    ['IPv6 ranges', ipv6.global],
  ];
  const fields: Field[] = rows
    .map(([label, value]): Field => [label, addressesOf(value).map(escapeMrkdwn).join(', ')])
    .filter(([, value]) => value !== '');
  return fieldsView(`IP addresses of node ${node ?? ''}`.trim(), fields);
}

/** A node's transfer this month (`GET …/transfer`, §3.3): used in bytes, quota and billable in GB. */
function nodeTransferView(output: Item, op: AnyOperation, input: Record<string, unknown>): RenderedMessage {
  const node = pathValuesOf(op, input)[0];
  const fields = genericFields(output, [], 'node-transfer');
  return fieldsView(`Transfer of node ${node ?? ''} this month`.replace('  ', ' '), fields);
}

const SINGLETON_VIEWS: Partial<Record<string, SingletonView>> = {
  'node-ips': nodeIpsView,
  'node-transfer': nodeTransferView,
  profile: profileView,
  grants: grantsView,
  'security-questions': securityQuestionsView,
  preferences: preferencesView,
  'managed-ssh-key': managedSshKeyView,
  stats: statsView,
  'node-stats': nodeStatsView,
  'database-ssl': sslView,
};

/**
 * A node's backups come as one object, not a page: the automatic backups and the two snapshot
 * slots. Shown as rows like a list, each with View.
 */
function renderNodeBackups(
  op: AnyOperation,
  input: Record<string, unknown>,
  output: Item,
  allowed: AllowedHere | undefined,
): RenderedMessage {
  const match = kindOfRoute(routeOf(op.path));
  const parentValues = pathValuesOf(op, input);
  const node = parentValues[0];
  const heading = `Backups of node ${node ?? ''}`.trim();
  const blocks: KnownBlock[] = [headerBlock(heading)];
  const snapshot = isItem(output.snapshot) ? output.snapshot : {};
  const groups: [string, unknown[]][] = [
    ['Snapshot in progress', isItem(snapshot.in_progress) ? [snapshot.in_progress] : []],
    ['Current snapshot', isItem(snapshot.current) ? [snapshot.current] : []],
    ['Automatic backups', Array.isArray(output.automatic) ? output.automatic : []],
  ];
  let rows = 0;
  for (const [label, items] of groups) {
    if (items.length === 0) continue;
    blocks.push(contextBlock(`*${label}*`));
    for (const item of items) {
      if (rows >= 20) break;
      blocks.push(listRow(match, parentValues, item, allowed));
      rows += 1;
    }
  }
  if (rows === 0) blocks.push(sectionBlock('No backups yet.'));
  return { text: fallbackText(heading), blocks };
}
