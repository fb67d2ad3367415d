import type { KnownBlock } from '@slack/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../infra/local/emulator/server.js';
import { ApiClient } from '../../lib/api/client.js';
import type { AnyOperation } from '../../lib/api/operation.js';
import { operations } from '../../lib/api/operations/index.js';
import { type ListPosition, readListWindow } from '../../lib/slack/list-reader.js';
import { ListLayout } from '../../lib/slack/render/list.js';
import { decodeActionValue, PagePayloadSchema } from '../../lib/slack-kit/interactions.js';
import { buttonLabeled, expectSendable } from '../unit/slack/render/message-checks.js';
import { existingInputFor } from './sample-inputs.js';

/**
 * The walk behind "every item of every list is reachable" (`test/e2e/list-paging*.test.ts`): lists
 * of many lengths put in the emulator, shown through the real reader, renderer and API client.
 * The list operations are spread over several files only so that test workers can run them side
 * by side: `nodes` and `databases` have files of their own, every other area is in
 * `list-paging.test.ts`.
 */

const LIST_OPERATIONS: readonly AnyOperation[] = operations.filter((op) => op.paginated);
/** Areas whose list operations are walked in a file of their own. */
const AREAS_APART = ['nodes', 'databases'] as const;
const areaOf = (op: AnyOperation) => op.id.split('.')[0];

/** The list operations of `area`. */
export function listOperationsOf(area: (typeof AREAS_APART)[number]): readonly AnyOperation[] {
  return LIST_OPERATIONS.filter((op) => areaOf(op) === area);
}

/** The list operations of every area without a file of its own. */
export function otherListOperations(): readonly AnyOperation[] {
  return LIST_OPERATIONS.filter((op) => !(AREAS_APART as readonly string[]).includes(areaOf(op) ?? ''));
}

/** What a list without page parameters answers with: its first page, at the API's default size. */
const UNPAGED_LIST_LIMIT = 100;
export const ID_BASE = 100_000;

/** The emulator a file's lists live in, and the API client that reads them. */
export interface ListApi {
  readonly emulator: Emulator;
  readonly client: ApiClient;
}

/** Starts the emulator before the file's tests and closes it after them. */
export function listApiForFile(): ListApi {
  let emulator: Emulator | undefined;
  let client: ApiClient | undefined;
  beforeAll(async () => {
    emulator = await startEmulator({ rateLimit: false });
    client = new ApiClient({ baseUrl: emulator.url, token: emulator.demoToken });
  });
  afterAll(async () => {
    await emulator?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the emulator starts in beforeAll');
    return value;
  };
  return {
    get emulator() {
      return started(emulator);
    },
    get client() {
      return started(client);
    },
  };
}

/** `count` copies of a real item of the list, ids `ID_BASE + i` (string ids keep their prefix). */
export function itemsLike(template: Record<string, unknown>, count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => {
    const n = ID_BASE + i;
    const id = typeof template.id === 'string' ? template.id.replace(/[^/]*$/, `x${n}`) : n;
    return { ...template, id };
  });
}

/** The numbers of the ids a message shows, in order: each row or line names one item. */
function idsShown(blocks: readonly KnownBlock[], compact: boolean): number[] {
  const texts = blocks
    .filter((b): b is Extract<KnownBlock, { type: 'section' }> => b.type === 'section')
    .flatMap((b) => (compact ? (b.text?.text ?? '').split('\n') : [b.text?.text ?? '']));
  return texts.map((text) => {
    const found = new Set([...text.matchAll(/(?<!\d)1\d{5}(?!\d)/g)].map((m) => Number(m[0])));
    expect(found.size, `one id in ${JSON.stringify(text)}`).toBe(1);
    return [...found][0] as number;
  });
}

interface Shown {
  readonly ids: number[];
  readonly next: ListPosition | undefined;
  readonly previous: ListPosition | undefined;
  readonly heading: string;
}

export function positionOf(value: string | undefined): ListPosition | undefined {
  if (value === undefined) return undefined;
  const payload = decodeActionValue(PagePayloadSchema, value);
  expect(payload, `a Next payload the listener accepts: ${value}`).toBeDefined();
  return payload && { page: payload.page, start: payload.start, previousStart: payload.previousStart };
}

