import type { AnyOperation } from '../operation.js';

// Filled in with the managed area's rows.
export const managedOperations: readonly AnyOperation[] = [];
