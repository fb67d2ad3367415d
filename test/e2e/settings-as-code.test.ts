import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import type { SettingsDocument } from '../../lib/core/settings/document.js';
import { canonicalSettings, readSettings, settingsDigest } from '../../lib/core/settings/model.js';
import { CallbackId } from '../../lib/slack-kit/interaction-ids.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { ADA, ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';

/**
 * Team settings as code, as Slack drives it: `/cloud settings export` sends the document to the
 * admin's DM, `/cloud settings import` opens a form whose submission is planned into an approval
 * card, and only another person's approval applies it (in the worker), while the settings are
 * still those the request saw. History and rollback go the same way. Ada (a Slack admin) asks;
 * Alice and Carol (admins the policy names) approve; Bob, an approver but no admin, cannot.
 */

const GENERAL = 'C0GENERAL';
/** An admin the policy names, besides Alice: the second approval a rule of two needs. */
const CAROL = 'U0CAROL';
let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;

beforeAll(async () => {
  e2e = await startE2E();
  const { store } = e2e.stack;
  e2e.stack.standIn.store.addUser({
    id: CAROL,
    name: 'carol',
    real_name: 'Carol Lead',
    is_admin: false,
    is_owner: false,
    is_bot: false,
    tz: 'UTC',
    tz_offset: 0,
  });
  await e2e.login(CAROL, e2e.emulator.demoToken);
  // One of every kind of setting, named through the stand-in's directory.
  await store.approvalPolicy.put(
    team(),
    { approverUsers: [ADA, ALICE, BOB, CAROL], approverGroup: 'S0ONCALL', admins: [ALICE, CAROL] },
    ADA,
  );
  await store.channelPolicy.put(
    team(),
    CHANNEL,
    {
      allowedClasses: ['read', 'change', 'destructive'],
      rules: { destructive: { requiredApprovals: 1 }, 'volumes.delete': { stepUp: 'code' } },
      breakGlass: { enabled: true, users: [BOB] },
      auditChannel: GENERAL,
    },
    ADA,
  );
  await store.aliases.put(team(), { kind: 'workspace' }, 'vl', 'volumes list', ADA);
  await store.aliases.put(team(), { kind: 'channel', channel: CHANNEL }, 'rmvol', 'volumes delete $1', ADA);
  await store.runbooks.add({
    team: team(),
    channel: null,
    name: 'reboot',
    steps: ['nodes reboot $1'],
    createdBy: ADA,
  });
  await store.reports.create({
    team: team(),
    kind: 'alerts',
    channel: CHANNEL,
    owner: BOB,
    profile: 'default',
    schedule: { type: 'every', minutes: 15 },
    nextRunAt: new Date('2030-01-01T00:00:00Z'),
    filter: {},
  });
});

afterAll(async () => {
  await e2e?.close();
});

/** The newest settings file the stand-in holds, with where it was shared. */
function lastSettingsFile() {
  const file = e2e.stack.standIn.store
    .files()
    .filter((f) => f.name.startsWith('settings-'))
    .at(-1);
  if (!file?.bytes) throw new Error('no settings file uploaded');
  return { text: file.bytes.toString('utf8'), channels: file.pendingShare?.channels ?? file.channels };
}

async function exportedBy(user: string): Promise<{ text: string; document: SettingsDocument }> {
  const before = e2e.stack.standIn.store.files().length;
  const delivery = await e2e.command(user, 'settings export');
  expect(e2e.textOf(delivery.message)).toContain('on its way to your direct messages');
  expect(e2e.stack.standIn.store.files()).toHaveLength(before + 1);
  const { text } = lastSettingsFile();
  return { text, document: parseYaml(text) as SettingsDocument };
}

function cards(): StoredMessage[] {
  return e2e.stack.standIn.store
    .messages(CHANNEL)
    .filter((m) => !m.thread_ts && !m.ephemeral && JSON.stringify(m.blocks).includes(ActionId.approve));
}

