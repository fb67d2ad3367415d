import type { KnownBlock } from '@slack/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../infra/local/emulator/server.js';
import { ApiClient } from '../../lib/api/client.js';
import type { AnyOperation } from '../../lib/api/operation.js';
import { operations } from '../../lib/api/operations/index.js';
import { type ListPosition, readListWindow } from '../../lib/slack/list-reader.js';
import { ListLayout } from '../../lib/slack/render/list.js';
import { decodeActionValue, PagePayloadSchema } from '../../lib/slack-kit/interactions.js';
import { ALICE, CHANNEL, type E2E, startE2E } from '../support/e2e.js';
import { existingInputFor } from '../support/sample-inputs.js';
import { buttonLabeled, expectSendable } from '../unit/slack/render/message-checks.js';

/**
 * Every item of every list is reachable: for each list operation of the table and lists of
 * several lengths, walking Next and back with Previous, typing `--page N` and walking `--all` through the real reader,
 * renderer and API client against the emulator shows every id exactly once, in messages Slack
 * accepts. (The same through signed Slack requests: `slack-commands.test.ts`, "list paging".)
 */

const LIST_OPERATIONS: readonly AnyOperation[] = operations.filter((op) => op.paginated);
/** What a list without page parameters answers with: its first page, at the API's default size. */
const UNPAGED_LIST_LIMIT = 100;
const ID_BASE = 100_000;

let emulator: Emulator;
let client: ApiClient;

beforeAll(async () => {
  emulator = await startEmulator({ rateLimit: false });
  client = new ApiClient({ baseUrl: emulator.url, token: emulator.demoToken });
});

afterAll(async () => {
  await emulator?.close();
});

