import { type ApiClient, type CallOptions, LIST_ALL_PAGE_SIZE } from '../api/client.js';
import type { AnyOperation, Page } from '../api/operation.js';
import { type ListLayout, type ListWindow, WINDOW_ITEMS } from './render/list.js';

/**
 * Reads the part of a list one message shows. Pages are the ones the person sees (as many rows
 * as fit one message, packed from the first item), so they do not line up with the API's pages:
 * the bot reads the API in its largest pages (fewest calls) and cuts messages out of them.
 *
 * - Next carries where its page starts (`start`): one API page is read (two when the message
 *   straddles them).
 * - `--page N`, and Previous when it does not know where the page before starts, pack from the
 *   top: API pages are read in order until page N is found (one call for lists up to 500 items).
 * - When every item was read the pages are counted, and a position that is not where a page
 *   starts (a forged or stale button) is refused instead of shown.
 */

/** Items per API read: the most the API serves in one page. */
export const LIST_READ_PAGE_SIZE = LIST_ALL_PAGE_SIZE;

export interface ListPosition {
  /** The page the person asked for (1 when absent). */
  readonly page?: number | undefined;
  /** Where that page starts in the whole list, when a button knows. */
  readonly start?: number | undefined;
  /** Where the page before starts, when a button knows. */
  readonly previousStart?: number | undefined;
}

export type ListRead =
  | { readonly ok: true; readonly window: ListWindow; readonly apiCalls: number }
  | {
      readonly ok: false;
      readonly reason: 'past-end';
      readonly pages: number | undefined;
      readonly results: number;
    }
  | { readonly ok: false; readonly reason: 'not-a-page-start' };

type ListCallOptions = Pick<CallOptions, 'signal' | 'deadline' | 'filter'>;

export async function readListWindow(
  client: ApiClient,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  layout: ListLayout,
  position: ListPosition,
  callOptions: ListCallOptions,
): Promise<ListRead> {
  return new ListReader(client, op, apiInputOf(input), layout, callOptions).read(position);
}

/** The list's own input without the API page fields: the reader decides which API pages to read. */
function apiInputOf(input: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { page: _page, page_size: _pageSize, ...rest } = input;
  return rest;
}

class ListReader {
  readonly #pages = new Map<number, Page<unknown>>();
  #results = 0;
  /** Items the API lets the bot read; known after the first read. */
  #reachable = 0;
  #calls = 0;

  constructor(
    private readonly client: ApiClient,
    private readonly op: AnyOperation,
    private readonly input: Record<string, unknown>,
    private readonly layout: ListLayout,
    private readonly callOptions: ListCallOptions,
  ) {}

  async read(position: ListPosition): Promise<ListRead> {
    const page = position.page ?? 1;
    if (position.start !== undefined) return this.#readAt(page, position.start, position.previousStart);
    return this.#walkTo(page);
  }

  /** A page whose start a button carried. */
  async #readAt(page: number, start: number, previousStart: number | undefined): Promise<ListRead> {
    await this.#apiPage(this.#apiPageOf(start));
    if (start >= this.#reachable) {
      if (start === 0) return this.#window(1, 0, [0], undefined);
      return { ok: false, reason: 'past-end', pages: undefined, results: this.#results };
    }
    const all = await this.#allItemsIfRead();
    if (all) {
      const starts = this.layout.pageStarts(all);
      const index = starts.indexOf(start);
      if (index < 0) return { ok: false, reason: 'not-a-page-start' };
      return this.#window(index + 1, start, starts, starts[index - 1]);
    }
    // Not every item was read: the position is taken as the button says, within what a page can be
    // (a page holds at least one item and at most a message's rows).
    const perPage = this.layout.maxItemsPerPage;
    const plausible =
      start <= (page - 1) * perPage &&
      (previousStart === undefined || (start - previousStart >= 1 && start - previousStart <= perPage));
    if (!plausible) return { ok: false, reason: 'not-a-page-start' };
    return this.#window(page, start, undefined, previousStart);
  }

  /** Page `target`, found by packing pages from the first item. */
  async #walkTo(target: number): Promise<ListRead> {
    await this.#apiPage(1);
    let start = 0;
    let previous: number | undefined;
    for (let page = 1; page < target; page++) {
      if (start >= this.#reachable) break;
      const items = await this.#itemsFrom(start, WINDOW_ITEMS);
      previous = start;
      start += this.layout.fit(items);
    }
    const all = await this.#allItemsIfRead();
    const starts = all ? this.layout.pageStarts(all) : undefined;
    if (start >= this.#reachable && !(start === 0 && target === 1)) {
      return { ok: false, reason: 'past-end', pages: starts?.length, results: this.#results };
    }
    return this.#window(target, start, starts, previous);
  }

  async #window(
    page: number,
    start: number,
    starts: readonly number[] | undefined,
    previousStart: number | undefined,
  ): Promise<ListRead> {
    const items = await this.#itemsFrom(start, WINDOW_ITEMS);
    return {
      ok: true,
      apiCalls: this.#calls,
      window: {
        items,
        start,
        page,
        results: this.#results,
        reachable: this.#reachable,
        pages: starts === undefined ? undefined : Math.max(1, starts.length),
        previousStart,
      },
    };
  }

  /** Every reachable item, when the API pages read so far hold them all (no further call). */
  async #allItemsIfRead(): Promise<unknown[] | undefined> {
    const needed = this.op.pageParams ? Math.ceil(this.#reachable / LIST_READ_PAGE_SIZE) : 1;
    for (let page = 1; page <= needed; page++) if (!this.#pages.has(page)) return undefined;
    return this.#itemsFrom(0, this.#reachable);
  }

  /** Up to `count` items from `start`, reading the API pages they are on. */
  async #itemsFrom(start: number, count: number): Promise<unknown[]> {
    const end = Math.min(start + count, this.#reachable);
    const items: unknown[] = [];
    for (let index = start; index < end; ) {
      const apiPage = this.#apiPageOf(index);
      const data = (await this.#apiPage(apiPage)).data;
      const offset = index - (apiPage - 1) * LIST_READ_PAGE_SIZE;
      const taken = data.slice(offset, offset + (end - index));
      // The list shrank between two reads: show what there is rather than wait for items that went.
      if (taken.length === 0) break;
      items.push(...taken);
      index += taken.length;
    }
    return items;
  }

  #apiPageOf(index: number): number {
    return this.op.pageParams ? Math.floor(index / LIST_READ_PAGE_SIZE) + 1 : 1;
  }

  async #apiPage(page: number): Promise<Page<unknown>> {
    const known = this.#pages.get(page);
    if (known) return known;
    const read = this.op.pageParams
      ? await this.client.paginate(this.op, this.input, {
          ...this.callOptions,
          page,
          pageSize: LIST_READ_PAGE_SIZE,
        })
      : await this.client.paginate(this.op, this.input, this.callOptions);
    this.#calls += 1;
    this.#pages.set(page, read);
    this.#results = read.results;
    // A list without page parameters answers with its first page only: the rest cannot be read.
    this.#reachable = this.op.pageParams ? read.results : read.data.length;
    return read;
  }
}
