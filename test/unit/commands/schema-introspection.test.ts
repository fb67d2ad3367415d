import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const SCHEMA_READER = 'lib/commands/field-shapes.ts';
const SELF = relative(root, fileURLToPath(import.meta.url));

// zod's internal definition tree (`schema._zod.def`, or the public alias `schema.def`) and its
// JSON Schema conversion: two ways to read a schema's fields, which drifted apart once before.
const INTROSPECTION = /\b_zod\b|\.def\.|\btoJSONSchema\s*\(/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

describe('reading zod schemas', () => {
  it(`happens only in ${SCHEMA_READER}, so help, forms, the parser and the tests see the same fields`, () => {
    const readers = ['lib', 'functions', 'infra', 'bench', 'test']
      .flatMap((dir) => sourceFiles(join(root, dir)))
      .map((file) => relative(root, file))
      .filter((file) => file !== SELF && INTROSPECTION.test(readFileSync(join(root, file), 'utf8')));
    expect(readers).toEqual([SCHEMA_READER]);
  });
});
