import type { HeaderBlock, KnownBlock, SectionBlock } from '@slack/types';
import type { AnyOperation } from '../../api/operation.js';
import { SLASH_COMMAND } from '../../commands/registry.js';
import { commandNameOf } from '../../commands/usage.js';
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
  truncateMrkdwn,
} from '../../slack-kit/blocks.js';
import { factLabel, fieldValue, filterWords, titleNamesId } from '../../slack-kit/field-words.js';
import { ActionId, type ExportPayload, type PagePayload } from '../../slack-kit/interaction-ids.js';
import { SLACK_LIMITS } from '../../slack-kit/limits.js';
import { bold, capitalize, codeSpan, escapeMrkdwn, formatNumber } from '../../slack-kit/text.js';
import { truncate } from '../../truncate.js';
import { type Item, idOf, isItem } from './items.js';
import { type AllowedHere, itemRefOf, rowAccessory } from './next-actions.js';
import { type PathValue, pathValuesOf, routeOf, viewOperationOf } from './related-operations.js';
import { itemTitle, type KindMatch, kindOfRoute, type ResourceKind } from './resource-kinds.js';

/** What decides how rows pack into messages: the same for everyone who sees the list. */
export interface ListLayoutOptions {
  /** The `X-Filter` that was sent; kept by the Previous/Next buttons. */
  filter?: Record<string, unknown> | undefined;
  /** `--all`: one line per item, up to COMPACT_ROWS_MAX a message, Next for the rest. */
  compact?: boolean | undefined;
}

export interface ListOptions extends ListLayoutOptions {
  /** Which operations rows may offer here; all when left out. */
  allowed?: AllowedHere | undefined;
}

/**
 * Where a message starts in the whole list, and the items from there on. Pages are what the
 * person sees: rows are packed from the first item, as many as fit one message, so page N is the
 * same whether it was reached with Next or typed as `--page N`.
 */
export interface ListWindow {
  /** Items from `start` on (at least as many as one message can show, when the list has them). */
  readonly items: readonly unknown[];
  /** Index in the whole list of `items[0]`. */
  readonly start: number;
  /** The page number the person sees (1-based). */
  readonly page: number;
  /** Total items the API reported. */
  readonly results: number;
  /** Items the bot can read: `results`, or only the first page of a list the API does not page. */
  readonly reachable: number;
  /** Pages in all, when every item was read (else unknown). */
  readonly pages?: number | undefined;
  /** Where the page before this one starts, when known (else Previous finds it from the top). */
  readonly previousStart?: number | undefined;
}

/** Rows a list message shows at most: more makes a wall nobody reads and nears Slack's limits. */
export const DEFAULT_MAX_ROWS = 20;
/** Lines an `--all` message shows at most, one item a line. */
export const COMPACT_ROWS_MAX = 100;
/** The most items one message can take in either mode: how many a window needs past its start. */
export const WINDOW_ITEMS = Math.max(DEFAULT_MAX_ROWS, COMPACT_ROWS_MAX);

const TITLE_MAX = 100;
const FACTS_MAX = 400;
const COMPACT_TITLE_MAX = 60;
const COMPACT_FACTS_MAX = 90;
/** Room kept for the note under the rows, measured before the rows go in. */
const NOTE_ALLOWANCE = 400;
/** Placeholders as long as any page number or position a button can carry, so sizes never grow later. */
const LONGEST_PAGE = 9_999_999;

/**
 * How a list request packs its rows into messages. It depends only on the operation, its input,
 * the filter and the mode, never on the page being shown or who sees it, so the pages found by
 * walking from the top are the same ones Next walks through. Each item is measured once per
 * layout: reading the list and rendering it share the measurements.
 */
export class ListLayout {
  readonly #op: AnyOperation;
  readonly #input: Record<string, unknown>;
  readonly #options: ListLayoutOptions;
  readonly #match: KindMatch;
  readonly #parentValues: readonly PathValue[];
  readonly #chrome: number;
  readonly #chromeBlocks: number;
  /** Serialized size of each item's row (or its `--all` line), by item. */
  readonly #measured = new Map<unknown, { readonly size: number; readonly line: string }>();

