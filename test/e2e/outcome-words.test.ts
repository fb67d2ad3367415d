import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { lastCardWith } from '../support/cards.js';
import { ALICE, BOB, type E2E, startE2E } from '../support/e2e.js';
import { testClock } from '../support/store.js';

/**
 * How a request ended reads the same wherever it is shown: its card, its thread, the copy of the
 * card in the audit channel, the requester's and the approver's Home, `/cloud audit` and the
 * agent's `get_request`. Signed Slack requests, DynamoDB Local, the emulator and the Slack stand-in.
 */

const OPS = 'C0OPS';
const AUDIT = 'C0GENERAL';
const REASON = 'db is on fire, restoring service';
const GLASS_DONE = ':white_check_mark: Run with break-glass and done';
const APPROVED_DONE = ':white_check_mark: Approved and done';
const API_TIMEOUT_MS = 800;

const HOUR = 3_600_000;
const clock = testClock(new Date());
let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;

beforeAll(async () => {
  e2e = await startE2E({
    stack: {
      now: clock.now,
      apiTimeoutMs: API_TIMEOUT_MS,
      outcomeChecks: {
        windowMs: 3_000,
        intervalMs: 200,
        readTimeoutMs: 1_000,
        giveUpAfterMs: 30 * 60_000,
        recheckEveryMs: 5 * 60_000,
      },
    },
  });
  await e2e.login(ALICE, e2e.emulator.demoToken);
});

afterAll(async () => {
  await e2e?.close();
});

beforeEach(async () => {
  // Break-glass is twice an hour per person: each test is in an hour of its own.
  clock.set(new Date(clock.now().getTime() + HOUR));
  // Bob approves; Alice may break glass in #ops, and its audit channel hears of it.
  await e2e.stack.store.approvalPolicy.put(team(), { approverUsers: [BOB] }, BOB);
  await e2e.stack.store.channelPolicy.put(
    team(),
    OPS,
    { breakGlass: { enabled: true, users: [ALICE] }, auditChannel: AUDIT },
    BOB,
  );
});

afterEach(() => {
  e2e.emulator.control.clearFaults();
});

function newVolume(): number {
  return e2e.emulator.control.createVolume({ label: `ow-${Math.random().toString(36).slice(2, 8)}` }).id;
}

function messages(channel: string): StoredMessage[] {
  return e2e.stack.standIn.store.messages(channel);
}

/** The card in #ops that names `volumeId`, and the request id it shows. */
function cardOf(volumeId: number): { card: StoredMessage; id: string } {
  const card = lastCardWith(e2e.stack.standIn.store, OPS, `(${volumeId})`);
  const id = /Request ([0-9a-f-]{36})/.exec(JSON.stringify(card?.blocks))?.[1];
  if (!card || !id) throw new Error(`no card for volume ${volumeId}`);
  return { card: e2e.stack.standIn.store.findMessage(OPS, card.ts) ?? card, id };
}

/** The copy of the card in the audit channel, as it reads now. */
function auditCopyOf(volumeId: number): string {
  const copies = messages(AUDIT).filter((m) => JSON.stringify(m.blocks).includes(`(${volumeId})`));
  expect(copies).toHaveLength(1);
  return e2e.textOf(copies[0]);
}

function threadOf(card: StoredMessage): string {
  return e2e.stack.standIn.store
    .thread(OPS, card.ts)
    .map((m) => m.text)
    .join('\n');
}

async function homeText(user: string): Promise<string> {
  await e2e.stack.workspace.openHome(user);
  return JSON.stringify(e2e.stack.standIn.store.homeView(team(), user)?.view.blocks ?? []);
}

async function auditText(): Promise<string> {
  return e2e.textOf((await e2e.command(ALICE, 'audit --limit 50', OPS)).message);
}

async function breakGlass(volumeId: number) {
  const delivery = await e2e.command(ALICE, `volumes delete ${volumeId} --break-glass "${REASON}"`, OPS);
  await e2e.stack.drain();
  expect(e2e.textOf(delivery.message)).toContain('Break-glass: running');
  return cardOf(volumeId);
}

async function approvedRun(volumeId: number) {
  const asked = await e2e.command(ALICE, `volumes delete ${volumeId} --reason "tidy up"`, OPS);
  expect(e2e.textOf(asked.message)).toContain('needs 1 approval');
  const { card } = cardOf(volumeId);
  await e2e.stack.workspace.click(BOB, card, { actionId: ActionId.approve });
  await e2e.stack.drain();
  return cardOf(volumeId);
}

