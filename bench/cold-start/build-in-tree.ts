import { resolve } from 'node:path';
import { buildFunctions } from '../../infra/build.js';

/**
 * `infra/build.ts` exactly as the functions are built, run from another working directory: its
 * entry points (`functions/<name>/handler.ts`) are found under that directory, its output goes to
 * argv[2]. The cold-start benchmark builds the baseline app this way, so both bundles come from
 * the same build with the same esbuild options.
 */
const outdir = process.argv[2];
if (!outdir)
  throw new Error('usage: build-in-tree.ts <outdir> (run with the source tree as working directory)');
await buildFunctions(resolve(outdir));
