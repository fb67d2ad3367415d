import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineOperation, PageQuerySchema } from '../../../../lib/api/operation.js';
import { getOperation, requireOperation } from '../../../../lib/api/operations/index.js';
import { ListLayout, renderList } from '../../../../lib/slack/render/list.js';
import {
  ActionId,
  decodeActionValue,
  PagePayloadSchema,
  RunPayloadSchema,
} from '../../../../lib/slack-kit/interactions.js';
import {
  database,
  databaseType,
  detachedVolume,
  listOf,
  login,
  managedIssue,
  many,
  node,
  nodeConfig,
  postgresDatabase,
  privateImage,
  publicImage,
  sshKey,
  TOKEN_PREFIX,
  token,
  volume,
} from './fixtures.js';
import {
  buttonLabeled,
  buttons,
  expectSendable,
  interactiveElements,
  visibleText,
} from './message-checks.js';

const sectionsWithAccessory = (blocks: { type: string; accessory?: unknown }[]) =>
  blocks.filter((b) => b.type === 'section' && b.accessory !== undefined);

describe('renderList: header and paging', () => {
  const op = getOperation('volumes.list');

  it('names the kind, the page the person sees and the total in the header', () => {
    const message = renderList(
      op,
      {},
      listOf(many(volume, 25), { start: 20, page: 2, results: 160, pages: 8 }),
    );
    expect(message.blocks[0]).toMatchObject({
      type: 'header',
      text: { text: 'Volumes — page 2 of 8 (160)' },
    });
    expect(message.text).toBe('Volumes — page 2 of 8 (160)');
    expectSendable(message);
  });

  it('names the page without a count when not every page was read', () => {
    const message = renderList(op, {}, listOf(many(volume, 25), { start: 520, page: 27, results: 600 }));
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Volumes — page 27 (600)' } });
  });

  it('offers Previous and Next carrying where their pages start, the input and the filter', () => {
    const filter = { label: 'db-data' };
    const message = renderList(
      op,
      { page: 2, page_size: 25 },
      listOf(many(volume, 25), { start: 20, page: 2, results: 160, previousStart: 0 }),
      { filter },
    );
    const previous = decodeActionValue(PagePayloadSchema, buttonLabeled(message, '◀ Previous')?.value);
    const next = decodeActionValue(PagePayloadSchema, buttonLabeled(message, 'Next ▶')?.value);
    expect(previous).toEqual({ operationId: 'volumes.list', input: {}, page: 1, start: 0, filter });
    expect(next).toEqual({
      operationId: 'volumes.list',
      input: {},
      page: 3,
      start: 40,
      previousStart: 20,
      filter,
    });
    const pageButtons = buttons(message).filter((b) => b.action_id?.startsWith(ActionId.page));
    expect(pageButtons).toHaveLength(2);
  });

  it('has no Previous on the first page and no Next on the last', () => {
    const first = renderList(op, {}, listOf(many(volume, 3), { results: 103 }));
    expect(buttonLabeled(first, '◀ Previous')).toBeUndefined();
    expect(buttonLabeled(first, 'Next ▶')).toBeDefined();
    const last = renderList(op, {}, listOf(many(volume, 3), { start: 100, page: 6 }));
    expect(buttonLabeled(last, 'Next ▶')).toBeUndefined();
    expect(buttonLabeled(last, '◀ Previous')).toBeDefined();
  });

  it('shows a single page without paging buttons', () => {
    const message = renderList(op, {}, listOf([volume, detachedVolume], { pages: 1 }));
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Volumes (2)' } });
    expect(buttons(message).filter((b) => b.action_id?.startsWith(ActionId.page))).toEqual([]);
  });

  it('shows the filter as words, not raw JSON: "field is value"', () => {
    const filter = {
      label: 'db-data',
      size: { '+gte': 10 },
      '+or': [{ region: 'us-east' }, { region: 'eu-west' }],
      '+order_by': 'created',
      '+order': 'desc',
    };
    const text = visibleText(renderList(op, {}, listOf(many(volume, 2)), { filter }));
    expect(text).toContain(
      ':mag: filter: label is “db-data” and size is at least 10 GB and (region is “us-east” or region is “eu-west”), sorted by created, descending',
    );
    expect(text).not.toContain('{');
  });

  it('words an enum value in a filter as it words the field', () => {
    const images = getOperation('images.list');
    const text = visibleText(renderList(images, {}, listOf([]), { filter: { status: 'pending_upload' } }));
    expect(text).toContain(':mag: filter: status is waiting for its upload');
  });

  it('says so when nothing matched', () => {
    const message = renderList(op, {}, listOf([], { pages: 1 }), { filter: { label: 'nope' } });
    expect(visibleText(message)).toContain('No volumes found matching the filter.');
    expectSendable(message);
  });

  it('leaves out page buttons whose payload would not fit in a button value, and names the page to type', () => {
    const filter = { label: 'x'.repeat(2500) };
    const message = renderList(op, {}, listOf(many(volume, 3), { results: 400 }), { filter });
    expect(buttonLabeled(message, 'Next ▶')).toBeUndefined();
    expect(visibleText(message)).toContain('`--page 2`');
    expectSendable(message);
  });
});

