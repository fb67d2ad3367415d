import type { AnyOperation } from '../operation.js';
import { databaseOperations } from './databases.js';
import { imageOperations } from './images.js';
import { managedOperations } from './managed.js';
import { nodeOperations } from './nodes.js';
import { profileOperations } from './profile.js';
import { volumeOperations } from './volumes.js';

/** Every operation of the API, area by area, in the order of the documents' endpoint tables. */
export const operations: readonly AnyOperation[] = [
  ...profileOperations,
  ...managedOperations,
  ...databaseOperations,
  ...volumeOperations,
  ...imageOperations,
  ...nodeOperations,
];

const byId = new Map(operations.map((op) => [op.id, op]));

export function findOperation(id: string): AnyOperation | undefined {
  return byId.get(id);
}

export function getOperation(id: string): AnyOperation {
  const op = byId.get(id);
  if (!op) throw new Error(`Unknown operation ${id}`);
  return op;
}