async function show(
  client: ApiClient,
  op: AnyOperation,
  input: Record<string, unknown>,
  position: ListPosition,
  compact: boolean,
): Promise<Shown | undefined> {
  const layout = new ListLayout(op, input, { compact });
  const read = await readListWindow(client, op, input, layout, position, {});
  if (!read.ok) return undefined;
  const message = layout.render(read.window);
  expectSendable(message);
  // A button that knows where its page starts costs one API read, two when the page straddles two.
  if (position.start !== undefined) expect(read.apiCalls).toBeLessThanOrEqual(2);
  const header = message.blocks[0];
  return {
    ids: read.window.results === 0 ? [] : idsShown(message.blocks, compact),
    next: positionOf(buttonLabeled(message, 'Next ▶')?.value),
    previous: positionOf(buttonLabeled(message, '◀ Previous')?.value),
    heading: header?.type === 'header' ? header.text.text : '',
  };
}

/** Pages from `from`, following Next (or Previous): each page's ids, and where the last one was. */
async function walk(
  client: ApiClient,
  op: AnyOperation,
  input: Record<string, unknown>,
  compact: boolean,
  direction: 'next' | 'previous' = 'next',
  from: ListPosition = {},
) {
  const pages: number[][] = [];
  let position: ListPosition | undefined = from;
  let last: ListPosition = from;
  while (position) {
    const shown = await show(client, op, input, position, compact);
    if (!shown) throw new Error(`${direction} led past the end of ${op.id} after ${pages.length} pages`);
    pages.push(shown.ids);
    last = position;
    position = shown[direction];
    if (pages.length > 1000) throw new Error(`${direction} never ends`);
  }
  return { pages, last };
}

function expectEachOnce(pages: readonly number[][], count: number): void {
  const ids = pages.flat();
  expect(ids).toEqual(Array.from({ length: count }, (_, i) => ID_BASE + i));
}

/**
 * For each of `ops`, lists of several lengths: walking Next and back with Previous, typing
 * `--page N` and walking `--all` show every id exactly once, in messages Slack accepts.
 */
export function describeEveryIdShownOnce(api: ListApi, ops: readonly AnyOperation[]): void {
  describe.each(ops.map((op) => [op.id, op] as const))('%s', (_id, op) => {
    let input: Record<string, unknown>;
    let template: Record<string, unknown>;
    /** Rows of the first page of a long list: "exactly fits". */
    let fits: number;

    beforeAll(async () => {
      const { client, emulator } = api;
      input = await existingInputFor(op, client);
      const first = await client.paginate(op, input as never, {});
      const item = first.data[0];
      if (typeof item !== 'object' || item === null)
        throw new Error(`${op.id}: the seed has no item to copy`);
      template = item as Record<string, unknown>;
      emulator.control.setListItems(op.id, itemsLike(template, 600));
      fits = (await show(client, op, input, {}, false))?.ids.length ?? 0;
      expect(fits).toBeGreaterThan(1);
    });

    afterAll(() => api.emulator.control.setListItems(op.id, undefined));

    it('shows every id exactly once through Next, --page N and --all, from 0 to 600 items', async () => {
      const { client, emulator } = api;
      const sizes = [...new Set([0, 1, fits, fits + 1, 30, 499, 500, 501, 600])];
      for (const size of sizes) {
        emulator.control.setListItems(op.id, itemsLike(template, size));
        const reachable = op.pageParams ? size : Math.min(size, UNPAGED_LIST_LIMIT);

        const { pages: byNext, last } = await walk(client, op, input, false);
        expectEachOnce(byNext, reachable);
        // Previous from the last page goes back through the same pages to the first.
        const { pages: byPrevious } = await walk(client, op, input, false, 'previous', last);
        expect(byPrevious.reverse()).toEqual(byNext);

        // `--page N` is the page Next showed as page N; one past the last is refused.
        for (const [index, ids] of byNext.entries()) {
          const typed = await show(client, op, input, { page: index + 1 }, false);
          expect(typed?.ids, `${op.id} with ${size} items, --page ${index + 1}`).toEqual(ids);
        }
        expect(await show(client, op, input, { page: byNext.length + 1 }, false)).toBeUndefined();

        const { pages: byAll } = await walk(client, op, input, true);
        expectEachOnce(byAll, reachable);
      }
    }, 120_000);
  });
}