/** `get_request` over MCP, as an agent signed in for Alice would call it. */
async function agentState(id: string): Promise<{ state: unknown; breakGlass: unknown; text: string }> {
  const grant = await e2e.stack.store.agentGrants.create({
    team: team(),
    user: ALICE,
    clientId: 'https://agent.example.com/client.json',
    clientName: 'Test Agent',
    homeChannel: OPS,
    scopes: ['cloud:read', 'cloud:change'],
  });
  const issued = await e2e.stack.store.agentGrants.issueTokens(grant, e2e.stack.mcpUrl);
  const client = new Client(
    { name: 'test-agent', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(e2e.stack.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${issued.accessToken}` } },
    }),
  );
  try {
    const result = await client.callTool({ name: 'get_request', arguments: { request_id: id } });
    const json = result.structuredContent as { state: unknown; break_glass: unknown };
    const text = ((result.content ?? []) as { text?: string }[]).map((c) => c.text ?? '').join('\n');
    return { state: json.state, breakGlass: json.break_glass, text };
  } finally {
    await client.close();
  }
}

describe('one break-glass run and one approved run', () => {
  it('read the same outcome words on the card, its thread, the audit copy, both Homes, /cloud audit and get_request', async () => {
    const glass = await breakGlass(newVolume());
    const approved = await approvedRun(newVolume());
    const home = { alice: await homeText(ALICE), bob: await homeText(BOB) };
    const audit = await auditText();

    for (const [run, words] of [
      [glass, GLASS_DONE],
      [approved, APPROVED_DONE],
    ] as const) {
      expect(e2e.textOf(run.card)).toContain(words);
      expect(threadOf(run.card)).toContain(words);
      expect(home.alice).toContain(words);
      expect(home.bob).toContain(words);
      expect(audit).toContain(`(request ${run.id.slice(0, 8)}: ${words})`);
      const agent = await agentState(run.id);
      expect(agent.state).toBe('done');
      expect(agent.breakGlass).toBe(run === glass);
      expect(agent.text).toContain(words.replace(':white_check_mark: ', ''));
    }
    expect(auditCopyOf(volumeIdOf(glass.card))).toContain(GLASS_DONE);
  });
});

function volumeIdOf(card: StoredMessage): number {
  const id = /\((\d+)\)/.exec(e2e.textOf(card))?.[1];
  if (!id) throw new Error('no volume on the card');
  return Number(id);
}

describe('a break-glass run off its card', () => {
  it('regression: the requester’s Home listed it as "approved and done"; it says run with break-glass', async () => {
    const volumeId = newVolume();
    await breakGlass(volumeId);
    const blocks = JSON.parse(await homeText(ALICE)) as { text?: { text?: string } }[];
    const line = blocks.map((block) => block.text?.text ?? '').find((text) => text.includes(`(${volumeId})`));
    expect(line).toContain(GLASS_DONE);
    expect(line).not.toMatch(/approved/i);
  });

  it('regression: /cloud audit labelled it "(approval …)"; it names the request and how it ended', async () => {
    const { id } = await breakGlass(newVolume());
    const lines = (await auditText()).split('\n').filter((line) => line.includes(id.slice(0, 8)));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).not.toContain('(approval');
      expect(line).toContain(`(request ${id.slice(0, 8)}: ${GLASS_DONE})`);
    }
  });
});

describe("the audit channel's copy of a break-glass announcement", () => {
  it('regression: said "starting now" for good; it follows the card to how the run ended', async () => {
    const volumeId = newVolume();
    await breakGlass(volumeId);
    const copy = auditCopyOf(volumeId);
    expect(copy).toContain(GLASS_DONE);
    expect(copy).not.toContain('starting');
    expect(copy).toContain(`A copy of the card in <#${OPS}>`);
  });

  it('says "checking" while the answer is in doubt, then how the read-back ended, as the card does', async () => {
    const volumeId = newVolume();
    e2e.emulator.control.injectFault({
      kind: 'drop',
      afterActing: true,
      operations: ['volumes.delete'],
      times: 1,
    });
    const { card } = await breakGlass(volumeId);
    const copy = messages(AUDIT).find((m) => JSON.stringify(m.blocks).includes(`(${volumeId})`));
    const updates = e2e.stack.standIn.store
      .callsTo('chat.update')
      .filter((call) => call.body.channel === AUDIT && call.body.ts === copy?.ts)
      .map((call) => JSON.stringify(call.body.blocks));
    expect(updates.some((u) => u.includes('Run with break-glass; checking whether it happened'))).toBe(true);
    expect(auditCopyOf(volumeId)).toContain(GLASS_DONE);
    expect(auditCopyOf(volumeId)).toContain('went through after all');
    expect(e2e.textOf(card)).toContain(GLASS_DONE);
  });
});

describe("the approver's Home", () => {
  it('shows the reason the requester gave beside the request waiting for their vote', async () => {
    const volumeId = newVolume();
    await e2e.command(ALICE, `volumes delete ${volumeId} --reason "old <!channel> backups"`, OPS);
    const home = await homeText(BOB);
    expect(home).toContain('*Reason:* “old &lt;!channel&gt; backups”');
  });
});
