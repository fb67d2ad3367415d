import type { KnownBlock, SectionBlock } from '@slack/types';
import type { AnyOperation, Page } from '../../api/operation.js';
import { SLASH_COMMAND } from '../../commands/registry.js';
import { ActionId, type PagePayload } from '../interactions.js';
import { truncate } from '../limits.js';
import {
  actionButton,
  actionsBlock,
  blocksLength,
  contextBlock,
  fallbackText,
  headerBlock,
  MESSAGE_BUDGET,
  type RenderedMessage,
  sectionBlock,
} from './blocks.js';
import { type Item, idOf, isItem } from './items.js';
import { type AllowedHere, itemRefOf, rowAccessory } from './next-actions.js';
import { type PathValue, pathValuesOf, routeOf, viewOperationOf } from './related-operations.js';
import { itemTitle, type KindMatch, kindOfRoute, type ResourceKind } from './resource-kinds.js';
import { bold, capitalize, codeSpan, countOf, escapeMrkdwn, formatScalar } from './text.js';

export interface ListOptions {
  /** The page size that was asked for (`--page-size`); kept by the Previous/Next buttons. */
  pageSize?: number | undefined;
  /** The `X-Filter` that was sent; kept by the Previous/Next buttons. */
  filter?: Record<string, unknown> | undefined;
  /** Every page was fetched (`--all`): `page` holds all items. */
  all?: boolean | undefined;
  /** Rows per message; fewer when the rows would not fit Slack's size limits. */
  maxRows?: number | undefined;
  /** Which operations rows may offer here; all when left out. */
  allowed?: AllowedHere | undefined;
}

/** Rows a list message shows at most: more makes a wall nobody reads and nears Slack's limits. */
export const DEFAULT_MAX_ROWS = 20;

const TITLE_MAX = 100;
const FACTS_MAX = 400;
/** Room kept for the note under the rows and the page buttons, measured before the rows go in. */
const NOTE_ALLOWANCE = 400;

/** A paginated list: header, a context line, one section per item with View or a menu, paging buttons. */
export function renderList(
  op: AnyOperation,
  input: Record<string, unknown>,
  page: Page<unknown>,
  options: ListOptions = {},
): RenderedMessage {
  const match = kindOfRoute(routeOf(op.path));
  const kind = match.kind;
  const parentValues = pathValuesOf(op, input);
  const subject = listSubject(op, kind, parentValues);
  const heading = listHeading(subject, page, options.all === true);

  const top: KnownBlock[] = [headerBlock(heading)];
  const context = contextLine(op, options);
  if (context) top.push(contextBlock(context));

  const nav = pageButtons(op, input, page, options);
  if (page.data.length === 0) {
    const blocks = [
      ...top,
      sectionBlock(
        `No ${escapeMrkdwn(kind.plural === 'items' ? 'results' : kind.plural)} found${options.filter ? ' matching the filter' : ''}.`,
      ),
    ];
    if (nav) blocks.push(nav);
    return { text: fallbackText(heading), blocks };
  }

  const maxRows = Math.max(1, options.maxRows ?? DEFAULT_MAX_ROWS);
  const rows: KnownBlock[] = [];
  let used = blocksLength(top) + (nav ? blocksLength([nav]) : 0) + NOTE_ALLOWANCE;
  for (const entry of page.data) {
    if (rows.length >= maxRows) break;
    const row = listRow(match, parentValues, entry, options.allowed);
    const size = blocksLength([row]) + 1;
    if (used + size > MESSAGE_BUDGET) break;
    rows.push(row);
    used += size;
  }

  const blocks: KnownBlock[] = [...top, ...rows];
  const note = shownNote(rows.length, page, options.all === true);
  if (note) blocks.push(contextBlock(note));
  if (nav) blocks.push(nav);
  return { text: fallbackText(heading), blocks };
}

/** `Configs of node 34`, `Nodes`. */
function listSubject(op: AnyOperation, kind: ResourceKind, parentValues: readonly PathValue[]): string {
  const plural = capitalize(kind.plural === 'items' ? op.summary.replace(/^List\s+/i, '') : kind.plural);
  const route = routeOf(op.path);
  const parentRoute = route.slice(0, route.lastIndexOf('/'));
  const lastValue = parentValues[parentValues.length - 1];
  if (!parentRoute.endsWith('{}') || lastValue === undefined) return plural;
  const parent = kindOfRoute(parentRoute).kind;
  return `${plural} of ${parent.noun === 'item' ? 'item' : parent.noun} ${lastValue}`;
}

