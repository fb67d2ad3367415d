import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { BUNDLE_OPTIONS, buildFunctions, FUNCTIONS, staticallyReached } from '../../infra/build.js';
import { expectSuccess, spawnTsx } from '../child-processes.js';
import { bundleComposition } from './bundle-composition.js';
import { buildDriver } from './cold-process.js';

/**
 * The builds of the cold-start comparison, all made by `buildFunctions` from `infra/build.ts`: the
 * bot's `functions/slack`, and the minimal Bolt app (and the floor apps likewise), each built from
 * a scratch tree whose `functions/slack/handler.ts` re-exports `bench/baseline/minimal-bolt.ts`. The build
 * resolves its entry points against the working directory, so running it from the scratch tree
 * (in a child process: esbuild fixes its working directory when it loads) builds the baseline
 * with the very same options, nothing copied.
 *
 * The build splits code at dynamic imports, so a function is an entry file plus chunks. Two sizes
 * matter: everything deployed, and what a cold start loads before the handler runs (the entry and
 * the chunks it imports statically, transitively; chunks behind a dynamic import load on first use).
 */

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BASELINE_SOURCE = fileURLToPath(new URL('../baseline/minimal-bolt.ts', import.meta.url));
const FLOOR_SOURCE = fileURLToPath(new URL('../baseline/floor-bolt.ts', import.meta.url));

/**
 * The floor with its claim through the AWS SDK, as the bot's store made it before
 * `lib/store/http-table.ts`: built as the floor is, it shows what that switch saves.
 */
export const FLOOR_VARIANTS = {
  floorSdkClaim: '../baseline/floor-sdk-claim.ts',
} as const;
export type FloorVariant = keyof typeof FLOOR_VARIANTS;
const BUILD_IN_TREE = fileURLToPath(new URL('./build-in-tree.ts', import.meta.url));

export interface FileSet {
  readonly files: readonly string[];
  readonly bytes: number;
  /** Each file gzipped at the default level, summed: roughly what the deployment zip holds. */
  readonly gzipBytes: number;
  /** Generated characters per package over all the files, largest first. */
  readonly composition: ReadonlyMap<string, number>;
}

export interface BuiltFunction {
  /** The entry the runtime imports (`index.mjs`). */
  readonly entry: string;
  /** Every JavaScript file the build wrote for the function. */
  readonly deployed: FileSet;
  /** The entry and the chunks it imports statically: loaded and evaluated before the first answer. */
  readonly loadedAtStart: FileSet;
}

export interface ColdStartArtifacts {
  readonly ours: BuiltFunction;
  /**
   * The bot's Slack function as one file, built without splitting (`oneFileBuild`): what an acting
   * path's first answer takes when none of its code has to be loaded then.
   */
  readonly oursOneFile: BuiltFunction;
  readonly baseline: BuiltFunction;
  /** The minimal Bolt app plus the bot's configuration and delivery claim (`floor-bolt.ts`). */
  readonly floor: BuiltFunction;
  readonly floorVariants: Readonly<Record<FloorVariant, BuiltFunction>>;
  /** The compiled driver each cold-start process runs. */
  readonly driver: string;
}

async function javascriptFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.mjs'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/**
 * The files `entry` imports statically, itself included, read from the output with esbuild's
 * parser: bundling the output again (without writing it) yields a metafile with every import and
 * its kind, so no option of the real build is needed.
 */
export async function staticClosure(entry: string): Promise<string[]> {
  const { metafile } = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    // A package the build left external (resvg, for the chart functions) is not among the output.
    packages: 'external',
    logLevel: 'silent',
  });
  const reached = staticallyReached(metafile, entry);
  if (reached === undefined) throw new Error(`esbuild did not report ${entry} among its inputs`);
  return [...new Set([...reached].map((key) => resolve(key)))].sort();
}

async function describeFiles(files: readonly string[]): Promise<FileSet> {
  let bytes = 0;
  let gzipBytes = 0;
  const composition = new Map<string, number>();
  for (const file of files) {
    const contents = await readFile(file);
    bytes += contents.length;
    gzipBytes += gzipSync(contents).length;
    for (const [name, size] of await bundleComposition(file, PROJECT_ROOT)) {
      composition.set(name, (composition.get(name) ?? 0) + size);
    }
  }
  return { files, bytes, gzipBytes, composition: new Map([...composition].sort((a, b) => b[1] - a[1])) };
}

/** The built function in `outdir`: its entry, every file deployed, and what its start loads. */
export async function describeFunction(outdir: string): Promise<BuiltFunction> {
  const entry = join(outdir, 'index.mjs');
  return {
    entry,
    deployed: await describeFiles(await javascriptFiles(outdir)),
    loadedAtStart: await describeFiles(await staticClosure(entry)),
  };
}

