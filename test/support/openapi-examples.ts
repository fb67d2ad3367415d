import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AnyOperation } from '../../lib/api/operation.js';
import { requireOperation } from '../../lib/api/operations/index.js';

/**
 * The published spec gives examples per field, not per response: an operation's example is
 * assembled from the field examples of its 200 response schema, to check our response schemas
 * against what the provider documents.
 */

export interface SchemaNode {
  $ref?: string;
  allOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  type?: string;
  example?: unknown;
}
interface OpenApiOperation {
  responses: Record<string, { content?: Record<string, { schema: SchemaNode }> }>;
}

export const openApi = JSON.parse(
  readFileSync(resolve(process.cwd(), '../shared/reference/cloud-api.openapi.json'), 'utf8'),
) as { paths: Record<string, Record<string, OpenApiOperation>> };

function resolveRef(ref: string): SchemaNode {
  let node: unknown = openApi;
  for (const key of ref.replace(/^#\//, '').split('/')) node = (node as Record<string, unknown>)[key];
  return node as SchemaNode;
}

/** Stand-ins for the few leaves the spec gives no example for. */
const PLACEHOLDERS: Record<string, unknown> = {
  string: 'example',
  integer: 1,
  number: 1,
  boolean: true,
  object: {},
};

/** A schema's own example, else one built from its parts. */
export function exampleOf(node: SchemaNode): unknown {
  if ('example' in node) return node.example;
  if (node.$ref) return exampleOf(resolveRef(node.$ref));
  if (node.allOf) return Object.assign({}, ...node.allOf.map(exampleOf));
  if (node.properties) {
    return Object.fromEntries(Object.entries(node.properties).map(([key, part]) => [key, exampleOf(part)]));
  }
  if (node.items) return [exampleOf(node.items)];
  if (node.oneOf?.[0]) return exampleOf(node.oneOf[0]);
  return PLACEHOLDERS[node.type ?? 'object'];
}

/** The example of an operation's 200 body, or undefined when the spec declares none. */
export function publishedExample(op: AnyOperation): unknown {
  const schema =
    openApi.paths[op.path]?.[op.method.toLowerCase()]?.responses['200']?.content?.['application/json']
      ?.schema;
  return schema ? exampleOf(schema) : undefined;
}

/** `field: message` for each rule an input breaks; empty when the operation accepts it. */
export function issuesOf(id: string, input: unknown): string[] {
  const result = requireOperation(id).request.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}
