import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDbLocal } from '../../infra/local/dynamodb.js';
import { startOwnDynamoDbLocal } from '../support/dynamodb-local.js';
import { ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';

/**
 * DynamoDB hanging or gone, end to end: signed slash commands through the API Gateway adapter
 * while this file's own DynamoDB Local is frozen (SIGSTOP) or killed. Slack drops an answer that
 * comes after 3 s; rather than timing answers on a shared machine, the tests check what keeps
 * them in time: each answer arrives while DynamoDB is still frozen, so none waited for it. The
 * durations are shown in failure messages as figures, not asserted.
 *
 * The DynamoDB Local of the global setup is shared with every other test file and is never
 * touched here.
 */

const STORAGE_MESSAGE = "The bot's storage is not answering, so nothing was changed. Try again in a minute.";
/** How long DynamoDB stays frozen at most: with unbounded calls the commands wait this long. */
const MAX_FREEZE_MS = 20_000;
/** Requests in flight at once: several people typing at the same time. */
const CONCURRENCY = 6;

let dynamo: DynamoDbLocal;
let e2e: E2E;
let volumeId: number;

beforeAll(async () => {
  dynamo = await startOwnDynamoDbLocal({ tableName: null });
  // `slackStorage: {}`: the Slack function's production limits, not the local stack's roomier ones.
  e2e = await startE2E({ stack: { dynamoEndpoint: dynamo.endpoint, slackStorage: {} } });
  // A fresh JVM answers its first calls slowly; the Slack function's limits are sized for a warm one.
  for (let i = 0; i < 20; i++) await e2e.stack.store.deliveries.claimOnce(`warm-up:${i}`);
  // Under load the fresh JVM can still miss the production budget, for the command or the form:
  // Alice tries again, as the bot asks her to.
  for (let attempt = 1; ; attempt++) {
    const answer = await e2e.login(ALICE, e2e.emulator.demoToken).then(
      (delivery) => JSON.stringify(delivery.body),
      (error: unknown) => String(error),
    );
    if (!answer.includes('storage is not answering') || attempt === 5) break;
    await sleep(500);
  }
  const listed = await e2e.command(ALICE, 'volumes list --json');
  const id = /\bid\\?":\s*(\d+)/.exec(e2e.textOf(listed.message))?.[1];
  if (!id) throw new Error(`no volume in the emulator's demo data: ${e2e.textOf(listed.message)}`);
  volumeId = Number(id);
}, 60_000);

afterAll(async () => {
  // A frozen JVM ignores SIGTERM until it runs again: thaw it first so stop() ends it.
  if (dynamo) signal(dynamo.pid, 'SIGCONT');
  await e2e?.close();
  await dynamo?.stop();
});

/**
 * `/cloud <text>` until the answer is something other than the storage message, 40 tries at most:
 * a thawed DynamoDB Local first works through every request that queued up while it was frozen.
 */
async function onceStorageAnswers(user: string, text: string) {
  for (let attempt = 1; ; attempt++) {
    const delivery = await e2e.command(user, text);
    if (!e2e.textOf(delivery.message).includes(STORAGE_MESSAGE) || attempt === 40) return delivery;
    await sleep(500);
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

interface Sent {
  readonly text: string;
  readonly status: number;
  readonly durationMs: number;
  readonly answer: string;
  /** Whether DynamoDB was still frozen when the answer arrived. */
  readonly whileFrozen: boolean;
}

/** Freezes DynamoDB Local until `thaw()`, or until MAX_FREEZE_MS so a regression cannot hang the run. */
function freeze(): { readonly frozen: () => boolean; thaw(): void } {
  let frozen = true;
  const thaw = () => {
    clearTimeout(safety);
    frozen = false;
    signal(dynamo.pid, 'SIGCONT');
  };
  signal(dynamo.pid, 'SIGSTOP');
  const safety = setTimeout(thaw, MAX_FREEZE_MS);
  return { frozen: () => frozen, thaw };
}

/** `commands` sent by Alice and Bob, `CONCURRENCY` at a time, each measured to its HTTP answer. */
async function sendAll(commands: readonly string[], frozen: () => boolean = () => false): Promise<Sent[]> {
  const results: Sent[] = [];
  let next = 0;
  const sender = async (user: string) => {
    while (next < commands.length) {
      const text = commands[next++] as string;
      const delivery = await e2e.stack.workspace.command(user, CHANNEL, text);
      results.push({
        text,
        status: delivery.status,
        durationMs: delivery.durationMs,
        answer: e2e.textOf(delivery.message),
        whileFrozen: frozen(),
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => sender(i % 2 === 0 ? ALICE : BOB)));
  return results;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function mix(count: number): string[] {
  const kinds = ['help', 'whoami', 'volumes list', `volumes delete ${volumeId}`, 'reports list'];
  return Array.from({ length: count }, (_, i) => kinds[i % kinds.length] as string);
}

describe('DynamoDB frozen (the process hangs, connections stay open)', () => {
  it('acks every slash command while DynamoDB is still frozen, says storage is not answering, and recovers', async () => {
    const dynamoDb = freeze();
    let sent: Sent[];
    try {
      sent = await sendAll(mix(60), dynamoDb.frozen);
    } finally {
      dynamoDb.thaw();
    }

    const durations = sent.map((s) => s.durationMs);
    const summary = `ack ms: max ${Math.round(Math.max(...durations))}, p95 ${Math.round(percentile(durations, 95))}`;
    expect(sent.map((s) => s.status)).toEqual(sent.map(() => 200));
    const waited = sent.filter((s) => !s.whileFrozen);
    expect(
      waited.map((s) => `${s.text} ${Math.round(s.durationMs)} ms`),
      `answered only after DynamoDB thawed (${summary})`,
    ).toEqual([]);
    for (const s of sent) {
      expect(s.answer, s.text).not.toContain('Something went wrong');
      if (s.text === 'help') expect(s.answer, s.text).toContain('/cloud');
      else expect(s.answer, s.text).toContain(STORAGE_MESSAGE);
    }

    const after = await onceStorageAnswers(ALICE, 'whoami');
    expect(after.status).toBe(200);
    expect(e2e.textOf(after.message)).toContain('default');
    expect(e2e.textOf(after.message)).not.toContain(STORAGE_MESSAGE);
  }, 90_000);
});

describe('login while DynamoDB is frozen', () => {
  it(
    'tells the person in the modal, while storage is still frozen, that it is not answering, without echoing the token',
    async () => {
      const opened = await onceStorageAnswers(BOB, 'login');
      expect(opened.status).toBe(200);
      const view = e2e.openView(BOB);
      if (!view) throw new Error(`no login modal opened: ${JSON.stringify(opened.body)}`);
      const token = e2e.emulator.demoToken;

      const dynamoDb = freeze();
      let delivery: Awaited<ReturnType<typeof e2e.stack.workspace.submitView>>;
      let whileFrozen: boolean;
      try {
        delivery = await e2e.stack.workspace.submitView(BOB, view, {
          profile: { profile_input: 'default' },
          token: { token_input: token },
        });
        whileFrozen = dynamoDb.frozen();
      } finally {
        dynamoDb.thaw();
      }

      expect(delivery.status).toBe(200);
      expect(whileFrozen, `answered only after DynamoDB thawed (${Math.round(delivery.durationMs)} ms)`).toBe(
        true,
      );
      // Should the bot ever answer as if the login was stored, say whether DynamoDB really took it.
      const stored = await e2e.stack.store.tokenLinks.getLink(e2e.stack.workspace.teamId, BOB, 'default');
      expect(
        delivery.body,
        `answered in ${Math.round(delivery.durationMs)} ms; Bob's link ${stored ? 'was stored' : 'was not stored'}`,
      ).toEqual({
        response_action: 'errors',
        errors: {
          token:
            "The bot's storage is not answering, so your token may not be linked yet. Submit again in a minute.",
        },
      });
      expect(JSON.stringify(delivery.body)).not.toContain(token);
    },
    MAX_FREEZE_MS + 20_000,
  );
});

describe('DynamoDB stopped (connections refused)', () => {
  // Refused connections fail at once: nothing stalls to order the answers against. What keeps these
  // answers in time is the Slack function's bounded attempts, checked in test/unit/store/storage-guard.test.ts.
  it('answers with the storage message (help still answers help), never a generic error', async () => {
    await dynamo.stop();
    const sent = await sendAll(mix(20));
    for (const s of sent) {
      expect(s.status, s.text).toBe(200);
      expect(s.answer, s.text).not.toContain('Something went wrong');
      if (s.text === 'help') expect(s.answer, s.text).toContain('/cloud');
      else expect(s.answer, s.text).toContain(STORAGE_MESSAGE);
    }
  }, 60_000);
});
