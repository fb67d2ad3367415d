import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { SANDBOX_PROGRESS_SPEED, type Sandbox, startSandbox } from '../../infra/local/start.js';

/**
 * `npm start`'s promise, checked on the sandbox it builds: its emulator clock, its reporter timer
 * and its bot stack, with nothing advanced by hand. A person who creates a database from Slack
 * sees its message turn `active` within a minute of wall time; at real speed provisioning alone
 * takes 20 minutes, so a sandbox without fast emulated work fails this. The clock stays real
 * time: the API's times agree with Slack's message times.
 */

const CHANNEL = 'C0OPS';
const USER = 'U0ALICE';
const DEADLINE_MS = 60_000;

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({
    dynamoEndpoint: inject('dynamoEndpoint'),
    pagePort: 0,
    emulatorPort: 0,
  });
  const { workspace, standIn } = sandbox.stack;
  const opened = await workspace.command(USER, CHANNEL, 'login');
  expect(opened.status).toBe(200);
  const view = standIn.store
    .views()
    .filter((v) => v.user === USER && !v.closed)
    .at(-1);
  if (!view) throw new Error('no login modal opened');
  await workspace.submitView(USER, view, {
    profile: { profile_input: 'default' },
    token: { token_input: sandbox.emulator.control.tokens.demo },
  });
  await sandbox.stack.drain();
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
});

function textOf(message: StoredMessage): string {
  return `${message.text}\n${JSON.stringify(message.blocks)}`;
}

describe('npm start', () => {
  it('runs emulated work at the sandbox speed', () => {
    expect(sandbox.progressSpeed).toBe(SANDBOX_PROGRESS_SPEED);
    expect(SANDBOX_PROGRESS_SPEED).toBeGreaterThan(1);
  });

  it('regression: its emulator clock ran 60 times real time (times hours ahead of Slack); now it is real time', () => {
    // Seconds have passed since start-up (DynamoDB, login): a fast clock would be minutes ahead.
    expect(Math.abs(sandbox.emulator.control.now() - Date.now())).toBeLessThan(2_000);
  });

  it(
    'regression: a database created from Slack stayed provisioning for 20 real minutes; now its message says active within a minute',
    async () => {
      const startedAt = Date.now();
      const delivery = await sandbox.stack.workspace.command(
        USER,
        CHANNEL,
        'databases mysql-create --label demo-orders --region us-east --type g6-dedicated-2 --engine mysql/8.0.26',
      );
      expect(delivery.status).toBe(200);
      await sandbox.stack.drain();

      const store = sandbox.stack.standIn.store;
      const posted = store
        .messages(CHANNEL)
        .filter((m) => textOf(m).includes('demo-orders'))
        .at(-1);
      if (!posted) throw new Error('the worker posted no channel message for the new database');
      expect(textOf(posted)).toContain('Last seen `provisioning`');

      // Only the sandbox's own reporter timer moves the message on; the test just looks.
      let latest = posted;
      while (!textOf(latest).includes('Status *active*') && Date.now() - startedAt < DEADLINE_MS + 15_000) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        latest = store.findMessage(CHANNEL, posted.ts) ?? latest;
      }
      const elapsedMs = Date.now() - startedAt;
      console.info(
        `sandbox: database created from Slack showed active after ${(elapsedMs / 1000).toFixed(1)} s`,
      );

      expect(textOf(latest)).toContain('Status *active*');
      expect(latest.updatedAt).toBeDefined();
      // Kept as a duration: the requirement is a deadline in wall time (what a person waits in
      // `npm start`), and the subject is the sandbox's real-time clock, which a fake clock would replace.
      expect(elapsedMs).toBeLessThan(DEADLINE_MS);
    },
    DEADLINE_MS + 30_000,
  );
});
