import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { lastCardWith } from '../support/cards.js';
import { ADA, ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';

/**
 * The price change on an approval card, end to end: signed commands and clicks, DynamoDB Local,
 * the emulator with its seeded types. A resize costs money, so it asks for approval where the
 * channel has a rule for the `costs` class.
 *
 * Seeded: node 1001 is a g6-nanode-1 in us-east (no region price there); g6-nanode-1 costs
 * $5.48 a month ($0.0075 an hour), g6-standard-2 $26.28 ($0.036).
 */

let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;

beforeAll(async () => {
  e2e = await startE2E();
  await e2e.login(ALICE, e2e.emulator.demoToken);
});

afterAll(async () => {
  await e2e?.close();
});

beforeEach(async () => {
  await e2e.stack.store.approvalPolicy.put(team(), {}, ADA);
  await e2e.stack.store.channelPolicy.put(
    team(),
    CHANNEL,
    { rules: { costs: { requiredApprovals: 1 } } },
    ADA,
  );
});

afterEach(async () => {
  e2e.emulator.control.clearFaults();
  await e2e.stack.store.channelPolicy.clear(team(), CHANNEL);
});

/** The node's type as the emulator holds it. */
function typeOf(nodeId: number): string {
  const type = e2e.emulator.control.world.nodes.get(nodeId)?.type;
  if (!type) throw new Error(`no node ${nodeId}`);
  return type;
}

function lastCard(): StoredMessage {
  const card = lastCardWith(e2e.stack.standIn.store, CHANNEL, ActionId.approve);
  if (!card) throw new Error('no approval card');
  return card;
}

describe('a node resize that needs approval', () => {
  it('posts a card with the monthly and hourly price change from the types', async () => {
    const delivery = await e2e.command(ALICE, 'nodes resize 1001 --type g6-standard-2');
    expect(e2e.textOf(delivery.message)).toContain('needs 1 approval');
    const text = e2e.textOf(lastCard());
    expect(text).toContain('*Cost:* $5.48/month → $26.28/month (+$20.80/month, +$0.0285/hour)');
    expect(e2e.emulator.control.requestCount('nodes.resize', { nodeId: 1001 })).toBe(0);
  });

  it('names the change beside the price: the node type from → to, with its CPUs, memory and disk', async () => {
    await e2e.command(ALICE, 'nodes resize 1001 --type g6-standard-2');
    expect(e2e.textOf(lastCard())).toContain(
      '*Change:* node type `g6-nanode-1` (1 CPU, 1 GB RAM, 25 GB disk) → `g6-standard-2` (2 CPU, 4 GB RAM, 80 GB disk)\\n*Cost:* $5.48/month',
    );
  });

  it('when the types cannot be read, says the price is unknown, and the card still works', async () => {
    e2e.emulator.control.injectFault({ kind: 'status', status: 500, operations: ['nodes.types'] });
    await e2e.command(ALICE, 'nodes resize 1002 --type g6-standard-2');
    const card = lastCard();
    const text = e2e.textOf(card);
    expect(text).toContain('*Cost:* price unknown');
    expect(text).not.toMatch(/\$\d/);
    // What changes is still named, by the ids the node and the request give.
    expect(text).toContain(`*Change:* node type \`${typeOf(1002)}\` → \`g6-standard-2\``);

    await e2e.stack.workspace.click(BOB, card, { actionId: ActionId.approve });
    await e2e.stack.drain();
    expect(e2e.emulator.control.requestCount('nodes.resize', { nodeId: 1002 })).toBe(1);
  });
});

describe('creates that need approval', () => {
  it('a node: the type’s price in the requested region, where it has its own', async () => {
    await e2e.command(
      ALICE,
      "nodes create --region ap-south --type g6-standard-2 --image node/debian12 --root-pass 'Correct-Horse-9-Battery' --label priced",
    );
    // ap-south prices are a fifth dearer: $31.54 a month, $0.043 an hour.
    const text = e2e.textOf(lastCard());
    expect(text).toContain('*Cost:* new, $31.54/month ($0.043/hour) at ap-south prices');
    expect(text).not.toContain('Correct-Horse');
    expect(e2e.emulator.control.requestCount('nodes.create')).toBe(0);
  });

  it('a clone to a new node: priced as a new node of its type in its region', async () => {
    await e2e.command(ALICE, 'nodes clone 1001 --region ap-south --type g6-standard-2 --label priced-clone');
    expect(e2e.textOf(lastCard())).toContain('*Cost:* new, $31.54/month ($0.043/hour) at ap-south prices');
    expect(e2e.emulator.control.requestCount('nodes.clone')).toBe(0);
  });

  it('a database: the database type’s price for the cluster size asked for', async () => {
    await e2e.command(
      ALICE,
      'databases mysql-create --label priced --region us-east --type g6-dedicated-2 --engine mysql/8.0.30 --cluster-size 3',
    );
    // Three g6-dedicated-2 members of a MySQL cluster, as the emulator's database types price them.
    expect(e2e.textOf(lastCard())).toContain('*Cost:* new, $177.39/month ($0.243/hour)');
  });
});

describe('changes that bill and run at once (no rule for the `costs` class)', () => {
  beforeEach(async () => {
    await e2e.stack.store.channelPolicy.clear(team(), CHANNEL);
  });

  /** Everything Alice was shown after her command, newest last, as one text. */
  function answerTo(before: number): string {
    return e2e
      .seen(ALICE)
      .slice(before)
      .map((message) => e2e.textOf(message))
      .join('\n');
  }

  it('a resize: its answer names the type from → to and the price change', async () => {
    // Node 1007 is a g6-nanode-1 in us-east, like 1001.
    expect(typeOf(1007)).toBe('g6-nanode-1');
    const before = e2e.seen(ALICE).length;
    await e2e.command(ALICE, 'nodes resize 1007 --type g6-standard-2');
    expect(e2e.emulator.control.requestCount('nodes.resize', { nodeId: 1007 })).toBe(1);
    const answer = answerTo(before);
    expect(answer).toContain(
      '*Change:* node type `g6-nanode-1` (1 CPU, 1 GB RAM, 25 GB disk) → `g6-standard-2` (2 CPU, 4 GB RAM, 80 GB disk)',
    );
    expect(answer).toContain('*Cost:* $5.48/month → $26.28/month (+$20.80/month, +$0.0285/hour)');
  });

  it('a resize whose prices cannot be read: it runs, and its answer says the price is unknown', async () => {
    e2e.emulator.control.injectFault({ kind: 'status', status: 500, operations: ['nodes.types'] });
    const type = typeOf(1004);
    const before = e2e.seen(ALICE).length;
    await e2e.command(ALICE, 'nodes resize 1004 --type g6-dedicated-4');
    expect(e2e.emulator.control.requestCount('nodes.resize', { nodeId: 1004 })).toBe(1);
    const answer = answerTo(before);
    expect(answer).toContain(`*Change:* node type \`${type}\` → \`g6-dedicated-4\``);
    expect(answer).toContain('*Cost:* price unknown: the types and their prices could not be read.');
    expect(answer).not.toMatch(/\$\d/);
    expect(answer).not.toMatch(/failed/i);
  });

  it('a volume resize: its answer names the size from → to and says the API publishes no volume prices', async () => {
    const volume = e2e.emulator.control.createVolume({ label: 'grows', size: 20 });
    const before = e2e.seen(ALICE).length;
    await e2e.command(ALICE, `volumes resize ${volume.id} --size 40`);
    expect(e2e.emulator.control.requestCount('volumes.resize', { volumeId: volume.id })).toBe(1);
    const answer = answerTo(before);
    expect(answer).toContain('*Change:* volume size 20 GB → 40 GB');
    expect(answer).toContain('*Cost:* price unknown: the API publishes no prices for volumes.');
  });
});
