import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Child processes of the benchmarks: TypeScript helpers run through tsx, and a way to make sure
 * each child is gone afterwards (only the children started here, by their own process id).
 */

/** The tsx loader, as a URL `node --import` accepts from any working directory. */
export function tsxLoader(): string {
  return import.meta.resolve('tsx');
}

export interface SpawnTsxOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** `node --import tsx <script> ...args`, stdout piped for the caller, stderr kept for errors. */
export function spawnTsx(script: string, args: readonly string[], options: SpawnTsxOptions = {}) {
  const child = spawn(process.execPath, ['--import', tsxLoader(), script, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { child, stderr: collectTail(child) };
}

/** The last few kilobytes a child wrote to stderr, for the message when it fails. */
export function collectTail(child: ChildProcess, limit = 8_000): () => string {
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-limit);
  });
  return () => tail;
}

/** Waits for a child to exit and fails unless it exited with code 0. */
export async function expectSuccess(child: ChildProcess, stderr: () => string, what: string): Promise<void> {
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  if (code !== 0) {
    throw new Error(`${what} failed (${signal ?? `exit code ${code}`}):\n${stderr()}`);
  }
}

/** SIGTERM, then SIGKILL if the child is still there after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 3_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const stopped = await Promise.race([exited.then(() => true), sleep(graceMs, false)]);
  if (!stopped) {
    child.kill('SIGKILL');
    await exited;
  }
}
