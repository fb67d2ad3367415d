import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  everyInterval,
  loadLocalEnv,
  socketModeRequestBody,
  wantsRealWorkspace,
} from '../../infra/local/start.js';

/**
 * `npm start` as a person runs it: the script in its own process group, the banner read from its
 * output, Ctrl-C sent to the whole group as a terminal does. Afterwards nothing may be left: no
 * process, no open port, no DynamoDB Local.
 */

const ROOT = new URL('../../', import.meta.url).pathname;
// As `npm start` runs it: node with tsx's loader, one process (no relaying launcher in between).
const NODE_ARGS = ['--import', 'tsx', 'infra/local/start.ts'];

/** The environment of a fresh shell: free ports, no Slack credentials. */
function sandboxEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    EMULATOR_PORT: '0',
    DYNAMODB_PORT: '0',
    SLACK_PORT: '0',
    BOT_PORT: '0',
    ...extra,
  };
  for (const key of [
    'SLACK_BOT_TOKEN',
    'SLACK_APP_TOKEN',
    'CLOUD_API_URL',
    'VITEST',
    'VITEST_POOL_ID',
    'VITEST_WORKER_ID',
  ]) {
    if (!(key in extra)) delete env[key];
  }
  return env;
}

const started: ChildProcess[] = [];

function startScript(env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, NODE_ARGS, { cwd: ROOT, env, detached: true, stdio: 'pipe' });
  started.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  return { child, output: () => output };
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

afterAll(() => {
  for (const child of started) {
    if (child.pid !== undefined && isRunning(child)) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
});

async function waitFor(condition: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function bannerValue(output: string, label: string): string {
  const value = new RegExp(`${label}:\\s+(\\S+)`).exec(output)?.[1];
  if (!value) throw new Error(`no ${label} in:\n${output}`);
  return value;
}

async function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  const socket = createConnection({ host: hostname, port: Number(port) });
  try {
    await once(socket, 'connect');
    return true;
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}

/** Command lines of the Java processes of DynamoDB Local listening on `port`, from /proc (Linux). */
function dynamoCommandLinesOn(port: string): string[][] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        const isDynamo =
          args.some((arg) => arg.includes('DynamoDBLocal')) && args[args.indexOf('-port') + 1] === port;
        return isDynamo ? [args] : [];
      } catch {
        return [];
      }
    });
}

const dynamoProcessesOn = (port: string) => dynamoCommandLinesOn(port).length;

/**
 * Processes of process group `pgid` that still run, from /proc (Linux), as "pid name". A zombie
 * (exited, waiting for its new parent to collect it) runs nothing and is not counted.
 */
function liveGroupMembers(pgid: number): string[] {
  const members: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses, so split after the last ')'.
    const close = stat.lastIndexOf(')');
    const [state, , pgrp] = stat.slice(close + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z')
      members.push(`${entry} ${stat.slice(stat.indexOf('(') + 1, close)}`);
  }
  return members;
}

