import type { AnyOperation } from '../operation.js';

// Filled in with the nodes area's rows.
export const nodeOperations: readonly AnyOperation[] = [];
