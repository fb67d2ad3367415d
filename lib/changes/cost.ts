import type { ApiClient } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import type { AnyOperation } from '../api/operation.js';
import type { DatabaseType } from '../api/operations/databases.js';
import { ENGINE_KINDS, type EngineKind, getOperation } from '../api/operations/index.js';
import { type NodeType, type Price, priceIn } from '../api/operations/node-types.js';
import { viewOperationFor } from '../api/outcome.js';
import { PREVIEW_READ_MS, readResource } from './preview.js';

/**
 * What a change does to the bill, for the approver and for the person whose change runs at once:
 * what changes (a node's type from → to, a new node's or database's type, a volume's size) and
 * its price before and after. Prices come from the API's types (API-FACTS-MORE.md §5: a region's
 * own price where the type lists one, else the default; API-FACTS.md §2.6: database prices by
 * cluster size). Volumes bill too (API-FACTS.md §7, `x-charge`), but the API publishes no volume
 * prices. A price that cannot be read is said to be unknown, never guessed.
 */

export type { Price };

/** The API prices in US dollars (API-FACTS-MORE.md §5, "default price in US dollars"). */
export const CURRENCY = 'USD';

/** A node or database type as a change names it: its id, and its size where the types were read. */
export interface TypeFacts {
  readonly id: string;
  readonly vcpus?: number;
  /** MB, as the API counts it. */
  readonly memoryMb?: number;
  /** MB, as the API counts it. */
  readonly diskMb?: number;
}

/**
 * What a change that bills changes, from → to, as far as it is known: a node's type (`from` absent
 * for a new node; `to` absent for an upgrade whose successor could not be read), a new database's
 * type and cluster size, a volume's size in GB.
 */
export type BilledChange =
  | { readonly kind: 'node_type'; readonly from?: TypeFacts; readonly to?: TypeFacts }
  | { readonly kind: 'database_type'; readonly to: TypeFacts; readonly clusterSize: number }
  | { readonly kind: 'volume_size'; readonly fromGb?: number; readonly toGb?: number };

export type PriceChange = (
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
  | { readonly kind: 'unknown'; readonly why: string }
) & {
  /** What changes, from → to, shown beside the price; absent when the request names nothing. */
  readonly change?: BilledChange;
};

/** The target as the preview read it: what a node's price depends on. */
export interface PricedTarget {
  readonly type?: unknown;
  readonly region?: unknown;
  /** A volume's size, in GB. */
  readonly size?: unknown;
}

/**
 * Reads types by id: undefined when the API has no such type; throws when it cannot be read
 * (then the price is unknown).
 */
export interface TypeReader {
  nodeType(id: string): Promise<NodeType | undefined>;
  databaseType(id: string): Promise<DatabaseType | undefined>;
}

/** The operations that bill for volumes (API-FACTS.md §7, `x-charge`), whose prices the API does not publish. */
const VOLUME_CHARGES = ['volumes.create', 'volumes.clone', 'volumes.resize'] as const;

/**
 * Whether `op` with `input` changes what the account is billed: every operation that starts or
 * changes charges (`charges` in the operations table, the API's `x-charge`) and a node's resize or
 * upgrade. A clone onto an existing node (`node_id`) replaces its disks and keeps its type and price.
 */
export function pricesOf(op: Pick<AnyOperation, 'id'>, input: Readonly<Record<string, unknown>>): boolean {
  if (op.id === 'nodes.clone' && input.node_id !== undefined) return false;
  return (
    op.id === 'nodes.resize' ||
    op.id === 'nodes.mutate' ||
    op.id === 'nodes.create' ||
    op.id === 'nodes.clone' ||
    isVolumeCharge(op) ||
    databaseCreateKind(op) !== undefined
  );
}

/**
 * The price change of `op` with `input` on `target`, or undefined when `op` changes no price.
 * Never throws: a price that cannot be read is `unknown`, and says what changes all the same.
 */
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
    const change = namedChange(op, input, target);
    return {
      kind: 'unknown',
      why: 'the types and their prices could not be read',
      ...(change && { change }),
    };
  }
}

/** What changes, by the ids the request and the target name, before any type is read. */
function namedChange(
  op: Pick<AnyOperation, 'id'>,
  input: Readonly<Record<string, unknown>>,
  target: PricedTarget | undefined,
): BilledChange | undefined {
  const facts = (id: string | undefined) => (id ? { id } : undefined);
  if (isVolumeCharge(op)) return volumeChange(op, input, target);
  if (databaseCreateKind(op)) {
    const typeId = stringOf(input.type);
    return typeId
      ? { kind: 'database_type', to: { id: typeId }, clusterSize: clusterSizeOf(input) }
      : undefined;
  }
  const to = op.id === 'nodes.mutate' ? undefined : facts(stringOf(input.type));
  const from =
    op.id === 'nodes.create' || op.id === 'nodes.clone' ? undefined : facts(stringOf(target?.type));
  if (!to && !from) return undefined;
  return { kind: 'node_type', ...(from && { from }), ...(to && { to }) };
}

