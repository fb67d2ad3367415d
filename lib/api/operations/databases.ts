import type { AnyOperation } from '../operation.js';

// Filled in with the databases area's rows.
export const databaseOperations: readonly AnyOperation[] = [];
