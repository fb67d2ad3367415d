import { access, copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { resolve, sep } from 'node:path';
import { type BuildOptions, build, type Metafile, type Plugin } from 'esbuild';

/**
 * One bundle per Lambda function, written to dist/<name>/index.mjs. Code split at dynamic
 * imports lands in dist/<name>/chunks/ and loads only when first used (the SSM and KMS clients,
 * report rendering), which keeps cold starts short.
 */
export const FUNCTIONS = ['slack', 'mcp', 'worker', 'reporter'] as const;
export type FunctionName = (typeof FUNCTIONS)[number];

/**
 * The functions someone waits on at a cold start: the Slack function (inside Slack's 3 s) and the
 * agents' function (an agent's call, with a person watching it). Neither draws a chart, so neither
 * carries the rasteriser at all, and each loads its start in as few files as its code allows.
 */
export const ANSWERING_FUNCTIONS = ['slack', 'mcp'] as const satisfies readonly FunctionName[];

/**
 * esbuild settings shared by every function (and by the test that loads lazily imported packages
 * from a bundle built the same way).
 */
export const BUNDLE_OPTIONS = {
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // The ES module build of packages that ship both (the AWS SDK does). With the CommonJS one, a
  // dynamic `import('@aws-sdk/client-kms')` in an ESM bundle yields only `default`, so
  // `KMSClient` (and the Lambda client hand-offs used then) were undefined when first used in AWS.
  mainFields: ['module', 'main'],
  minify: true,
  sourcemap: 'linked',
  treeShaking: true,
  legalComments: 'none',
  // Bolt and some AWS packages are CommonJS and call require() on Node built-ins.
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
  logLevel: 'warning',
} as const satisfies BuildOptions;

/**
 * Modules of a function that its first answer of one kind loads lazily, each loaded in one file
 * with what only it reaches (`pathsInOneChunk`): the agents' read.
 */
const LAZY_PATHS: Partial<Record<FunctionName, readonly string[]>> = {
  mcp: ['lib/agents/read-path.ts'],
};

export async function buildFunctions(outdir = 'dist'): Promise<void> {
  await rm(outdir, { recursive: true, force: true });
  await Promise.all(
    FUNCTIONS.map(async (name) => {
      const entry = `functions/${name}/handler.ts`;
      const shims = await sdkShimsOf(name);
      const options: BuildOptions = {
        ...BUNDLE_OPTIONS,
        mainFields: [...BUNDLE_OPTIONS.mainFields],
        entryPoints: { index: entry },
        outdir: `${outdir}/${name}`,
        plugins: shims ? [shims] : [],
      };
      if (!isAnswering(name)) return build(options);
      const answering = { ...options, external: ['@resvg/resvg-wasm'] };
      const joins = await pathsInOneChunk(answering, entry, LAZY_PATHS[name] ?? []);
      return build({ ...answering, plugins: [...(answering.plugins ?? []), startInOneChunk(entry, joins)] });
    }),
  );
  await Promise.all(CHART_FUNCTIONS.map((name) => copyChartAssets(`${outdir}/${name}`)));
}

/**
 * The MCP SDK imports its runtime shims (`@modelcontextprotocol/server/_shims`, chosen by export
 * conditions) for a default JSON Schema validator, ajv on Node. A function with an `sdk-shims.ts`
 * beside its handler gets them from there instead, so a default it never uses is not bundled: the
 * agents' function (`functions/mcp/sdk-shims.ts`).
 */
async function sdkShimsOf(name: FunctionName): Promise<Plugin | undefined> {
  const shims = resolve('functions', name, 'sdk-shims.ts');
  try {
    await access(shims);
  } catch {
    return undefined;
  }
  return {
    name: 'sdk-shims',
    setup(bundle) {
      bundle.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: shims }));
    },
  };
}

function isAnswering(name: FunctionName): boolean {
  return (ANSWERING_FUNCTIONS as readonly FunctionName[]).includes(name);
}