function cardNow(card: StoredMessage): StoredMessage {
  return e2e.stack.standIn.store.findMessage(CHANNEL, card.ts) ?? card;
}

function threadOf(card: StoredMessage): string {
  return e2e.stack.standIn.store
    .thread(CHANNEL, card.ts)
    .map((m) => e2e.textOf(m))
    .join('\n');
}

async function click(user: string, card: StoredMessage, actionId: string) {
  const delivery = await e2e.stack.workspace.click(user, cardNow(card), { actionId });
  expect(delivery.status).toBe(200);
  await e2e.stack.drain();
}

/** Alice, then Carol while the card still asks: as many admins' approvals as the rule needs. */
async function approveByOthers(card: StoredMessage) {
  await click(ALICE, card, ActionId.approve);
  if (JSON.stringify(cardNow(card).blocks).includes(ActionId.approve))
    await click(CAROL, card, ActionId.approve);
}

/** `/cloud settings import` by `user`, then the form submitted with `text`; the Slack answer. */
async function importAs(user: string, text: string) {
  const opened = await e2e.command(user, 'settings import');
  expect(opened.status).toBe(200);
  const view = e2e.openView(user);
  if (!view) throw new Error(`no import form opened for ${user}: ${JSON.stringify(opened.body)}`);
  expect(view.view.callback_id).toBe(CallbackId.settingsImport);
  const delivery = await e2e.stack.workspace.submitView(user, view, { document: { document_input: text } });
  await e2e.stack.drain();
  expect(delivery.status).toBe(200);
  return delivery.body as { response_action?: string; errors?: Record<string, string> } | undefined;
}

/**
 * `/cloud settings import` by `user`, then the form submitted with a file uploaded to its file
 * field (and `text` pasted too, when given); the Slack answer.
 */
async function importFileAs(user: string, file: { name: string; bytes: Buffer } | undefined, text?: string) {
  const opened = await e2e.command(user, 'settings import');
  expect(opened.status).toBe(200);
  const view = e2e.openView(user);
  if (!view) throw new Error(`no import form opened for ${user}: ${JSON.stringify(opened.body)}`);
  const delivery = await e2e.stack.workspace.submitView(user, view, {
    ...(text === undefined ? {} : { document: { document_input: text } }),
    document_file: { document_file_input: { files: file === undefined ? [] : [file] } },
  });
  await e2e.stack.drain();
  expect(delivery.status).toBe(200);
  return delivery.body as { response_action?: string; errors?: Record<string, string> } | undefined;
}

const downloads = () => e2e.stack.standIn.store.callsTo('url_private').length;

/** Imports `edit`ed settings as `user` and answers the card it posted. */
async function requestImport(user: string, edit: (document: SettingsDocument) => void) {
  const { document } = await exportedBy(ADA);
  edit(document);
  const cardsBefore = cards().length;
  const answer = await importAs(user, toYaml(document));
  expect(answer?.response_action).toBeUndefined();
  expect(cards()).toHaveLength(cardsBefore + 1);
  const card = cards().at(-1) as StoredMessage;
  return { document, card };
}

async function digestNow(): Promise<string> {
  return settingsDigest(canonicalSettings(await readSettings(e2e.stack.store, team())));
}

const headVersion = () => e2e.stack.store.settingsVersions.headVersion(team());

