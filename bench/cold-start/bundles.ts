import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { buildFunctions, FUNCTIONS } from '../../infra/build.js';
import { expectSuccess, spawnTsx } from '../child-processes.js';
import { bundleComposition } from './bundle-composition.js';

/**
 * The two bundles of the cold-start comparison, both made by `buildFunctions` from
 * `infra/build.ts`: the bot's `functions/slack`, and the minimal Bolt app, built from a scratch
 * tree whose `functions/slack/handler.ts` re-exports `bench/baseline/minimal-bolt.ts`. The build
 * resolves its entry points against the working directory, so running it from the scratch tree
 * (in a child process: esbuild fixes its working directory when it loads) builds the baseline
 * with the very same options, nothing copied.
 */

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BASELINE_SOURCE = fileURLToPath(new URL('../baseline/minimal-bolt.ts', import.meta.url));
const BUILD_IN_TREE = fileURLToPath(new URL('./build-in-tree.ts', import.meta.url));
const DRIVER_SOURCE = fileURLToPath(new URL('./driver.ts', import.meta.url));

export interface BuiltBundle {
  readonly file: string;
  readonly bytes: number;
  /** gzip at its default level: roughly what the deployment zip holds. */
  readonly gzipBytes: number;
  /** Generated characters per package, largest first. */
  readonly composition: ReadonlyMap<string, number>;
}

export interface ColdStartArtifacts {
  readonly ours: BuiltBundle;
  readonly baseline: BuiltBundle;
  /** The compiled driver each cold-start process runs. */
  readonly driver: string;
}

async function describeBundle(file: string): Promise<BuiltBundle> {
  const contents = await readFile(file);
  return {
    file,
    bytes: contents.length,
    gzipBytes: gzipSync(contents).length,
    composition: await bundleComposition(file, PROJECT_ROOT),
  };
}

async function buildBaseline(workDir: string): Promise<string> {
  const tree = join(workDir, 'baseline-tree');
  for (const name of FUNCTIONS) {
    await mkdir(join(tree, 'functions', name), { recursive: true });
    const source =
      name === 'slack'
        ? `export { handler } from ${JSON.stringify(BASELINE_SOURCE)};\n`
        : 'export const handler = async () => undefined;\n';
    await writeFile(join(tree, 'functions', name, 'handler.ts'), source);
  }
  const outdir = join(workDir, 'baseline');
  const { child, stderr } = spawnTsx(BUILD_IN_TREE, [outdir], { cwd: tree });
  await expectSuccess(child, stderr, 'Building the baseline bundle');
  return join(outdir, 'slack', 'index.mjs');
}

export async function prepareColdStart(workDir: string): Promise<ColdStartArtifacts> {
  const oursDir = join(workDir, 'ours');
  await buildFunctions(oursDir);
  const baselineFile = await buildBaseline(workDir);
  const driver = join(workDir, 'driver.mjs');
  await build({
    entryPoints: [DRIVER_SOURCE],
    outfile: driver,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    logLevel: 'warning',
  });
  return {
    ours: await describeBundle(join(oursDir, 'slack', 'index.mjs')),
    baseline: await describeBundle(baselineFile),
    driver,
  };
}
