import type { ApiClient } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import type { AnyOperation } from '../api/operation.js';
import type { DatabaseType } from '../api/operations/databases.js';
import { ENGINE_KINDS, type EngineKind, getOperation } from '../api/operations/index.js';
import { type NodeType, type Price, priceIn } from '../api/operations/node-types.js';
import { PREVIEW_READ_MS } from './preview.js';

/**
 * What a change does to the bill, for the approver: a node's price before and after a resize or
 * an upgrade (mutate), a new node's or database's price. Prices come from the API's types
 * (API-FACTS-MORE.md §5: a region's own price where the type lists one, else the default;
 * API-FACTS.md §2.6: database prices by cluster size). A price that cannot be read is said to be
 * unknown, never guessed.
 */

export type { Price };

/** The API prices in US dollars (API-FACTS-MORE.md §5, "default price in US dollars"). */
export const CURRENCY = 'USD';

export type PriceChange =
  | {
      readonly kind: 'known';
      /** Absent for something new: nothing was billed before. */
      readonly before?: Price;
      readonly after: Price;
      /** `after - before`, computed without float artefacts. */
      readonly delta: Price;
      readonly currency: typeof CURRENCY;
      /** The region whose own price was used, when it has one (otherwise the default applied). */
      readonly regionPrice?: string;
    }
  | { readonly kind: 'unknown'; readonly why: string };

/** The target as the preview read it: what a node's price depends on. */
export interface PricedTarget {
  readonly type?: unknown;
  readonly region?: unknown;
}

/**
 * Reads types by id: undefined when the API has no such type; throws when it cannot be read
 * (then the price is unknown).
 */
export interface TypeReader {
  nodeType(id: string): Promise<NodeType | undefined>;
  databaseType(id: string): Promise<DatabaseType | undefined>;
}

/**
 * Whether a preview of `op` with `input` shows a price change; the others change no price we can
 * read. A clone onto an existing node (`node_id`) replaces its disks and keeps its type and price.
 */
export function pricesOf(op: Pick<AnyOperation, 'id'>, input: Readonly<Record<string, unknown>>): boolean {
  if (op.id === 'nodes.clone' && input.node_id !== undefined) return false;
  return (
    op.id === 'nodes.resize' ||
    op.id === 'nodes.mutate' ||
    op.id === 'nodes.create' ||
    op.id === 'nodes.clone' ||
    databaseCreateKind(op) !== undefined
  );
}

/** The price change of `op` with `input` on `target`, or undefined when `op` changes no price. */
export async function priceChangeOf(
  op: Pick<AnyOperation, 'id'>,
  input: Readonly<Record<string, unknown>>,
  target: PricedTarget | undefined,
  types: TypeReader,
): Promise<PriceChange | undefined> {
  if (!pricesOf(op, input)) return undefined;
  try {
    return await priceChange(op, input, target, types);
  } catch {
    return { kind: 'unknown', why: 'the types and their prices could not be read' };
  }
}

async function priceChange(
  op: Pick<AnyOperation, 'id'>,
  input: Readonly<Record<string, unknown>>,
  target: PricedTarget | undefined,
  types: TypeReader,
): Promise<PriceChange> {
  const engine = databaseCreateKind(op);
  if (engine) return databaseCreate(engine, input, types);
  // A clone without `node_id` is a new node of the type and region it names, priced as a create.
  if (op.id === 'nodes.create' || op.id === 'nodes.clone') {
    const typeId = stringOf(input.type);
    const region = stringOf(input.region);
    if (!typeId || !region) return { kind: 'unknown', why: 'the request names no type or region' };
    const type = await types.nodeType(typeId);
    if (!type) return { kind: 'unknown', why: `there is no node type ${typeId}` };
    return known(undefined, type, region);
  }
  const currentId = stringOf(target?.type);
  const region = stringOf(target?.region);
  if (!currentId || !region) return { kind: 'unknown', why: "the node's type and region could not be read" };
  const current = await types.nodeType(currentId);
  if (!current) return { kind: 'unknown', why: `the node's type ${currentId} could not be found` };
  if (op.id === 'nodes.mutate') {
    if (current.successor === null)
      return { kind: 'unknown', why: `type ${currentId} has no successor, so it cannot be upgraded` };
    const successor = await types.nodeType(current.successor);
    if (!successor) return { kind: 'unknown', why: `its successor ${current.successor} could not be found` };
    return known(current, successor, region);
  }
  const nextId = stringOf(input.type);
  if (!nextId) return { kind: 'unknown', why: 'the request names no type' };
  const next = await types.nodeType(nextId);
  if (!next) return { kind: 'unknown', why: `there is no node type ${nextId}` };
  return known(current, next, region);
}

