import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_OPTIONS } from '../../infra/build.js';

/**
 * Packages the functions load on first use (`import('@aws-sdk/client-kms')` and the like), as a
 * bundle built like the functions' loads them. Regression: built from the packages' CommonJS entry,
 * such an import yielded a namespace with only `default` in the ESM bundle, so `new
 * sdk.LambdaClient()` threw "not a constructor" on every hand-off to the worker, and the KMS
 * client on every token decryption — in AWS only, since tests run the sources.
 */

const ROOT = new URL('../../', import.meta.url).pathname;

/** Every package (not a relative path) that lib/ or functions/ imports dynamically. */
async function lazilyImportedPackages(): Promise<string[]> {
  const found = new Set<string>();
  for (const dir of ['lib', 'functions']) {
    const files = (await readdir(join(ROOT, dir), { recursive: true })).filter((f) => f.endsWith('.ts'));
    for (const file of files) {
      const source = await readFile(join(ROOT, dir, file), 'utf8');
      for (const match of source.matchAll(/\bimport\(\s*'([^'.][^']*)'\s*\)/g)) {
        if (match[1]) found.add(match[1]);
      }
    }
  }
  return [...found].sort();
}

let outdir: string;
let packages: string[];
let exportsSeen: Record<string, string[]>;

beforeAll(async () => {
  packages = await lazilyImportedPackages();
  outdir = await mkdtemp(join(ROOT, '.lazy-packages-'));
  const entry = join(outdir, 'probe.ts');
  // The external rule of the Slack function (the rasteriser never ships there) does not apply:
  // every function that imports a package lazily carries it.
  await writeFile(
    entry,
    [
      'const seen: Record<string, string[]> = {};',
      ...packages.map(
        (name) => `seen[${JSON.stringify(name)}] = Object.keys(await import(${JSON.stringify(name)}));`,
      ),
      'console.log(JSON.stringify(seen));',
    ].join('\n'),
  );
  await build({
    ...BUNDLE_OPTIONS,
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    sourcemap: false,
    entryPoints: { index: relative(ROOT, entry) },
    absWorkingDir: ROOT,
    outdir: join(outdir, 'out'),
  });
  const { stdout } = await promisify(execFile)(process.execPath, [join(outdir, 'out', 'index.mjs')], {
    cwd: ROOT,
    env: { ...process.env, AWS_SDK_JS_SUPPRESS_NODE_VERSION_WARNING: '1' },
  });
  exportsSeen = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, string[]>;
}, 120_000);

afterAll(async () => {
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

describe('packages the functions import on first use, from a bundle built like theirs', () => {
  it('finds the lazily imported SDK clients in the sources', () => {
    expect(packages).toEqual(expect.arrayContaining(['@aws-sdk/client-kms']));
  });

  it('regression: the KMS client for token decryption is a constructor, not undefined', () => {
    expect(exportsSeen['@aws-sdk/client-kms']).toEqual(
      expect.arrayContaining(['KMSClient', 'DecryptCommand', 'GenerateDataKeyCommand']),
    );
  });

  it('every lazily imported package exposes its named exports, not only `default`', () => {
    for (const name of packages) {
      expect({ name, exports: exportsSeen[name]?.filter((key) => key !== 'default') }).toEqual({
        name,
        exports: expect.arrayContaining([expect.any(String)]),
      });
    }
  });
});
