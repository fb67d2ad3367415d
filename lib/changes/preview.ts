import type { ApiClient } from '../api/client.js';
import { decidedFingerprint, decidedKindOf } from '../api/decided-fields.js';
import { ApiError } from '../api/errors.js';
import type { AnyOperation } from '../api/operation.js';
import { viewOperationFor } from '../api/outcome.js';

/**
 * What an approver saw, kept so that a changed target is not acted on: the target's fingerprint
 * is stored with the request, and when the approval completes the target is read again. The
 * preview lines themselves are the surface's words (`lib/slack/preview.ts`).
 */

export interface TargetPreview {
  /**
   * The target by label and id, then what it belongs to: "db-data (12)", "before_migration (8001)
   * of database orders (41)". A label that could not be read is said to be so, beside the id.
   */
  readonly summary: string;
  /** The lines the card shows, as the surface wrote them. */
  readonly lines: readonly string[];
  /** What must be unchanged at execution time; null when the target cannot be read. */
  readonly fingerprint: string | null;
}

/** The budget of one preview read: the request is made inside a slash command's few seconds. */
export const PREVIEW_READ_MS = 800;

/** Fields worth an approver's look, in this order, when the target has them. */
export const KEY_FIELDS = [
  'status',
  'region',
  'type',
  'size',
  'engine',
  'version',
  'cluster_size',
  'node_label',
] as const;

export type Resource = Record<string, unknown>;

// Previews read rows chosen at run time, so their results are checked here rather than typed.
export function isResource(value: unknown): value is Resource {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The target's fingerprint now: null when unreadable, `not_found` when it is gone. */
export async function currentFingerprint(
  client: ApiClient,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
): Promise<string | null | 'not_found'> {
  const view = viewOperationFor(op);
  if (!view) return null;
  const resource = await readResource(client, view, input);
  if (resource === 'not_found') return 'not_found';
  return resource ? fingerprintOf(view, resource) : null;
}

/** The kind of what `op` acts on, by its single-resource read: what its decided fields are. */
export function targetKindOf(op: AnyOperation): string {
  const view = viewOperationFor(op);
  return view ? decidedKindOf(view) : 'generic';
}

/** What the approver decided on (`lib/api/decided-fields.ts`), kept to compare at the vote. */
export function fingerprintOf(view: AnyOperation, resource: Resource): string {
  return decidedFingerprint(decidedKindOf(view), resource);
}

/** One read of a resource: `not_found` when the API says so, undefined when it cannot be read. */
export async function readResource(
  client: ApiClient,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
): Promise<Resource | 'not_found' | undefined> {
  try {
    const viewInput = Object.fromEntries(op.pathParams.map((name) => [name, input[name]]));
    const value = await client.call(op, viewInput, { timeoutMs: PREVIEW_READ_MS });
    return isResource(value) ? value : undefined;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') return 'not_found';
    return undefined;
  }
}
