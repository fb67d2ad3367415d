import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFunctions } from '../../infra/build.js';
import { type BuiltFunction, buildInTree, describeFunction } from '../cold-start/bundles.js';
import { buildDriver } from '../cold-start/cold-process.js';

/**
 * The builds of the MCP cold-start comparison, both made by `buildFunctions` from `infra/build.ts`:
 * the agents' function (`functions/mcp`), and the minimal MCP server (`bench/baseline/minimal-mcp.ts`)
 * built as the `mcp` function of a scratch tree, so it gets the very same options (minified, split
 * at dynamic imports, the rasteriser left out, its start in one chunk), nothing copied.
 */

const BASELINE_SOURCE = fileURLToPath(new URL('../baseline/minimal-mcp.ts', import.meta.url));

export interface McpArtifacts {
  readonly ours: BuiltFunction;
  readonly baseline: BuiltFunction;
  /** The compiled driver each cold-start process runs. */
  readonly driver: string;
}

export async function prepareMcpColdStart(workDir: string): Promise<McpArtifacts> {
  const oursDir = join(workDir, 'mcp-ours');
  const [, baselineDir, driver] = await Promise.all([
    buildFunctions(oursDir),
    buildInTree(workDir, 'mcp-baseline', BASELINE_SOURCE, 'mcp'),
    buildDriver(join(workDir, 'mcp-driver.mjs')),
  ]);
  return {
    ours: await describeFunction(join(oursDir, 'mcp')),
    baseline: await describeFunction(baselineDir),
    driver,
  };
}
