import type { AnyOperation, Group } from '../../../../lib/api/operation.js';
import type { diskOperations } from '../../../../lib/api/operations/disks.js';
import type { OperationId } from '../../../../lib/api/operations/index.js';
import type { nodeActionOperations } from '../../../../lib/api/operations/node-actions.js';
import type { nodeTypeOperations } from '../../../../lib/api/operations/node-types.js';
import type { Caller } from '../auth.js';
import { unauthorized } from '../errors.js';
import type { ListItems } from '../listing.js';
import type { RequestFields } from '../request-fields.js';
import type { World } from '../world.js';

/** What one operation's handler sees. */
export class HandlerContext {
  readonly world: World;
  readonly op: AnyOperation;
  readonly input: RequestFields;
  /** Undefined only for operations that work without a token (and were called without one). */
  readonly caller: Caller | undefined;
  /** Origin of the emulator as the client reached it, for addresses the API hands out. */
  readonly origin: string;

  constructor(init: {
    world: World;
    op: AnyOperation;
    input: RequestFields;
    caller: Caller | undefined;
    origin: string;
  }) {
    this.world = init.world;
    this.op = init.op;
    this.input = init.input;
    this.caller = init.caller;
    this.origin = init.origin;
  }

  /** The calling user; every operation that needs a token has one by now. */
  get user() {
    if (!this.caller) throw unauthorized('Login required');
    return this.caller.user;
  }

  get now(): number {
    return this.world.now();
  }
}

export type Outcome =
  | { kind: 'json'; status: number; body: unknown }
  /** Every item the caller may see, in order; the server filters, orders and pages them. */
  | { kind: 'list'; items: ListItems }
  | { kind: 'no-content' };

export type Handler = (ctx: HandlerContext) => Outcome;

/**
 * One handler per operation id of the bot's table: an operation without a handler, or a handler
 * for an id the table does not declare, does not compile.
 */
export type HandlerTable = { readonly [Id in OperationId]: Handler };

/** The handlers of one command group (one file under `handlers/`). */
export type GroupHandlers<G extends Group> = {
  readonly [Id in OperationId as Id extends `${G}.${string}` ? Id : never]: Handler;
};

/** The node operations of the second published document (actions, reads, disks, types, kernels). */
export type NodeActionId = (
  | typeof nodeActionOperations
  | typeof diskOperations
  | typeof nodeTypeOperations
)[number]['id'];

export function json(body: unknown, status = 200): Outcome {
  return { kind: 'json', status, body };
}

export function empty(): Outcome {
  return { kind: 'json', status: 200, body: {} };
}

/**
 * A list outcome: `records` are what the caller may see, in the API's order; `render` turns one
 * into its response object and must not depend on which others are rendered.
 */
export function list<T>(records: readonly T[], render: (record: T) => Record<string, unknown>): Outcome {
  return {
    kind: 'list',
    items: {
      length: records.length,
      slice: (start, end) => records.slice(start, end).map((record) => render(record)),
    },
  };
}

export function noContent(): Outcome {
  return { kind: 'no-content' };
}
