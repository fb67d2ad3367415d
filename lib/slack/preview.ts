import type { ApiClient } from '../api/client.js';
import type { AnyOperation } from '../api/operation.js';
import { findOperation, getOperation, operations } from '../api/operations/index.js';
import { viewOperationFor } from '../api/outcome.js';
import { apiTypeReader, priceChangeOf, pricesOf, type TypeReader } from '../changes/cost.js';
import {
  fingerprintOf,
  isResource,
  KEY_FIELDS,
  PREVIEW_READ_MS,
  type Resource,
  readResource as read,
  type TargetPreview,
} from '../changes/preview.js';
import { factLabel, quantityWords } from '../slack-kit/field-words.js';
import {
  bold,
  codeSpan,
  escapeMrkdwn,
  formatAbsoluteDate,
  parseApiDate,
  slackDate,
} from '../slack-kit/text.js';
import { priceLines } from './render/cost.js';
import { routeOf, viewOperationOf } from './render/related-operations.js';
import { kindOfRoute } from './render/resource-kinds.js';

/**
 * What an approver needs to see before saying yes, read with the requester's token when the
 * request is made: the target as it is now and what depends on it (a delete), the exact fields
 * that change (an update), what a restore or clone replaces and with what. The target's
 * fingerprint is kept with the request; when the approval completes the target is read again and
 * a changed target is not acted on.
 */

/**
 * Starts the line that shows the target as it was read. A settled card relabels it (it was true
 * when asked) or drops it (the target is gone), so it is found by this label.
 */
export const NOW_LABEL = '*Now:*';
/** Said beside an id whose label the requester's token could not read. */
const LABEL_UNREADABLE = 'label not readable';
const LIST_PAGES = 3;

/** The preview, or `not_found` when the API says there is no such target. */
export async function previewTarget(
  client: ApiClient,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
): Promise<TargetPreview | 'not_found'> {
  const ids = op.pathParams.map((name) => String(input[name]));
  const fallback = ids.length > 0 ? ids.join('/') : 'of their own profile';
  // Started before the target is read, so that the types' read overlaps the target's.
  const types = pricesOf(op, input) ? apiTypeReader(client, op, input) : undefined;
  const view = viewOperationFor(op);
  if (!view)
    return { summary: fallback, lines: await costLines(op, input, undefined, types), fingerprint: null };
  const [resource, parents, extra] = await Promise.all([
    read(client, view, input),
    parentsOf(client, view, input),
    dependents(client, op, input).catch(() => [] as string[]),
  ]);
  if (resource === 'not_found') return 'not_found';
  const own = ownPart(view, input, resource);
  const summary = own ? [own, ...parents].map(describePart).join(' of ') : fallback;
  const cost = await costLines(op, input, resource, types);
  if (!resource) return { summary, lines: [...extra, ...cost], fingerprint: null };
  const lines =
    op.method === 'PUT'
      ? fieldDiff(op, resource, input)
      : [...currentState(op, own, resource), ...extra, ...cost];
  return { summary, lines, fingerprint: fingerprintOf(view, resource) };
}

/** The price change of a create, resize or upgrade, or that it is unknown; nothing for the rest. */
async function costLines(
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  target: Resource | undefined,
  types: TypeReader | undefined,
): Promise<string[]> {
  if (!types) return [];
  const change = await priceChangeOf(op, input, target, types);
  return change ? priceLines(change) : [];
}

/** One thing a target names: the backup, or the database the backup belongs to. */
interface TargetPart {
  readonly noun: string;
  readonly id: string;
  /** Null when it has none; undefined when it could not be read. */
  readonly label: string | null | undefined;
}

function labelOf(resource: Resource | 'not_found' | undefined): string | null | undefined {
  if (!resource || resource === 'not_found') return undefined;
  const label = resource.label ?? resource.name ?? resource.username;
  return typeof label === 'string' && label !== '' ? label : null;
}

/** The noun of the item a route ends with: `backup` for `/databases/mysql/instances/{}/backups/{}`. */
function nounOfItemRoute(itemRoute: string): string {
  const noun = kindOfRoute(itemRoute).kind.noun;
  if (noun !== 'item') return noun;
  const segments = itemRoute.split('/');
  return (segments[segments.length - 2] ?? 'item').replace(/-/g, ' ').replace(/s$/, '');
}