describe('npm start', () => {
  it('prints the page, the API and a ready demo login, and Ctrl-C leaves nothing behind', async () => {
    const { child, output } = startScript(sandboxEnv());
    await waitFor(
      () => output().includes('Ctrl-C stops everything.') || !isRunning(child),
      90_000,
      () => output(),
    );
    expect(isRunning(child)).toBe(true);

    const pageUrl = bannerValue(output(), 'Slack sandbox');
    const apiUrl = bannerValue(output(), 'Cloud API');
    const dynamoUrl = bannerValue(output(), 'DynamoDB Local');
    const slackUrl = bannerValue(output(), 'Slack stand-in');
    const botUrl = bannerValue(output(), 'Bot');
    const token = /press Link token:\s*\n\s*\n\s*(\S+)/.exec(output())?.[1] ?? '';
    expect(output()).toContain('type /cloud login');

    const page = await fetch(pageUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-testid="command-input"');
    const profile = await fetch(`${apiUrl}/profile`, { headers: { authorization: `Bearer ${token}` } });
    expect(profile.status).toBe(200);
    const dynamoPort = new URL(dynamoUrl).port;
    expect(dynamoProcessesOn(dynamoPort)).toBe(1);
    // Every part listens on this machine only: DynamoDB Local is asked for 127.0.0.1 too.
    for (const url of [pageUrl, apiUrl, dynamoUrl, slackUrl, botUrl])
      expect(new URL(url).hostname).toBe('127.0.0.1');
    const [dynamoArgs = []] = dynamoCommandLinesOn(dynamoPort);
    expect(dynamoArgs[dynamoArgs.indexOf('-host') + 1]).toBe('127.0.0.1');

    const pid = child.pid ?? 0;
    const exited = once(child, 'exit');
    process.kill(-pid, 'SIGINT');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
    expect(output()).toContain('Stopped.');

    expect(await answers(pageUrl)).toBe(false);
    expect(await answers(apiUrl)).toBe(false);
    expect(await answers(dynamoUrl)).toBe(false);
    expect(await answers(slackUrl)).toBe(false);
    expect(await answers(botUrl)).toBe(false);
    expect(dynamoProcessesOn(dynamoPort)).toBe(0);
    // Helpers of the script's group (tsx's esbuild service) exit when its pipe closes, a moment after
    // the script itself; they must all be gone shortly after.
    await waitFor(
      () => liveGroupMembers(pid).length === 0,
      10_000,
      () => `still running in the group: ${liveGroupMembers(pid).join(', ')}`,
    );
    expect(liveGroupMembers(pid)).toEqual([]);
  }, 150_000);

  it('refuses half a real-workspace configuration, naming what is missing, before starting anything', async () => {
    const { child, output } = startScript(sandboxEnv({ SLACK_BOT_TOKEN: 'xoxb-test' }));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(output()).toContain('missing: SLACK_APP_TOKEN, CLOUD_API_URL');
    expect(output()).not.toContain('xoxb-test');
  }, 60_000);
});

describe('the environment of npm start', () => {
  it('needs nothing: fixed default ports and the local sandbox', () => {
    const env = loadLocalEnv({});
    expect(env).toMatchObject({
      PORT: 3000,
      EMULATOR_PORT: 3001,
      DYNAMODB_PORT: 8000,
      SLACK_PORT: 3002,
      BOT_PORT: 3003,
    });
    expect(wantsRealWorkspace(env)).toBe(false);
  });

  it('serves a real workspace when the bot token, app token and API URL are all set', () => {
    const env = loadLocalEnv({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_APP_TOKEN: 'xapp-1',
      CLOUD_API_URL: 'https://api.example.com/v4',
    });
    expect(wantsRealWorkspace(env)).toBe(true);
  });

  it('names a malformed key without echoing its value', () => {
    expect(() => loadLocalEnv({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() =>
      loadLocalEnv({
        SLACK_BOT_TOKEN: 'xoxb-1',
        SLACK_APP_TOKEN: 'secret-value',
        CLOUD_API_URL: 'https://a.example',
      }),
    ).toThrow(expect.objectContaining({ message: expect.not.stringContaining('secret-value') }));
  });
});

describe('Socket Mode requests as the HTTP bodies Slack would have sent', () => {
  it('a slash command becomes the form Slack posts', () => {
    const body = socketModeRequestBody({
      command: '/cloud',
      text: 'nodes list --region us-east',
      user_id: 'U1',
      is_enterprise_install: false,
    });
    expect(Object.fromEntries(new URLSearchParams(body))).toEqual({
      command: '/cloud',
      text: 'nodes list --region us-east',
      user_id: 'U1',
      is_enterprise_install: 'false',
    });
  });

  it('an interaction becomes a form with its JSON payload', () => {
    const payload = { type: 'block_actions', actions: [{ action_id: 'op:page', value: '{"o":"x"}' }] };
    const body = socketModeRequestBody(payload);
    expect(JSON.parse(new URLSearchParams(body).get('payload') ?? '')).toEqual(payload);
  });

  it('events, which the bot does not subscribe to, are only acknowledged', () => {
    expect(socketModeRequestBody({ type: 'event_callback', event: {} })).toBeUndefined();
  });
});

describe('the reporter timer', () => {
  it('runs on every interval, never two runs at once, and goes on after a failure', async () => {
    vi.useFakeTimers();
    try {
      let running = 0;
      let overlapped = false;
      let runs = 0;
      const failures: unknown[] = [];
      const stop = everyInterval(
        async () => {
          runs += 1;
          running += 1;
          overlapped ||= running > 1;
          await new Promise((resolve) => setTimeout(resolve, 2_500));
          running -= 1;
          if (runs === 1) throw new Error('the API was down');
        },
        1_000,
        (error) => failures.push(error),
      );
      await vi.advanceTimersByTimeAsync(10_000);
      // Stopping waits for the run under way to finish.
      const stopped = stop();
      await vi.advanceTimersByTimeAsync(2_500);
      await stopped;
      expect(overlapped).toBe(false);
      expect(runs).toBeGreaterThanOrEqual(3);
      expect(failures).toHaveLength(1);
      const runsWhenStopped = runs;
      await vi.advanceTimersByTimeAsync(5_000);
      expect(runs).toBe(runsWhenStopped);
    } finally {
      vi.useRealTimers();
    }
  });
});
