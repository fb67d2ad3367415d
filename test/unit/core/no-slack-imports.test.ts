import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The core (`lib/core/`, and the change workflow in `lib/changes/`) knows nothing of the surface it
 * is used from: Slack is one way in, which words the core's outcomes and implements its ports from
 * `lib/slack/`. A module of the core that imports `@slack/*`, the Slack surface (`lib/slack/`) or
 * Slack's bottom floor (`lib/slack-kit/`) would tie the two together again, so it fails here,
 * whether it imports statically, as a type, by re-export or with a dynamic `import()`.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const CORE_FOLDERS = ['lib/core', 'lib/changes'];
const SLACK_LAYERS = [join(root, 'lib', 'slack'), join(root, 'lib', 'slack-kit')];

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
      return SLACK_LAYERS.some((layer) => target === layer || target.startsWith(`${layer}${sep}`));
    });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the core', () => {
  it('catches every way of importing Slack (guards the checker itself)', () => {
    const file = join(root, 'lib', 'changes', 'sample.ts');
    const sample = [
      "import type { WebClient } from '@slack/web-api';",
      "import { codeSpan } from '../slack-kit/text.js';",
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
      '../slack-kit/text.js',
      '../slack/runner.js',
      '../slack/worker.js',
      '../slack/channel-access.js',
      '@slack/bolt',
    ]);
  });

  it('reads the core folders (guards the file walk)', () => {
    const files = CORE_FOLDERS.flatMap((folder) => sourceFiles(join(root, folder)));
    expect(files.map((file) => relative(root, file))).toEqual(
      expect.arrayContaining(['lib/changes/sweep.ts', 'lib/core/caller.ts']),
    );
  });

  it('imports nothing from @slack/* or lib/slack', () => {
    const offending = CORE_FOLDERS.flatMap((folder) => sourceFiles(join(root, folder))).flatMap((file) =>
      slackImportsOf(file, readFileSync(file, 'utf8')).map(
        (specifier) => `${relative(root, file)}: ${specifier}`,
      ),
    );
    expect(offending).toEqual([]);
  });
});