async function priceChange(
  op: Pick<AnyOperation, 'id'>,
  input: Readonly<Record<string, unknown>>,
  target: PricedTarget | undefined,
  types: TypeReader,
): Promise<PriceChange> {
  const named = namedChange(op, input, target);
  const unknown = (why: string): PriceChange => ({ kind: 'unknown', why, ...(named && { change: named }) });
  if (isVolumeCharge(op)) return unknown('the API publishes no prices for volumes');
  const engine = databaseCreateKind(op);
  if (engine) return databaseCreate(engine, input, types);
  // A clone without `node_id` is a new node of the type and region it names, priced as a create.
  if (op.id === 'nodes.create' || op.id === 'nodes.clone') {
    const typeId = stringOf(input.type);
    const region = stringOf(input.region);
    if (!typeId || !region) return unknown('the request names no type or region');
    const type = await types.nodeType(typeId);
    if (!type) return unknown(`there is no node type ${typeId}`);
    return known(undefined, type, region);
  }
  const currentId = stringOf(target?.type);
  const region = stringOf(target?.region);
  if (!currentId || !region) return unknown("the node's type and region could not be read");
  const current = await types.nodeType(currentId);
  if (!current) return unknown(`the node's type ${currentId} could not be found`);
  const withFrom = (why: string): PriceChange => ({
    kind: 'unknown',
    why,
    change: {
      kind: 'node_type',
      from: factsOf(current),
      ...(named?.kind === 'node_type' && named.to && { to: named.to }),
    },
  });
  if (op.id === 'nodes.mutate') {
    if (current.successor === null)
      return withFrom(`type ${currentId} has no successor, so it cannot be upgraded`);
    const successor = await types.nodeType(current.successor);
    if (!successor) return withFrom(`its successor ${current.successor} could not be found`);
    return known(current, successor, region);
  }
  const nextId = stringOf(input.type);
  if (!nextId) return withFrom('the request names no type');
  const next = await types.nodeType(nextId);
  if (!next) return withFrom(`there is no node type ${nextId}`);
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
  const clusterSize = clusterSizeOf(input);
  const type = await types.databaseType(typeId);
  const named: BilledChange = { kind: 'database_type', to: { id: typeId }, clusterSize };
  if (!type) return { kind: 'unknown', why: `there is no database type ${typeId}`, change: named };
  const change: BilledChange = { kind: 'database_type', to: factsOf(type), clusterSize };
  const entry = type.engines?.[engine]?.find((e) => e.quantity === clusterSize);
  if (!entry)
    return {
      kind: 'unknown',
      why: `type ${typeId} lists no ${engine} price for a cluster of ${clusterSize}`,
      change,
    };
  return { kind: 'known', after: entry.price, delta: entry.price, currency: CURRENCY, change };
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
    change: { kind: 'node_type', ...(before && { from: factsOf(before) }), to: factsOf(after) },
  };
}

/** A volume's size before and after: a clone has its source's size, a resize the size asked for. */
function volumeChange(
  op: Pick<AnyOperation, 'id'>,
  input: Readonly<Record<string, unknown>>,
  target: PricedTarget | undefined,
): BilledChange {
  const current = typeof target?.size === 'number' ? target.size : undefined;
  const asked = typeof input.size === 'number' ? input.size : undefined;
  if (op.id === 'volumes.resize')
    return {
      kind: 'volume_size',
      ...(current !== undefined && { fromGb: current }),
      ...(asked !== undefined && { toGb: asked }),
    };
  const size = op.id === 'volumes.clone' ? current : asked;
  return { kind: 'volume_size', ...(size !== undefined && { toGb: size }) };
}

function factsOf(type: {
  readonly id: string;
  readonly vcpus?: number | undefined;
  readonly memory?: number | undefined;
  readonly disk?: number | undefined;
}): TypeFacts {
  return {
    id: type.id,
    ...(type.vcpus !== undefined && { vcpus: type.vcpus }),
    ...(type.memory !== undefined && { memoryMb: type.memory }),
    ...(type.disk !== undefined && { diskMb: type.disk }),
  };
}

function isVolumeCharge(op: Pick<AnyOperation, 'id'>): boolean {
  return (VOLUME_CHARGES as readonly string[]).includes(op.id);
}

function clusterSizeOf(input: Readonly<Record<string, unknown>>): number {
  return typeof input.cluster_size === 'number' ? input.cluster_size : 1;
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
  if (pricesOf(op, input) && databaseCreateKind(op) === undefined && !isVolumeCharge(op)) {
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

/**
 * The price change of a change about to run at once (no approval asked): its target is read
 * before the call, so the type it names is the one before the change, and the types are read
 * alongside the call. Undefined when `op` changes no price; `settled` never rejects, and a price
 * that could not be read is `unknown`: the change itself never waits on or fails for it.
 */
export async function readPriceBeforeRunning(
  client: ApiClient,
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
): Promise<{ readonly settled: Promise<PriceChange | undefined> } | undefined> {
  if (!pricesOf(op, input)) return undefined;
  const types = apiTypeReader(client, op, input);
  const view = viewOperationFor(op);
  const read = view ? await readResource(client, view, input) : undefined;
  const target = read && read !== 'not_found' ? read : undefined;
  return { settled: priceChangeOf(op, input, target, types) };
}