/**
 * What a function loads at start, in as few files as its code allows. esbuild gives a module that
 * both the entry and lazily imported modules reach a chunk of its own for each set of importers,
 * so the Slack function's start loaded 32 files where 8 hold the same code, and each file costs the
 * module loader a resolve, a read and a link: about 10 ms of a cold start (`npm run bench`).
 * Every module of ours also imports the entry, which has always loaded before anything is imported
 * lazily, so everything the entry loads shares one set of importers; what only lazy imports reach
 * is split as before. A chunk then cannot be loaded without the entry (its configuration check
 * runs first), which is how Lambda loads it anyway. The import goes at the end of the module (imports are hoisted), so its
 * source map's lines stay where they are, and it binds nothing, so evaluation order is unchanged.
 */
export function startInOneChunk(entry: string, joins: ReadonlyMap<string, string> = new Map()): Plugin {
  const importOf = (file: string) => `\nimport ${JSON.stringify(file)};\n`;
  const entryImport = importOf(resolve(entry));
  const ours = resolve('lib') + sep;
  return {
    name: 'start-in-one-chunk',
    setup(bundle) {
      bundle.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!args.path.startsWith(ours)) return undefined;
        const path = joins.get(args.path);
        const contents = (await readFile(args.path, 'utf8')) + entryImport + (path ? importOf(path) : '');
        return { contents, loader: 'ts' };
      });
    },
  };
}

/**
 * The same for a lazily loaded path (`LAZY_PATHS`): every module of ours that the path's module
 * reaches and the start does not also imports the path's module, so they all share one set of
 * importers and esbuild writes them in one file, where it would write a file for each set (a read
 * loaded fifteen, one after another). They are loaded from the path's module first, which already
 * imports them, so their order is unchanged; a module reached first some other way (a change's
 * answers reach the read's) brings the whole path with it. Answers, per module of ours, the path
 * its module joins, from a first build's graph of static imports.
 */
export async function pathsInOneChunk(
  options: BuildOptions,
  entry: string,
  paths: readonly string[],
): Promise<Map<string, string>> {
  const joins = new Map<string, string>();
  if (paths.length === 0) return joins;
  const { metafile } = await build({
    ...options,
    write: false,
    metafile: true,
    plugins: [...(options.plugins ?? []), startInOneChunk(entry)],
  });
  const atStart = staticallyReached(metafile, entry) ?? new Set();
  const ours = resolve('lib') + sep;
  // A path the function never imports (a scratch tree's function, in the benchmarks) joins nothing.
  for (const path of paths) {
    for (const key of staticallyReached(metafile, path) ?? []) {
      const file = resolve(key);
      if (atStart.has(key) || !file.startsWith(ours) || file === resolve(path) || joins.has(file)) continue;
      joins.set(file, resolve(path));
    }
  }
  return joins;
}

/**
 * The inputs of a build's `metafile` that `file` imports statically, itself included, as the
 * metafile names them; `undefined` when `file` is not among its inputs.
 */
export function staticallyReached(metafile: Metafile, file: string): Set<string> | undefined {
  const start = Object.keys(metafile.inputs).find((input) => resolve(input) === resolve(file));
  if (start === undefined) return undefined;
  const reached = new Set<string>();
  const visit = (key: string) => {
    if (reached.has(key)) return;
    reached.add(key);
    for (const imported of metafile.inputs[key]?.imports ?? []) {
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
    }
  };
  visit(start);
  return reached;
}

/** The functions that draw the stats chart, and so carry resvg's wasm and the chart font. */
const CHART_FUNCTIONS = ['worker', 'reporter'] as const satisfies readonly FunctionName[];

/** Beside the bundle, where `lib/reports/raster.ts` looks for them (read from disk, not inlined). */
async function copyChartAssets(functionDir: string): Promise<void> {
  const assets = `${functionDir}/assets`;
  await mkdir(assets, { recursive: true });
  const wasm = createRequire(import.meta.url).resolve('@resvg/resvg-wasm/index_bg.wasm');
  await Promise.all([
    copyFile(wasm, `${assets}/resvg.wasm`),
    ...['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf', 'DejaVuSans-LICENSE.txt'].map((file) =>
      copyFile(`lib/reports/assets/${file}`, `${assets}/${file}`),
    ),
  ]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildFunctions();
}
