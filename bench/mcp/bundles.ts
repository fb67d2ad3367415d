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
 * chunk), nothing copied. The minimal server keeps the SDK's defaults (its ajv JSON Schema validator);
 * the floor, the least the agents' function could be, is built with the agents' function's SDK
 * shims (`functions/mcp/sdk-shims.ts`: no ajv), and so is the minimal server a second time, to say
 * what leaving ajv out is worth on its own.
 */

const BASELINE_SOURCE = fileURLToPath(new URL('../baseline/minimal-mcp.ts', import.meta.url));
const FLOOR_SOURCE = fileURLToPath(new URL('../baseline/floor-mcp.ts', import.meta.url));

export interface McpArtifacts {
  readonly ours: BuiltFunction;
  readonly baseline: BuiltFunction;
  /** The minimal server built with the agents' function's SDK shims, without ajv. */
  readonly trimmed: BuiltFunction;
  /** The minimal server with the bot's configuration and bearer check (`floor-mcp.ts`), without ajv. */
  readonly floor: BuiltFunction;
  /** The compiled driver each cold-start process runs. */
  readonly driver: string;
}

export async function prepareMcpColdStart(workDir: string): Promise<McpArtifacts> {
  const oursDir = join(workDir, 'mcp-ours');
  const [, baselineDir, trimmedDir, floorDir, driver] = await Promise.all([
    buildFunctions(oursDir),
    buildInTree(workDir, 'mcp-baseline', BASELINE_SOURCE, 'mcp'),
    buildInTree(workDir, 'mcp-trimmed', BASELINE_SOURCE, 'mcp', 'mcp'),
    buildInTree(workDir, 'mcp-floor', FLOOR_SOURCE, 'mcp', 'mcp'),
    buildDriver(join(workDir, 'mcp-driver.mjs')),
  ]);
  return {
    ours: await describeFunction(join(oursDir, 'mcp')),
    baseline: await describeFunction(baselineDir),
    trimmed: await describeFunction(trimmedDir),
    floor: await describeFunction(floorDir),
    driver,
  };
}
