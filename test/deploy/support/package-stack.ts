import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Held while `dist/` is rebuilt and packaged; a directory, because `mkdir` is atomic. */
const LOCK = 'dist.lock';
/** A lock older than a whole build and package was left by a killed run. */
const STALE_AFTER_MS = 5 * 60_000;

/**
 * `npm run build` then `osls package` into a fresh directory, as a deployment does. Two test
 * files do this and may run at once in two workers: the build starts by deleting `dist/`, which
 * the other's `osls package` may be zipping, so the pair runs under a lock across processes. Each
 * caller reads only its own package directory afterwards, never `dist/`.
 */
export async function packageStack(stage: string, prefix: string): Promise<string> {
  const packageDir = await mkdtemp(join(tmpdir(), prefix));
  await acquire();
  try {
    await run('npx', ['tsx', 'infra/build.ts'], { timeout: 120_000 });
    await run('npx', ['osls', 'package', '--stage', stage, '--package', packageDir], {
      timeout: 120_000,
      env: { ...process.env, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' },
    });
  } finally {
    await rm(LOCK, { recursive: true, force: true });
  }
  return packageDir;
}

async function acquire(): Promise<void> {
  for (;;) {
    try {
      await mkdir(LOCK);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const held = await stat(LOCK).catch(() => undefined);
      if (held && Date.now() - held.mtimeMs > STALE_AFTER_MS)
        await rm(LOCK, { recursive: true, force: true });
      else await sleep(250);
    }
  }
}
