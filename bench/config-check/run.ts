import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE_OPTIONS } from '../../infra/build.js';

/**
 * What checking the configuration costs a cold start: the hand checks of `lib/config.ts` against
 * the same rules as a `zod/mini` schema (`zod-mini-config.ts`, the same messages). Each is bundled
 * as the functions are (`BUNDLE_OPTIONS`), then loaded and run once in a fresh Node process in
 * which nothing else has loaded zod, as on the Slack function's cold `/cloud help`. The two
 * alternate run by run (with an empty module as the control), so a change in the machine's load hits both alike; medians are reported.
 *
 * Usage: `npx tsx bench/config-check/run.ts [runs per variant, default 40]`
 */

const RUNS = Number(process.argv[2] ?? 40);

const VARIANTS = {
  /** The control: what loading any module costs, so the difference is the config's own. */
  'nothing (an empty module)': fileURLToPath(new URL('./empty-config.ts', import.meta.url)),
  'hand checks (lib/config.ts)': fileURLToPath(new URL('../../lib/config.ts', import.meta.url)),
  'zod/mini schema': fileURLToPath(new URL('./zod-mini-config.ts', import.meta.url)),
} as const;
type Variant = keyof typeof VARIANTS;

/** A valid environment of one workspace, as the Slack function reads it. */
const ENV = {
  SLACK_SIGNING_SECRET: 'signing-secret',
  SLACK_BOT_TOKEN: 'xoxb-token',
  TABLE_NAME: 'chatops',
  TOKEN_ENCRYPTION_KEY: 'key',
  CLOUD_API_URL: 'https://api.cloud.example.com/v4',
  INLINE_BUDGET_MS: '1500',
};

/** Runs in the child: load the bundle, check the environment, say how long each took. */
const CHILD = `
const start = performance.now();
const config = await import(process.argv[1]);
const loaded = performance.now();
config.loadConfig(JSON.parse(process.argv[2]));
const checked = performance.now();
console.log(JSON.stringify({ load: loaded - start, check: checked - loaded }));
`;

interface Sample {
  readonly load: number;
  readonly check: number;
}

async function bundle(entry: string, outdir: string): Promise<{ file: string; bytes: number }> {
  const { banner: _banner, ...options } = BUNDLE_OPTIONS;
  const result = await build({
    ...options,
    splitting: false,
    sourcemap: false,
    entryPoints: { config: entry },
    outdir,
    metafile: true,
    logLevel: 'silent',
  });
  const [file, output] = Object.entries(result.metafile.outputs)[0] ?? [];
  if (!file || !output) throw new Error(`no bundle for ${entry}`);
  return { file: pathToFileURL(join(process.cwd(), file)).href, bytes: output.bytes };
}

function runOnce(file: string): Sample {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, file, JSON.stringify(ENV)], {
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`the child failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as Sample;
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return (sorted[low] ?? 0) + ((sorted[high] ?? 0) - (sorted[low] ?? 0)) * (at - low);
}

const dir = mkdtempSync(join(tmpdir(), 'config-check-'));
try {
  const bundles = {} as Record<Variant, { file: string; bytes: number }>;
  for (const [name, entry] of Object.entries(VARIANTS) as [Variant, string][]) {
    bundles[name] = await bundle(entry, join(dir, name.replace(/\W+/g, '-')));
  }
  const samples = Object.fromEntries(Object.keys(VARIANTS).map((name) => [name, [] as Sample[]])) as Record<
    Variant,
    Sample[]
  >;
  const loadBefore = loadavg()[0] ?? 0;
  // One warm-up each, for the file system cache; then alternate, starting with each in turn.
  for (const name of Object.keys(VARIANTS) as Variant[]) runOnce(bundles[name].file);
  for (let run = 0; run < RUNS; run++) {
    const names = Object.keys(VARIANTS) as Variant[];
    const order = run % 2 === 0 ? names : names.reverse();
    for (const name of order) samples[name].push(runOnce(bundles[name].file));
  }
  const loadAfter = loadavg()[0] ?? 0;
  console.log(
    `${RUNS} runs per variant, alternating, fresh Node ${process.version} process each; ` +
      `${cpus().length} CPUs, load average (1 min) ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after`,
  );
  console.log('variant | bundle | load (median, p25–p75) | first check (median) | load + check (median)');
  for (const name of Object.keys(VARIANTS) as Variant[]) {
    const runs = samples[name];
    const load = runs.map((s) => s.load);
    const check = runs.map((s) => s.check);
    const total = runs.map((s) => s.load + s.check);
    console.log(
      `${name} | ${(bundles[name].bytes / 1024).toFixed(1)} KiB | ${quantile(load, 0.5).toFixed(2)} ms ` +
        `(${quantile(load, 0.25).toFixed(2)}–${quantile(load, 0.75).toFixed(2)}) | ${quantile(check, 0.5).toFixed(2)} ms | ` +
        `${quantile(total, 0.5).toFixed(2)} ms`,
    );
  }
  // Paired by run: each difference comes from two processes started one after the other.
  const [control, ...checked] = Object.keys(VARIANTS) as Variant[];
  if (control) {
    for (const name of checked) {
      const more = samples[name].map((s, run) => {
        const base = samples[control][run];
        return base ? s.load + s.check - (base.load + base.check) : 0;
      });
      console.log(
        `${name}: ${quantile(more, 0.5).toFixed(2)} ms more than ${control} (median of ${RUNS} paired runs, ` +
          `p25–p75 ${quantile(more, 0.25).toFixed(2)}–${quantile(more, 0.75).toFixed(2)})`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
