import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The change workflow (`lib/changes/`) knows nothing of the surface it is shown on: Slack is one
 * way to show it, implementing the domain's ports from `lib/slack/`. A module of the domain that
 * imports `@slack/*` or anything under `lib/slack/` would tie the two together again, so it fails
 * here, whether it imports statically, as a type, by re-export or with a dynamic `import()`.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const DOMAIN_FOLDERS = ['lib/changes'];
const SLACK_LAYER = join(root, 'lib', 'slack');

/** `import … from 'x'`, `import 'x'`, `export … from 'x'`, `import('x')`, `import type … from 'x'`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"`]([^'"`]+)['"`]/gm;

/** Comments hide nothing: a commented-out import is not an import. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** What `file` (at that path, with that text) imports from Slack, as written in the file. */
function slackImportsOf(file: string, source: string): string[] {
  return [...withoutComments(source).matchAll(SPECIFIER)]
    .map((match) => match[1] ?? '')
    .filter((specifier) => {
      if (specifier === '@slack' || specifier.startsWith('@slack/')) return true;
      if (!specifier.startsWith('.')) return false;
      const target = resolve(dirname(file), specifier);
      return target === SLACK_LAYER || target.startsWith(`${SLACK_LAYER}${sep}`);
    });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the change domain', () => {
  it('catches every way of importing Slack (guards the checker itself)', () => {
    const file = join(root, 'lib', 'changes', 'sample.ts');
    const sample = [
      "import type { WebClient } from '@slack/web-api';",
      "import { codeSpan } from '../slack/render/text.js';",
      "export { notice } from '../slack/runner.js';",
      "const lazy = () => import('../slack/worker.js');",
      'import {',
      '  a,',
      "} from '../slack/channel-access.js';",
      "import '@slack/bolt';",
      "import { findOperation } from '../api/operations/index.js';",
      "import { closeAs } from './closing.js';",
      "import { slackish } from '../slack-like/thing.js';",
      "// import { ignored } from '../slack/commented.js';",
    ].join('\n');
    expect(slackImportsOf(file, sample)).toEqual([
      '@slack/web-api',
      '../slack/render/text.js',
      '../slack/runner.js',
      '../slack/worker.js',
      '../slack/channel-access.js',
      '@slack/bolt',
    ]);
  });

  it('reads the domain folders (guards the file walk)', () => {
    const files = DOMAIN_FOLDERS.flatMap((folder) => sourceFiles(join(root, folder)));
    expect(files.map((file) => relative(root, file))).toContain('lib/changes/sweep.ts');
  });

  it('imports nothing from @slack/* or lib/slack', () => {
    const offending = DOMAIN_FOLDERS.flatMap((folder) => sourceFiles(join(root, folder))).flatMap((file) =>
      slackImportsOf(file, readFileSync(file, 'utf8')).map(
        (specifier) => `${relative(root, file)}: ${specifier}`,
      ),
    );
    expect(offending).toEqual([]);
  });
});
