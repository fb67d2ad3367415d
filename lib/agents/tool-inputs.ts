import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import * as z from 'zod';
import TOOL_INPUT_JSON_SCHEMAS from './tool-inputs.generated.json' with { type: 'json' };
import '../zod-settings.js';

/**
 * The input schemas of the agents' tools: zod checks a call's arguments, and each schema's JSON
 * Schema, which `tools/list` sends, is written out ahead by `npm run generate`
 * (`tool-inputs.generated.json`; a test fails when it is stale). Converting five schemas to JSON
 * Schema in a fresh process cost a cold `tools/list` about 6–10 ms, and a read's first call (the
 * SDK reads the called tool's JSON Schema for its `x-mcp-header` fields) about 3–5 ms.
 */

const FIND_LIMIT_MAX = 20;

const OperationName = z
  .string()
  .max(100)
  .describe('An operation name from find_operations, e.g. "volumes.list".');
const Arguments = z
  .record(z.string().max(100), z.unknown())
  .optional()
  .describe("The operation's arguments, as its input_schema from find_operations says.");

/** The tools' zod schemas, by the name their JSON Schema is written out under. */
export const TOOL_INPUTS = {
  find_operations: z.object({
    query: z.string().max(200).describe('Words to look for, e.g. "attach volume" or "database backups".'),
    kind: z.enum(['read', 'change', 'destructive']).optional(),
    limit: z.number().int().min(1).max(FIND_LIMIT_MAX).optional(),
  }),
  read: z.object({
    operation: OperationName,
    arguments: Arguments,
    page: z.number().int().min(1).max(10_000).optional(),
  }),
  change: z.object({
    operation: OperationName,
    arguments: Arguments,
    reason: z.string().max(500).optional().describe('Why, for the people who approve it.'),
  }),
  get_request: z.object({ request_id: z.string().max(100) }),
} as const;

export type ToolInputName = keyof typeof TOOL_INPUTS;

/** The JSON Schema target the SDK asks a schema for (draft 2020-12). */
const TARGET = 'draft-2020-12';

/** Where `npm run generate` writes the tools' JSON Schemas. */
export const TOOL_INPUTS_PATH = 'lib/agents/tool-inputs.generated.json';

/** What `npm run generate` writes to `TOOL_INPUTS_PATH`: each tool's input as JSON Schema. */
export function renderToolInputSchemas(): string {
  // What the SDK would ask each schema for: zod's own Standard JSON Schema answer.
  const schemas = Object.fromEntries(
    Object.entries(TOOL_INPUTS).map(([name, schema]) => [
      name,
      schema['~standard'].jsonSchema.input({ target: TARGET }),
    ]),
  );
  return `${JSON.stringify(schemas, null, 2)}\n`;
}

/**
 * The tool `name`'s input: validated by its zod schema, described by its JSON Schema written out
 * ahead. Asked for another target than the one written out, or for the output, zod converts it.
 */
export function toolInput<N extends ToolInputName>(
  name: N,
): StandardSchemaWithJSON<z.input<(typeof TOOL_INPUTS)[N]>, z.output<(typeof TOOL_INPUTS)[N]>> {
  const schema = TOOL_INPUTS[name];
  const written: Readonly<Record<string, unknown>> | undefined = TOOL_INPUT_JSON_SCHEMAS[name];
  const standard = schema['~standard'];
  const input = (options: { readonly target: string }): Record<string, unknown> =>
    options.target === TARGET && written
      ? (structuredClone(written) as Record<string, unknown>)
      : standard.jsonSchema.input(options as Parameters<typeof standard.jsonSchema.input>[0]);
  return {
    '~standard': {
      version: 1,
      vendor: standard.vendor,
      validate: standard.validate,
      jsonSchema: { input, output: standard.jsonSchema.output },
    },
  } as StandardSchemaWithJSON<z.input<(typeof TOOL_INPUTS)[N]>, z.output<(typeof TOOL_INPUTS)[N]>>;
}
