import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { canonicalSettings, readSettings, settingsDigest } from '../../../lib/core/settings/model.js';
import type { DirectoryKind, Resolved, SettingsDirectory } from '../../../lib/core/settings/names.js';
import {
  applySettingsFromCi,
  exportSettings,
  planSettings,
  type SettingsDeps,
  type SettingsSurface,
} from '../../../lib/core/settings/settings.js';
import {
  documentText,
  MAX_DOCUMENT_BYTES,
  readSettingsDocument,
} from '../../../lib/core/settings/yaml-text.js';
import { createStore, type Store } from '../../../lib/store/index.js';
import { testCaller } from '../../support/caller.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * The settings document as the core reads and writes it, against DynamoDB Local: export, plan,
 * apply from CI under the digest the plan saw, versions, and documents that must change nothing.
 * Names are resolved through the directory port, here a fixed workspace (the Slack surface's
 * directory over the stand-in is tested end to end).
 */

const OPS = 'C0OPS';
const AUDIT = 'C0AUDIT';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';
const CAROL = 'U0CAROL';
const ONCALL = 'S0ONCALL';

const NAMES: Record<DirectoryKind, Record<string, string>> = {
  channel: { [OPS]: '#ops', [AUDIT]: '#audit' },
  user: { [ALICE]: '@alice', [BOB]: '@bob', [CAROL]: '@carol' },
  group: { [ONCALL]: '@oncall' },
};

/** A fixed workspace: names by id, ids by name (and ids as themselves). */
const directory: SettingsDirectory = {
  names: async (kind, ids) =>
    new Map(ids.flatMap((id) => (Object.hasOwn(NAMES[kind], id) ? [[id, NAMES[kind][id] as string]] : []))),
  resolve: async (kind, written) => {
    const byName = new Map(Object.entries(NAMES[kind]).map(([id, name]) => [name, id]));
    return new Map(
      written.map((text): [string, Resolved] => {
        const id = byName.get(text) ?? (Object.hasOwn(NAMES[kind], text) ? text : undefined);
        return [text, id ? { ok: true, id } : { ok: false, problem: `No ${kind} \`${text}\`.` }];
      }),
    );
  },
};

const surface: SettingsSurface = {
  directory,
  checks: {
    approverGroupMembers: async () => ({ kind: 'members', users: [ALICE, BOB] }),
    announcementAccess: async () => ({ kind: 'open' }),
  },
};

let table: TestTable;
let store: Store;
let deps: SettingsDeps;
beforeAll(async () => {
  table = await createTestTable();
  store = createStore(table.ctx, randomLocalCipher());
  deps = {
    store,
    logger: new Logger({ serviceName: 'settings-test', logLevel: 'SILENT' }),
    approvalAdmins: [ALICE],
  };
});
afterAll(() => table.dispose());

let teams = 0;
function newTeam(): string {
  teams += 1;
  return `T0SET${teams}`;
}

/** A workspace with one of every setting. */
async function furnish(team: string): Promise<string> {
  await store.approvalPolicy.put(
    team,
    {
      approverUsers: [ALICE, BOB],
      approverGroup: ONCALL,
      requiredApprovals: 2,
      stepUp: 'passkey',
      admins: [CAROL],
    },
    ALICE,
  );
  await store.channelPolicy.put(
    team,
    OPS,
    {
      allowedClasses: ['read', 'change', 'destructive'],
      rules: {
        destructive: { requiredApprovals: 2, requireReason: true },
        'volumes.delete': { stepUp: 'code' },
      },
      breakGlass: { enabled: true, users: [BOB] },
      auditChannel: AUDIT,
    },
    ALICE,
  );
  await store.aliases.put(team, { kind: 'workspace' }, 'vl', 'volumes list', ALICE);
  await store.aliases.put(team, { kind: 'channel', channel: OPS }, 'rmvol', 'volumes delete $1', ALICE);
  await store.runbooks.add({
    team,
    channel: null,
    name: 'reboot',
    steps: ['nodes reboot $1'],
    createdBy: ALICE,
  });
  await store.runbooks.add({
    team,
    channel: OPS,
    name: 'resize',
    steps: ['nodes shutdown $1', 'nodes resize $1 --type $2', 'nodes boot $1'],
    createdBy: ALICE,
  });
  const report = await store.reports.create({
    team,
    kind: 'alerts',
    channel: OPS,
    owner: BOB,
    profile: 'default',
    schedule: { type: 'every', minutes: 15 },
    nextRunAt: new Date('2030-01-01T00:00:00Z'),
    filter: {},
  });
  return report.id;
}

