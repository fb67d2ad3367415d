import type { AnyOperation } from '../operation.js';

// Filled in with the images area's rows.
export const imageOperations: readonly AnyOperation[] = [];
