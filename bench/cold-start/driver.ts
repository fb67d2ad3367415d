import { pathToFileURL } from 'node:url';
import { type DriverResult, RESULT_PREFIX } from './driver-protocol.js';

/**
 * Runs in a fresh `node` process, as the Lambda runtime would: loads one function bundle, hands
 * its handler one event and reports how long each step took. Compiled to one plain JavaScript
 * file before the runs, so no TypeScript loader sits in the measured start-up.
 *
 * argv[2]: the bundle (`index.mjs`). Env `BENCH_EVENT`: the API Gateway event as JSON.
 * Prints one line `BENCH_RESULT {json}` (the handler may log lines of its own) and exits.
 */

type Handler = (event: unknown, context: unknown, callback?: unknown) => Promise<unknown>;

const bundle = process.argv[2];
const event = process.env.BENCH_EVENT;
if (!bundle || !event) throw new Error('usage: node driver.mjs <bundle> with BENCH_EVENT set');
const parsedEvent: unknown = JSON.parse(event);

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const importStart = performance.now();
const importCpuStart = cpuMs();
const loaded = (await import(pathToFileURL(bundle).href)) as { handler?: Handler };
const imported = performance.now();
const importedCpu = cpuMs();
if (typeof loaded.handler !== 'function') throw new Error(`${bundle} exports no handler`);
const context = { awsRequestId: 'bench', functionName: 'bench', getRemainingTimeInMillis: () => 3000 };
const result = await loaded.handler(parsedEvent, context, () => undefined);
const answered = performance.now();
const answeredCpu = cpuMs();

const report: DriverResult = {
  bootMs: importStart,
  importMs: imported - importStart,
  answerMs: answered - imported,
  importCpuMs: importedCpu - importCpuStart,
  answerCpuMs: answeredCpu - importedCpu,
  result,
};
process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(report)}\n`);
// Clients created at load (SDK, keep-alive agents) may hold the event loop open; the answer is out.
process.exit(0);