/** Database prices are per cluster size (API-FACTS.md §2.6); a cluster is 1 node unless asked. */
async function databaseCreate(
  engine: EngineKind,
  input: Readonly<Record<string, unknown>>,
  types: TypeReader,
): Promise<PriceChange> {
  const typeId = stringOf(input.type);
  if (!typeId) return { kind: 'unknown', why: 'the request names no type' };
  const clusterSize = typeof input.cluster_size === 'number' ? input.cluster_size : 1;
  const type = await types.databaseType(typeId);
  if (!type) return { kind: 'unknown', why: `there is no database type ${typeId}` };
  const entry = type.engines?.[engine]?.find((e) => e.quantity === clusterSize);
  if (!entry)
    return {
      kind: 'unknown',
      why: `type ${typeId} lists no ${engine} price for a cluster of ${clusterSize}`,
    };
  return { kind: 'known', after: entry.price, delta: entry.price, currency: CURRENCY };
}

function known(before: NodeType | undefined, after: NodeType, region: string): PriceChange {
  const afterPrice = priceIn(after, region);
  const beforePrice = before ? priceIn(before, region) : undefined;
  const ownRegion = [before, after].some((type) => type?.region_prices.some((p) => p.id === region));
  return {
    kind: 'known',
    ...(beforePrice && { before: beforePrice }),
    after: afterPrice,
    delta: beforePrice ? difference(afterPrice, beforePrice) : afterPrice,
    currency: CURRENCY,
    ...(ownRegion && { regionPrice: region }),
  };
}

/**
 * The API's prices have at most a few decimals (0.0075 an hour); subtracting them as floats gives
 * 20.799999999999997. In millionths of a dollar the difference is exact.
 */
const MICROS = 1_000_000;

function difference(a: Price, b: Price): Price {
  const minus = (x: number, y: number) => (Math.round(x * MICROS) - Math.round(y * MICROS)) / MICROS;
  return { hourly: minus(a.hourly, b.hourly), monthly: minus(a.monthly, b.monthly) };
}

function databaseCreateKind(op: Pick<AnyOperation, 'id'>): EngineKind | undefined {
  return ENGINE_KINDS.find((kind) => op.id === `databases.${kind}-create`);
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Types read with the requester's token inside the preview's read budget. The node types are one
 * list (`GET /node/types`, a single page); for a node operation it is read as soon as this is
 * made, so the read overlaps the target's own. Database types are read one by one, when asked for.
 */
export function apiTypeReader(
  client: ApiClient,
  op: Pick<AnyOperation, 'id'>,
  input: Readonly<Record<string, unknown>>,
): TypeReader {
  let nodeTypes: Promise<{ readonly data: NodeType[]; readonly complete: boolean }> | undefined;
  const readNodeTypes = () => {
    nodeTypes ??= client.listAll(
      getOperation('nodes.types'),
      {},
      { timeoutMs: PREVIEW_READ_MS, maxPages: 1 },
    );
    return nodeTypes;
  };
  if (pricesOf(op, input) && databaseCreateKind(op) === undefined) {
    // Awaited later by `nodeType`; caught here so that a failure read before then is not unhandled.
    readNodeTypes().catch(() => undefined);
  }
  return {
    nodeType: async (id) => {
      const list = await readNodeTypes();
      const type = list.data.find((t) => t.id === id);
      // Not on a page that was read is not "no such type": then the price is unknown.
      if (!type && !list.complete) throw new Error(`node type ${id} is not on the page read`);
      return type;
    },
    databaseType: async (id) => {
      try {
        return await client.call(
          getOperation('databases.types-view'),
          { typeId: id },
          { timeoutMs: PREVIEW_READ_MS },
        );
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not_found') return undefined;
        throw error;
      }
    },
  };
}