  constructor(op: AnyOperation, input: Record<string, unknown>, options: ListLayoutOptions = {}) {
    this.#op = op;
    this.#input = input;
    this.#options = options;
    this.#match = kindOfRoute(routeOf(op.path));
    this.#parentValues = pathValuesOf(op, input);
    // The frame of the longest message this request can produce: header, context, note, buttons.
    const longest: ListWindow = {
      items: [],
      start: LONGEST_PAGE,
      page: LONGEST_PAGE,
      results: LONGEST_PAGE,
      reachable: LONGEST_PAGE,
      pages: LONGEST_PAGE,
      previousStart: LONGEST_PAGE,
    };
    const frame = this.#frame(longest, LONGEST_PAGE, true);
    this.#chrome = blocksLength(frame) + NOTE_ALLOWANCE;
    this.#chromeBlocks = frame.length + 1;
  }

  get compact(): boolean {
    return this.#options.compact === true;
  }

  /** The most items one message of this layout shows. */
  get maxItemsPerPage(): number {
    return this.compact ? COMPACT_ROWS_MAX : DEFAULT_MAX_ROWS;
  }

  /** How many of `items` (from the first) one message has room for; at least one when there are any. */
  fit(items: readonly unknown[]): number {
    return this.compact
      ? this.#packLines(items).reduce((sum, lines) => sum + lines.length, 0)
      : this.#fitRows(items);
  }

  /** Where each page starts, packing `items` (the whole list, from its first item). */
  pageStarts(items: readonly unknown[]): number[] {
    const starts: number[] = [];
    for (let start = 0; start < items.length; ) {
      starts.push(start);
      start += this.fit(items.slice(start, start + WINDOW_ITEMS));
    }
    return starts;
  }

