import type { ApiClient } from '../../lib/api/client.js';
import type { AnyOperation } from '../../lib/api/operation.js';
import { operations } from '../../lib/api/operations/index.js';
import { type FieldShape, requestShapeOf } from '../../lib/commands/field-shapes.js';
import { flagNameOf } from '../../lib/commands/usage.js';

/**
 * A valid request for any operation, built from its request schema: required fields filled with
 * the simplest value the schema accepts (path ids 1), checked against the schema itself. Used by
 * tests that walk the whole registry.
 */

/** Requests the generic filler cannot guess (rules that tie fields together). */
const OVERRIDES: Record<string, Record<string, unknown>> = {
  'nodes.backups-restore': { nodeId: 1, backupId: 1, node_id: 2 },
  'nodes.clone': { nodeId: 1, node_id: 2 },
  'images.delete': { imageId: 'private/1' },
};

function valueFor(name: string, shape: FieldShape): unknown {
  if (shape.enumValues && shape.enumValues.length > 0) return shape.enumValues.find((v) => v !== null);
  if (shape.kinds.has('integer') || shape.kinds.has('number')) return Math.max(1, shape.minimum ?? 1);
  if (shape.kinds.has('boolean')) return true;
  if (shape.kinds.has('array')) return [];
  if (shape.kinds.has('object')) return {};
  const length = Math.max(shape.minLength ?? 1, 3);
  return name.toLowerCase().includes('id')
    ? 'node/debian12'
    : 'sample'.padEnd(length, 'x').slice(0, shape.maxLength ?? length);
}

export function sampleInputFor(op: AnyOperation): Record<string, unknown> {
  const override = OVERRIDES[op.id];
  const input: Record<string, unknown> = {};
  if (override) Object.assign(input, override);
  else {
    const shape = requestShapeOf(op);
    for (const name of op.pathParams) {
      const field = shape.properties?.get(name);
      input[name] = field?.kinds.has('integer') ? 1 : field ? valueFor(name, field) : 1;
    }
    for (const name of shape.required ?? []) {
      if (input[name] !== undefined) continue;
      const field = shape.properties?.get(name);
      if (field) input[name] = valueFor(name, field);
    }
  }
  const parsed = op.request.safeParse(input);
  if (!parsed.success) {
    throw new Error(
      `no sample input for ${op.id}: ${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}`,
    );
  }
  return input;
}

/** The slash-command text (without `/cloud`) that asks for `input`. */
export function commandTextFor(op: AnyOperation, input: Record<string, unknown>): string {
  const words = [op.group, op.action, ...op.pathParams.map((name) => String(input[name]))];
  for (const [name, value] of Object.entries(input)) {
    if (op.pathParams.includes(name)) continue;
    words.push(
      `--${flagNameOf(name)}`,
      typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value),
    );
  }
  return words.join(' ');
}

/**
 * A valid request whose path ids name things that exist: each id is taken from the list the
 * path goes through (`/databases/mysql/instances` for `instanceId`, then its `/backups`).
 */
export async function existingInputFor(
  op: AnyOperation,
  client: ApiClient,
): Promise<Record<string, unknown>> {
  const input = sampleInputFor(op);
  const segments = op.path.split('/');
  for (const [index, segment] of segments.entries()) {
    const param = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (!param) continue;
    const listPath = segments.slice(0, index).join('/');
    const list = operations.find((candidate) => candidate.method === 'GET' && candidate.path === listPath);
    if (!list) continue;
    const listInput = Object.fromEntries(list.pathParams.map((name) => [name, input[name]]));
    const output = (await client.call(list, listInput)) as Record<string, unknown>;
    const items = Array.isArray(output.data)
      ? output.data
      : Array.isArray(output.automatic)
        ? output.automatic
        : [];
    // The first item the operation itself would accept (e.g. a private image for images.delete).
    const first = items.find(
      (item: { id?: unknown; status?: unknown }) =>
        item.id !== undefined &&
        item.status !== 'provisioning' &&
        op.request.safeParse({ ...input, [param]: item.id }).success,
    ) as { id: unknown } | undefined;
    if (first) input[param] = first.id;
  }
  return input;
}