describe('/cloud settings export', () => {
  it("sends an admin the document, with channels and people by name, to the admin's DM", async () => {
    await exportedBy(ADA);
    const { text, channels } = lastSettingsFile();
    expect(channels).toEqual([`D${ADA}`]);
    expect(text).toContain('"#ops":');
    expect(text).toContain('- "@alice"');
    expect(text).toContain('approverGroup: "@oncall"');
    expect(text).toContain('auditChannel: "#general"');
    expect(text).toContain('owner: "@bob"');
    expect(text).not.toContain(ALICE);
    expect(text).not.toContain(CHANNEL);
    const document = parseYaml(text) as SettingsDocument;
    expect(document.workspace.aliases).toEqual({ vl: 'volumes list' });
    expect(document.channels['#ops']).toMatchObject({
      rules: { destructive: { required: 1 }, 'volumes.delete': { stepUp: 'code' } },
      breakGlass: { enabled: true, people: ['@bob'] },
      aliases: { rmvol: 'volumes delete $1' },
      reports: [{ kind: 'alerts', owner: '@bob', profile: 'default', schedule: 'every 15m' }],
    });
    expect(document.workspace.runbooks).toEqual({ reboot: ['nodes reboot $1'] });
  });

  it('refuses someone who is no admin, and sends nothing', async () => {
    const before = e2e.stack.standIn.store.files().length;
    const refused = await e2e.command(BOB, 'settings export');
    expect(e2e.textOf(refused.message)).toContain('Only workspace admins');
    expect(e2e.stack.standIn.store.files()).toHaveLength(before);
    expect(e2e.stack.standIn.store.messages(`D${BOB}`)).toEqual([]);
  });
});

