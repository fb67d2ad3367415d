import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE_OPTIONS } from '../../infra/build.js';
import { type BuiltFunction, describeFunction, PROJECT_ROOT } from '../cold-start/bundles.js';
import { buildDriver } from '../cold-start/cold-process.js';

/**
 * The builds of the MCP cold-start comparison: the agents' function (`functions/mcp`) and the
 * minimal MCP server (`bench/baseline/minimal-mcp.ts`), each built with the functions' esbuild
 * options (`BUNDLE_OPTIONS` of `infra/build.ts`: minified, split at dynamic imports, the same
 * banner and targets), so both are bundled and minified alike.
 */

const MCP_ENTRY = join(PROJECT_ROOT, 'functions', 'mcp', 'handler.ts');
const BASELINE_SOURCE = fileURLToPath(new URL('../baseline/minimal-mcp.ts', import.meta.url));

export interface McpArtifacts {
  readonly ours: BuiltFunction;
  readonly baseline: BuiltFunction;
  /** The compiled driver each cold-start process runs. */
  readonly driver: string;
}

async function buildWithFunctionOptions(entry: string, outdir: string): Promise<BuiltFunction> {
  await build({
    ...BUNDLE_OPTIONS,
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    entryPoints: { index: entry },
    outdir,
  });
  return describeFunction(outdir);
}

export async function prepareMcpColdStart(workDir: string): Promise<McpArtifacts> {
  const [ours, baseline, driver] = await Promise.all([
    buildWithFunctionOptions(MCP_ENTRY, join(workDir, 'mcp-ours')),
    buildWithFunctionOptions(BASELINE_SOURCE, join(workDir, 'mcp-baseline')),
    buildDriver(join(workDir, 'mcp-driver.mjs')),
  ]);
  return { ours, baseline, driver };
}
