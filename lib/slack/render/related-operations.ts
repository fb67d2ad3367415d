import type { AnyOperation, HttpMethod } from '../../api/operation.js';
import { operations } from '../../api/operations/index.js';
import type { RunPayload } from '../../slack-kit/interaction-ids.js';

/**
 * Finding the operations that belong to a resource (view it, boot it, list its backups) from the
 * operations table by route, so buttons follow the table instead of naming operation ids.
 */

/** A path template with its parameter names blanked: `/volumes/{volumeId}/attach` → `/volumes/{}/attach`. */
export function routeOf(path: string): string {
  return path.replace(/\{\w+\}/g, '{}');
}

const byRoute = new Map<string, AnyOperation>();
for (const op of operations) byRoute.set(`${op.method} ${routeOf(op.path)}`, op);

export function findOperationByRoute(method: HttpMethod, route: string): AnyOperation | undefined {
  return byRoute.get(`${method} ${route}`);
}

export type PathValue = string | number;

/**
 * One concrete resource: the route of its item path (`/node/instances/{}/configs/{}`) and the values
 * of its path parameters in order (`[34, 7]`).
 */
export interface ResourceRef {
  readonly route: string;
  readonly values: readonly PathValue[];
}

/**
 * The run payload for an operation on a resource. Path parameters are matched by position, so the
 * resource's values fill the operation's own parameter names whatever they are called.
 */
export function runPayloadFor(
  op: AnyOperation,
  values: readonly PathValue[],
  extra: Record<string, unknown> = {},
): RunPayload | undefined {
  if (values.length < op.pathParams.length) return undefined;
  const input: Record<string, unknown> = {};
  op.pathParams.forEach((name, index) => {
    input[name] = values[index];
  });
  return { operationId: op.id, input: { ...input, ...extra } };
}

/** Whether the operation can run with this input as it is, without asking for more. */
export function isCompleteInput(op: AnyOperation, input: Record<string, unknown>): boolean {
  return op.request.safeParse(input).success;
}

/** The values of an operation's path parameters in the given input, in path order. */
export function pathValuesOf(op: AnyOperation, input: Record<string, unknown>): PathValue[] {
  const values: PathValue[] = [];
  for (const name of op.pathParams) {
    const value = input[name];
    if (typeof value !== 'string' && typeof value !== 'number') break;
    values.push(value);
  }
  return values;
}

/** The view operation of an item route (`GET /volumes/{volumeId}` for `/volumes/{}`). */
export function viewOperationOf(itemRoute: string): AnyOperation | undefined {
  return findOperationByRoute('GET', itemRoute);
}