describe('/cloud settings import', () => {
  it('an edited export is shown as a card, changes nothing until another admin approves, then is the new version and exports as edited', async () => {
    const headBefore = await headVersion();
    const digestBefore = await digestNow();
    const { document: edited, card } = await requestImport(ADA, (document) => {
      document.workspace.approvals.required = 2;
      document.workspace.aliases.nl = 'nodes list';
      const ops = document.channels['#ops'];
      if (!ops?.rules?.destructive) throw new Error('no #ops rule exported');
      ops.rules.destructive.requireReason = true;
    });
    const shown = e2e.textOf(card);
    expect(card.blocks[0]).toMatchObject({
      type: 'header',
      text: { text: 'Approval needed: apply to the workspace settings the imported document (3 changes)' },
    });
    expect(shown).toContain('`approvals.required`: `1` → `2`');
    expect(shown).toContain('`aliases.nl`: `nodes list`');
    expect(shown).toContain('#ops `rules.destructive.requireReason`: `on`');
    const told = e2e.textOf(e2e.lastSeen(ADA));
    expect(told).toContain('Nothing is changed yet');
    expect(told).toContain('The 3 changes');

    // Nothing changed yet: the policy, the store and the versions are as they were.
    expect(e2e.textOf((await e2e.command(BOB, 'approvals policy')).message)).toContain(
      'Approvals needed:* 1',
    );
    expect(await digestNow()).toBe(digestBefore);
    expect(await headVersion()).toBe(headBefore);

    await click(ALICE, card, ActionId.approve);
    expect((await e2e.stack.store.approvalPolicy.get(team())).requiredApprovals).toBe(2);
    const head = await headVersion();
    expect(head).toBeGreaterThan(headBefore);
    expect((await e2e.stack.store.settingsVersions.get(team(), head))?.source).toBe('slack');
    expect(threadOf(card)).toContain(`The settings are now version ${head}`);
    expect((await exportedBy(ADA)).document).toEqual(edited);
  });

  it('is not applied by the click of the admin who asked (self-approval off)', async () => {
    const digestBefore = await digestNow();
    const headBefore = await headVersion();
    const { card } = await requestImport(ALICE, (document) => {
      document.workspace.approvals.expiryMinutes = 45;
    });
    await click(ALICE, card, ActionId.approve);
    expect(e2e.textOf(e2e.lastSeen(ALICE))).toContain('someone else');
    expect(JSON.stringify(cardNow(card).blocks)).toContain(ActionId.approve);
    expect(await digestNow()).toBe(digestBefore);
    expect(await headVersion()).toBe(headBefore);
    expect((await e2e.stack.store.approvalPolicy.get(team())).expiryMinutes).toBe(15);
    await click(ALICE, card, ActionId.cancel);
  });

  it('is not decided by an approver who is no admin: Bob is told an admin has to, and nothing changes', async () => {
    const digestBefore = await digestNow();
    const { card } = await requestImport(ADA, (document) => {
      document.workspace.approvals.expiryMinutes = 50;
    });
    await click(BOB, card, ActionId.approve);
    expect(e2e.textOf(e2e.lastSeen(BOB))).toContain('an admin');
    expect(JSON.stringify(cardNow(card).blocks)).toContain(ActionId.approve);
    await click(BOB, card, ActionId.deny);
    expect(JSON.stringify(cardNow(card).blocks)).toContain(ActionId.approve);
    expect(await digestNow()).toBe(digestBefore);
    await click(ADA, card, ActionId.cancel);
  });

  it('refuses at approval when the settings changed after the request: nothing of the document is applied', async () => {
    const headBefore = await headVersion();
    const { card } = await requestImport(ADA, (document) => {
      document.workspace.approvals.expiryMinutes = 30;
      document.workspace.aliases.dl = 'databases list';
    });
    const added = await e2e.command(ADA, 'alias add meanwhile "volumes list"');
    expect(e2e.textOf(added.message)).toContain('Added alias `meanwhile`');
    const digestMeanwhile = await digestNow();

    await approveByOthers(card);
    expect(threadOf(card)).toContain('the settings changed after this request was made');
    expect(await digestNow()).toBe(digestMeanwhile);
    expect((await e2e.stack.store.approvalPolicy.get(team())).expiryMinutes).toBe(15);
    const aliases = await e2e.stack.store.aliases.list(team(), CHANNEL);
    expect(aliases.workspace.map((alias) => alias.name)).not.toContain('dl');
    expect(aliases.channel.map((alias) => alias.name)).toContain('meanwhile');
    expect(await headVersion()).toBe(headBefore);
  });

  it('refuses the form of someone who is no admin under the field, and posts no card', async () => {
    const { text } = await exportedBy(ADA);
    const digestBefore = await digestNow();
    const cardsBefore = cards().length;
    const answer = await importAs(BOB, text.replace('required: 2', 'required: 3'));
    expect(answer?.response_action).toBe('errors');
    expect(answer?.errors?.document).toContain('Only workspace admins');
    expect(cards()).toHaveLength(cardsBefore);
    expect(await digestNow()).toBe(digestBefore);
  });

  it('an approve click Slack delivers twice applies the document once: one version', async () => {
    const headBefore = await headVersion();
    const { card } = await requestImport(ADA, (document) => {
      document.workspace.approvals.expiryMinutes = 20;
    });
    const policy = await e2e.stack.store.approvalPolicy.get(team());
    for (const approver of [ALICE, CAROL].slice(0, policy.requiredApprovals)) {
      await Promise.all([
        e2e.stack.workspace.click(approver, cardNow(card), { actionId: ActionId.approve }),
        e2e.stack.workspace.click(approver, cardNow(card), { actionId: ActionId.approve }),
      ]);
      await e2e.stack.drain();
    }
    expect((await e2e.stack.store.approvalPolicy.get(team())).expiryMinutes).toBe(20);
    const versions = await e2e.stack.store.settingsVersions.list(team(), 20);
    expect(
      versions.filter((version) => version.version > headBefore && version.source === 'slack'),
    ).toHaveLength(1);
    const replies = e2e.stack.standIn.store.thread(CHANNEL, card.ts).filter((m) => m.ts !== card.ts);
    expect(replies.filter((m) => m.text.includes('The settings are now version'))).toHaveLength(1);
  });

  it('answers an invalid document under the field with the line of its first mistake, and stores nothing', async () => {
    const { text } = await exportedBy(ADA);
    const lines = text.split('\n');
    const at = lines.findIndex((line) => line.trim().startsWith('required:'));
    expect(at).toBeGreaterThan(0);
    lines[at] = (lines[at] as string).replace('required:', 'requird:');
    const digestBefore = await digestNow();
    const headBefore = await headVersion();
    const cardsBefore = cards().length;

    const answer = await importAs(ADA, lines.join('\n'));
    expect(answer?.response_action).toBe('errors');
    expect(answer?.errors?.document).toMatch(new RegExp(`^Line ${at + 1}: .*requird`));
    expect(e2e.openView(ADA)).toBeDefined();
    expect(cards()).toHaveLength(cardsBefore);
    expect(await digestNow()).toBe(digestBefore);
    expect(await headVersion()).toBe(headBefore);
  });
});