function ownPart(
  view: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  resource: Resource | undefined,
): TargetPart | undefined {
  const name = view.pathParams[view.pathParams.length - 1];
  if (name === undefined) return undefined;
  return { noun: nounOfItemRoute(routeOf(view.path)), id: String(input[name]), label: labelOf(resource) };
}

/**
 * What the target belongs to, nearest first (the database of a backup), each read with the
 * requester's token for its label. A parent that cannot be read is named by its id.
 */
async function parentsOf(
  client: ApiClient,
  view: AnyOperation,
  input: Readonly<Record<string, unknown>>,
): Promise<TargetPart[]> {
  const segments = routeOf(view.path).split('/');
  const itemRoutes = segments
    .map((segment, index) => (segment === '{}' ? segments.slice(0, index + 1).join('/') : undefined))
    .filter((route): route is string => route !== undefined)
    .slice(0, -1);
  const parts = await Promise.all(
    itemRoutes.map(async (itemRoute, depth): Promise<TargetPart | undefined> => {
      const name = view.pathParams[depth];
      if (name === undefined) return undefined;
      const parentView = viewOperationOf(itemRoute);
      // Path parameters match by position: the parent's view may name its id differently.
      const parentInput = Object.fromEntries(
        (parentView?.pathParams ?? []).map((param, index) => [param, input[view.pathParams[index] ?? '']]),
      );
      const parent =
        parentView && !parentView.sensitive ? await read(client, parentView, parentInput) : undefined;
      return { noun: nounOfItemRoute(itemRoute), id: String(input[name]), label: labelOf(parent) };
    }),
  );
  return parts.filter((part): part is TargetPart => part !== undefined).reverse();
}

/** `orders (41)`, or `41 (label not readable)`; the first part goes without its noun (the card's verb says it). */
function describePart(part: TargetPart, index: number): string {
  const named =
    part.label === undefined
      ? `${part.id} (${LABEL_UNREADABLE})`
      : part.label === null
        ? part.id
        : `${part.label} (${part.id})`;
  return index === 0 ? named : `${part.noun} ${named}`;
}

/** `*Now:* backup before_migration (8001): type *snapshot*`: which thing, then its key fields. */
function currentState(op: AnyOperation, own: TargetPart | undefined, resource: Resource): string[] {
  const kind = kindOfOperation(op);
  const parts = KEY_FIELDS.filter((field) => resource[field] !== undefined && resource[field] !== null).map(
    (field) =>
      `${field === 'node_label' ? 'attached to node' : escapeMrkdwn(factLabel(field))} ${bold(show(resource[field], field, kind))}`,
  );
  const which = own ? ` ${escapeMrkdwn(`${own.noun} ${describePart(own, 0)}`)}:` : '';
  return parts.length > 0 ? [`${NOW_LABEL}${which} ${parts.join(' · ')}`] : [];
}

/** The kind of resource an operation acts on, which says the units of its fields. */
function kindOfOperation(op: AnyOperation): string {
  return kindOfRoute(routeOf(op.path)).kind.key;
}

/** `label: old → new` for each field the update sets; unchanged ones say so. */
function fieldDiff(op: AnyOperation, resource: Resource, input: Readonly<Record<string, unknown>>): string[] {
  const kind = kindOfOperation(op);
  const skip = new Set([...op.pathParams, ...op.queryParams]);
  const lines = Object.entries(input)
    .filter(([key, value]) => !skip.has(key) && value !== undefined)
    .map(([key, value]) => {
      const before = Object.hasOwn(resource, key) ? show(resource[key], key, kind) : '(not shown by the API)';
      const after = show(value, key, kind);
      return before === after
        ? `• ${codeSpan(key)}: ${escapeMrkdwn(after)} (unchanged)`
        : `• ${codeSpan(key)}: ${escapeMrkdwn(before)} → ${bold(after)}`;
    });
  return lines.length > 0 ? ['*Changes:*', ...lines] : [];
}

