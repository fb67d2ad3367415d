import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { z } from 'zod';
import { ApiClient, DEFAULT_LIST_CONCURRENCY, LIST_ALL_PAGE_SIZE } from '../lib/api/client.js';
import { getOperation } from '../lib/api/operations/index.js';
import type { BenchmarkResult, Row } from './benchmark.js';
import { spawnTsx, stopChild } from './child-processes.js';
import { ratio, summarize } from './stats.js';
import { formatDuration, formatRatio } from './table.js';

/**
 * Listing everything: `nodes list --all` over thousands of nodes with latency on every API call.
 * Ours is `ApiClient.listAll` (page 1, then the rest a few at a time); the baseline fetches the
 * same pages one after another with the same client, as a hand-written loop would.
 */

const BENCHMARK = 'Listing everything';
const EMULATOR_PROCESS = fileURLToPath(new URL('./emulator-process.ts', import.meta.url));
const nodesList = getOperation('nodes.list');

const ReadySchema = z.object({ url: z.string(), origin: z.string(), demoToken: z.string() });

export interface ListingOptions {
  readonly nodes: number;
  readonly latencyMs: number;
  readonly runs: number;
}

interface Variant {
  readonly name: string;
  readonly pageSize: number;
  /** Undefined: the baseline, one page after another. */
  readonly concurrency?: number;
}

async function listSequentially(client: ApiClient, pageSize: number): Promise<unknown[]> {
  const items: unknown[] = [];
  let page = 1;
  let pages = 1;
  do {
    const result = await client.paginate(nodesList, {}, { page, pageSize });
    items.push(...result.data);
    pages = result.pages;
    page += 1;
  } while (page <= pages);
  return items;
}

