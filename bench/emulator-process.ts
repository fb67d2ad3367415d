import * as z from 'zod';
import { startEmulator } from '../infra/local/emulator/server.js';

/**
 * The emulator in a process of its own, for the listing benchmark: like the real API, its work
 * then does not queue on the event loop of the client being measured. Prints one JSON line
 * `{url, origin, demoToken}` when it listens; stops on SIGTERM or SIGINT.
 *
 * argv[2]: the number of nodes to seed. Rate limits are off (the benchmark runs the same listing
 * many times in a row); latency is set through the control interface.
 */

const nodes = z.coerce.number().int().min(0).parse(process.argv[2]);
const emulator = await startEmulator({ seed: { nodes }, rateLimit: false });
process.stdout.write(
  `${JSON.stringify({ url: emulator.url, origin: emulator.origin, demoToken: emulator.demoToken })}\n`,
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void emulator.close().then(() => process.exit(0));
  });
}