/** What else the operation touches: backups, attached volumes, what a restore or clone replaces. */
async function dependents(
  client: ApiClient,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
): Promise<string[]> {
  // A restore: the backup it restores from is the path without its last segment.
  if (op.method === 'POST' && input.backupId !== undefined) {
    const backupView = operations.find(
      (c) => c.method === 'GET' && !c.paginated && c.path === op.path.replace(/\/[a-z-]+$/, ''),
    );
    const backup = backupView ? await read(client, backupView, input) : undefined;
    if (backup && backup !== 'not_found') {
      const label = labelOf(backup);
      const name = label ? `${label} (${String(input.backupId)})` : String(input.backupId);
      return [`*Replaces* the current data with backup ${bold(name)}, taken ${takenWhen(backup.created)}.`];
    }
    return [];
  }
  if (op.id === 'nodes.delete') {
    const volumes = await listAll(client, 'volumes.list', {});
    const attached = volumes.filter((v) => v.node_id === input.nodeId);
    const backups = await nodeBackups(client, input);
    return [
      attached.length > 0
        ? `*Attached volumes* (detached, not deleted): ${attached.map((v) => escapeMrkdwn(`${show(v.label)} (${show(v.id)})`)).join(', ')}`
        : '*Attached volumes:* none',
      ...backups,
    ];
  }
  if (op.id === 'nodes.snapshot') {
    const snapshot = await nodeSnapshot(client, input);
    return snapshot
      ? [
          `*Replaces* the current snapshot ${bold(show(snapshot.label ?? snapshot.id))}, taken ${takenWhen(snapshot.created)}.`,
        ]
      : ['*Replaces* no snapshot: this node has none yet.'];
  }
  if (op.id === 'nodes.clone' && typeof input.node_id === 'number') {
    const target = await read(client, getOperation('nodes.view'), { nodeId: input.node_id });
    if (target && target !== 'not_found') {
      return [
        `*Overwrites* node ${bold(`${show(target.label)} (${show(target.id)})`)} with this node's disks.`,
      ];
    }
    return [];
  }
  if (op.method === 'DELETE' && op.group === 'databases' && op.pathParams.length === 1) {
    const list = operations.find((c) => c.method === 'GET' && c.paginated && c.path === `${op.path}/backups`);
    if (!list) return [];
    const backups = await listAll(client, list.id, input);
    const newest = backups
      .filter((b) => typeof b.created === 'string')
      .sort((a, b) => String(b.created).localeCompare(String(a.created)))[0];
    return [
      newest
        ? `*Last backup:* ${bold(show(newest.label ?? newest.id))}, taken ${takenWhen(newest.created)} (deleted with the database)`
        : '*Last backup:* none',
    ];
  }
  return [];
}

async function nodeBackups(client: ApiClient, input: Readonly<Record<string, unknown>>): Promise<string[]> {
  const op = findOperation('nodes.backups-list');
  if (!op) return [];
  const backups = await read(client, op, input);
  if (!backups || backups === 'not_found') return [];
  const automatic = Array.isArray(backups.automatic) ? backups.automatic.length : 0;
  return [
    `*Backups* (deleted with the node): ${automatic} automatic${(await nodeSnapshot(client, input)) ? ' and a snapshot' : ''}`,
  ];
}

async function nodeSnapshot(
  client: ApiClient,
  input: Readonly<Record<string, unknown>>,
): Promise<Resource | undefined> {
  const op = findOperation('nodes.backups-list');
  if (!op) return undefined;
  const backups = await read(client, op, input);
  if (!backups || backups === 'not_found') return undefined;
  const snapshot = backups.snapshot as { current?: Resource | null } | undefined;
  return snapshot?.current ?? undefined;
}

async function listAll(
  client: ApiClient,
  id: string,
  input: Readonly<Record<string, unknown>>,
): Promise<Resource[]> {
  const op = findOperation(id);
  if (!op) return [];
  const listInput = Object.fromEntries(op.pathParams.map((name) => [name, input[name]]));
  const all = await client.listAll(op, listInput, { timeoutMs: PREVIEW_READ_MS, maxPages: LIST_PAGES });
  return all.data.filter(isResource);
}

/** `3 days ago` (a date token) for a backup's time, or the API's text, escaped, when it is not a date. */
function takenWhen(value: unknown): string {
  return typeof value === 'string' ? slackDate(value, 'ago') : escapeMrkdwn(show(value));
}

/**
 * Plain text (the caller escapes it): numbers of a named field with their unit (`50 GB`), other
 * numbers (ids here) as written, the API's date-times as `2026-11-26 20:50 UTC`.
 */
function show(value: unknown, key?: string, kind?: string): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'string') {
    const date = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) ? parseApiDate(value) : undefined;
    return date ? formatAbsoluteDate(date) : value;
  }
  if (typeof value === 'number') return key === undefined ? String(value) : quantityWords(value, key, kind);
  if (typeof value === 'boolean') return String(value);
  return JSON.stringify(value).slice(0, 120);
}