async function control(origin: string, method: 'POST' | 'GET' | 'DELETE', path: string, body?: unknown) {
  const response = await request(`${origin}/__control/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300)
    throw new Error(`Emulator control ${method} ${path}: ${response.statusCode} ${text}`);
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

async function nodesListCalls(origin: string): Promise<number> {
  const counts = z.record(z.string(), z.number()).parse(await control(origin, 'GET', 'requests'));
  await control(origin, 'DELETE', 'requests');
  return counts['nodes.list'] ?? 0;
}

/** Round trips when every call takes the same time: page 1, then the rest `concurrency` at a time. */
function roundTrips(pages: number, concurrency?: number): number {
  return concurrency === undefined ? pages : 1 + Math.ceil((pages - 1) / concurrency);
}

/** The least concurrency at which `pages` take `speedup` times fewer round trips; undefined if none does. */
function concurrencyForSpeedup(pages: number, speedup: number): number | undefined {
  const roundsAfterFirst = Math.floor(pages / speedup) - 1;
  if (pages <= 1) return undefined;
  return roundsAfterFirst >= 1 ? Math.ceil((pages - 1) / roundsAfterFirst) : undefined;
}

interface Speedup {
  readonly variant: Variant;
  readonly pages: number;
  readonly measured: number;
  /** What the round trips alone allow. */
  readonly bound: number;
}

/** Why a setting is short of 4×: the round trips themselves, or the work per page besides latency. */
function listingMiss(speedup: Speedup, workPerPageMs: number): string {
  const { pages, variant } = speedup;
  const trips = roundTrips(pages, variant.concurrency);
  const arithmetic = `with ${pages} pages, page 1 first and then ${variant.concurrency} at a time is ${trips} round trips against ${pages}, so at most ${formatRatio(speedup.bound)} when latency is all there is.`;
  if (speedup.bound < 4) {
    const needed = concurrencyForSpeedup(pages, 4);
    return `A bound of the design, not of the code: ${arithmetic} ${
      needed === undefined
        ? `No concurrency gives 4× fewer round trips over ${pages} pages.`
        : `4× needs at most ${Math.floor(pages / 4)} round trips, i.e. ${needed} or more pages at a time after the first.`
    }`;
  }
  return `The round trips allow it: ${arithmetic} What is lost is the work of each page besides its latency, about ${formatDuration(workPerPageMs)} a page (the baseline's time per page less the injected latency): the emulator filtering and rendering, the client parsing. Each process does its share one page at a time, so with pages in flight together that work queues where latency overlaps.`;
}

export async function runListing(options: ListingOptions): Promise<BenchmarkResult> {
  const { child, stderr } = spawnTsx(EMULATOR_PROCESS, [String(options.nodes)]);
  try {
    const lines = createInterface({ input: child.stdout });
    const exited = once(child, 'exit').then(() => {
      throw new Error(`The emulator process exited before it listened:\n${stderr()}`);
    });
    exited.catch(() => undefined);
    const [first] = (await Promise.race([once(lines, 'line'), exited])) as [string];
    lines.close();
    const ready = ReadySchema.parse(JSON.parse(first));
    return await measure(options, ready);
  } finally {
    await stopChild(child);
  }
}

async function measure(
  options: ListingOptions,
  emulator: z.infer<typeof ReadySchema>,
): Promise<BenchmarkResult> {
  const client = new ApiClient({ baseUrl: emulator.url, token: emulator.demoToken });
  await control(emulator.origin, 'POST', 'latency', { ms: options.latencyMs });

  const variants: Variant[] = [LIST_ALL_PAGE_SIZE, 100].flatMap((pageSize) => [
    { name: `baseline: page by page, page_size ${pageSize}`, pageSize },
    ...[...new Set([4, 8, DEFAULT_LIST_CONCURRENCY])]
      .sort((a, b) => a - b)
      .map((concurrency) => ({
        name: `listAll, page_size ${pageSize}, ${concurrency} at a time${concurrency === DEFAULT_LIST_CONCURRENCY ? ' (default)' : ''}`,
        pageSize,
        concurrency,
      })),
  ]);
  const list = (variant: Variant) =>
    variant.concurrency === undefined
      ? listSequentially(client, variant.pageSize)
      : client
          .listAll(nodesList, {}, { pageSize: variant.pageSize, concurrency: variant.concurrency })
          .then((all) => all.data);

  // Uncounted: warms the client's parsing and the emulator's handlers.
  await list({ name: 'warm-up', pageSize: LIST_ALL_PAGE_SIZE, concurrency: DEFAULT_LIST_CONCURRENCY });
  await nodesListCalls(emulator.origin);

  const times = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  for (let run = 0; run < options.runs; run++) {
    // A different variant goes first in each run, so none always meets a cold connection pool.
    const order = variants.map((_, i) => variants[(i + run) % variants.length] as Variant);
    for (const variant of order) {
      const started = performance.now();
      const items = await list(variant);
      times.get(variant.name)?.push(performance.now() - started);
      const ids = new Set(items.map((item) => (item as { id: number }).id));
      const pages = Math.ceil(options.nodes / variant.pageSize);
      const calls = await nodesListCalls(emulator.origin);
      if (ids.size !== options.nodes || calls !== pages) {
        throw new Error(
          `${variant.name}: ${ids.size} distinct nodes in ${calls} calls; expected ${options.nodes} in ${pages}`,
        );
      }
    }
  }

  const baselineOf = (variant: Variant) =>
    summarize(times.get(`baseline: page by page, page_size ${variant.pageSize}`) ?? []);
  const rows: Row[] = variants.map((variant) => {
    const summary = summarize(times.get(variant.name) ?? []);
    return {
      benchmark: BENCHMARK,
      variant: variant.name,
      metric: `wall time, ${Math.ceil(options.nodes / variant.pageSize)} pages`,
      unit: 'ms',
      summary,
      ...(variant.concurrency !== undefined && {
        vsBaseline: ratio(summary.median, baselineOf(variant).median),
      }),
    };
  });

  /** What a page costs besides the injected latency, as the baseline saw it. */
  const workPerPage = (variant: Variant) =>
    Math.max(0, baselineOf(variant).median / Math.ceil(options.nodes / variant.pageSize) - options.latencyMs);
  const speedups: Speedup[] = variants
    .filter((variant) => variant.concurrency !== undefined)
    .map((variant) => {
      const pages = Math.ceil(options.nodes / variant.pageSize);
      return {
        variant,
        pages,
        measured: ratio(baselineOf(variant).median, summarize(times.get(variant.name) ?? []).median),
        bound: pages / roundTrips(pages, variant.concurrency),
      };
    });
  const headline = speedups.find(
    (s) => s.variant.pageSize === LIST_ALL_PAGE_SIZE && s.variant.concurrency === DEFAULT_LIST_CONCURRENCY,
  );
  if (!headline) throw new Error('The default listing setting was not measured');
  const describe = (s: Speedup) =>
    `page_size ${s.variant.pageSize}, ${s.variant.concurrency} at a time: ${formatRatio(s.measured)} measured, ${formatRatio(s.bound)} at most`;

  return {
    title: 'Listing everything',
    setup: [
      `The emulator seeded with ${options.nodes} nodes, in a process of its own (as the API is remote: its work does not queue behind the client's), ${options.latencyMs} ms latency injected on every call, rate limits off.`,
      '`nodes.list` through `ApiClient`: ours is `listAll` (page 1, then the remaining pages in parallel, a bounded number at a time); the baseline fetches the same pages one after another with `paginate`, the same client and page size.',
      `${options.runs} runs; each run rotates which variant goes first. Every listing is checked for all ${options.nodes} distinct nodes and for the number of calls the emulator saw (one per page).`,
      '"× baseline" is the time against the baseline with the same page size (below 1 is faster).',
    ],
    rows,
    targets: [
      {
        name: 'Listing everything',
        requirement: `≥ 4× faster than page by page (listAll as \`nodes list --all\` runs it: page_size ${LIST_ALL_PAGE_SIZE}, ${DEFAULT_LIST_CONCURRENCY} at a time)`,
        measured: headline.measured,
        limit: 4,
        direction: 'at-least',
        format: formatRatio,
        whyMissed:
          listingMiss(headline, workPerPage(headline.variant)) +
          ` Measured for each setting: ${speedups.map(describe).join('; ')}.`,
      },
    ],
    notes: [
      `Besides the ${options.latencyMs} ms injected, a page cost the baseline about ${variants
        .filter((variant) => variant.concurrency === undefined)
        .map((variant) => `${formatDuration(workPerPage(variant))} at page_size ${variant.pageSize}`)
        .join(
          ' and ',
        )}: the emulator filtering and rendering, the client parsing. That work does not overlap the way latency does, which is why the measured speed-ups stay below the round-trip bounds.`,
    ],
  };
}
