import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiTime } from '../../../infra/local/emulator/clock.js';
import { list } from '../../../infra/local/emulator/handlers/types.js';
import { applyFilter, pageOf } from '../../../infra/local/emulator/listing.js';
import type { RunningEmulator } from '../../../infra/local/emulator/server.js';
import { getOperation } from '../../../lib/api/operations/index.js';
import { startTestEmulator } from '../support.js';

/**
 * A list is rendered page by page: `nodes.list` rendered every visible node for every page, so a
 * page of 500 out of 5000 cost the emulator 12.5 ms and the listing benchmark measured the
 * emulator's waste instead of the client. Rendering less must not change a byte of any answer.
 */

const nodesList = getOperation('nodes.list');

function countingList(size: number) {
  const records = Array.from({ length: size }, (_, i) => ({ id: i + 1, label: `node-${i + 1}` }));
  const rendered: number[] = [];
  const outcome = list(records, (record) => {
    rendered.push(record.id);
    return { id: record.id, label: record.label, region: record.id % 2 === 0 ? 'eu' : 'us' };
  });
  if (outcome.kind !== 'list') throw new Error('list() made no list outcome');
  return { items: outcome.items, rendered };
}

describe('list outcomes', () => {
  it('regression: a page rendered every record of the list; page 2 of 500 renders its 500 only', () => {
    const { items, rendered } = countingList(5000);
    const page = pageOf(applyFilter(nodesList, items, undefined), 2, 500);
    expect(rendered).toHaveLength(500);
    expect(rendered[0]).toBe(501);
    expect(page).toMatchObject({ page: 2, pages: 10, results: 5000 });
    expect(page.data).toHaveLength(500);
  });

  it('renders nothing for a page past the end, and still counts every record', () => {
    const { items, rendered } = countingList(1200);
    const page = pageOf(applyFilter(nodesList, items, undefined), 4, 500);
    expect(rendered).toEqual([]);
    expect(page).toEqual({ data: [], page: 4, pages: 3, results: 1200 });
  });

  it('with X-Filter renders every record, since the filter reads the response objects', () => {
    const { items, rendered } = countingList(1200);
    const kept = applyFilter(nodesList, items, JSON.stringify({ region: 'eu' }));
    const page = pageOf(kept, 2, 500);
    expect(rendered).toHaveLength(1200);
    expect(page).toMatchObject({ page: 2, pages: 2, results: 600 });
    expect(page.data[0]).toEqual({ id: 1002, label: 'node-1002', region: 'eu' });
  });
});

describe('nodes.list over HTTP', () => {
  let emulator: RunningEmulator;
  let token: string;

  beforeAll(async () => {
    emulator = await startTestEmulator({ seed: { nodes: 1200 } });
    token = emulator.control.tokens.demo;
  });

  afterAll(async () => {
    await emulator?.close();
  });

  async function bodyOf(query: string, filter?: unknown): Promise<string> {
    const response = await fetch(`${emulator.url}/node/instances?${query}`, {
      headers: {
        authorization: `Bearer ${token}`,
        ...(filter !== undefined && { 'x-filter': JSON.stringify(filter) }),
      },
    });
    expect(response.status).toBe(200);
    return response.text();
  }

  it('a page rendered on its own is byte for byte the page cut from the whole list rendered', async () => {
    // Ordering by id forces the path that renders every node before paging; ids are the list's order.
    for (const page of [1, 2, 3, 4]) {
      const query = `page=${page}&page_size=500`;
      expect(await bodyOf(query)).toBe(await bodyOf(query, { '+order_by': 'id' }));
    }
  });

  it("GET /__control/process reports the CPU time the emulator's process has used, growing as it answers", async () => {
    const cpuMicros = async () => {
      const response = await fetch(`${emulator.origin}/__control/process`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { cpuMicros: unknown };
      expect(typeof body.cpuMicros).toBe('number');
      return body.cpuMicros as number;
    };
    const before = await cpuMicros();
    for (const page of [1, 2, 3]) await bodyOf(`page=${page}&page_size=500`);
    expect(await cpuMicros()).toBeGreaterThan(before);
  });

  it('the pages put together are every node once, in id order', async () => {
    const ids: number[] = [];
    for (const page of [1, 2, 3]) {
      const body = JSON.parse(await bodyOf(`page=${page}&page_size=500`)) as { data: { id: number }[] };
      ids.push(...body.data.map((node) => node.id));
    }
    expect(ids).toHaveLength(1200);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(1200);
  });
});

describe('apiTime', () => {
  it('formats every instant as the API writes it, also after its cache of formatted times empties', () => {
    const start = Date.parse('2025-06-02T09:00:00Z');
    for (let i = 0; i < 12_000; i++) {
      const ms = start + i * 1_001;
      expect(apiTime(ms)).toBe(new Date(ms).toISOString().slice(0, 19));
    }
    expect(apiTime(start)).toBe('2025-06-02T09:00:00');
  });
});
