import { describe, expect, it } from 'vitest';
import { getOperation } from '../../../lib/api/operations/index.js';
import { toCsv } from '../../../lib/slack/list-export.js';
import { renderList } from '../../../lib/slack/render/list.js';
import { decodeActionValue, ExportPayloadSchema } from '../../../lib/slack-kit/interactions.js';
import { listOf, many, node } from './render/fixtures.js';
import { buttonLabeled, expectSendable } from './render/message-checks.js';

describe('toCsv', () => {
  it('has a header of every field in the order first seen, and one row an item', () => {
    expect(
      toCsv([
        { id: 1, label: 'a' },
        { id: 2, region: 'us-east' },
      ]),
    ).toBe('id,label,region\r\n1,a,\r\n2,,us-east\r\n');
  });

  it('quotes commas, quotes and line breaks, and writes objects and arrays as JSON', () => {
    expect(toCsv([{ label: 'a, "b"\nc', tags: ['x', 'y'], ssh: { port: 22 } }])).toBe(
      'label,tags,ssh\r\n"a, ""b""\nc","[""x"",""y""]","{""port"":22}"\r\n',
    );
  });

  it('keeps text a spreadsheet would run as a formula from being one', () => {
    expect(toCsv([{ label: '=HYPERLINK("http://x")', note: '+1', size: -5 }])).toBe(
      'label,note,size\r\n"\'=HYPERLINK(""http://x"")",\'+1,-5\r\n',
    );
  });

  it('writes an empty list as nothing (the bot sends no file then)', () => {
    expect(toCsv([])).toBe('');
  });
});

describe('the --all message offers the whole list as a file', () => {
  const op = getOperation('nodes.list');

  it('with CSV and JSON buttons carrying the list, its filter and the format', () => {
    const filter = { region: 'us-east' };
    const message = renderList(op, {}, listOf(many(node, 100), { results: 600 }), { compact: true, filter });
    expectSendable(message);
    expect(
      decodeActionValue(ExportPayloadSchema, buttonLabeled(message, 'CSV file to my DMs')?.value),
    ).toEqual({
      operationId: 'nodes.list',
      input: {},
      filter,
      format: 'csv',
    });
    expect(
      decodeActionValue(ExportPayloadSchema, buttonLabeled(message, 'JSON file to my DMs')?.value),
    ).toMatchObject({
      format: 'json',
    });
  });

  it('and only with --all', () => {
    const message = renderList(op, {}, listOf(many(node, 30)));
    expect(buttonLabeled(message, 'CSV file to my DMs')).toBeUndefined();
  });

  it('refuses a format it does not make', () => {
    expect(
      decodeActionValue(ExportPayloadSchema, JSON.stringify({ o: 'nodes.list', i: {}, x: 'xlsx' })),
    ).toBeUndefined();
  });
});