/** `count` copies of a real item of the list, ids `ID_BASE + i` (string ids keep their prefix). */
function itemsLike(template: Record<string, unknown>, count: number): Record<string, unknown>[] {
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

function positionOf(value: string | undefined): ListPosition | undefined {
  if (value === undefined) return undefined;
  const payload = decodeActionValue(PagePayloadSchema, value);
  expect(payload, `a Next payload the listener accepts: ${value}`).toBeDefined();
  return payload && { page: payload.page, start: payload.start, previousStart: payload.previousStart };
}

async function show(
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
    const shown = await show(op, input, position, compact);
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

describe.each(LIST_OPERATIONS.map((op) => [op.id, op] as const))('%s', (_id, op) => {
  let input: Record<string, unknown>;
  let template: Record<string, unknown>;
  /** Rows of the first page of a long list: "exactly fits". */
  let fits: number;

  beforeAll(async () => {
    input = await existingInputFor(op, client);
    const first = await client.paginate(op, input as never, {});
    const item = first.data[0];
    if (typeof item !== 'object' || item === null) throw new Error(`${op.id}: the seed has no item to copy`);
    template = item as Record<string, unknown>;
    emulator.control.setListItems(op.id, itemsLike(template, 600));
    fits = (await show(op, input, {}, false))?.ids.length ?? 0;
    expect(fits).toBeGreaterThan(1);
  });

  afterAll(() => emulator.control.setListItems(op.id, undefined));

  it('shows every id exactly once through Next, --page N and --all, from 0 to 600 items', async () => {
    const sizes = [...new Set([0, 1, fits, fits + 1, 30, 499, 500, 501, 600])];
    for (const size of sizes) {
      emulator.control.setListItems(op.id, itemsLike(template, size));
      const reachable = op.pageParams ? size : Math.min(size, UNPAGED_LIST_LIMIT);

      const { pages: byNext, last } = await walk(op, input, false);
      expectEachOnce(byNext, reachable);
      // Previous from the last page goes back through the same pages to the first.
      const { pages: byPrevious } = await walk(op, input, false, 'previous', last);
      expect(byPrevious.reverse()).toEqual(byNext);

      // `--page N` is the page Next showed as page N; one past the last is refused.
      for (const [index, ids] of byNext.entries()) {
        const typed = await show(op, input, { page: index + 1 }, false);
        expect(typed?.ids, `${op.id} with ${size} items, --page ${index + 1}`).toEqual(ids);
      }
      expect(await show(op, input, { page: byNext.length + 1 }, false)).toBeUndefined();

      const { pages: byAll } = await walk(op, input, true);
      expectEachOnce(byAll, reachable);
    }
  }, 120_000);
});

describe('positions a button could not have made', () => {
  const op = operations.find((candidate) => candidate.id === 'nodes.list') as AnyOperation;

  beforeAll(async () => {
    const first = await client.paginate(op, {}, {});
    emulator.control.setListItems(op.id, itemsLike(first.data[0] as Record<string, unknown>, 600));
  });

  afterAll(() => emulator.control.setListItems(op.id, undefined));

  it.each([
    ['a page that starts later than its number allows', { page: 3, start: 520 }, 'not-a-page-start'],
    [
      'a page before it further back than a message holds',
      { page: 30, start: 520, previousStart: 400 },
      'not-a-page-start',
    ],
    ['a position past the end', { page: 40, start: 900 }, 'past-end'],
    ['a page number past the end', { page: 400 }, 'past-end'],
  ])('%s is refused', async (_case, position, reason) => {
    const layout = new ListLayout(op, {}, {});
    const read = await readListWindow(client, op, {}, layout, position, {});
    expect(read).toMatchObject({ ok: false, reason });
  });

  it('a page beyond the first API page, as Next made it, is shown', async () => {
    const layout = new ListLayout(op, {}, {});
    let position: ListPosition | undefined = {};
    let shown = 0;
    while (position && (position.start ?? 0) < 500) {
      const read = await readListWindow(client, op, {}, layout, position, {});
      if (!read.ok) throw new Error(`refused ${JSON.stringify(position)}`);
      shown = read.window.start;
      position = positionOf(buttonLabeled(layout.render(read.window), 'Next ▶')?.value);
    }
    expect(position?.start).toBeGreaterThanOrEqual(500);
    expect(shown).toBeLessThan(500);
    const read = await readListWindow(client, op, {}, layout, position ?? {}, {});
    expect(read.ok).toBe(true);
  });
});

describe('paging handed to the worker', () => {
  let e2e: E2E;

  beforeAll(async () => {
    // No inline budget: every read is handed off, so the job must carry where the page starts.
    e2e = await startE2E({ stack: { inlineBudgetMs: 0 } });
    await e2e.login(ALICE, e2e.emulator.demoToken);
  });

  afterAll(async () => {
    await e2e?.close();
  });

  it('Next shows the rest of the 30 nodes from the worker as it does inline', async () => {
    const ack = await e2e.command(ALICE, 'nodes list');
    expect(e2e.textOf(ack.message)).toContain('Working on `nodes list`');
    const first = e2e.lastSeen(ALICE);
    expect(e2e.textOf(first)).toContain('Nodes — page 1 of 2 (30)');
    const next = buttonLabeled(first as never, 'Next ▶');
    if (!next?.action_id || next.value === undefined) throw new Error('no Next button');
    const click = await e2e.stack.workspace.click(ALICE, first, {
      actionId: next.action_id,
      value: next.value,
    });
    expect(click.status).toBe(200);
    await e2e.stack.drain();
    const second = e2e.stack.standIn.store.findMessage(CHANNEL, first.ts);
    expect(e2e.textOf(second)).toContain('Nodes — page 2 of 2 (30)');
    const ids = (message: typeof first | undefined) =>
      [...JSON.stringify(message?.blocks ?? []).matchAll(/`(10\d\d)`/g)].map((m) => Number(m[1]));
    expect([...ids(first), ...ids(second)]).toEqual(Array.from({ length: 30 }, (_, i) => 1001 + i));
  });
});
