import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import * as z from 'zod';

/**
 * What a bundle is made of, by package: every character of the generated file is attributed to
 * the source its source-map segment points at. `infra/build.ts` writes a linked source map with
 * every bundle, so this reads the very build the functions ship, without build options of its own.
 */

const SourceMapSchema = z.object({
  version: z.literal(3),
  sources: z.array(z.string()),
  sourceRoot: z.string().optional(),
  mappings: z.string(),
});

const BASE64_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT_VALUES = new Map([...BASE64_DIGITS].map((digit, value) => [digit, value]));

/** The numbers of one segment (Base64 VLQ: 5 bits a digit, continuation bit 32, sign in bit 1). */
function decodeSegment(segment: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const digit of segment) {
    const bits = DIGIT_VALUES.get(digit);
    if (bits === undefined) throw new Error(`Invalid source map digit ${JSON.stringify(digit)}`);
    value += (bits & 31) * 2 ** shift;
    if (bits & 32) {
      shift += 5;
      continue;
    }
    values.push(value % 2 === 1 ? -(value - 1) / 2 : value / 2);
    value = 0;
    shift = 0;
  }
  return values;
}

/** Generated characters per source index; characters no segment maps (banner, helpers) under -1. */
function charactersBySource(mappings: string, generated: string): Map<number, number> {
  const counts = new Map<number, number>();
  const add = (source: number, characters: number) => {
    if (characters > 0) counts.set(source, (counts.get(source) ?? 0) + characters);
  };
  const lines = generated.split('\n');
  let source = 0;
  for (const [lineIndex, lineMappings] of mappings.split(';').entries()) {
    const lineLength = lines[lineIndex]?.length ?? 0;
    let column = 0;
    let covered = 0;
    let current = -1;
    for (const segment of lineMappings.split(',')) {
      if (segment === '') continue;
      const [columnDelta = 0, sourceDelta] = decodeSegment(segment);
      column += columnDelta;
      add(current, column - covered);
      covered = column;
      if (sourceDelta === undefined) {
        current = -1;
      } else {
        source += sourceDelta;
        current = source;
      }
    }
    add(current, lineLength - covered);
  }
  // Lines after the last mapped one (the sourceMappingURL comment).
  for (const line of lines.slice(mappings.split(';').length)) add(-1, line.length);
  return counts;
}

/** `node_modules/@scope/name/...` → `@scope/name`; project files → `project: lib/api`. */
export function packageOf(sourcePath: string, projectRoot: string): string {
  const parts = sourcePath.split(sep);
  const modules = parts.lastIndexOf('node_modules');
  if (modules >= 0) {
    const [first = '', second = ''] = parts.slice(modules + 1);
    return first.startsWith('@') ? `${first}/${second}` : first;
  }
  const inProject = relative(projectRoot, sourcePath);
  if (inProject.startsWith('..')) return '(outside the project)';
  return `project: ${inProject.split(sep).slice(0, 2).join('/')}`;
}

export const UNMAPPED = '(not mapped: banner, bundler helpers)';

/** Characters of `bundleFile` per package, largest first. */
export async function bundleComposition(
  bundleFile: string,
  projectRoot: string,
): Promise<Map<string, number>> {
  const [generated, rawMap] = await Promise.all([
    readFile(bundleFile, 'utf8'),
    readFile(`${bundleFile}.map`, 'utf8'),
  ]);
  const map = SourceMapSchema.parse(JSON.parse(rawMap));
  const base = resolve(dirname(bundleFile), map.sourceRoot ?? '');
  const byPackage = new Map<string, number>();
  for (const [source, characters] of charactersBySource(map.mappings, generated)) {
    const sourcePath = map.sources[source];
    const name = sourcePath === undefined ? UNMAPPED : packageOf(resolve(base, sourcePath), projectRoot);
    byPackage.set(name, (byPackage.get(name) ?? 0) + characters);
  }
  return new Map([...byPackage].sort((a, b) => b[1] - a[1]));
}

export interface CompositionDifference {
  readonly name: string;
  readonly ours: number;
  readonly baseline: number;
  readonly difference: number;
}

/** Packages by how much more of `ours` they make up than of `baseline`, largest first. */
export function compositionDifference(
  ours: ReadonlyMap<string, number>,
  baseline: ReadonlyMap<string, number>,
): CompositionDifference[] {
  const names = new Set([...ours.keys(), ...baseline.keys()]);
  return [...names]
    .map((name) => {
      const mine = ours.get(name) ?? 0;
      const theirs = baseline.get(name) ?? 0;
      return { name, ours: mine, baseline: theirs, difference: mine - theirs };
    })
    .sort((a, b) => b.difference - a.difference);
}
