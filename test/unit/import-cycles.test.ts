import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const lib = join(root, 'lib');

// Static imports (including `import type` and re-exports) and dynamic `import('./x.js')`: a type-only
// edge still ties two modules together for a reader, so it counts.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const target = resolve(dirname(file), (match[1] ?? '').replace(/\.js$/, '.ts'));
      if (known.has(target)) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Strongly connected components with more than one module, or a module importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found.map((component) => component.map((file) => relative(root, file)).sort());
}

describe('import graph', () => {
  it('finds a cycle when two modules import each other (guards the checker itself)', () => {
    const [a, b, c, d] = ['a.ts', 'b.ts', 'c.ts', 'd.ts'].map((name) => join(root, name)) as [
      string,
      string,
      string,
      string,
    ];
    const graph = new Map([
      [a, [b]],
      [b, [c]],
      [c, [a]],
      [d, [a]],
    ]);
    expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('reads type-only, multi-line and dynamic imports as edges', () => {
    const sample = sourceFiles(join(lib, 'slack')).find((file) => file.endsWith('/listeners/actions.ts'));
    expect(sample).toBeDefined();
    const edges = importGraph(sourceFiles(lib)).get(sample ?? '') ?? [];
    const names = edges.map((file) => relative(lib, file));
    // The actions listener loads feature modules with `import()`, reads runner types with
    // `import type` and the action ids with a multi-line import.
    expect(names).toEqual(
      expect.arrayContaining([
        'slack/approval-answers.ts',
        'slack/operation-runner.ts',
        'slack-kit/interactions.ts',
      ]),
    );
  });

  it('lib/ has no import cycles (Slack feature modules take their types from context.ts, not the wiring file; report kinds name their deliverer instead of importing it)', () => {
    expect(cycles(importGraph(sourceFiles(lib)))).toEqual([]);
  });

  it('the entry points, the local stack and the benchmarks have none either, with lib/ beside them', () => {
    const files = ['lib', 'functions', 'infra', 'bench'].flatMap((dir) => sourceFiles(join(root, dir)));
    expect(files.some((file) => file.endsWith('/infra/local/slack/store.ts'))).toBe(true);
    expect(cycles(importGraph(files))).toEqual([]);
  });
});
