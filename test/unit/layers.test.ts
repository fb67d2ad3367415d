import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The folders of `lib/` are layers, and the README's layout table lists them from the top down:
 * a module imports from its own row or a row below, never up. That one rule keeps every folder
 * out of an import loop with another (a loop needs an import that goes up), and the order is read
 * from the table itself, so moving a folder is one edit of the README that this test then holds.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** `import … from './x'`, `import './x'`, `export … from './x'`, `import('./x')`, `import type`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"`](\.{1,2}\/[^'"`]+)['"`]/gm;

/** Comments hide nothing: a commented-out import is not an import. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** The `lib/` paths of each row of the README's "Layout" table, in the table's order. */
function layersOf(readme: string): string[][] {
  const section = readme.split(/^## Layout$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => [...(line.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? ''))
    .map((paths) => paths.filter((path) => path.startsWith('lib/')))
    .filter((paths) => paths.length > 0);
}

/** The row a file of `lib/` belongs to: the row naming it or the folder it is in. */
function layerOf(layers: readonly string[][], file: string): number {
  return layers.findIndex((paths) =>
    paths.some((path) => (path.endsWith('/') ? file.startsWith(path) : file === path)),
  );
}

/** Each import that goes up the layers, as `from → to`, with paths relative to the root. */
function upwardImports(layers: readonly string[][], files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [file, source] of files) {
    const from = layerOf(layers, file);
    for (const match of withoutComments(source).matchAll(SPECIFIER)) {
      const target = relative(root, resolve(root, dirname(file), (match[1] ?? '').replace(/\.js$/, '.ts')));
      if (!target.startsWith('lib/')) continue;
      const to = layerOf(layers, target);
      if (to < from) found.push(`${file} → ${target}`);
    }
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const layers = layersOf(readFileSync(join(root, 'README.md'), 'utf8'));
const libFiles = sourceFiles('lib');

describe('the layers of lib/', () => {
  it('reads the rows of the layout table in order (guards the reader itself)', () => {
    const rowOf = (path: string) => layers.findIndex((row) => row.includes(path));
    expect(rowOf('lib/slack/')).toBeGreaterThanOrEqual(0);
    expect(rowOf('lib/slack/')).toBeLessThan(rowOf('lib/changes/'));
    expect(rowOf('lib/changes/')).toBeLessThan(rowOf('lib/store/'));
    expect(rowOf('lib/store/')).toBeLessThan(rowOf('lib/config.ts'));
  });

  it('finds an import that goes up, in every form, and lets the others be (guards the checker)', () => {
    const sample = new Map([
      [
        'lib/store/sample.ts',
        [
          "import type { WebClient } from '@slack/web-api';",
          "import { codeSpan } from '../slack-kit/text.js';",
          "export { notice } from '../slack/dispatch.js';",
          "const lazy = () => import('../changes/sweep.js');",
          'import {',
          '  a,',
          "} from '../reports/tick.js';",
          "import { keys } from './keys.js';",
          "import { exchange } from '../http-exchange.js';",
          "import { getOperation } from '../api/operations/index.js';",
          "// import { ignored } from '../slack/bot.js';",
        ].join('\n'),
      ],
    ]);
    expect(upwardImports(layers, sample)).toEqual([
      'lib/store/sample.ts → lib/slack-kit/text.ts',
      'lib/store/sample.ts → lib/slack/dispatch.ts',
      'lib/store/sample.ts → lib/changes/sweep.ts',
      'lib/store/sample.ts → lib/reports/tick.ts',
    ]);
  });

  it('places every module of lib/ in a row', () => {
    expect(libFiles.length).toBeGreaterThan(100);
    expect(libFiles.filter((file) => layerOf(layers, file) < 0)).toEqual([]);
  });

  it('imports only from its own row or the rows below it', () => {
    const sources = new Map(libFiles.map((file) => [file, readFileSync(join(root, file), 'utf8')]));
    expect(upwardImports(layers, sources)).toEqual([]);
  });
});
