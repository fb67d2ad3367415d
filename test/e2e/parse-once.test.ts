import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../lib/api/client.js';
import { getOperation } from '../../lib/api/operations/index.js';
import { ADA, ALICE, type E2E, startE2E } from '../support/e2e.js';

/**
 * A command is read once, by the tokenizer-based parser: `--form`, `--break-glass` and the other
 * global flags are flags only where the tokenizer says a flag is, so quoted text stays text, and
 * the typographic quotes Slack clients insert quote like straight ones. Through signed requests,
 * DynamoDB Local and the emulator.
 */

const OPS = 'C0OPS';
let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;
const api = () => new ApiClient({ baseUrl: e2e.emulator.url, token: e2e.emulator.demoToken });

beforeAll(async () => {
  e2e = await startE2E();
  await e2e.login(ALICE, e2e.emulator.demoToken);
});

afterAll(async () => {
  await e2e?.close();
});

beforeEach(async () => {
  await e2e.stack.store.channelPolicy.clear(team(), OPS);
  await e2e.stack.store.approvalPolicy.put(team(), {}, ADA);
});

function newVolume(): number {
  return e2e.emulator.control.createVolume({ label: `p-${Math.random().toString(36).slice(2, 8)}` }).id;
}

/** The demo account's private image: its description is free text, unlike a volume's label. */
async function privateImage(): Promise<string> {
  const images = (await api().listAll(getOperation('images.list'), {})).data as {
    id: string;
    is_public: boolean;
  }[];
  const image = images.find((i) => !i.is_public);
  if (!image) throw new Error('the demo data has no private image');
  return image.id;
}

async function descriptionOf(imageId: string): Promise<string> {
  const image = (await api().call(getOperation('images.view'), { imageId })) as {
    description: string | null;
  };
  return image.description ?? '';
}

describe('a global flag inside a quoted value is part of the value', () => {
  it('regression: `--description "old --form new"` opened a form; it updates the description', async () => {
    const imageId = await privateImage();
    const views = e2e.stack.standIn.store.views().length;
    await e2e.command(ALICE, `images update ${imageId} --description "old --form new"`, OPS);
    expect(e2e.stack.standIn.store.views().length).toBe(views);
    expect(await descriptionOf(imageId)).toBe('old --form new');
  });

  it('regression: `--break-glass` inside a quoted value was pulled out of it', async () => {
    const imageId = await privateImage();
    await e2e.command(ALICE, `images update ${imageId} --description "x --break-glass y"`, OPS);
    expect(await descriptionOf(imageId)).toBe('x --break-glass y');
  });
});

describe('--break-glass with the quotes Slack clients type', () => {
  it.each([
    ['single', '\u2018', '\u2019'],
    ['double', '\u201c', '\u201d'],
  ])(
    'regression: typographic %s quotes took `‘db` as the reason; the reason is `db down`',
    async (_name, open, close) => {
      await e2e.command(ADA, `policy --allow-break-glass on --break-glass-users <@${ALICE}|alice>`, OPS);
      const volumeId = newVolume();
      const delivery = await e2e.command(
        ALICE,
        `volumes delete ${volumeId} --break-glass ${open}db down${close}`,
        OPS,
      );
      expect(e2e.textOf(delivery.message)).toContain('Break-glass: running');
      expect(e2e.emulator.control.volumeExists(volumeId)).toBe(false);
      const { entries } = await e2e.stack.store.audit.list(team());
      const used = entries.find(
        (e) => e.result === 'break_glass' && (e.target ?? '').includes(String(volumeId)),
      );
      // The reason as typed, then how the break-glass was proved.
      expect(used?.detail).toBe('db down (without step-up)');
    },
  );
});

describe('an over-long id is refused, nothing is stored, and /cloud policy still shows the workspace policy', () => {
  const LONG = 'A'.repeat(3499);

  it.each([
    ['--break-glass-users', `policy --allow-break-glass on --break-glass-users U${LONG}`],
    ['--approvers', `policy --rule destructive --approvers U${LONG}`],
    ['--audit-channel', `policy --audit-channel C${LONG}`],
    ['--approver-group', `policy --rule destructive --approver-group S${LONG}`],
  ])('%s of 3,500 characters', async (flag, command) => {
    const refused = e2e.textOf((await e2e.command(ADA, command, OPS)).message);
    expect(refused).toContain(flag);
    expect(refused).toContain('the id is 3,500 characters; the most it can be is 21');
    expect(refused).toContain('e.g.');
    expect(refused).not.toContain(LONG);
    expect(await e2e.stack.store.channelPolicy.get(team(), OPS)).toBeUndefined();
    const shown = e2e.textOf((await e2e.command(ALICE, 'policy', OPS)).message);
    expect(shown).toContain('workspace policy');
    expect(shown).toContain('*Approvals needed:*');
  });

  it.each([
    ['--approvers', `approvals policy --approvers U${LONG}`],
    ['--approver-group', `approvals policy --approver-group S${LONG}`],
  ])('approvals policy %s of 3,500 characters', async (flag, command) => {
    const before = await e2e.stack.store.approvalPolicy.get(team());
    const refused = e2e.textOf((await e2e.command(ADA, command, OPS)).message);
    expect(refused).toContain(flag);
    expect(refused).toContain('the id is 3,500 characters; the most it can be is 21');
    expect(refused).not.toContain(LONG);
    expect(await e2e.stack.store.approvalPolicy.get(team())).toEqual(before);
  });
});
