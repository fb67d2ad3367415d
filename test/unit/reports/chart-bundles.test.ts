import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWERING_FUNCTIONS, buildFunctions } from '../../../infra/build.js';

/**
 * The chart's rasteriser (resvg's wasm and the font) ships with the functions that draw charts and
 * with no other: the built worker and reporter find their copies beside the bundle (built outside
 * the project, so no node_modules can stand in for them), and the functions people wait on (Slack's
 * and the agents') neither carry them nor load resvg's code at start.
 */

let outdir: string;

beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'chart-bundles-'));
  await buildFunctions(outdir);
}, 120_000);

afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

function javascriptFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.mjs'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** `file` and what it imports with static import statements, transitively (not `import()`). */
function loadedAtStart(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  for (const [, target] of source.matchAll(
    /(?:^|[;\n}])\s*import\s*(?:[\w${},\s*]*from\s*)?"(\.[^"]+\.mjs)"/g,
  )) {
    if (target) loadedAtStart(resolve(dirname(file), target), seen);
  }
  return seen;
}

/** resvg's wasm-bindgen glue, which the chart functions' bundles inline. */
const RESVG_CODE = /__wbindgen/;
/**
 * An import of resvg left external (the bundle's own code, not a string that names the package:
 * the API client's user agent brings package.json, dependency list and all, into the agents'
 * function's start).
 */
const RESVG_IMPORT = /\bfrom\s*"@resvg\/resvg-wasm"|\bimport\s*\(\s*"@resvg\/resvg-wasm"\s*\)/;

describe('chart bundles', () => {
  it('give the worker and the reporter the wasm and the font, and the Slack and agents functions neither', () => {
    for (const name of ['worker', 'reporter']) {
      expect(
        javascriptFiles(join(outdir, name)).some((file) => RESVG_CODE.test(readFileSync(file, 'utf8'))),
      ).toBe(true);
      const assets = readdirSync(join(outdir, name, 'assets')).sort();
      expect(assets, name).toEqual([
        'DejaVuSans-Bold.ttf',
        'DejaVuSans-LICENSE.txt',
        'DejaVuSans.ttf',
        'resvg.wasm',
      ]);
    }
    for (const name of ANSWERING_FUNCTIONS) {
      expect(existsSync(join(outdir, name, 'assets')), name).toBe(false);
      expect(
        javascriptFiles(join(outdir, name)).filter((file) => RESVG_CODE.test(readFileSync(file, 'utf8'))),
      ).toEqual([]);
    }
  });

  it.each(ANSWERING_FUNCTIONS)(
    'keep the rasteriser out of what the %s function loads before its first answer',
    (name) => {
      const atStart = [...loadedAtStart(join(outdir, name, 'index.mjs'))];
      expect(atStart.length).toBeGreaterThan(0);
      for (const file of atStart) expect(readFileSync(file, 'utf8'), file).not.toMatch(RESVG_IMPORT);
    },
  );

  it.each(['worker', 'reporter'])('let the built %s draw a chart from its own copies', async (name) => {
    const chunks = join(outdir, name, 'chunks');
    const raster = readdirSync(chunks).find((file) => /^raster-.*\.mjs$/.test(file));
    if (!raster) throw new Error(`no raster chunk in ${chunks}`);
    const { svgToPng } = (await import(join(chunks, raster))) as {
      svgToPng: (svg: string, scale: number) => Promise<Buffer>;
    };
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><text x="4" y="26" font-size="16">cpu 42</text></svg>';
    const png = PNG.sync.read(await svgToPng(svg, 2));
    expect([png.width, png.height]).toEqual([240, 80]);
    // The text was drawn with the bundled font: some pixels are dark.
    let dark = 0;
    for (let i = 0; i < png.data.length; i += 4) if ((png.data[i] ?? 255) < 100) dark += 1;
    expect(dark).toBeGreaterThan(50);
  });
});
