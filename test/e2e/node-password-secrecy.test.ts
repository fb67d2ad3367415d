import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { localDynamoDbClientConfig } from '../../infra/local/dynamodb.js';
import { createLogger } from '../../lib/observability/logger.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { lastCardWith } from '../support/cards.js';
import { ADA, ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';

/**
 * `nodes password NODE --root-pass '…'` end to end, in a channel without approvals and in one
 * where the change needs one: the password reaches the API, and nowhere else. Everything the bot
 * sent to Slack (every Web API call and response-URL post, every message and modal the stand-in
 * holds), the audit trail, the stored tables and the log output are searched for it.
 *
 * Seeded: node 1001 has one disk besides swap; it is shut down here, as a reset needs.
 */

const PASSWORD = 'Quartz-Otter-7-Lantern!';

let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;
let logged: string[] = [];
const dynamo = new DynamoDBClient(localDynamoDbClientConfig(inject('dynamoEndpoint')));

beforeAll(async () => {
  e2e = await startE2E();
  await e2e.login(ALICE, e2e.emulator.demoToken);
  await e2e.login(BOB, e2e.emulator.demoToken);
});

afterAll(async () => {
  await e2e?.close();
});

beforeEach(() => {
  logged = [];
  const keep = (chunk: unknown) => {
    logged.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(keep);
  vi.spyOn(process.stderr, 'write').mockImplementation(keep);
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '));
    });
  }
  const node = e2e.emulator.control.world.nodes.get(1001);
  if (!node) throw new Error('no seeded node 1001');
  node.status = 'offline';
});

afterEach(async () => {
  vi.restoreAllMocks();
  await e2e.stack.store.channelPolicy.clear(team(), CHANNEL);
});

/** Every place the password must not be, as one text per place. */
async function everywhere(): Promise<Record<string, string>> {
  const slack = e2e.stack.standIn.store;
  const messages = slack
    .channels()
    .flatMap((channel) => slack.messages(channel.id, { includeEphemeral: true }));
  const audit = await e2e.stack.store.audit.list(team(), { limit: 100 });
  const table = await dynamo.send(new ScanCommand({ TableName: e2e.stack.tableName }));
  return {
    'Slack Web API calls': JSON.stringify(slack.calls()),
    'response URL posts': JSON.stringify(slack.posts()),
    'channel messages': JSON.stringify(messages),
    modals: JSON.stringify(slack.views()),
    audit: JSON.stringify(audit.entries),
    'stored items (approval requests included)': JSON.stringify(table.Items),
    logs: logged.join('\n'),
  };
}

async function expectNowhere(): Promise<void> {
  const places = await everywhere();
  // The search reads what the run left: the channel shows the change, the audit names it.
  expect(places['channel messages']).toContain('1001');
  expect(places.audit).toContain('nodes.password');
  for (const [place, text] of Object.entries(places)) {
    expect(text.includes(PASSWORD), `the password is in the ${place}`).toBe(false);
  }
}

describe('nodes password: the new root password is sent to the API and shown nowhere', () => {
  it('in a channel without approvals', async () => {
    const before = e2e.emulator.control.requestCount('nodes.password', { nodeId: 1001 });
    await e2e.command(ALICE, `nodes password 1001 --root-pass '${PASSWORD}'`);
    expect(e2e.emulator.control.requestCount('nodes.password', { nodeId: 1001 })).toBe(before + 1);
    await expectNowhere();
    // The capture sees the bot's logger: a line naming the password field shows, redacted.
    createLogger('secrecy-check').warn('password field probe', { root_pass: PASSWORD });
    expect(logged.join('\n')).toContain('password field probe');
    await expectNowhere();
  });

  it('when the API refuses it (a weak password is not echoed either)', async () => {
    const weak = 'aaaaaaa';
    await e2e.command(ALICE, `nodes password 1001 --root-pass '${weak}'`);
    const places = await everywhere();
    expect(places['channel messages']).toContain('strength');
    await expectNowhere();
  });

  it('in a channel where the change needs an approval: card, preview, stored request and the run', async () => {
    await e2e.stack.store.channelPolicy.put(
      team(),
      CHANNEL,
      { rules: { change: { requiredApprovals: 1 } } },
      ADA,
    );
    const before = e2e.emulator.control.requestCount('nodes.password', { nodeId: 1001 });
    const asked = await e2e.command(ALICE, `nodes password 1001 --root-pass '${PASSWORD}'`);
    expect(e2e.textOf(asked.message)).toContain('needs 1 approval');
    expect(e2e.emulator.control.requestCount('nodes.password', { nodeId: 1001 })).toBe(before);
    await expectNowhere();

    const card = lastCardWith(e2e.stack.standIn.store, CHANNEL, ActionId.approve);
    if (!card) throw new Error('no approval card');
    await e2e.stack.workspace.click(BOB, card, { actionId: ActionId.approve });
    await e2e.stack.drain();
    expect(e2e.emulator.control.requestCount('nodes.password', { nodeId: 1001 })).toBe(before + 1);
    await expectNowhere();
  });
});
