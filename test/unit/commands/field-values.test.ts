import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { integer, oneOf, text } from '../../../lib/api/operation.js';
import { shapeOfSchema } from '../../../lib/commands/field-shapes.js';
import { convertText, splitListText } from '../../../lib/commands/field-values.js';

const shape = (schema: z.ZodType) => shapeOfSchema(schema, 'input');
const visible = { secret: false };

describe('field shapes from the request schema', () => {
  it('reads bounds, dropping the safe-integer bounds zod adds to .int()', () => {
    expect(shape(integer(1)).minimum).toBe(1);
    expect(shape(integer(1)).maximum).toBeUndefined();
    expect(shape(integer(1, 7)).maximum).toBe(7);
  });

  it('keeps the length bounds of text with several patterns', () => {
    const label = shape(text(3, 64).regex(/^a/).regex(/b$/));
    expect([...label.kinds]).toEqual(['string']);
    expect([label.minLength, label.maxLength]).toEqual([3, 64]);
  });

  it('reads nullable fields and literal unions', () => {
    expect([...shape(text().nullable()).kinds].sort()).toEqual(['null', 'string']);
    expect(shape(z.union([z.literal(1), z.literal(3)])).enumValues).toEqual([1, 3]);
  });

  it('reads maps, recursive JSON values and required keys', () => {
    const devices = shape(z.record(z.string(), z.object({ disk_id: integer(1) })));
    expect(devices.openKeys?.properties?.has('disk_id')).toBe(true);
    expect(devices.openKeys?.required?.has('disk_id')).toBe(true);
    expect(shape(z.record(z.string(), z.json())).openKeys?.kinds.size).toBe(6);
  });

  it('merges the alternatives of a union, requiring only what all require', () => {
    const merged = shape(
      z.union([
        z.object({ kind: z.literal('a'), x: z.string() }),
        z.object({ kind: z.literal('b'), y: z.number() }),
      ]),
    );
    expect([...(merged.properties?.keys() ?? [])]).toEqual(['kind', 'x', 'y']);
    expect([...(merged.required ?? [])]).toEqual(['kind']);
  });
});

describe('convertText', () => {
  it('converts numbers, booleans, enums and null by the field type', () => {
    expect(convertText('12', shape(integer()), visible)).toEqual({ ok: true, value: 12 });
    expect(convertText('1.5', shape(z.number()), visible)).toEqual({ ok: true, value: 1.5 });
    expect(convertText('no', shape(z.boolean()), visible)).toEqual({ ok: true, value: false });
    expect(convertText('3', shape(z.literal([1, 3])), visible)).toEqual({ ok: true, value: 3 });
    expect(convertText('null', shape(text().nullable()), visible)).toEqual({ ok: true, value: null });
    expect(convertText('null', shape(text()), visible)).toEqual({ ok: true, value: 'null' });
  });

  it('says what was expected and what was typed', () => {
    expect(convertText('1.5', shape(integer()), visible)).toEqual({
      ok: false,
      reason: 'must be a whole number (got "1.5")',
    });
    expect(convertText('x', shape(oneOf(['a', 'b'])), visible)).toEqual({
      ok: false,
      reason: 'must be one of a, b (got "x")',
    });
    expect(convertText('9'.repeat(30), shape(integer()), visible)).toEqual({
      ok: false,
      reason: expect.stringContaining('too large'),
    });
  });

  it('leaves out the typed value of a secret field', () => {
    expect(convertText('hunter2', shape(integer()), { secret: true })).toEqual({
      ok: false,
      reason: 'must be a whole number',
    });
  });

  it('shortens a long typed value', () => {
    const result = convertText('x'.repeat(100), shape(integer()), visible);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason.length).toBeLessThan(80);
  });

  it('reads JSON for object fields and text or JSON for fields that take anything', () => {
    expect(convertText('{"a":1}', shape(z.object({ a: z.number() })), visible)).toEqual({
      ok: true,
      value: { a: 1 },
    });
    expect(convertText('{oops', shape(z.object({ a: z.number() })), visible)).toEqual({
      ok: false,
      reason: 'is not valid JSON',
    });
    expect(convertText('dark', shape(z.json()), visible)).toEqual({ ok: true, value: 'dark' });
    expect(convertText('1', shape(z.json()), visible)).toEqual({ ok: true, value: 1 });
    expect(convertText('[1,2]', shape(z.json()), visible)).toEqual({ ok: true, value: [1, 2] });
  });
});

describe('splitListText: which lists split on commas', () => {
  it('splits numbers and fixed values always', () => {
    expect(splitListText('1, 2', shape(integer()))).toEqual(['1', '2']);
    expect(splitListText('a b,c', shape(oneOf(['a b', 'c'])))).toEqual(['a b', 'c']);
  });

  it('splits text only when every piece is one word', () => {
    expect(splitListText('prod, web', shape(z.string()))).toEqual(['prod', 'web']);
    expect(splitListText('ssh-rsa AAA me@a,b', shape(z.string()))).toEqual(['ssh-rsa AAA me@a,b']);
    expect(splitListText('a,,b', shape(z.string()))).toEqual(['a,,b']);
  });
});
