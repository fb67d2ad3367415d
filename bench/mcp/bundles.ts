import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFunctions } from '../../infra/build.js';
import { type BuiltFunction, buildInTree, describeFunction } from '../cold-start/bundles.js';
import { buildDriver } from '../cold-start/cold-process.js';

/**
 * The builds of the MCP cold-start comparison, all made by `buildFunctions` from `infra/build.ts`:
 * the agents' function (`functions/mcp`), and the minimal MCP server (`bench/baseline/minimal-mcp.ts`)
 * and its floor (`floor-mcp.ts`) each built as the `mcp` function of a scratch tree, so they get the
 * very same options (minified, split at dynamic imports, the rasteriser left out, the start in one
 * chunk), nothing copied.
 */

const BASELINE_SOURCE = fileURLToPath(new URL('../baseline/minimal-mcp.ts', import.meta.url));
const FLOOR_SOURCE = fileURLToPath(new URL('../baseline/floor-mcp.ts', import.meta.url));

export interface McpArtifacts {
  readonly ours: BuiltFunction;
  readonly baseline: BuiltFunction;
  /** The minimal server with the bot's configuration and bearer check (`floor-mcp.ts`). */
  readonly floor: BuiltFunction;
  /** The compiled driver each cold-start process runs. */
  readonly driver: string;
}

export async function prepareMcpColdStart(workDir: string): Promise<McpArtifacts> {
  const oursDir = join(workDir, 'mcp-ours');
  const [, baselineDir, floorDir, driver] = await Promise.all([
    buildFunctions(oursDir),
    buildInTree(workDir, 'mcp-baseline', BASELINE_SOURCE, 'mcp'),
    buildInTree(workDir, 'mcp-floor', FLOOR_SOURCE, 'mcp'),
    buildDriver(join(workDir, 'mcp-driver.mjs')),
  ]);
  return {
    ours: await describeFunction(join(oursDir, 'mcp')),
    baseline: await describeFunction(baselineDir),
    floor: await describeFunction(floorDir),
    driver,
  };
}
