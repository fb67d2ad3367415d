import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { renderAgentReference } from '../lib/agents/reference.js';
import { renderToolInputSchemas, TOOL_INPUTS_PATH } from '../lib/agents/tool-inputs.js';
import { CATALOG_PATH, renderCommandCatalog } from '../lib/commands/catalog-file.js';
import { jsonSchemaOf } from '../lib/commands/field-shapes.js';
import { renderCommandReference } from '../lib/commands/reference.js';
import { SettingsDocumentSchema } from '../lib/core/settings/document.js';
import { toCloudFormationTable } from './table.js';

/**
 * Files derived from the code and kept in the repository because tools that cannot run
 * TypeScript read them: the table resource for `serverless.yml`, the command reference, and the
 * settings document's JSON Schema. A test fails when one is stale;
 * `npm run generate` writes them again. The command catalog is kept for the Slack function, which
 * answers help from it instead of building the operations table at a cold start.
 */
export const GENERATED_FILES: Record<string, () => string> = {
  'infra/cloudformation/table.json': () => `${JSON.stringify(toCloudFormationTable(undefined), null, 2)}\n`,
  'docs/commands.md': () => renderCommandReference(),
  'docs/agents.md': () => renderAgentReference(),
  [CATALOG_PATH]: () => renderCommandCatalog(),
  /** The agents' tool inputs as JSON Schema, which `tools/list` sends without converting them. */
  [TOOL_INPUTS_PATH]: () => renderToolInputSchemas(),
  /** The settings document's shape, for editors (an exported document's first line points here). */
  'docs/settings.schema.json': () =>
    `${JSON.stringify(jsonSchemaOf(SettingsDocumentSchema, 'input'), null, 2)}\n`,
};

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [path, render] of Object.entries(GENERATED_FILES)) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, render());
    console.log(`wrote ${path}`);
  }
}
