import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The README's layout table is where a newcomer learns where things live; it drifted before
 * (a file it named had moved). Every path it names must exist, and every folder of the project's
 * code must be named, so a new folder or a move fails here until the table says so.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The backticked paths in the first column of the README's "Layout" table. */
function layoutPaths(readme: string): string[] {
  const section = readme.split(/^## Layout$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? ''));
}

function folders(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${dir}/${entry.name}/`);
}

const paths = layoutPaths(readFileSync(join(root, 'README.md'), 'utf8'));

describe("the README's layout table", () => {
  it('reads the table (guards the reader itself)', () => {
    expect(paths).toContain('lib/slack/');
    expect(paths.length).toBeGreaterThan(8);
  });

  it('names only paths that exist', () => {
    expect(paths.filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });

  it('names every folder of lib/ and every top-level code folder', () => {
    const expected = [...folders('lib'), 'functions/', 'infra/', 'test/', 'bench/', 'docs/'];
    expect(expected.filter((folder) => !paths.includes(folder))).toEqual([]);
  });

  it('names every group of test/, so tests stay grouped one way', () => {
    expect(folders('test').filter((folder) => !paths.includes(folder))).toEqual([]);
  });

  it('names every top-level file of lib/', () => {
    const files = readdirSync(join(root, 'lib')).filter((name) => name.endsWith('.ts'));
    expect(files.map((name) => `lib/${name}`).filter((file) => !paths.includes(file))).toEqual([]);
  });
});