/**
 * Builds `source` as the function `as` of a scratch tree (the other functions are empty handlers)
 * with `infra/build.ts` itself, and answers the folder of that function's build. With
 * `sdkShimsOf`, the function also gets that function's MCP SDK shims (`functions/<name>/sdk-shims.ts`),
 * as the build gives them to the function that has them.
 */
export async function buildInTree(
  workDir: string,
  name: string,
  source: string,
  as: (typeof FUNCTIONS)[number] = 'slack',
  sdkShimsOf?: (typeof FUNCTIONS)[number],
): Promise<string> {
  const tree = join(workDir, `${name}-tree`);
  for (const fn of FUNCTIONS) {
    await mkdir(join(tree, 'functions', fn), { recursive: true });
    const handler =
      fn === as
        ? `export { handler } from ${JSON.stringify(source)};\n`
        : 'export const handler = async () => undefined;\n';
    await writeFile(join(tree, 'functions', fn, 'handler.ts'), handler);
  }
  if (sdkShimsOf) {
    const shims = join(PROJECT_ROOT, 'functions', sdkShimsOf, 'sdk-shims.ts');
    await writeFile(join(tree, 'functions', as, 'sdk-shims.ts'), `export * from ${JSON.stringify(shims)};\n`);
  }
  // The build copies the chart assets from the working directory into the worker and reporter.
  await mkdir(join(tree, 'lib', 'reports'), { recursive: true });
  await symlink(join(PROJECT_ROOT, 'lib', 'reports', 'assets'), join(tree, 'lib', 'reports', 'assets'));
  const outdir = join(workDir, name);
  const { child, stderr } = spawnTsx(BUILD_IN_TREE, [outdir], { cwd: tree });
  await expectSuccess(child, stderr, `Building the ${name} bundle`);
  return join(outdir, as);
}

/**
 * The bot's Slack function with the build's options but no splitting: esbuild then puts what the
 * function imports lazily in the same file, each module wrapped to be evaluated when it is first
 * imported, so the whole file is parsed at import and nothing is loaded from another file after.
 * Not a way to ship (every cold start parses all of it): it measures what an acting path's first
 * answer costs besides loading its first-use files. The rasteriser, which the Slack function never
 * runs and the real build leaves out, would be imported at the top of that one file; a module
 * that refuses to draw stands in for it.
 */
async function oneFileBuild(outdir: string): Promise<string> {
  await build({
    ...BUNDLE_OPTIONS,
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    splitting: false,
    entryPoints: { index: join(PROJECT_ROOT, 'functions', 'slack', 'handler.ts') },
    outdir,
    plugins: [
      {
        name: 'no-rasteriser',
        setup(bundle) {
          bundle.onResolve({ filter: /^@resvg\/resvg-wasm$/ }, () => ({
            path: 'resvg',
            namespace: 'no-rasteriser',
          }));
          bundle.onLoad({ filter: /.*/, namespace: 'no-rasteriser' }, () => ({
            contents:
              'export function initWasm() { throw new Error("the Slack function draws no chart"); }\nexport class Resvg {}\n',
            loader: 'js',
          }));
        },
      },
    ],
  });
  return outdir;
}

export async function prepareColdStart(workDir: string): Promise<ColdStartArtifacts> {
  const oursDir = join(workDir, 'ours');
  await buildFunctions(oursDir);
  const variants = Object.keys(FLOOR_VARIANTS) as FloorVariant[];
  const [oursOneFileDir, baselineDir, floorDir, variantDirs] = await Promise.all([
    oneFileBuild(join(workDir, 'ours-one-file')),
    buildInTree(workDir, 'baseline', BASELINE_SOURCE),
    buildInTree(workDir, 'floor', FLOOR_SOURCE),
    Promise.all(
      variants.map(async (variant) => {
        const source = fileURLToPath(new URL(FLOOR_VARIANTS[variant], import.meta.url));
        return [variant, await buildInTree(workDir, variant, source)] as const;
      }),
    ),
  ]);
  const driver = await buildDriver(join(workDir, 'driver.mjs'));
  return {
    ours: await describeFunction(join(oursDir, 'slack')),
    oursOneFile: await describeFunction(oursOneFileDir),
    baseline: await describeFunction(baselineDir),
    floor: await describeFunction(floorDir),
    floorVariants: Object.fromEntries(
      await Promise.all(
        variantDirs.map(async ([variant, dir]) => [variant, await describeFunction(dir)] as const),
      ),
    ) as Record<FloorVariant, BuiltFunction>,
    driver,
  };
}
