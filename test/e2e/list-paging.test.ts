import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyOperation } from '../../lib/api/operation.js';
import { operations } from '../../lib/api/operations/index.js';
import { type ListPosition, readListWindow } from '../../lib/slack/list-reader.js';
import { ListLayout } from '../../lib/slack/render/list.js';
import { ALICE, CHANNEL, type E2E, startE2E } from '../support/e2e.js';
import {
  describeEveryIdShownOnce,
  itemsLike,
  listApiForFile,
  otherListOperations,
  positionOf,
} from '../support/list-paging.js';
import { buttonLabeled } from '../unit/slack/render/message-checks.js';

/**
 * Every item of every list is reachable: for each list operation of the table and lists of
 * several lengths, walking Next and back with Previous, typing `--page N` and walking `--all` through the real reader,
 * renderer and API client against the emulator shows every id exactly once, in messages Slack
 * accepts. (The same through signed Slack requests: `slack-commands.test.ts`, "list paging".)
 * The lists of `nodes` and `databases` are walked in `list-paging-nodes.test.ts` and
 * `list-paging-databases.test.ts`, those of every other area here.
 */

const api = listApiForFile();

describeEveryIdShownOnce(api, otherListOperations());

describe('positions a button could not have made', () => {
  const op = operations.find((candidate) => candidate.id === 'nodes.list') as AnyOperation;

  beforeAll(async () => {
    const first = await api.client.paginate(op, {}, {});
    api.emulator.control.setListItems(op.id, itemsLike(first.data[0] as Record<string, unknown>, 600));
  });

  afterAll(() => api.emulator.control.setListItems(op.id, undefined));

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
    const read = await readListWindow(api.client, op, {}, layout, position, {});
    expect(read).toMatchObject({ ok: false, reason });
  });

  it('a page beyond the first API page, as Next made it, is shown', async () => {
    const layout = new ListLayout(op, {}, {});
    let position: ListPosition | undefined = {};
    let shown = 0;
    while (position && (position.start ?? 0) < 500) {
      const read = await readListWindow(api.client, op, {}, layout, position, {});
      if (!read.ok) throw new Error(`refused ${JSON.stringify(position)}`);
      shown = read.window.start;
      position = positionOf(buttonLabeled(layout.render(read.window), 'Next ▶')?.value);
    }
    expect(position?.start).toBeGreaterThanOrEqual(500);
    expect(shown).toBeLessThan(500);
    const read = await readListWindow(api.client, op, {}, layout, position ?? {}, {});
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
