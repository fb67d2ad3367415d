import { describe, expect, it } from 'vitest';
import type { DatabaseType } from '../../../lib/api/operations/databases.js';
import { operations } from '../../../lib/api/operations/index.js';
import type { NodeType } from '../../../lib/api/operations/node-types.js';
import { type PriceChange, priceChangeOf, pricesOf, type TypeReader } from '../../../lib/changes/cost.js';

/**
 * A change's price, from the types as the API returns them (API-FACTS-MORE.md §5): a region's own
 * price where the type lists one, otherwise the default; database prices by cluster size
 * (API-FACTS.md §2.6). Whatever cannot be read makes the price unknown, never a guess.
 */

function nodeType(id: string, hourly: number, monthly: number, extra: Partial<NodeType> = {}): NodeType {
  return {
    id,
    label: id,
    class: 'standard',
    disk: 81920,
    memory: 4096,
    vcpus: 2,
    gpus: 0,
    network_out: 4000,
    transfer: 4000,
    price: { hourly, monthly },
    region_prices: [],
    successor: null,
    ...extra,
  };
}

const NANODE = nodeType('g6-nanode-1', 0.0075, 5.48, {
  region_prices: [{ id: 'ap-south', hourly: 0.009, monthly: 6.58 }],
});
const STANDARD_2 = nodeType('g6-standard-2', 0.036, 26.28, {
  region_prices: [{ id: 'ap-south', hourly: 0.043, monthly: 31.54 }],
});
const LEGACY = nodeType('g5-standard-1', 0.015, 10.95, { successor: 'g6-standard-1' });
const STANDARD_1 = nodeType('g6-standard-1', 0.018, 13.14);

const DB_STANDARD_2: DatabaseType = {
  id: 'g6-standard-2',
  label: 'DBaaS - Standard 4GB',
  engines: {
    mysql: [
      { quantity: 1, price: { hourly: 0.054, monthly: 39.42 } },
      { quantity: 3, price: { hourly: 0.162, monthly: 118.26 } },
    ],
  },
};

function reader(nodeTypes: NodeType[], databaseTypes: DatabaseType[] = []): TypeReader & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    nodeType: async (id) => {
      reads.push(id);
      return nodeTypes.find((t) => t.id === id);
    },
    databaseType: async (id) => databaseTypes.find((t) => t.id === id),
  };
}

const unreadable: TypeReader = {
  nodeType: () => Promise.reject(new Error('503 from /node/types')),
  databaseType: () => Promise.reject(new Error('503 from /databases/types')),
};

const TYPES = reader([NANODE, STANDARD_1, STANDARD_2, LEGACY], [DB_STANDARD_2]);
const resize = { id: 'nodes.resize' };
const mutate = { id: 'nodes.mutate' };
const create = { id: 'nodes.create' };

function known(change: PriceChange | undefined) {
  if (change?.kind !== 'known') throw new Error(`expected a known price, got ${JSON.stringify(change)}`);
  return change;
}

describe('nodes.resize', () => {
  it('up: the old type’s price in the node’s region to the new one’s, and the difference', async () => {
    const change = known(
      await priceChangeOf(
        resize,
        { nodeId: 1, type: 'g6-standard-2' },
        { type: 'g6-nanode-1', region: 'us-east' },
        TYPES,
      ),
    );
    expect(change).toEqual({
      kind: 'known',
      before: { hourly: 0.0075, monthly: 5.48 },
      after: { hourly: 0.036, monthly: 26.28 },
      // As floats, 26.28 - 5.48 is 20.800000000000004.
      delta: { hourly: 0.0285, monthly: 20.8 },
      currency: 'USD',
      change: {
        kind: 'node_type',
        from: { id: 'g6-nanode-1', vcpus: 2, memoryMb: 4096, diskMb: 81920 },
        to: { id: 'g6-standard-2', vcpus: 2, memoryMb: 4096, diskMb: 81920 },
      },
    });
  });

  it('down: the difference is negative', async () => {
    const change = known(
      await priceChangeOf(
        resize,
        { type: 'g6-nanode-1' },
        { type: 'g6-standard-2', region: 'us-east' },
        TYPES,
      ),
    );
    expect(change.delta).toEqual({ hourly: -0.0285, monthly: -20.8 });
  });

  it('uses the region’s own price where the type lists one, and says which region', async () => {
    const change = known(
      await priceChangeOf(
        resize,
        { type: 'g6-standard-2' },
        { type: 'g6-nanode-1', region: 'ap-south' },
        TYPES,
      ),
    );
    expect(change.before).toEqual({ hourly: 0.009, monthly: 6.58 });
    expect(change.after).toEqual({ hourly: 0.043, monthly: 31.54 });
    expect(change.delta).toEqual({ hourly: 0.034, monthly: 24.96 });
    expect(change.regionPrice).toBe('ap-south');
  });

  it('is unknown when the types cannot be read', async () => {
    const change = await priceChangeOf(
      resize,
      { type: 'g6-standard-2' },
      { type: 'g6-nanode-1', region: 'us-east' },
      unreadable,
    );
    expect(change).toEqual({
      kind: 'unknown',
      why: 'the types and their prices could not be read',
      // What changes is still named, by the ids the node and the request give.
      change: { kind: 'node_type', from: { id: 'g6-nanode-1' }, to: { id: 'g6-standard-2' } },
    });
  });

  it('is unknown when the node itself could not be read', async () => {
    const change = await priceChangeOf(resize, { type: 'g6-standard-2' }, undefined, TYPES);
    expect(change?.kind).toBe('unknown');
  });

  it('is unknown, naming it, when there is no such type', async () => {
    const change = await priceChangeOf(
      resize,
      { type: 'g6-huge-99' },
      { type: 'g6-nanode-1', region: 'us-east' },
      TYPES,
    );
    expect(change).toEqual({
      kind: 'unknown',
      why: 'there is no node type g6-huge-99',
      change: {
        kind: 'node_type',
        from: { id: 'g6-nanode-1', vcpus: 2, memoryMb: 4096, diskMb: 81920 },
        to: { id: 'g6-huge-99' },
      },
    });
  });
});