async function exported(team: string): Promise<string> {
  const outcome = await exportSettings(deps, surface, testCaller({ team, channel: OPS }, ALICE));
  if (outcome.kind !== 'exported') throw new Error(`not exported: ${outcome.kind}`);
  return outcome.text;
}

async function digestOf(team: string): Promise<string> {
  return settingsDigest(canonicalSettings(await readSettings(store, team)));
}

describe('export and import', () => {
  it('exports every setting with names and imports it back as no change at all', async () => {
    const team = newTeam();
    const reportId = await furnish(team);
    const text = await exported(team);
    const document = parseYaml(text);
    expect(document.workspace.approvals).toEqual({
      approvers: ['@alice', '@bob'],
      approverGroup: '@oncall',
      required: 2,
      selfApproval: false,
      expiryMinutes: 15,
      stepUp: 'passkey',
      requireReason: false,
      admins: ['@carol'],
    });
    expect(document.channels['#ops']).toEqual({
      allow: ['read', 'change', 'destructive'],
      rules: { destructive: { required: 2, requireReason: true }, 'volumes.delete': { stepUp: 'code' } },
      breakGlass: { enabled: true, people: ['@bob'] },
      auditChannel: '#audit',
      aliases: { rmvol: 'volumes delete $1' },
      runbooks: { resize: ['nodes shutdown $1', 'nodes resize $1 --type $2', 'nodes boot $1'] },
      reports: [
        {
          id: reportId,
          kind: 'alerts',
          owner: '@bob',
          profile: 'default',
          schedule: 'every 15m',
          paused: false,
          quietHours: null,
          burstAt: 3,
          flapMinutes: 60,
        },
      ],
    });
    const plan = await planSettings(deps, surface, team, text);
    expect(plan).toMatchObject({ kind: 'planned', changes: [] });
  });

  it("writes out the quiet hours of every kind that posts each new thing, the region status report's too, and applies an edit of them", async () => {
    const team = newTeam();
    await furnish(team);
    const regions = await store.reports.create({
      team,
      kind: 'regions',
      channel: OPS,
      owner: BOB,
      profile: 'default',
      schedule: { type: 'every', minutes: 5 },
      nextRunAt: new Date('2030-01-01T00:00:00Z'),
      filter: {},
    });
    await store.reports.setNoise(team, regions.id, {
      quietHours: { from: '22:00', to: '07:00', tz: 'UTC' },
      burstAt: 3,
      flapMinutes: 60,
    });
    const document = parseYaml(await exported(team));
    const written = document.channels['#ops'].reports.find((r: { id: string }) => r.id === regions.id);
    expect(written).toMatchObject({ kind: 'regions', quietHours: '22:00-07:00 UTC' });

    written.quietHours = null;
    const text = toYaml(document);
    const plan = await planSettings(deps, surface, team, text);
    if (plan.kind !== 'planned') throw new Error(JSON.stringify(plan));
    expect(plan.changes.length).toBe(1);
    await applySettingsFromCi(deps, surface, { team, text, expectedDigest: plan.baseDigest, actor: 'ci' });
    expect((await store.reports.get(team, regions.id))?.noise.quietHours).toBeNull();
  });

  it('round-trips an edit of every kind of setting: the export after applying is the edited document', async () => {
    const team = newTeam();
    await furnish(team);
    const before = parseYaml(await exported(team));
    const edited = structuredClone(before);
    edited.workspace.approvals.required = 1;
    edited.workspace.approvals.approverGroup = null;
    edited.workspace.aliases = { nl: 'nodes list' };
    edited.workspace.runbooks.reboot = ['nodes reboot $1', 'nodes view $1'];
    const ops = edited.channels['#ops'];
    ops.allow = ['read', 'change'];
    ops.rules = { change: { approvers: ['@carol'], selfApproval: true } };
    ops.breakGlass = { enabled: false, people: [] };
    ops.auditChannel = null;
    ops.aliases.rmvol = 'volumes view $1';
    delete ops.runbooks;
    ops.reports[0].schedule = 'daily 09:00 Europe/Berlin';
    ops.reports[0].paused = true;
    ops.reports[0].quietHours = '22:00-07:00 Europe/Berlin';
    ops.reports[0].burstAt = 5;
    ops.reports[0].flapMinutes = 30;
    edited.channels['#audit'] = { aliases: { who: 'nodes list' } };
    const text = toYaml(edited);
    const plan = await planSettings(deps, surface, team, text);
    if (plan.kind !== 'planned') throw new Error(JSON.stringify(plan));
    expect(plan.changes.length).toBeGreaterThan(10);
    const applied = await applySettingsFromCi(deps, surface, {
      team,
      text,
      expectedDigest: plan.baseDigest,
      actor: 'ci',
    });
    expect(applied).toMatchObject({ kind: 'applied' });
    const after = parseYaml(await exported(team));
    // What the store holds now reads back as the edit; a setting at its default is not written out.
    edited.channels['#ops'].auditChannel = undefined;
    edited.channels['#ops'].breakGlass = undefined;
    expect(after).toEqual(JSON.parse(JSON.stringify(edited)));
  });

  it('refuses an apply when the settings changed after the plan, and writes nothing', async () => {
    const team = newTeam();
    await furnish(team);
    const edited = parseYaml(await exported(team));
    edited.workspace.approvals.required = 1;
    const text = toYaml(edited);
    const plan = await planSettings(deps, surface, team, text);
    if (plan.kind !== 'planned') throw new Error('not planned');
    await store.aliases.put(team, { kind: 'workspace' }, 'late', 'nodes list', BOB);
    const changedDigest = await digestOf(team);
    const applied = await applySettingsFromCi(deps, surface, {
      team,
      text,
      expectedDigest: plan.baseDigest,
      actor: 'ci',
    });
    expect(applied).toEqual({ kind: 'stale', expected: plan.baseDigest, found: changedDigest });
    expect(await digestOf(team)).toBe(changedDigest);
    expect(await store.settingsVersions.headVersion(team)).toBe(0);
  });

  it('keeps the settings as the commands left them as a version before the first apply, and each apply as the next', async () => {
    const team = newTeam();
    await furnish(team);
    const original = await digestOf(team);
    const edited = parseYaml(await exported(team));
    edited.workspace.aliases.vl = 'volumes list --label web';
    const text = toYaml(edited);
    const plan = await planSettings(deps, surface, team, text);
    if (plan.kind !== 'planned') throw new Error('not planned');
    await applySettingsFromCi(deps, surface, { team, text, expectedDigest: plan.baseDigest, actor: 'ci' });
    const versions = await store.settingsVersions.list(team, 10);
    expect(versions.map((v) => [v.version, v.source, v.changes])).toEqual([
      [2, 'ci', 1],
      [1, 'commands', 0],
    ]);
    expect(versions[1]?.digest).toBe(original);
    expect(versions[0]?.digest).toBe(await digestOf(team));
  });
});

