import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { ADA, ALICE, BOB, type E2E, startE2E } from '../support/e2e.js';

/**
 * Aliases end to end: signed commands, DynamoDB Local, the emulator and the Slack stand-in. An
 * alias runs its expansion down the same path as the typed command, so the channel's guardrails
 * and approvals apply to it unchanged, and the answer says what it ran.
 */

const OPS = 'C0OPS';
const GENERAL = 'C0GENERAL';
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
  const store = e2e.stack.store;
  for (const channel of [OPS, GENERAL]) {
    await store.channelPolicy.clear(team(), channel);
    const listed = await store.aliases.list(team(), channel);
    for (const alias of [...listed.channel, ...listed.workspace])
      await store.aliases.remove(team(), alias.scope, alias.name);
  }
  await store.approvalPolicy.put(team(), {}, ADA);
});

function newVolume(label = `a-${Math.random().toString(36).slice(2, 8)}`): number {
  return e2e.emulator.control.createVolume({ label }).id;
}

function cards(channel: string): StoredMessage[] {
  return e2e.stack.standIn.store
    .messages(channel)
    .filter((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(ActionId.approve));
}

async function say(user: string, text: string, channel = OPS): Promise<string> {
  return e2e.textOf((await e2e.command(user, text, channel)).message);
}

describe('/cloud alias add, list, remove', () => {
  it('adds a channel alias, lists it, and removes it', async () => {
    const added = await say(ALICE, 'alias add vv "volumes view $1"');
    expect(added).toContain('Added alias `vv` for this channel');
    expect(added).toContain('`/cloud vv $1` runs `/cloud volumes view $1`');

    const listed = await say(ALICE, 'alias list');
    expect(listed).toContain('Aliases of this channel');
    expect(listed).toContain('`vv` → `/cloud volumes view $1` by <@U0ALICE>');
    // Another channel does not see it.
    expect(await say(ALICE, 'alias list', GENERAL)).toContain('No aliases here yet');

    expect(await say(ALICE, 'alias remove vv')).toContain('Removed alias `vv` of this channel');
    expect(await say(ALICE, 'alias list')).toContain('No aliases here yet');
    expect(await say(ALICE, 'vv 12')).toContain('There is no `vv` command');
    const { entries } = await e2e.stack.store.audit.list(team());
    expect(entries.map((e) => e.action)).toEqual(expect.arrayContaining(['alias.add', 'alias.remove']));
  });

  it('is listed by help, from the command specs', async () => {
    const help = await say(ALICE, 'help alias');
    expect(help).toContain('alias add NAME');
    expect(help).toContain('alias remove NAME [--workspace]');
  });

  it('refuses a workspace alias from someone who is not an admin, and takes it from an admin', async () => {
    const refused = await say(ALICE, 'alias add vv "volumes view $1" --workspace');
    expect(refused).toContain('Only workspace admins');
    expect((await e2e.stack.store.aliases.list(team(), OPS)).workspace).toEqual([]);

    expect(await say(ADA, 'alias add vv "volumes view $1" --workspace')).toContain('for the workspace');
    expect(await say(ALICE, 'alias remove vv --workspace')).toContain('Only workspace admins');
    expect((await e2e.stack.store.aliases.list(team(), GENERAL)).workspace.map((a) => a.name)).toEqual([
      'vv',
    ]);
  });

  it("lets only its author or an admin replace or remove a channel's alias", async () => {
    await say(ALICE, 'alias add vv "volumes view $1"');
    expect(await say(BOB, 'alias add vv "volumes delete $1"')).toContain(
      'was added by <@U0ALICE>; only they or a workspace admin can replace it',
    );
    expect(await say(BOB, 'alias remove vv')).toContain('only they or a workspace admin can remove it');
    expect(
      (await e2e.stack.store.aliases.get(team(), { kind: 'channel', channel: OPS }, 'vv'))?.expansion,
    ).toBe('volumes view $1');
    expect(await say(ADA, 'alias remove vv')).toContain('Removed alias `vv`');
  });

  it.each([
    ['__proto__', 'cannot be an alias name'],
    ['constructor', 'reserved word'],
    ['volumes', 'cannot shadow'],
    ['vol', 'cannot shadow'],
    ['help', 'cannot shadow'],
    ['policy', 'cannot shadow'],
    ['alias', 'cannot shadow'],
    ['delete', 'cannot shadow'],
    ['x'.repeat(200), 'cannot be an alias name'],
    ['rm\u200bvol', 'cannot be an alias name'],
    ['vоls', 'cannot be an alias name'], // a Cyrillic о
    ['RMVOL', 'cannot be an alias name'],
  ])('refuses the name %j', async (name, reason) => {
    const answer = await say(ALICE, `alias add ${name} "volumes list"`);
    expect(answer).toContain(reason);
    expect(answer).not.toContain('\u200b');
    expect((await e2e.stack.store.aliases.list(team(), OPS)).channel).toEqual([]);
  });

  it.each([
    ['"vv2 1"', 'There is no `vv2` command'],
    ['"volumes delete $1 --break-glass because"', '`--break-glass` cannot be part of an alias'],
    ['"policy --reset"', 'not help, the bot'],
    ['"alias remove x"', 'not help, the bot'],
    ['"help volumes"', 'not help, the bot'],
    ['"volumes view $2"', 'without gaps'],
    ['"volumes frobnicate $1"', 'has no action `frobnicate`'],
    ['"volumes view $1 --no-such-flag 3"', 'not a command that runs'],
    [
      `"volumes list --label ${'y'.repeat(600)}"`,
      'The expansion is 621 characters; the most it can be is 500.',
    ],
  ])('refuses the expansion %s', async (expansion, reason) => {
    await say(ALICE, 'alias add vv2 "volumes view $1"');
    const answer = await say(ALICE, `alias add rmvol ${expansion}`);
    expect(answer).toContain(reason);
    expect(
      await e2e.stack.store.aliases.get(team(), { kind: 'channel', channel: OPS }, 'rmvol'),
    ).toBeUndefined();
  });
});

describe('/cloud NAME ARGS', () => {
  it('runs a read and says what it ran', async () => {
    const label = `alias-read-${Math.random().toString(36).slice(2, 8)}`;
    const volumeId = newVolume(label);
    await say(ALICE, 'alias add vv "volumes view $1"');
    const before = e2e.emulator.control.requestCount('volumes.view', { volumeId });

    const answer = await say(ALICE, `vv ${volumeId}`);
    expect(answer).toContain(`Alias \`vv\` (this channel): \`/cloud volumes view ${volumeId}\``);
    expect(answer).toContain(label);
    expect(e2e.emulator.control.requestCount('volumes.view', { volumeId })).toBe(before + 1);
  });

  it('is refused with 0 API calls where the channel forbids the class of its expansion', async () => {
    await say(ADA, 'policy --allow read');
    await say(ALICE, 'alias add rmvol "volumes delete $1"');
    const volumeId = newVolume();
    const before = e2e.emulator.control.requestCount();

    const answer = await say(ALICE, `rmvol ${volumeId}`);
    expect(answer).toContain('is a *destructive* operation');
    expect(answer).toContain('allows only read operations');
    expect(answer).toContain(`\`/cloud volumes delete ${volumeId}\``);
    expect(e2e.emulator.control.requestCount()).toBe(before);
    expect(cards(OPS)).toEqual([]);
    expect(e2e.emulator.control.volumeExists(volumeId)).toBe(true);
  });

  it('asks for approval where the channel needs it, and the workspace alias runs once approved', async () => {
    await say(ADA, 'alias add rmvol "volumes delete $1" --workspace');
    const volumeId = newVolume();
    const cardsBefore = cards(GENERAL).length;

    const answer = await say(ALICE, `rmvol ${volumeId}`, GENERAL);
    expect(answer).toContain(`Alias \`rmvol\` (the workspace): \`/cloud volumes delete ${volumeId}\``);
    expect(answer).toContain('needs 1 approval');
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId })).toBe(0);
    const card = cards(GENERAL).at(-1);
    expect(cards(GENERAL)).toHaveLength(cardsBefore + 1);
    if (!card) throw new Error('no card');
    await e2e.stack.workspace.click(BOB, card, { actionId: ActionId.approve });
    await e2e.stack.drain();
    expect(e2e.emulator.control.volumeExists(volumeId)).toBe(false);

    const { entries } = await e2e.stack.store.audit.list(team());
    const used = entries.find((e) => e.action === 'alias.run');
    expect(used).toMatchObject({
      actor: ALICE,
      target: 'alias rmvol',
      detail: `/cloud volumes delete ${volumeId}`,
    });
  });

  it('names the alias on the approval card, from the stored request, and not on a typed request’s card', async () => {
    await say(ADA, 'alias add dropvol "volumes delete $1"');
    const volumeId = newVolume();
    await say(ALICE, `dropvol ${volumeId}`);
    const card = cards(OPS).at(-1);
    if (!card) throw new Error('no card');
    expect(e2e.textOf(card)).toContain('via alias `dropvol`');
    const thread = e2e.stack.standIn.store.messages(OPS).filter((m) => m.thread_ts === card.ts);
    expect(e2e.textOf(thread[0])).toContain(`<@${ALICE}> asked for this via alias \`dropvol\``);
    const pending = await e2e.stack.store.approvals.listPending(team());
    const request = pending.find((a) => a.messageTs === card.ts);
    expect(request?.viaAlias).toBe('dropvol');

    // The card is drawn again from the stored request when it moves: the alias is still named.
    await e2e.stack.workspace.click(BOB, card, { actionId: ActionId.approve });
    await e2e.stack.drain();
    const updated = e2e.stack.standIn.store.findMessage(OPS, card.ts);
    expect(e2e.textOf(updated)).toContain('via alias `dropvol`');
    expect(e2e.emulator.control.volumeExists(volumeId)).toBe(false);

    const typedId = newVolume();
    await say(ALICE, `volumes delete ${typedId}`);
    expect(e2e.textOf(cards(OPS).at(-1))).not.toContain('via alias');
  });

  it('puts the alias line on the worker’s later answer to a handed-off command too', async () => {
    await say(ALICE, 'alias add rb "nodes reboot $1"');
    const node = [...e2e.emulator.control.world.nodes.values()].find((n) => n.status === 'running');
    if (!node) throw new Error('no running node');
    const line = `Alias \`rb\` (this channel): \`/cloud nodes reboot ${node.id}\``;
    await say(ALICE, `rb ${node.id}`);
    const note = e2e.stack.standIn.store
      .callsTo('chat.postMessage')
      .filter((call) => String(call.body.text).includes('working on it'))
      .at(-1);
    expect(String(note?.body.text)).toContain(line);
    // The working note in the channel named the alias; it is gone, and the worker's answer names it too.
    const answers = e2e.seen(ALICE, OPS).filter((m) => e2e.textOf(m).includes(line));
    expect(answers.length).toBeGreaterThanOrEqual(1);
    expect(answers.some((m) => /working on/i.test(m.text))).toBe(false);
    expect(e2e.emulator.control.requestCount('nodes.reboot', { nodeId: node.id })).toBe(1);
  });

  it("uses the channel's alias over the workspace's of the same name", async () => {
    await say(ADA, 'alias add vv "volumes list" --workspace');
    await say(ALICE, 'alias add vv "regions list"');
    expect(await say(ALICE, 'vv')).toContain('`/cloud regions list`');
    expect(await say(ALICE, 'vv', GENERAL)).toContain('`/cloud volumes list`');
  });

  it('refuses missing or extra arguments and flags, naming the alias and its parameters, with no API call', async () => {
    await say(ALICE, 'alias add vattach "volumes attach $1 --node-id $2"');
    const before = e2e.emulator.control.requestCount();
    expect(await say(ALICE, 'vattach 12')).toContain(
      'Alias `vattach` takes 2 arguments, but 1 was given: `/cloud vattach $1 $2`.',
    );
    expect(await say(ALICE, 'vattach 1 2 3')).toContain('but 3 were given');
    expect(await say(ALICE, 'vattach 1 2 --break-glass "now"')).toContain('no flags');
    expect(await say(ALICE, 'VATTACH 1 2 --form')).toContain('no flags');
    expect(e2e.emulator.control.requestCount()).toBe(before);
    expect(await say(ALICE, 'vattach --help')).toContain(
      'Alias `vattach` of this channel runs `/cloud volumes attach $1 --node-id $2`',
    );
  });

  it('keeps an argument that looks like a flag one value: it never becomes --break-glass', async () => {
    await say(ADA, 'policy --allow-break-glass on --break-glass-users @alice');
    await say(ALICE, 'alias add rmvol "volumes delete $1"');
    const volumeId = newVolume();
    const answer = await say(ALICE, `rmvol "--break-glass ${volumeId}"`);
    expect(answer).toContain(`\`/cloud volumes delete "--break-glass ${volumeId}"\``);
    expect(answer).toContain('must be a whole number');
    expect(e2e.emulator.control.requestCount('volumes.delete', { volumeId })).toBe(0);
    expect(e2e.emulator.control.volumeExists(volumeId)).toBe(true);
  });
});
