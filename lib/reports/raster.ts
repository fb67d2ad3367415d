import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initWasm, Resvg } from '@resvg/resvg-wasm';

/**
 * SVG to PNG with resvg compiled to WebAssembly: one build runs on Lambda's arm64 and on x86
 * laptops alike, and needs no install script (npm runs none unless allowed). The wasm file and the
 * font are read from disk on first use, not inlined into the JavaScript, so only the functions that
 * draw charts (worker, reporter) carry them; `infra/build.ts` copies them beside those bundles.
 *
 * resvg has no system fonts in wasm: the chart's text is drawn with the DejaVu Sans cut in
 * `assets/`, so every machine renders the same picture.
 */

export const CHART_FONT_FAMILY = 'DejaVu Sans';

const ASSET_DIR = 'assets';
const WASM_FILE = 'resvg.wasm';
const FONT_FILES = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'] as const;

/**
 * A bundle's chunk sits in `dist/<fn>/` or `dist/<fn>/chunks/`; this source file sits in
 * `lib/reports/`. The assets are in an `assets/` folder beside one of them.
 */
function assetPath(name: string): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  return [join(here, ASSET_DIR, name), join(here, '..', ASSET_DIR, name)].find((path) => existsSync(path));
}

function wasmPath(): string {
  const bundled = assetPath(WASM_FILE);
  if (bundled) return bundled;
  // Running from source: the package's own copy.
  return createRequire(import.meta.url).resolve('@resvg/resvg-wasm/index_bg.wasm');
}

interface Rasterizer {
  readonly fonts: Uint8Array[];
}

let ready: Promise<Rasterizer> | undefined;

function rasterizer(): Promise<Rasterizer> {
  ready ??= (async () => {
    const fontPaths = FONT_FILES.map((name) => {
      const path = assetPath(name);
      if (!path) throw new Error(`The chart font ${name} is missing from the bundle's ${ASSET_DIR}/.`);
      return path;
    });
    const [wasm, ...fonts] = await Promise.all([readFile(wasmPath()), ...fontPaths.map((p) => readFile(p))]);
    await initWasm(wasm);
    return { fonts: fonts.map((font) => new Uint8Array(font)) };
  })();
  // A failed start (a missing file) is not remembered: the next chart tries again.
  ready.catch(() => {
    ready = undefined;
  });
  return ready;
}

/** The SVG as a PNG, `scale` times its own size (2 for Slack's high-density displays). */
export async function svgToPng(svg: string, scale: number): Promise<Buffer> {
  const { fonts } = await rasterizer();
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: scale },
    font: { fontBuffers: fonts, defaultFontFamily: CHART_FONT_FAMILY, sansSerifFamily: CHART_FONT_FAMILY },
    background: '#ffffff',
  });
  try {
    const image = resvg.render();
    try {
      return Buffer.from(image.asPng());
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
}