  /** The message for one window of the list; its rows offer only what `allowed` lets run where it is seen. */
  render(shownWindow: ListWindow, allowed?: AllowedHere): RenderedMessage {
    const kind = this.#match.kind;
    // A window that holds every item it can reach from the first one counts its pages itself.
    const whole = shownWindow.start === 0 && shownWindow.items.length >= shownWindow.reachable;
    const window =
      shownWindow.pages === undefined && whole
        ? { ...shownWindow, pages: Math.max(1, this.pageStarts(shownWindow.items).length) }
        : shownWindow;
    const shown = Math.min(this.fit(window.items), Math.max(0, window.reachable - window.start));
    const blocks = this.#frame(window, shown, false);
    const heading = (blocks[0] as HeaderBlock).text.text;
    if (window.results === 0 || window.items.length === 0) {
      const empty = sectionBlock(
        `No ${escapeMrkdwn(kind.plural === 'items' ? 'results' : kind.plural)} found${this.#options.filter ? ' matching the filter' : ''}.`,
      );
      const context = contextLine(this.#op, this.#options);
      return {
        text: fallbackText(heading),
        blocks: [blocks[0] as HeaderBlock, ...(context ? [contextBlock(context)] : []), empty],
      };
    }
    const items = window.items.slice(0, shown);
    const body = this.compact
      ? this.#packLines(items).map((lines) => sectionBlock(lines.join('\n')))
      : items.map((item) => listRow(this.#match, this.#parentValues, item, allowed));
    const nav = blocks[blocks.length - 1]?.type === 'actions' ? blocks.pop() : undefined;
    const note = blocks.pop();
    return {
      text: fallbackText(heading),
      blocks: [...blocks, ...body, ...(note ? [note] : []), ...(nav ? [nav] : [])],
    };
  }

  #fitRows(items: readonly unknown[]): number {
    const maxRows = Math.min(DEFAULT_MAX_ROWS, SLACK_LIMITS.blocksPerMessage - this.#chromeBlocks);
    let used = this.#chrome;
    let rows = 0;
    for (const item of items) {
      if (rows >= maxRows) break;
      const size = this.#measure(item).size;
      if (rows > 0 && used + size > MESSAGE_BUDGET) break;
      used += size;
      rows += 1;
    }
    return rows;
  }

  /**
   * `--all` lines from the first item, as many lines to a section as its 3,000 characters take and
   * as many as one message has room for (at least one when there are any).
   */
  #packLines(items: readonly unknown[]): string[][] {
    const sectionSize = blocksLength([sectionBlock('')]) + 1;
    const sections: string[][] = [];
    let used = this.#chrome;
    let lines = 0;
    let sectionText = 0;
    for (const item of items) {
      if (lines >= COMPACT_ROWS_MAX) break;
      const { line } = this.#measure(item);
      const current = sections[sections.length - 1];
      const opensSection = current === undefined || sectionText + line.length + 1 > SLACK_LIMITS.sectionText;
      const size = JSON.stringify(line).length + (opensSection ? sectionSize : 0);
      if (opensSection && this.#chromeBlocks + sections.length + 1 > SLACK_LIMITS.blocksPerMessage) break;
      if (lines > 0 && used + size > MESSAGE_BUDGET) break;
      used += size;
      lines += 1;
      if (opensSection) {
        sections.push([line]);
        sectionText = line.length;
      } else {
        current.push(line);
        sectionText += line.length + 1;
      }
    }
    return sections;
  }

  /**
   * An item's row size, or its `--all` line. A row is measured with every next step offered, so
   * the packing (and so page N) is the same for whoever clicks Next, wherever; a row fitted to
   * fewer steps is never larger.
   */
  #measure(item: unknown): { readonly size: number; readonly line: string } {
    const known = this.#measured.get(item);
    if (known) return known;
    const measured = this.compact
      ? { size: 0, line: compactLine(this.#match, item) }
      : { size: blocksLength([listRow(this.#match, this.#parentValues, item)]) + 1, line: '' };
    this.#measured.set(item, measured);
    return measured;
  }

  /** Header, context, note and buttons: everything but the rows (the note last but one). */
  #frame(window: ListWindow, shown: number, longest: boolean): KnownBlock[] {
    const subject = listSubject(this.#op, this.#match.kind, this.#parentValues);
    const blocks: KnownBlock[] = [headerBlock(listHeading(subject, window, shown, this.compact))];
    const context = contextLine(this.#op, this.#options);
    if (context) blocks.push(contextBlock(context));
    blocks.push(contextBlock(longest ? '' : shownNote(window, shown, this.compact, !this.#op.pageParams)));
    const nav = pageButtons(this.#op, this.#input, window, shown, this.#options, longest);
    if (nav) blocks.push(nav);
    return blocks;
  }
}

/**
 * A paginated list: header, a context line, one section per item with View or a menu (or, with
 * `--all`, one line per item), a note saying which items these are, Previous/Next.
 */
export function renderList(
  op: AnyOperation,
  input: Record<string, unknown>,
  window: ListWindow,
  options: ListOptions = {},
): RenderedMessage {
  const { allowed, ...layout } = options;
  return new ListLayout(op, input, layout).render(window, allowed);
}

/** One `--all` line: title, id and the kind's first facts. */
function compactLine(match: KindMatch, entry: unknown): string {
  if (!isItem(entry))
    return `• ${truncate(fieldValue(entry) ?? escapeMrkdwn(JSON.stringify(entry)), COMPACT_FACTS_MAX)}`;
  const kind = match.kind;
  const id = idOf(entry);
  const title = truncate(itemTitle(kind, entry), COMPACT_TITLE_MAX);
  const showId = id !== undefined && String(id) !== title && !titleNamesId(title, id);
  const facts = (kind.rowFacts ? kind.rowFacts(entry) : genericFacts(entry, kind.key)).filter(
    (f) => f !== '',
  );
  const tail =
    facts.length > 0 ? ` · ${truncateMrkdwn(facts.join(' · ').replace(/\s+/g, ' '), COMPACT_FACTS_MAX)}` : '';
  return `• ${bold(title)}${showId ? ` ${codeSpan(truncate(String(id), 40))}` : ''}${tail}`;
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

function listHeading(subject: string, window: ListWindow, shown: number, compact: boolean): string {
  const total = formatNumber(window.results);
  if (compact) {
    if (window.start === 0 && shown >= window.reachable) return `${subject} — all ${total}`;
    return `${subject} — all ${total}: ${itemRange(window.start, shown)}`;
  }
  if (window.pages === 1) return `${subject} (${total})`;
  if (window.pages === undefined) return `${subject} — page ${formatNumber(window.page)} (${total})`;
  return `${subject} — page ${formatNumber(window.page)} of ${formatNumber(window.pages)} (${total})`;
}

/** `items 19–30`. */
function itemRange(start: number, shown: number): string {
  if (shown <= 1) return `item ${formatNumber(start + 1)}`;
  return `items ${formatNumber(start + 1)}–${formatNumber(start + shown)}`;
}

function contextLine(op: AnyOperation, options: ListOptions): string | undefined {
  const parts: string[] = [];
  if (options.filter && Object.keys(options.filter).length > 0) {
    const kind = kindOfRoute(routeOf(op.path)).kind.key;
    parts.push(`:mag: filter: ${escapeMrkdwn(truncate(filterWords(options.filter, kind), 200))}`);
  }
  const itemRoute = `${routeOf(op.path)}/{}`;
  const view = viewOperationOf(itemRoute);
  if (view)
    parts.push(
      `details: ${codeSpan(`${SLASH_COMMAND} ${commandNameOf(view)} ${view.pathParams.map((p) => `<${p}>`).join(' ')}`)}`,
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
    return sectionBlock(truncate(fieldValue(entry) ?? escapeMrkdwn(JSON.stringify(entry)), FACTS_MAX));
  }
  const id = idOf(entry);
  const title = truncate(itemTitle(kind, entry), TITLE_MAX);
  const showId = id !== undefined && String(id) !== title && !titleNamesId(title, id);
  const head = `${bold(title)}${showId ? `  ${codeSpan(String(id))}` : ''}`;
  const facts = (kind.rowFacts ? kind.rowFacts(entry) : genericFacts(entry, kind.key)).filter(
    (f) => f !== '',
  );
  const text = facts.length > 0 ? `${head}\n${truncateMrkdwn(facts.join(' · '), FACTS_MAX)}` : head;
  return sectionBlock(text, rowAccessory(kind, entry, itemRefOf(match, parentValues, entry), allowed));
}

const TITLE_KEYS = new Set(['id', 'label', 'name', 'username']);

/**
 * Up to three scalar fields of an item of unknown shape, in the order the API sent them, each with
 * the unit its kind counts it in.
 */
function genericFacts(item: Item, kind?: string): string[] {
  const facts: string[] = [];
  for (const [key, value] of Object.entries(item)) {
    if (facts.length >= 3) break;
    if (TITLE_KEYS.has(key) || /token|password|secret|scratch/i.test(key)) continue;
    if (value === null || value === undefined || typeof value === 'object') continue;
    const text = fieldValue(value, key, kind);
    if (text) facts.push(`${escapeMrkdwn(factLabel(key))} ${truncateMrkdwn(text, 80)}`);
  }
  return facts;
}

/** Which items these are and how to reach the others, in the numbering the header uses. */
function shownNote(window: ListWindow, shown: number, compact: boolean, unpaged: boolean): string {
  if (window.results === 0 || shown === 0) return ' ';
  const of = `of ${formatNumber(window.results)}`;
  const parts = [`${capitalize(itemRange(window.start, shown))} ${of}.`];
  const end = window.start + shown;
  if (end < window.reachable) {
    parts.push(
      compact
        ? `Up to ${COMPACT_ROWS_MAX} a message with \`--all\`: Next ▶ for the ${formatNumber(window.reachable - end)} more, or leave out \`--all\` to page with \`--page N\`.`
        : `Next ▶ or \`--page ${window.page + 1}\` for more; \`--all\` lists up to ${COMPACT_ROWS_MAX} a message, one a line.`,
    );
  } else if (window.reachable < window.results) {
    const why = unpaged ? ' (the API does not page this list)' : '';
    parts.push(
      `Only the first ${formatNumber(window.reachable)} can be read${why}: narrow the list with a filter to see the others.`,
    );
  }
  return parts.join(' ');
}

function pageButtons(
  op: AnyOperation,
  input: Record<string, unknown>,
  window: ListWindow,
  shown: number,
  options: ListOptions,
  longest: boolean,
) {
  const { page: _page, page_size: _size, ...rest } = input;
  if (window.results === 0) return undefined;
  const base = {
    operationId: op.id,
    input: rest,
    ...(options.filter ? { filter: options.filter } : {}),
    ...(options.compact ? { compact: true as const } : {}),
  };
  const end = window.start + shown;
  const next: PagePayload = { ...base, page: window.page + 1, start: end, previousStart: window.start };
  const previous: PagePayload = {
    ...base,
    page: Math.max(1, window.page - 1),
    ...(window.previousStart === undefined ? {} : { start: window.previousStart }),
  };
  // With `--all`, the whole list as a file too: it goes to the clicker's DM, the one place a
  // private file can be shared.
  const file = (format: ExportPayload['format'], label: string) =>
    options.compact
      ? actionButton({
          label,
          actionId: ActionId.exportList,
          payload: {
            operationId: op.id,
            input: rest,
            ...(options.filter ? { filter: options.filter } : {}),
            format,
          },
        })
      : undefined;
  return actionsBlock([
    longest || (window.page > 1 && window.start > 0)
      ? actionButton({ label: '◀ Previous', actionId: ActionId.page, payload: previous })
      : undefined,
    longest || end < window.reachable
      ? actionButton({ label: 'Next ▶', actionId: ActionId.page, payload: next })
      : undefined,
    file('csv', 'CSV file to my DMs'),
    file('json', 'JSON file to my DMs'),
  ]);
}
