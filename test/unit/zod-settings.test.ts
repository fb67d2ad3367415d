import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * zod's process-wide settings (`lib/zod-settings.ts`) must be made before anything parses. A module
 * with zod schemas that did not import them could parse first, and then zod would compile parsers
 * on a cold start after all; so each such module imports the settings itself.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SETTINGS = join(root, 'lib/zod-settings.ts');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Imports zod's values (not only its types). */
const ZOD_VALUES = /^import\s+(?!type\b)[^;]*\bfrom\s+'zod(?:\/[^']*)?';/m;
const IMPORTS_SETTINGS = /^import\s+'(\.{1,2}\/[^']*zod-settings\.js)';/m;

describe('zod settings', () => {
  const files = ['lib', 'functions'].flatMap((dir) => sourceFiles(join(root, dir)));
  const withZod = files.filter((file) => file !== SETTINGS && ZOD_VALUES.test(readFileSync(file, 'utf8')));

  it('are imported by every module that holds zod schemas, before it can parse', () => {
    expect(withZod.length).toBeGreaterThan(10);
    const missing = withZod.filter((file) => {
      const found = readFileSync(file, 'utf8').match(IMPORTS_SETTINGS);
      return !found || resolve(dirname(file), (found[1] ?? '').replace(/\.js$/, '.ts')) !== SETTINGS;
    });
    expect(missing.map((file) => relative(root, file))).toEqual([]);
  });

  it('turn off the parsers zod compiles on first parse, and leave explicit compiling working', async () => {
    const z = await import('zod');
    await import('../../lib/api/operation.js');
    expect(z.config().jitless).toBe(true);
    const schema = z.object({ id: z.number().int(), tags: z.array(z.string()).optional() });
    const compiled = z.compile(schema);
    expect(compiled.parse({ id: 3, tags: ['a'], extra: 1 })).toEqual({ id: 3, tags: ['a'] });
    expect(compiled.safeParse({ id: 3.5 }).error?.issues).toEqual(
      schema.safeParse({ id: 3.5 }).error?.issues,
    );
  });
});
