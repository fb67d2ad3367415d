import type { AnyOperation } from '../operation.js';

// Filled in with the profile area's rows.
export const profileOperations: readonly AnyOperation[] = [];