describe('renderList: rows that do not fit continue on the next page', () => {
  const op = getOperation('nodes.list');

  it('keeps 500 items with 3,000-character labels within Slack limits and Next starts after the last row shown', () => {
    const message = renderList(op, {}, listOf(many(node, 500, 3000)));
    expectSendable(message);
    const rows = sectionsWithAccessory(message.blocks);
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.length).toBeLessThanOrEqual(20);
    expect(visibleText(message)).toContain(`Items 1–${rows.length} of 500.`);
    const next = decodeActionValue(PagePayloadSchema, buttonLabeled(message, 'Next ▶')?.value);
    expect(next).toMatchObject({ page: 2, start: rows.length, previousStart: 0 });
  });

  it('regression: 30 nodes on one API page are not cut at 18 with a hint to use --page-size', () => {
    const message = renderList(op, {}, listOf(many(node, 30)));
    const shown = sectionsWithAccessory(message.blocks).length;
    expect(shown).toBeLessThan(30);
    expect(visibleText(message)).not.toContain('--page-size');
    expect(visibleText(message)).toContain('`--page 2`');
    expect(decodeActionValue(PagePayloadSchema, buttonLabeled(message, 'Next ▶')?.value)).toMatchObject({
      page: 2,
      start: shown,
    });
  });

  it('never hints at a page size the bot refuses', () => {
    for (const count of [1, 30, 500]) {
      const text = visibleText(renderList(op, {}, listOf(many(node, count))));
      expect(text).not.toMatch(/--page-size/);
    }
  });

  it('caps rows at 20 even when they are small', () => {
    const message = renderList(getOperation('volumes.list'), {}, listOf(many(volume, 100)));
    expect(sectionsWithAccessory(message.blocks)).toHaveLength(20);
    expect(visibleText(message)).toContain('Items 1–20 of 100.');
  });

  it('packs the same pages whatever page is being shown, so --page N and Next agree', () => {
    const layout = new ListLayout(op, {}, {});
    const items = many(node, 120, 40);
    const starts = layout.pageStarts(items);
    for (const [index, start] of starts.entries()) {
      const next = starts[index + 1] ?? items.length;
      expect(layout.fit(items.slice(start, start + 100))).toBe(next - start);
    }
  });

  it('says when the API does not page a list and returns only part of it', () => {
    const message = renderList(
      getOperation('profile.tokens-list'),
      {},
      listOf(many(token, 5), { start: 95, page: 6, results: 600, reachable: 100 }),
    );
    expect(visibleText(message)).toContain(
      'Only the first 100 can be read (the API does not page this list): narrow the list with a filter',
    );
    expect(buttonLabeled(message, 'Next ▶')).toBeUndefined();
  });
});

describe('renderList: --all, one line an item', () => {
  const op = getOperation('nodes.list');

  it('lists up to 100 items a message and says how to get the rest', () => {
    const message = renderList(op, {}, listOf(many(node, 100), { results: 600 }), { compact: true });
    expectSendable(message);
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Nodes — all 600: items 1–100' } });
    const lines = message.blocks
      .filter((b) => b.type === 'section')
      .flatMap((b) => ('text' in b && b.text ? b.text.text.split('\n') : []));
    expect(lines).toHaveLength(100);
    expect(visibleText(message)).toContain('Up to 100 a message with `--all`: Next ▶ for the 500 more');
    expect(decodeActionValue(PagePayloadSchema, buttonLabeled(message, 'Next ▶')?.value)).toMatchObject({
      start: 100,
      compact: true,
    });
  });

  it('shows a whole short list in one message, without paging', () => {
    const message = renderList(op, {}, listOf(many(node, 30), { pages: 1 }), { compact: true });
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Nodes — all 30' } });
    expect(buttons(message).filter((b) => b.action_id?.startsWith(ActionId.page))).toEqual([]);
    expectSendable(message);
  });

  it('fits fewer, longer lines within Slack limits', () => {
    const message = renderList(op, {}, listOf(many(node, 600, 3000)), { compact: true });
    expectSendable(message);
  });
});