describe('/cloud settings import with the document as a file', () => {
  /** What nothing stored looks like: the settings, their versions and the cards as they were. */
  async function unchanged<T>(act: () => Promise<T>): Promise<T> {
    const digestBefore = await digestNow();
    const headBefore = await headVersion();
    const cardsBefore = cards().length;
    const result = await act();
    expect(cards()).toHaveLength(cardsBefore);
    expect(await digestNow()).toBe(digestBefore);
    expect(await headVersion()).toBe(headBefore);
    return result;
  }

  it('plans a 20,000-character document attached as a file, too large for the form, into a card', async () => {
    const { document } = await exportedBy(ADA);
    const was = document.workspace.approvals.expiryMinutes;
    document.workspace.approvals.expiryMinutes = was + 7;
    const note = Array.from({ length: 200 }, (_, i) => `# ${String(i).padStart(3, '0')} ${'-'.repeat(96)}`);
    const text = `${note.join('\n')}\n${toYaml(document)}`;
    expect(text.length).toBeGreaterThan(20_000);
    const cardsBefore = cards().length;
    const before = downloads();

    const answer = await importFileAs(ADA, { name: 'settings.yaml', bytes: Buffer.from(text, 'utf8') });
    expect(answer?.response_action).toBeUndefined();
    expect(downloads()).toBe(before + 1);
    expect(cards()).toHaveLength(cardsBefore + 1);
    const card = cards().at(-1) as StoredMessage;
    expect(e2e.textOf(card)).toContain(`\`approvals.expiryMinutes\`: \`${was}\` → \`${was + 7}\``);
    expect(e2e.textOf(e2e.lastSeen(ADA))).toContain('Nothing is changed yet');
    await click(ADA, card, ActionId.cancel);
  });

  it('refuses a file larger than a document can be by the size Slack gives, without downloading it', async () => {
    const before = downloads();
    const bytes = Buffer.from(`# ${'x'.repeat(300 * 1024)}\nsettings: 1\n`, 'utf8');
    const answer = await unchanged(() => importFileAs(ADA, { name: 'huge.yaml', bytes }));
    expect(answer?.response_action).toBe('errors');
    expect(answer?.errors?.document_file).toContain(`${bytes.length.toLocaleString('en-US')} bytes`);
    expect(answer?.errors?.document_file).toContain('262,144');
    expect(downloads()).toBe(before);
  });

  it("answers a file that is not UTF-8 text with the document's problem, and stores nothing", async () => {
    const bytes = Buffer.from([0x73, 0x65, 0x74, 0x3a, 0x20, 0xff, 0xfe, 0x0a]);
    const answer = await unchanged(() => importFileAs(ADA, { name: 'latin1.yaml', bytes }));
    expect(answer?.response_action).toBe('errors');
    expect(answer?.errors?.document_file).toContain('UTF-8');
  });

  it('answers a file that is not YAML with the line of its mistake, and stores nothing', async () => {
    const bytes = Buffer.from('settings: 1\nworkspace: [unclosed\n', 'utf8');
    const answer = await unchanged(() => importFileAs(ADA, { name: 'broken.yml', bytes }));
    expect(answer?.response_action).toBe('errors');
    expect(answer?.errors?.document_file).toMatch(/^Line \d+: /);
  });

  it('refuses the file of someone who is no admin under the file field, without downloading it', async () => {
    const { text } = await exportedBy(ADA);
    const before = downloads();
    const file = {
      name: 'settings.yaml',
      bytes: Buffer.from(text.replace('required: 2', 'required: 3'), 'utf8'),
    };
    const cardsBefore = cards().length;
    const answer = await unchanged(() => importFileAs(BOB, file));
    expect(answer?.response_action).toBe('errors');
    expect(answer?.errors?.document_file).toContain('Only workspace admins');
    expect(downloads()).toBe(before);
    expect(cards()).toHaveLength(cardsBefore);
  });

  it('refuses a form with both a pasted document and a file, downloading nothing', async () => {
    const { text } = await exportedBy(ADA);
    const before = downloads();
    const file = { name: 'settings.yaml', bytes: Buffer.from(text, 'utf8') };
    const answer = await unchanged(() => importFileAs(ADA, file, text));
    expect(answer?.response_action).toBe('errors');
    expect(answer?.errors?.document).toContain('not both');
    expect(downloads()).toBe(before);
  });

  it('refuses a form with neither a pasted document nor a file', async () => {
    const answer = await unchanged(() => importFileAs(ADA, undefined));
    expect(answer?.response_action).toBe('errors');
    expect(answer?.errors?.document).toContain('Paste the document or attach it');
  });

  it.each([500, 404])(
    'tells under the file field that Slack did not give the file (HTTP %i), and stores nothing',
    async (status) => {
      const { document } = await exportedBy(ADA);
      document.workspace.approvals.expiryMinutes += 11;
      const edited = toYaml(document);
      e2e.stack.standIn.failFileDownloads({ status });
      try {
        const file = { name: 'settings.yaml', bytes: Buffer.from(edited, 'utf8') };
        const answer = await unchanged(() => importFileAs(ADA, file));
        expect(answer?.response_action).toBe('errors');
        expect(answer?.errors?.document_file).toContain(`Slack did not give the file (HTTP ${status})`);
        expect(answer?.errors?.document_file).toContain('nothing was imported');
      } finally {
        e2e.stack.standIn.failFileDownloads(undefined);
      }
    },
  );
});