describe('nodes.mutate', () => {
  it('moves from the current type to its successor', async () => {
    const change = known(
      await priceChangeOf(mutate, { nodeId: 1 }, { type: 'g5-standard-1', region: 'us-east' }, TYPES),
    );
    expect(change.before).toEqual({ hourly: 0.015, monthly: 10.95 });
    expect(change.after).toEqual({ hourly: 0.018, monthly: 13.14 });
    expect(change.delta).toEqual({ hourly: 0.003, monthly: 2.19 });
  });

  it('is unknown, saying why, for a type without a successor', async () => {
    const change = await priceChangeOf(
      mutate,
      { nodeId: 1 },
      { type: 'g6-standard-1', region: 'us-east' },
      TYPES,
    );
    expect(change).toEqual({
      kind: 'unknown',
      why: 'type g6-standard-1 has no successor, so it cannot be upgraded',
      change: { kind: 'node_type', from: { id: 'g6-standard-1', vcpus: 2, memoryMb: 4096, diskMb: 81920 } },
    });
  });
});

describe('nodes.clone', () => {
  const clone = { id: 'nodes.clone' };

  it('to a new node costs its type’s price in its region, from nothing', async () => {
    const change = known(
      await priceChangeOf(clone, { nodeId: 1, type: 'g6-standard-2', region: 'ap-south' }, undefined, TYPES),
    );
    expect(change.before).toBeUndefined();
    expect(change.after).toEqual({ hourly: 0.043, monthly: 31.54 });
  });

  it('onto an existing node changes no price, and reads no types', async () => {
    const types = reader([NANODE, STANDARD_2]);
    expect(await priceChangeOf(clone, { nodeId: 1, node_id: 2 }, undefined, types)).toBeUndefined();
    expect(types.reads).toEqual([]);
    // The preview starts no types read for it either.
    expect(pricesOf(clone, { nodeId: 1, node_id: 2 })).toBe(false);
    expect(pricesOf(clone, { nodeId: 1, type: 'g6-standard-2', region: 'ap-south' })).toBe(true);
  });
});

describe('nodes.create', () => {
  it('costs the type’s price in the requested region, from nothing', async () => {
    const change = known(
      await priceChangeOf(
        create,
        { type: 'g6-standard-2', region: 'ap-south', image: 'node/debian12' },
        undefined,
        TYPES,
      ),
    );
    expect(change.before).toBeUndefined();
    expect(change.after).toEqual({ hourly: 0.043, monthly: 31.54 });
    expect(change.delta).toEqual(change.after);
  });

  it('is unknown when the types cannot be read', async () => {
    const change = await priceChangeOf(
      create,
      { type: 'g6-standard-2', region: 'us-east' },
      undefined,
      unreadable,
    );
    expect(change?.kind).toBe('unknown');
  });
});

describe('database creates', () => {
  it('cost the database type’s price for the cluster size asked for', async () => {
    const op = { id: 'databases.mysql-create' };
    const three = known(
      await priceChangeOf(op, { type: 'g6-standard-2', cluster_size: 3 }, undefined, TYPES),
    );
    expect(three.after).toEqual({ hourly: 0.162, monthly: 118.26 });
    const one = known(await priceChangeOf(op, { type: 'g6-standard-2' }, undefined, TYPES));
    expect(one.after).toEqual({ hourly: 0.054, monthly: 39.42 });
  });

  it('are unknown where the type lists no price for the engine', async () => {
    const change = await priceChangeOf(
      { id: 'databases.postgresql-create' },
      { type: 'g6-standard-2' },
      undefined,
      TYPES,
    );
    expect(change).toEqual({
      kind: 'unknown',
      why: 'type g6-standard-2 lists no postgresql price for a cluster of 1',
      change: { kind: 'database_type', to: { id: 'g6-standard-2' }, clusterSize: 1 },
    });
  });
});

describe('volumes, which bill but whose prices the API does not publish', () => {
  it('a resize is unknown, saying so, with the size from → to', async () => {
    const types = reader([NANODE]);
    const change = await priceChangeOf(
      { id: 'volumes.resize' },
      { volumeId: 12, size: 40 },
      { size: 20 },
      types,
    );
    expect(change).toEqual({
      kind: 'unknown',
      why: 'the API publishes no prices for volumes',
      change: { kind: 'volume_size', fromGb: 20, toGb: 40 },
    });
    expect(types.reads).toEqual([]);
  });

  it('a clone has its source’s size', async () => {
    const change = await priceChangeOf({ id: 'volumes.clone' }, { volumeId: 12 }, { size: 50 }, TYPES);
    expect(change?.change).toEqual({ kind: 'volume_size', toGb: 50 });
  });
});

it('every operation that starts or changes charges has a price change, known or not', () => {
  for (const op of operations.filter((o) => o.charges)) {
    expect(pricesOf(op, { type: 'g6-standard-2', region: 'us-east', size: 20 }), op.id).toBe(true);
  }
});

it('other operations have no price change and read no types', async () => {
  const types = reader([NANODE]);
  expect(
    await priceChangeOf(
      { id: 'nodes.reboot' },
      { nodeId: 1 },
      { type: 'g6-nanode-1', region: 'us-east' },
      types,
    ),
  ).toBeUndefined();
  expect(types.reads).toEqual([]);
});
