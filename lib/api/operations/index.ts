import type { AnyOperation } from '../operation.js';
import { databaseOperations } from './databases.js';
import { diskOperations } from './disks.js';
import { eventOperations } from './events.js';
import { imageOperations } from './images.js';
import { managedOperations } from './managed.js';
import { nodeActionOperations } from './node-actions.js';
import { nodeTypeOperations } from './node-types.js';
import { nodeOperations } from './nodes.js';
import { profileOperations } from './profile.js';
import { regionOperations } from './regions.js';
import { volumeOperations } from './volumes.js';

// Each row keeps its own type (its literal id, request and response schemas), so a lookup by a
// known id returns that row and `client.call` its typed result; a misspelt id does not compile.
const table = [
  ...profileOperations,
  ...managedOperations,
  ...databaseOperations,
  ...volumeOperations,
  ...imageOperations,
  ...nodeOperations,
  ...nodeActionOperations,
  ...diskOperations,
  ...nodeTypeOperations,
  ...regionOperations,
  ...eventOperations,
] as const;

/** Any row of the table, with its precise type. */
export type Operation = (typeof table)[number];
/** Every operation id the table declares, e.g. `'volumes.list'`. */
export type OperationId = Operation['id'];
/** The row declared under `Id`. */
export type OperationById<Id extends OperationId> = Extract<Operation, { readonly id: Id }>;

/**
 * Every operation of the API, area by area, in the order of the documents' endpoint tables; then
 * the operations of the second published document (node actions and reads, disks, types and
 * kernels, regions, account events) in the order of its inventory.
 */
export const operations: readonly AnyOperation[] = table;

const byId = new Map<string, AnyOperation>(operations.map((op) => [op.id, op]));

export function isOperationId(id: string): id is OperationId {
  return byId.has(id);
}

/** For ids that arrive as text (a stored request, a button value); `undefined` when unknown. */
export function findOperation(id: string): AnyOperation | undefined {
  return byId.get(id);
}

/** For ids read back from storage, which a release may have renamed: a clear error when unknown. */
export function requireOperation(id: string): AnyOperation {
  const op = byId.get(id);
  if (!op) throw new Error(`Unknown operation ${id}`);
  return op;
}

/** For ids written in the code: the row's own type, checked by the compiler. */
export function getOperation<Id extends OperationId>(id: Id): OperationById<Id> {
  return requireOperation(id) as OperationById<Id>;
}

/** The database engines whose operations come in one set per engine. */
export const ENGINE_KINDS = ['mysql', 'postgresql'] as const;
export type EngineKind = (typeof ENGINE_KINDS)[number];

/** What follows `databases.<engine>-` in the id of an operation every engine has (`backups-list`). */
export type DatabaseEngineAction = EngineActionOf<OperationId>;
type EngineActionOf<Id> = Id extends `databases.mysql-${infer Action}`
  ? `databases.postgresql-${Action}` extends OperationId
    ? Action
    : never
  : never;

/** The operation of one engine, e.g. `databases.postgresql-backups-list`. */
export function engineOperation(engine: EngineKind, action: DatabaseEngineAction) {
  return getOperation(`databases.${engine}-${action}`);
}
