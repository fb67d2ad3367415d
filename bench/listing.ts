import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import * as z from 'zod';
import {
  ApiClient,
  DEFAULT_LIST_CONCURRENCY,
  LIST_ALL_PAGE_SIZE,
  nodeDispatcher,
  type RequestDispatcher,
} from '../lib/api/client.js';
import { responseSchemaOf } from '../lib/api/operation.js';
import { getOperation } from '../lib/api/operations/index.js';
import type { BenchmarkResult, Row } from './benchmark.js';
import { spawnTsx, stopChild } from './child-processes.js';
import { ratio, speedupPerRun, summarize } from './stats.js';
import { formatDuration, formatRatio } from './table.js';

/**
 * Listing everything: `nodes list --all --json` over thousands of nodes with latency on every API call.
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
  /**
   * Emulator processes serving the same seeded world, requests spread over them: an API is more
   * than one process, and one process renders the pages in flight one after another.
   */
  readonly emulatorWorkers: number;
}

type Ready = z.infer<typeof ReadySchema>;

interface Variant {
  readonly name: string;
  readonly pageSize: number;
  /** Undefined: the baseline, one page after another. */
  readonly concurrency?: number;
  /** Emulator processes the requests are spread over. */
  readonly processes: number;
}

/** The baseline a variant is compared with: page by page, same page size, same emulator processes. */
function baselineName(pageSize: number, processes: number, allProcesses: number): string {
  return `baseline: page by page, page_size ${pageSize}${processesLabel(processes, allProcesses)}`;
}

function processesLabel(processes: number, allProcesses: number): string {
  return processes === allProcesses ? '' : `, ${processes} emulator process${processes === 1 ? '' : 'es'}`;
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

/** `nodes.list` calls all the emulator processes saw since the last count. */
async function nodesListCalls(emulators: readonly Ready[]): Promise<number> {
  let calls = 0;
  for (const { origin } of emulators) {
    const counts = z.record(z.string(), z.number()).parse(await control(origin, 'GET', 'requests'));
    await control(origin, 'DELETE', 'requests');
    calls += counts['nodes.list'] ?? 0;
  }
  return calls;
}

async function startEmulatorProcess(nodes: number) {
  const { child, stderr } = spawnTsx(EMULATOR_PROCESS, [String(nodes)]);
  const lines = createInterface({ input: child.stdout });
  const exited = once(child, 'exit').then(() => {
    throw new Error(`The emulator process exited before it listened:\n${stderr()}`);
  });
  exited.catch(() => undefined);
  try {
    const [first] = (await Promise.race([once(lines, 'line'), exited])) as [string];
    return { child, ready: ReadySchema.parse(JSON.parse(first)) };
  } catch (error) {
    await stopChild(child);
    throw error;
  } finally {
    lines.close();
  }
}

/** CPU time the emulator's process has used, from its control interface. */
async function emulatorCpuMs(emulator: Ready): Promise<number> {
  const { cpuMicros } = z
    .object({ cpuMicros: z.number() })
    .parse(await control(emulator.origin, 'GET', 'process'));
  return cpuMicros / 1000;
}

/**
 * Where a page's time goes besides latency, latency off: the emulator's answer (filtering,
 * rendering, sending; one request at a time) and the client's parsing of it (JSON and the
 * response schema, compiled as the client uses it), medians over the pages; and the CPU time the
 * emulator's process spent per page.
 * Round 0 is not counted: a process just started compiles its code and collects the seeding's
 * garbage on its first pages, which the measured listings never meet.
 */
async function perPageWork(emulator: Ready, pageSize: number, pages: number) {
  // Compiled, as the client parses every answer of an operation after its first.
  const schema = z.compile(responseSchemaOf(nodesList));
  const serve: number[] = [];
  const parse: number[] = [];
  let cpuBefore = 0;
  for (let round = 0; round <= 3; round++) {
    if (round === 1) cpuBefore = await emulatorCpuMs(emulator);
    for (let page = 1; page <= pages; page++) {
      const started = performance.now();
      const response = await request(`${emulator.url}/node/instances?page=${page}&page_size=${pageSize}`, {
        headers: { authorization: `Bearer ${emulator.demoToken}` },
      });
      const body = await response.body.text();
      const received = performance.now();
      if (response.statusCode !== 200) throw new Error(`nodes.list page ${page}: ${response.statusCode}`);
      if (!schema.safeParse(JSON.parse(body)).success)
        throw new Error(`nodes.list page ${page} did not parse`);
      if (round === 0) continue;
      serve.push(received - started);
      parse.push(performance.now() - received);
    }
  }
  const emulatorCpuMsPerPage = ((await emulatorCpuMs(emulator)) - cpuBefore) / serve.length;
  return { serveMs: summarize(serve).median, parseMs: summarize(parse).median, emulatorCpuMsPerPage };
}

type PageWork = Awaited<ReturnType<typeof perPageWork>>;

/** CPU time this process (the client) has used; the emulators run in processes of their own. */
function clientCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
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
  const started = await Promise.allSettled(
    Array.from({ length: options.emulatorWorkers }, () => startEmulatorProcess(options.nodes)),
  );
  const children = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value.child] : []));
  try {
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const emulators = started.flatMap((result) =>
      result.status === 'fulfilled' ? [result.value.ready] : [],
    );
    // The same seed gives every process the same world and the same demo token.
    if (new Set(emulators.map((e) => e.demoToken)).size !== 1) {
      throw new Error('The emulator processes did not seed the same world');
    }
    return await measure(options, emulators);
  } finally {
    await Promise.all(children.map((child) => stopChild(child)));
  }
}