describe('renderList: rows per kind', () => {
  it('nodes: label, status, region, type, ipv4 and a menu of safe next steps', () => {
    const message = renderList(getOperation('nodes.list'), {}, listOf([{ ...node, status: 'offline' }]));
    const text = visibleText(message);
    expect(text).toContain('*web-1*');
    expect(text).toContain(':white_circle: offline · us-east · g6-standard-1 · 203.0.113.1');
    const [menu] = interactiveElements(message);
    expect(menu?.type).toBe('overflow');
    expect(menu?.action_id).toBe(ActionId.menu);
    const options = (menu?.options ?? []).map((o) => [
      o.text.text,
      decodeActionValue(RunPayloadSchema, o.value),
    ]);
    expect(options).toContainEqual(['View', { operationId: 'nodes.view', input: { nodeId: 123 } }]);
    expect(options).toContainEqual(['Boot', { operationId: 'nodes.boot', input: { nodeId: 123 } }]);
    expectSendable(message);
  });

  it('never puts a destructive operation in a row menu (a menu option has no confirm dialog)', () => {
    const ops = ['nodes.list', 'volumes.list', 'databases.list', 'managed.services-list'];
    const items = [[node], [volume], [database], [{ id: 9944, label: 'prod-1', status: 'ok' }]];
    ops.forEach((id, index) => {
      const message = renderList(requireOperation(id), {}, listOf(items[index] ?? []));
      for (const element of interactiveElements(message)) {
        for (const option of element.options ?? []) {
          const payload = decodeActionValue(RunPayloadSchema, option.value);
          expect(payload, option.value).toBeDefined();
          expect(
            requireOperation(payload?.operationId ?? '').destructive,
            payload?.operationId,
          ).toBeUndefined();
        }
      }
    });
  });

  it('volumes: size, region and the attached node; Detach only when attached', () => {
    const message = renderList(getOperation('volumes.list'), {}, listOf([volume, detachedVolume]));
    const text = visibleText(message);
    expect(text).toContain('30 GB · us-east · attached to node123 (12346)');
    expect(text).toContain('not attached');
    const [attached, detached] = interactiveElements(message);
    expect(attached?.type).toBe('overflow');
    expect(attached?.options?.map((o) => o.text.text)).toEqual(['View', 'Detach']);
    expect(detached?.type).toBe('button');
    expect(decodeActionValue(RunPayloadSchema, detached?.value)).toEqual({
      operationId: 'volumes.view',
      input: { volumeId: 13 },
    });
  });

  it('images: string ids, status, size, public or private', () => {
    const message = renderList(getOperation('images.list'), {}, listOf([publicImage, privateImage]));
    const text = visibleText(message);
    expect(text).toContain('*Debian 11*  `node/debian11`');
    expect(text).toContain(':large_green_circle: available · 2,500 MB · public');
    expect(text).toContain('private');
    const view = decodeActionValue(RunPayloadSchema, buttons(message)[1]?.value);
    expect(view).toEqual({ operationId: 'images.view', input: { imageId: 'private/15' } });
  });

  it('databases of every engine: View goes to the engine kind of each row', () => {
    const message = renderList(getOperation('databases.list'), {}, listOf([database, postgresDatabase]));
    const views = interactiveElements(message).map((element) => {
      const value = element.type === 'button' ? element.value : element.options?.[0]?.value;
      return decodeActionValue(RunPayloadSchema, value);
    });
    expect(views).toEqual([
      { operationId: 'databases.mysql-view', input: { instanceId: 5 } },
      { operationId: 'databases.postgresql-view', input: { instanceId: 6 } },
    ]);
    expect(visibleText(message)).toContain('MySQL 8.0.26 · us-east · 3 nodes');
  });

  it('configs of a node: header names the node and View carries both ids', () => {
    const message = renderList(getOperation('nodes.configs-list'), { nodeId: 34 }, listOf([nodeConfig]));
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Configs of node 34 (1)' } });
    const [menu] = interactiveElements(message);
    const values = (menu?.options ?? []).map((o) => decodeActionValue(RunPayloadSchema, o.value));
    expect(values).toContainEqual({
      operationId: 'nodes.configs-view',
      input: { nodeId: 34, configId: 23456 },
    });
    expect(values).toContainEqual({ operationId: 'nodes.boot', input: { nodeId: 34, config_id: 23456 } });
  });

  it('tokens: label, scopes and expiry, never the token', () => {
    const message = renderList(getOperation('profile.tokens-list'), {}, listOf(many(token, 30)));
    expect(JSON.stringify(message)).not.toContain(TOKEN_PREFIX);
    expect(visibleText(message)).toContain(
      '`nodes:read_only` `volumes:read_write` · expires <!date^1514814392^{date_short_pretty} at {time}|2018-01-01 13:46 UTC>',
    );
    expectSendable(message);
  });

  it('SSH keys: the key type and comment, not the whole key', () => {
    const message = renderList(getOperation('profile.sshkeys-list'), {}, listOf([sshKey]));
    const text = visibleText(message);
    expect(text).toContain('ssh-rsa …456785== user@their-computer');
    expect(text).not.toContain('AAAA_valid_public_ssh_key');
  });

  it('issues: when, which services, and the ticket', () => {
    const message = renderList(getOperation('managed.issues-list'), {}, listOf([managedIssue]));
    const text = visibleText(message);
    // Titled by the ticket's subject, its id once beside it; the service by what is known of it.
    expect(text).toContain('*Managed Issue opened!*  `823`');
    expect(text).toContain(
      'opened <!date^1514764861^{ago}|2018-01-01 00:01 UTC> · affects service 654 · ticket #98765',
    );
    expect(text).toContain('details: `/cloud managed issues view &lt;issueId&gt;`');
  });

  it('services: status with emoji', () => {
    const message = renderList(
      getOperation('managed.services-list'),
      {},
      listOf([
        {
          id: 1,
          label: 'prod-1',
          status: 'problem',
          service_type: 'url',
          address: 'https://example.org',
          timeout: 30,
        },
      ]),
    );
    expect(visibleText(message)).toContain(':red_circle: problem · URL · https://example.org · timeout 30 s');
  });

  it('logins and database types', () => {
    expect(visibleText(renderList(getOperation('profile.logins-list'), {}, listOf([login])))).toContain(
      ':large_green_circle: successful · at <!date^1514764861^{date_short_pretty} {time}|2018-01-01 00:01 UTC> · 192.0.2.0 · restricted',
    );
    expect(visibleText(renderList(getOperation('databases.types'), {}, listOf([databaseType])))).toContain(
      '`g6-nano-1` · 1 vCPU · 1 GB RAM · 25 GB disk · from $20.00/month',
    );
  });

  it('escapes mrkdwn control characters in labels', () => {
    const message = renderList(
      getOperation('volumes.list'),
      {},
      listOf([{ ...volume, label: '<!channel> & co' }]),
    );
    expect(visibleText(message)).toContain('&lt;!channel&gt; &amp; co');
    expect(visibleText(message)).not.toContain('<!channel>');
  });
});