function listHeading(subject: string, page: Page<unknown>, all: boolean): string {
  if (all) return `${subject} — all ${page.results.toLocaleString('en-US')}`;
  if (page.pages <= 1) return `${subject} (${page.results.toLocaleString('en-US')})`;
  return `${subject} — page ${page.page} of ${page.pages} (${page.results.toLocaleString('en-US')})`;
}

function contextLine(op: AnyOperation, options: ListOptions): string | undefined {
  const parts: string[] = [];
  if (options.filter && Object.keys(options.filter).length > 0) {
    parts.push(`:mag: filter ${codeSpan(truncate(JSON.stringify(options.filter), 200))}`);
  }
  if (options.pageSize !== undefined && !options.all) parts.push(`${options.pageSize} per page`);
  const itemRoute = `${routeOf(op.path)}/{}`;
  const view = viewOperationOf(itemRoute);
  if (view)
    parts.push(
      `details: ${codeSpan(`${SLASH_COMMAND} ${view.group} ${view.action} ${view.pathParams.map((p) => `<${p}>`).join(' ')}`)}`,
    );
  return parts.length > 0 ? parts.join(' · ') : undefined;
}

/** One compact row: title and id, the kind's facts, and View or a menu of next steps. */
export function listRow(
  match: KindMatch,
  parentValues: readonly PathValue[],
  entry: unknown,
  allowed?: AllowedHere,
): SectionBlock {
  const kind = match.kind;
  if (!isItem(entry)) {
    return sectionBlock(truncate(formatScalar(entry) ?? escapeMrkdwn(JSON.stringify(entry)), FACTS_MAX));
  }
  const id = idOf(entry);
  const title = truncate(itemTitle(kind, entry), TITLE_MAX);
  const showId = id !== undefined && String(id) !== title;
  const head = `${bold(title)}${showId ? `  ${codeSpan(String(id))}` : ''}`;
  const facts = (kind.rowFacts ? kind.rowFacts(entry) : genericFacts(entry)).filter((f) => f !== '');
  const text = facts.length > 0 ? `${head}\n${truncate(facts.join(' · '), FACTS_MAX)}` : head;
  return sectionBlock(text, rowAccessory(kind, entry, itemRefOf(match, parentValues, entry), allowed));
}

const TITLE_KEYS = new Set(['id', 'label', 'name', 'username']);

/** Up to three scalar fields of an item of unknown shape, in the order the API sent them. */
function genericFacts(item: Item): string[] {
  const facts: string[] = [];
  for (const [key, value] of Object.entries(item)) {
    if (facts.length >= 3) break;
    if (TITLE_KEYS.has(key) || /token|password|secret|scratch/i.test(key)) continue;
    if (value === null || value === undefined || typeof value === 'object') continue;
    const text = formatScalar(value, key);
    if (text) facts.push(`${escapeMrkdwn(key.replace(/_/g, ' '))} ${truncate(text, 80)}`);
  }
  return facts;
}

function shownNote(shown: number, page: Page<unknown>, all: boolean): string | undefined {
  const total = page.data.length;
  if (shown >= total) return undefined;
  if (all) {
    return `Showing the first ${shown} of ${countOf(total, 'result')}. Narrow the list with a filter, or page through it without \`--all\`.`;
  }
  return `Showing ${shown} of ${total} on this page — use \`--page-size\` for smaller pages, or Next.`;
}

function pageButtons(
  op: AnyOperation,
  input: Record<string, unknown>,
  page: Page<unknown>,
  options: ListOptions,
) {
  if (options.all || !op.pageParams) return undefined;
  const { page: _page, page_size: requestedSize, ...rest } = input;
  const size = options.pageSize ?? (typeof requestedSize === 'number' ? requestedSize : undefined);
  const payload = (p: number): PagePayload => ({
    o: op.id,
    i: rest,
    p,
    ...(size !== undefined && size >= 25 && size <= 500 ? { s: size } : {}),
    ...(options.filter ? { f: options.filter } : {}),
  });
  return actionsBlock([
    page.page > 1
      ? actionButton({ label: '◀ Previous', actionId: ActionId.page, payload: payload(page.page - 1) })
      : undefined,
    page.page < page.pages
      ? actionButton({ label: 'Next ▶', actionId: ActionId.page, payload: payload(page.page + 1) })
      : undefined,
  ]);
}