describe('/cloud settings history and rollback', () => {
  it('lists the versions, and a rollback to the one before an import, once another admin approves, restores it exactly', async () => {
    // A change by command since the last version: the apply keeps it as a version of its own.
    const added = await e2e.command(ADA, 'alias add before-import "volumes list"');
    expect(e2e.textOf(added.message)).toContain('Added alias `before-import`');
    const { document: beforeImport } = await exportedBy(ADA);
    const digestBefore = await digestNow();
    const { card } = await requestImport(ADA, (document) => {
      document.workspace.approvals.expiryMinutes = 60;
    });
    await approveByOthers(card);
    expect((await e2e.stack.store.approvalPolicy.get(team())).expiryMinutes).toBe(60);
    const head = await headVersion();
    // The settings as the commands had left them (the alias just added) were kept first.
    const kept = await e2e.stack.store.settingsVersions.get(team(), head - 1);
    expect(kept).toMatchObject({ source: 'commands', digest: digestBefore });

    const history = e2e.textOf((await e2e.command(ADA, 'settings history')).message);
    expect(history).toContain(`*${head}* · `);
    expect(history).toContain(`*${head - 1}* · `);
    expect(history).toContain('as commands had left them');
    expect(history).toContain('imported in Slack');

    const cardsBefore = cards().length;
    const asked = await e2e.command(ADA, `settings rollback ${head - 1}`);
    expect(e2e.textOf(asked.message)).toContain('Nothing is changed yet');
    expect(cards()).toHaveLength(cardsBefore + 1);
    const rollbackCard = cards().at(-1) as StoredMessage;
    expect(rollbackCard.blocks[0]).toMatchObject({
      type: 'header',
      text: { text: `Approval needed: roll back the workspace settings to version ${head - 1} (1 change)` },
    });
    expect(await digestNow()).not.toBe(digestBefore);

    await approveByOthers(rollbackCard);
    expect(await digestNow()).toBe(digestBefore);
    const rolledBack = await e2e.stack.store.settingsVersions.get(team(), await headVersion());
    expect(rolledBack).toMatchObject({ source: 'rollback', rollbackOf: head - 1, digest: digestBefore });
    expect((await exportedBy(ADA)).document).toEqual(beforeImport);
  });
});