describe('renderList: items of an unknown shape', () => {
  const widgets = defineOperation({
    group: 'profile',
    action: 'widgets-list',
    summary: 'List widgets',
    method: 'GET',
    path: '/widgets',
    scopes: [],
    paginated: true,
    request: z.strictObject({ ...PageQuerySchema.shape }),
    response: z.object({ id: z.number() }).loose(),
    example: 'profile widgets-list',
  });

  it('shows id, label and up to three scalar fields, never secret ones', () => {
    const item = {
      id: 7,
      label: 'gizmo',
      password: 'hunter2',
      colour: 'red',
      size: 3,
      nested: { a: 1 },
      shape: 'round',
      age: 4,
    };
    const message = renderList(widgets, {}, listOf([item]));
    const text = visibleText(message);
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Widgets (1)' } });
    expect(text).toContain('*gizmo*  `7`');
    expect(text).toContain('colour red · size 3 · shape round');
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('age');
    expectSendable(message);
  });
});

describe('ListLayout: each item is measured once', () => {
  /** Items like `node` that count every read of their fields. */
  function countedNodes(count: number) {
    const reads = { count: 0 };
    const items = many(node, count).map(
      (item) =>
        new Proxy(item, {
          get(target, key, receiver) {
            reads.count += 1;
            return Reflect.get(target, key, receiver);
          },
        }),
    );
    return { items, reads };
  }

  it.each([
    ['rows', false],
    ['--all lines', true],
  ])('%s: packing the list again, or fitting a page of it, reads no item again', (_mode, compact) => {
    const layout = new ListLayout(getOperation('nodes.list'), {}, { compact });
    const { items, reads } = countedNodes(250);
    const starts = layout.pageStarts(items);
    expect(reads.count).toBeGreaterThan(0);
    const afterFirst = reads.count;
    expect(layout.pageStarts(items)).toEqual(starts);
    expect(layout.fit(items.slice(starts[1] ?? 0))).toBe((starts[2] ?? items.length) - (starts[1] ?? 0));
    expect(reads.count).toBe(afterFirst);
  });
});