async function measure(options: ListingOptions, emulators: readonly Ready[]): Promise<BenchmarkResult> {
  const [emulator] = emulators;
  if (!emulator) throw new Error('No emulator process');
  const pagesAt = (pageSize: number) => Math.ceil(options.nodes / pageSize);
  const work = await perPageWork(emulator, LIST_ALL_PAGE_SIZE, pagesAt(LIST_ALL_PAGE_SIZE));
  await nodesListCalls(emulators);
  for (const { origin } of emulators) await control(origin, 'POST', 'latency', { ms: options.latencyMs });

  // Every request goes to one of the processes, in turn, over the client's own transport (as in
  // production); the base URL only names the API's path.
  let next = 0;
  const inTurn: RequestDispatcher = {
    request: (request) => {
      const { origin } = emulators[next++ % emulators.length] ?? emulator;
      return nodeDispatcher.request({ ...request, origin });
    },
  };
  const client = new ApiClient({ baseUrl: emulator.url, token: emulator.demoToken, dispatcher: inTurn });
  const singleProcessClient = new ApiClient({ baseUrl: emulator.url, token: emulator.demoToken });
  return await measureWith(options, emulators, work, client, singleProcessClient);
}

async function measureWith(
  options: ListingOptions,
  emulators: readonly Ready[],
  work: PageWork,
  client: ApiClient,
  singleProcessClient: ApiClient,
): Promise<BenchmarkResult> {
  const workers = emulators.length;

  const listAllName = (pageSize: number, concurrency: number, processes: number) =>
    `listAll, page_size ${pageSize}, ${concurrency} at a time${concurrency === DEFAULT_LIST_CONCURRENCY ? ' (default)' : ''}${processesLabel(processes, workers)}`;
  const variants: Variant[] = [
    ...[LIST_ALL_PAGE_SIZE, 100].flatMap((pageSize) => [
      { name: baselineName(pageSize, workers, workers), pageSize, processes: workers },
      ...[...new Set([4, 8, DEFAULT_LIST_CONCURRENCY])]
        .sort((a, b) => a - b)
        .map((concurrency) => ({
          name: listAllName(pageSize, concurrency, workers),
          pageSize,
          concurrency,
          processes: workers,
        })),
    ]),
    // The headline setting against one emulator process: what its single event loop caps.
    ...(workers > 1
      ? [
          { name: baselineName(LIST_ALL_PAGE_SIZE, 1, workers), pageSize: LIST_ALL_PAGE_SIZE, processes: 1 },
          {
            name: listAllName(LIST_ALL_PAGE_SIZE, DEFAULT_LIST_CONCURRENCY, 1),
            pageSize: LIST_ALL_PAGE_SIZE,
            concurrency: DEFAULT_LIST_CONCURRENCY,
            processes: 1,
          },
        ]
      : []),
  ];
  const list = (variant: Variant) => {
    const through = variant.processes === 1 && workers > 1 ? singleProcessClient : client;
    return variant.concurrency === undefined
      ? listSequentially(through, variant.pageSize)
      : through
          .listAll(nodesList, {}, { pageSize: variant.pageSize, concurrency: variant.concurrency })
          .then((all) => all.data);
  };

  // Uncounted: warms the client's parsing and the emulators' handlers.
  for (const processes of new Set([1, workers])) {
    await list({
      name: 'warm-up',
      pageSize: LIST_ALL_PAGE_SIZE,
      concurrency: DEFAULT_LIST_CONCURRENCY,
      processes,
    });
  }
  await nodesListCalls(emulators);

  const times = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  /** The client's CPU time per page, each run of each variant. */
  const clientCpu = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  for (let run = 0; run < options.runs; run++) {
    // A different variant goes first in each run, so none always meets a cold connection pool.
    const order = variants.map((_, i) => variants[(i + run) % variants.length] as Variant);
    for (const variant of order) {
      const started = performance.now();
      const cpuBefore = clientCpuMs();
      const items = await list(variant);
      times.get(variant.name)?.push(performance.now() - started);
      clientCpu
        .get(variant.name)
        ?.push((clientCpuMs() - cpuBefore) / Math.ceil(options.nodes / variant.pageSize));
      const ids = new Set(items.map((item) => (item as { id: number }).id));
      const pages = Math.ceil(options.nodes / variant.pageSize);
      const calls = await nodesListCalls(emulators);
      if (ids.size !== options.nodes || calls !== pages) {
        throw new Error(
          `${variant.name}: ${ids.size} distinct nodes in ${calls} calls; expected ${options.nodes} in ${pages}`,
        );
      }
    }
  }

  const baselineOf = (variant: Variant) =>
    summarize(times.get(baselineName(variant.pageSize, variant.processes, workers)) ?? []);
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
  const headlineOf = (processes: number) =>
    speedups.find(
      (s) =>
        s.variant.pageSize === LIST_ALL_PAGE_SIZE &&
        s.variant.concurrency === DEFAULT_LIST_CONCURRENCY &&
        s.variant.processes === processes,
    );
  const headline = headlineOf(workers);
  if (!headline) throw new Error('The default listing setting was not measured');
  // The target holds in every run, not only in the medians: each run measures the baseline and
  // listAll once, so each run gives one speed-up of its own, and the least of them is what counts.
  const headlineTimes = times.get(headline.variant.name) ?? [];
  const baselineTimes = times.get(baselineName(LIST_ALL_PAGE_SIZE, workers, workers)) ?? [];
  const perRun = speedupPerRun(baselineTimes, headlineTimes);
  const leastPerRun = Math.min(...perRun);
  const oneProcess = headlineOf(1);
  const describe = (s: Speedup) =>
    `page_size ${s.variant.pageSize}, ${s.variant.concurrency} at a time${processesLabel(s.variant.processes, workers)}: ${formatRatio(s.measured)} measured, ${formatRatio(s.bound)} at most`;
  const afterFirst = Math.min(DEFAULT_LIST_CONCURRENCY, Math.ceil(options.nodes / LIST_ALL_PAGE_SIZE) - 1);
  // The pool spreads the pages in flight over the processes, so each answers about its share.
  const perProcess = Math.ceil(afterFirst / workers);
  const clientCpuMsPerPage = summarize(clientCpu.get(headline.variant.name) ?? []).median;
  const emulatorQueueMs = perProcess * work.emulatorCpuMsPerPage;
  const clientQueueMs = afterFirst * clientCpuMsPerPage;
  const perPage =
    `Latency off, one request at a time, a page of ${LIST_ALL_PAGE_SIZE} took the emulator ${formatDuration(work.serveMs)} to answer (selecting the visible nodes, rendering the page's ${LIST_ALL_PAGE_SIZE}, sending; ${formatDuration(work.emulatorCpuMsPerPage)} of its process's CPU time) and the client ${formatDuration(work.parseMs)} to parse (JSON and the response schema). ` +
    `In CPU time, listAll cost the client ${formatDuration(clientCpuMsPerPage)} a page (receiving, JSON, the response schema, the client's own bookkeeping; this process's CPU time over the headline runs). ` +
    `When the ${afterFirst} pages after the first arrive together, ${workers === 1 ? 'the emulator process answers them' : `each of the ${workers} emulator processes answers its ${perProcess}`} one after another (${perProcess} × ${formatDuration(work.emulatorCpuMsPerPage)} ≈ ${formatDuration(emulatorQueueMs)} of CPU) and the client takes in all ${afterFirst} one after another (${afterFirst} × ${formatDuration(clientCpuMsPerPage)} ≈ ${formatDuration(clientQueueMs)}): ` +
    `${clientQueueMs >= emulatorQueueMs ? "the client's is the longer queue" : "the emulator's is the longer queue"}, and both run on the same processors.`;

  return {
    title: 'Listing everything',
    setup: [
      `The emulator seeded with ${options.nodes} nodes in ${workers} processes of their own (as the API is remote: its work does not queue behind the client's), each with the same seeded world; the client spreads its requests over them in turn, over its own transport (\`node:http\`, as in production), as requests to an API spread over its servers. ${options.latencyMs} ms latency injected on every call, rate limits off.`,
      workers > 1
        ? `The headline setting is measured against one emulator process as well (marked "1 emulator process"), to show what one process's event loop caps.`
        : 'One emulator process.',
      '`nodes.list` through `ApiClient`: ours is `listAll` (page 1, then the remaining pages in parallel, a bounded number at a time); the baseline fetches the same pages one after another with `paginate`, the same client and page size.',
      `${options.runs} runs; each run rotates which variant goes first. Every listing is checked for all ${options.nodes} distinct nodes and for the number of calls the emulator processes saw together (one per page).`,
      '"× baseline" is the time against the baseline with the same page size and the same emulator processes (below 1 is faster).',
      `The target counts each run on its own: the run's baseline time over its listAll time (the headline setting), ${options.runs} independent measurements in one \`npm run bench\`; it is met only if every one of them is at least 4×. This run's: ${perRun.map(formatRatio).join(', ')}.`,
      `Per page, besides latency: ${perPage}`,
    ],
    rows,
    targets: [
      {
        name: 'Listing everything',
        requirement: `≥ 4× faster than page by page in each of the ${options.runs} runs (listAll as \`nodes list --all --json\` runs it: page_size ${LIST_ALL_PAGE_SIZE}, ${DEFAULT_LIST_CONCURRENCY} at a time; the least of the runs' speed-ups)`,
        measured: leastPerRun,
        limit: 4,
        direction: 'at-least',
        format: formatRatio,
        whyMissed:
          `Speed-up of each run: ${perRun.map(formatRatio).join(', ')} (of the medians: ${formatRatio(headline.measured)}). ` +
          listingMiss(headline, workPerPage(headline.variant)) +
          ` ${perPage} With ${workers} emulator processes on this machine's ${availableParallelism()} processors (shared with the client, DynamoDB Local's idle JVM and anything else running), the pages' rendering overlaps only as far as free processors allow. Measured for each setting: ${speedups.map(describe).join('; ')}. What would close it: the client's own work per page, now mostly JSON.parse and receiving the body (the response schema is compiled from an operation's second answer on), done one page after another as the pages arrive together; parsing pages on another thread, or the API answering larger pages (its page_size is at most 500), would let that work overlap.`,
      },
    ],
    notes: [
      `Besides the ${options.latencyMs} ms injected, a page cost the baseline about ${variants
        .filter((variant) => variant.concurrency === undefined)
        .map(
          (variant) =>
            `${formatDuration(workPerPage(variant))} at page_size ${variant.pageSize}${processesLabel(variant.processes, workers)}`,
        )
        .join(
          ' and ',
        )}: the emulator filtering and rendering, the client parsing. That work does not overlap the way latency does, which is why the measured speed-ups stay below the round-trip bounds.`,
      ...(oneProcess
        ? [
            `One emulator process against ${workers}: the headline setting is ${formatRatio(oneProcess.measured)} faster than page by page with one process and ${formatRatio(headline.measured)} with ${workers}, the client and its settings unchanged. More processes help only where processors are free: on a machine whose load average is above its processor count, they compete with the client and each other.`,
          ]
        : []),
    ],
  };
}
