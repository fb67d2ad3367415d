import type { AnyOperation, Group } from '../operation.js';

/**
 * The operations table one group at a time, for code that serves one call on a cold start (an
 * agent's `read`): building every group's rows (`index.ts`) costs a fresh process more than the
 * call it serves, and a call needs only its own row. The rows are the very objects `index.ts`
 * holds (the same modules), so either way of looking an operation up finds the same row.
 */

type Rows = readonly AnyOperation[];

/** The modules that hold each group's rows (the `nodes` group spans four). */
const GROUP_ROWS: Readonly<Record<Group, () => Promise<readonly Rows[]>>> = {
  profile: async () => [(await import('./profile.js')).profileOperations],
  managed: async () => [(await import('./managed.js')).managedOperations],
  databases: async () => [(await import('./databases.js')).databaseOperations],
  volumes: async () => [(await import('./volumes.js')).volumeOperations],
  images: async () => [(await import('./images.js')).imageOperations],
  nodes: async () => {
    const [nodes, actions, disks, types] = await Promise.all([
      import('./nodes.js'),
      import('./node-actions.js'),
      import('./disks.js'),
      import('./node-types.js'),
    ]);
    return [
      nodes.nodeOperations,
      actions.nodeActionOperations,
      disks.diskOperations,
      types.nodeTypeOperations,
    ];
  },
  regions: async () => [(await import('./regions.js')).regionOperations],
  events: async () => [(await import('./events.js')).eventOperations],
};

/**
 * The rows of the group `id` names (its text before the first dot), loaded now; `undefined` for
 * an id that names no group, which loads nothing.
 */
function groupRowsOf(id: string): Promise<readonly Rows[]> | undefined {
  const dot = id.indexOf('.');
  const group = dot < 0 ? '' : id.slice(0, dot);
  return Object.hasOwn(GROUP_ROWS, group) ? GROUP_ROWS[group as Group]() : undefined;
}

/**
 * The row of `id` (text from outside: an agent's call), loading only its group's rows;
 * `undefined` when no row has that id.
 */
export async function loadOperation(id: string): Promise<AnyOperation | undefined> {
  for (const rows of (await groupRowsOf(id)) ?? []) {
    const op = rows.find((row) => row.id === id);
    if (op) return op;
  }
  return undefined;
}

/**
 * Starts loading the rows of `id`'s group without waiting, for a caller that knows which operation
 * it will look up while it waits on something else. A name of no group loads nothing; a failed
 * load surfaces at `loadOperation`.
 */
export function loadOperationAhead(id: string): void {
  groupRowsOf(id)?.catch(() => undefined);
}