describe('documents that change nothing', () => {
  const hostile: [string, string][] = [
    ['empty', ''],
    ['only a comment', '# nothing\n'],
    ['a list', '- a\n- b\n'],
    ['a number', '42\n'],
    ['no format', 'workspace: {}\n'],
    ['a later format', 'settings: 2\n'],
    ['an unknown top-level key', 'settings: 1\nextra: true\n'],
    ['an unknown approvals key', 'settings: 1\nworkspace:\n  approvals:\n    approverz: []\n'],
    ['a string for a count', 'settings: 1\nworkspace:\n  approvals:\n    required: "two"\n'],
    ['a count out of range', 'settings: 1\nworkspace:\n  approvals:\n    required: 11\n'],
    ['a fraction', 'settings: 1\nworkspace:\n  approvals:\n    required: 1.5\n'],
    ['a step-up word', 'settings: 1\nworkspace:\n  approvals:\n    stepUp: sms\n'],
    ['a yes/no string', 'settings: 1\nworkspace:\n  approvals:\n    selfApproval: "yes"\n'],
    ['an unknown person', 'settings: 1\nworkspace:\n  approvals:\n    approvers: ["@mallory"]\n'],
    ['an unknown group', 'settings: 1\nworkspace:\n  approvals:\n    approverGroup: "@nobody"\n'],
    ['an unknown channel', 'settings: 1\nchannels:\n  "#nowhere":\n    allow: [read]\n'],
    ['an unknown audit channel', 'settings: 1\nchannels:\n  "#ops":\n    auditChannel: "#nowhere"\n'],
    ['a __proto__ key', 'settings: 1\nchannels:\n  __proto__:\n    allow: [read]\n'],
    ['a constructor alias', 'settings: 1\nworkspace:\n  aliases:\n    constructor: volumes list\n'],
    [
      'a prototype key deep down',
      'settings: 1\nchannels:\n  "#ops":\n    rules:\n      destructive:\n        prototype: 1\n',
    ],
    ['a __proto__ merge', 'settings: 1\nworkspace:\n  approvals:\n    <<: {required: 2}\n'],
    ['a duplicate key', 'settings: 1\nsettings: 1\n'],
    ['a custom tag', 'settings: !!js/function "x"\n'],
    ['a binary tag', 'settings: 1\nworkspace:\n  aliases:\n    x: !!binary aGVsbG8=\n'],
    ['a set tag', 'settings: 1\nworkspace: !!set {a, b}\n'],
    [
      'a billion laughs',
      `settings: 1\na: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n`,
    ],
    ['1 MB of YAML', `settings: 1\n# ${'x'.repeat(1024 * 1024)}\n`],
    ['broken indentation', 'settings: 1\nworkspace:\n approvals:\n   required: 1\n  aliases: {}\n'],
    ['an unclosed quote', 'settings: 1\nworkspace:\n  aliases:\n    a: "volumes list\n'],
    ['tabs for indentation', 'settings: 1\nworkspace:\n\tapprovals: {}\n'],
    ['a bad alias name', 'settings: 1\nworkspace:\n  aliases:\n    Bad_Name: volumes list\n'],
    ['an alias that is no command', 'settings: 1\nworkspace:\n  aliases:\n    x: fly to the moon\n'],
    [
      'an alias with break-glass',
      'settings: 1\nworkspace:\n  aliases:\n    x: volumes delete $1 --break-glass "now"\n',
    ],
    ['an alias that runs a bot command', 'settings: 1\nworkspace:\n  aliases:\n    x: settings export\n'],
    ['a runbook without steps', 'settings: 1\nworkspace:\n  runbooks:\n    empty: []\n'],
    [
      'a runbook with eleven steps',
      `settings: 1\nworkspace:\n  runbooks:\n    long: [${Array(11).fill('"nodes list"').join(', ')}]\n`,
    ],
    [
      'a runbook step that does not parse',
      'settings: 1\nworkspace:\n  runbooks:\n    bad: ["nodes frobnicate"]\n',
    ],
    ['a runbook named like a command', 'settings: 1\nworkspace:\n  runbooks:\n    help: ["nodes list"]\n'],
    [
      'a rule for no class or operation',
      'settings: 1\nchannels:\n  "#ops":\n    rules:\n      volumes.frobnicate: {required: 1}\n',
    ],
    ['an empty rule', 'settings: 1\nchannels:\n  "#ops":\n    rules:\n      destructive: {}\n'],
    [
      'too few approvers',
      'settings: 1\nworkspace:\n  approvals:\n    approvers: ["@alice"]\n    required: 2\n',
    ],
    [
      'break-glass for nobody',
      'settings: 1\nchannels:\n  "#ops":\n    breakGlass: {enabled: true, people: []}\n',
    ],
    ['an unknown class', 'settings: 1\nchannels:\n  "#ops":\n    allow: [read, everything]\n'],
    [
      'a report that does not exist',
      'settings: 1\nchannels:\n  "#ops":\n    reports:\n      - {id: 00000000-0000-4000-8000-000000000000, kind: alerts, owner: "@bob", profile: default, schedule: every 15m}\n',
    ],
    [
      'a report id that is no id',
      'settings: 1\nchannels:\n  "#ops":\n    reports:\n      - {id: "1", kind: alerts, owner: "@bob", profile: default, schedule: every 15m}\n',
    ],
    ['a huge alias', `settings: 1\nworkspace:\n  aliases:\n    x: "${'volumes list '.repeat(100)}"\n`],
    ['odd unicode in a channel name', 'settings: 1\nchannels:\n  "#o\u202eps\u0000":\n    allow: [read]\n'],
    ['a person written as a channel', 'settings: 1\nworkspace:\n  approvals:\n    approvers: ["#ops"]\n'],
    ['a nested bomb of lists', `settings: 1\nworkspace:\n  aliases: ${'['.repeat(500)}${']'.repeat(500)}\n`],
    [
      'ten thousand channels',
      `settings: 1\nchannels:\n${Array.from({ length: 10_000 }, (_, i) => `  "#c${i}": {allow: [read]}`).join('\n')}\n`,
    ],
  ];

  it('has fifty of them', () => {
    expect(hostile).toHaveLength(50);
  });

  it.each(hostile)('refuses %s with a reason, and nothing is stored', async (_name, text) => {
    const team = newTeam();
    await furnish(team);
    const before = await digestOf(team);
    const plan = await planSettings(deps, surface, team, text);
    expect(plan.kind).toBe('invalid');
    if (plan.kind !== 'invalid') return;
    expect(plan.problems.length).toBeGreaterThan(0);
    for (const problem of plan.problems) expect(problem.message.length).toBeGreaterThan(5);
    const applied = await applySettingsFromCi(deps, surface, {
      team,
      text,
      expectedDigest: before,
      actor: 'ci',
    });
    expect(applied.kind).toBe('invalid');
    expect(await digestOf(team)).toBe(before);
    expect(await store.settingsVersions.headVersion(team)).toBe(0);
    expect(Object.getPrototypeOf({}).allow).toBeUndefined();
  });

  it.each([
    ['quiet hours in no time zone', '22:00-07:00 Mars/Olympus'],
    ['quiet hours that never end', '22:00-22:00 UTC'],
    ['quiet hours at 25:00', '25:00-07:00 UTC'],
  ])('refuses %s on a report, and nothing is stored', async (_name, quietHours) => {
    const team = newTeam();
    await furnish(team);
    const before = await digestOf(team);
    const edited = parseYaml(await exported(team));
    edited.channels['#ops'].reports[0].quietHours = quietHours;
    const plan = await planSettings(deps, surface, team, toYaml(edited));
    expect(plan.kind).toBe('invalid');
    expect(await digestOf(team)).toBe(before);
  });

  it('says on which line each mistake is', () => {
    const read = readSettingsDocument(
      'settings: 1\nworkspace:\n  approvals:\n    required: 0\n    colour: blue\n',
    );
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.problems.map((p) => p.line)).toEqual([4, 5]);
    expect(read.problems[1]?.message).toContain('`colour`');
  });

  it('reads a file as UTF-8 text, a leading byte-order mark dropped', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('settings: 1\n# café\n')]);
    expect(documentText(bytes)).toEqual({ ok: true, text: 'settings: 1\n# café\n' });
  });

  it('says on which line a file stops being UTF-8 text', () => {
    const bytes = Buffer.concat([Buffer.from('settings: 1\n# caf'), Buffer.from([0xe9, 0x0a])]);
    const read = documentText(bytes);
    expect(read).toEqual({
      ok: false,
      problems: [{ line: 2, path: '', message: expect.stringContaining('not UTF-8 text') }],
    });
  });

  it('refuses a file larger than a document can be before decoding it', () => {
    const read = documentText(Buffer.alloc(MAX_DOCUMENT_BYTES + 1, 0x20));
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.problems[0]?.message).toContain('262,145 bytes');
  });
});
