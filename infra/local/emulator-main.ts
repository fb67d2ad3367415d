import * as z from 'zod';
import { createClock } from './emulator/clock.js';
import { startEmulator } from './emulator/server.js';

/**
 * `npm run emulator`: the cloud API emulator on its own, following real time, with the demo data.
 * Configured from the environment: EMULATOR_PORT (default 4010), EMULATOR_HOST (127.0.0.1),
 * EMULATOR_NODES and EMULATOR_VOLUMES (seed amounts), EMULATOR_RATE_LIMIT=off, EMULATOR_LOG=on (one
 * line per API request).
 */

const EnvSchema = z.object({
  EMULATOR_PORT: z.coerce.number().int().min(0).max(65535).default(4010),
  EMULATOR_HOST: z.string().min(1).default('127.0.0.1'),
  EMULATOR_NODES: z.coerce.number().int().min(0).optional(),
  EMULATOR_VOLUMES: z.coerce.number().int().min(0).optional(),
  EMULATOR_RATE_LIMIT: z.enum(['on', 'off']).default('on'),
  EMULATOR_LOG: z.enum(['on', 'off']).default('off'),
});

const parsed = EnvSchema.safeParse(process.env);
if (!parsed.success) {
  const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  console.error(`Invalid emulator configuration: ${problems}`);
  process.exit(1);
}
const env = parsed.data;

const emulator = await startEmulator({
  port: env.EMULATOR_PORT,
  host: env.EMULATOR_HOST,
  clock: createClock({ mode: 'real-time' }),
  seed: {
    ...(env.EMULATOR_NODES !== undefined && { nodes: env.EMULATOR_NODES }),
    ...(env.EMULATOR_VOLUMES !== undefined && { volumes: env.EMULATOR_VOLUMES }),
  },
  ...(env.EMULATOR_RATE_LIMIT === 'off' && { rateLimit: false as const }),
  ...(env.EMULATOR_LOG === 'on' && {
    onRequest: ({ method, path, operationId, status }) =>
      console.log(`${status} ${method} ${path}${operationId ? ` (${operationId})` : ''}`),
  }),
});

console.log(`Cloud API emulator listening on ${emulator.url}`);
console.log(`Demo token (user demo, all scopes): ${emulator.demoToken}`);
console.log(`Control interface: ${emulator.origin}/__control/`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void emulator.close().then(() => process.exit(0));
  });
}
