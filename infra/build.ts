import { rm } from 'node:fs/promises';
import { build } from 'esbuild';

/**
 * One bundle per Lambda function, written to dist/<name>/index.mjs. Code split at dynamic
 * imports lands in dist/<name>/chunks/ and loads only when first used (the SSM client, the
 * Lambda client for hand-offs, report rendering), which keeps cold starts short.
 */
export const FUNCTIONS = ['slack', 'worker', 'reporter'] as const;

export async function buildFunctions(outdir = 'dist'): Promise<void> {
  await rm(outdir, { recursive: true, force: true });
  await Promise.all(
    FUNCTIONS.map((name) =>
      build({
        entryPoints: { index: `functions/${name}/handler.ts` },
        outdir: `${outdir}/${name}`,
        outExtension: { '.js': '.mjs' },
        splitting: true,
        chunkNames: 'chunks/[name]-[hash]',
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'esm',
        minify: true,
        sourcemap: 'linked',
        treeShaking: true,
        legalComments: 'none',
        // Bolt and some AWS packages are CommonJS and call require() on Node built-ins.
        banner: {
          js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
        },
        logLevel: 'warning',
      }),
    ),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildFunctions();
}
