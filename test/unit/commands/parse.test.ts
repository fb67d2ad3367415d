import { describe, expect, it } from 'vitest';
import { getOperation } from '../../../lib/api/operations/index.js';
import { registry } from '../../../lib/commands/operation-registry.js';
import { type ParsedCommand, parseCommand } from '../../../lib/commands/parse.js';
import { fixtureRegistry } from './fixture-operations.js';

type Operation = Extract<ParsedCommand, { kind: 'operation' }>;
type ParseError = Extract<ParsedCommand, { kind: 'error' }>;

function operation(text: string, commands = fixtureRegistry): Operation {
  const parsed = parseCommand(text, commands);
  if (parsed.kind !== 'operation') throw new Error(`expected an operation, got ${JSON.stringify(parsed)}`);
  return parsed;
}

function error(text: string, commands = fixtureRegistry): ParseError {
  const parsed = parseCommand(text, commands);
  if (parsed.kind !== 'error') throw new Error(`expected an error, got ${JSON.stringify(parsed)}`);
  return parsed;
}

const real = (text: string) => operation(text, registry);
const realError = (text: string) => error(text, registry);

describe('the examples of the product brief (real table)', () => {
  it('volumes attach 12 --node-id 34', () => {
    const parsed = real('volumes attach 12 --node-id 34');
    expect(parsed.op).toBe(getOperation('volumes.attach'));
    expect(parsed.input).toEqual({ volumeId: 12, node_id: 34 });
    expect(parsed.options).toEqual({ all: false, json: false });
  });

  it('databases mysql-backup-restore 5 9 maps both ids in path order', () => {
    const parsed = real('databases mysql-backup-restore 5 9');
    expect(parsed.op.id).toBe('databases.mysql-backup-restore');
    expect(parsed.input).toEqual({ instanceId: 5, backupId: 9 });
  });

  it('nodes list --region us-east filters the list', () => {
    const parsed = real('nodes list --region us-east');
    expect(parsed.op.id).toBe('nodes.list');
    expect(parsed.options.filter).toEqual({ region: 'us-east' });
  });

  it('managed issues-list', () => {
    expect(real('managed issues-list').op.id).toBe('managed.issues-list');
  });

  it('profile tokens-create --label ci --scopes "nodes:read_only"', () => {
    const parsed = real('profile tokens-create --label ci --scopes "nodes:read_only"');
    expect(parsed.op.id).toBe('profile.tokens-create');
    expect(parsed.input).toEqual({ label: 'ci', scopes: 'nodes:read_only' });
  });
});

describe('groups and actions', () => {
  it('accepts group aliases', () => {
    expect(real('volume view 3').op.id).toBe('volumes.view');
    expect(real('db mysql-backup-restore 5 9').op.id).toBe('databases.mysql-backup-restore');
    expect(real('database mysql-backup-restore 5 9').op.id).toBe('databases.mysql-backup-restore');
    expect(real('node view 3').op.id).toBe('nodes.view');
    expect(real('image list').op.id).toBe('images.list');
  });

  it("accepts the row's action aliases and any letter case", () => {
    expect(real('VOLUMES LS').op.id).toBe('volumes.list');
    expect(real('volumes rm 4').op.id).toBe('volumes.delete');
  });

  it('suggests a group for a mistyped one', () => {
    const parsed = realError('volums list');
    expect(parsed.suggestions).toEqual(['volumes']);
    expect(parsed.message).toContain('Did you mean `volumes`?');
  });

  it('suggests actions for a mistyped one, by distance and by prefix', () => {
    expect(realError('volumes atach 1').suggestions?.[0]).toBe('volumes attach');
    expect(realError('volumes lst').suggestions).toContain('volumes list');
  });

  it('reads an action every engine has, typed without the engine, as needing the engine named', () => {
    // `databases view 42` typed in Slack finds the engine from the id; parsed alone, as a runbook
    // step or an alias is, it names both engines' commands (it once suggested only MySQL's).
    expect(error('databases backup-restore 5 9').message).toContain(
      '`/cloud databases mysql-backup-restore 5 9` or `/cloud databases postgresql-backup-restore 5 9`',
    );
  });

  it('answers a group alone, or help flags, with help', () => {
    expect(parseCommand('', fixtureRegistry)).toEqual({ kind: 'help' });
    expect(parseCommand('nodes', fixtureRegistry)).toEqual({ kind: 'help', topic: { group: 'nodes' } });
    expect(parseCommand('node --help', fixtureRegistry)).toEqual({ kind: 'help', topic: { group: 'nodes' } });
    expect(parseCommand('nodes rebuild 3 --help', fixtureRegistry)).toEqual({
      kind: 'help',
      topic: { group: 'nodes', action: 'rebuild' },
    });
  });

  it('resolves aliases in help topics and passes unknown ones on for suggestions', () => {
    expect(parseCommand('help node ls', fixtureRegistry)).toEqual({
      kind: 'help',
      topic: { group: 'nodes', action: 'list' },
    });
    expect(parseCommand('help nods', fixtureRegistry)).toEqual({ kind: 'help', topic: { group: 'nods' } });
    expect(parseCommand('help reports', fixtureRegistry)).toEqual({
      kind: 'help',
      topic: { group: 'reports' },
    });
  });
});

describe('positional arguments', () => {
  it('names the missing one', () => {
    const parsed = error('databases mysql-backup-restore 5');
    expect(parsed.message).toBe(
      'Missing <backupId>: `databases mysql-backup-restore` needs <instanceId> <backupId>.',
    );
    expect(parsed.usage).toBe('/cloud databases mysql-backup-restore <instanceId> <backupId>');
  });

  it('rejects extra ones without repeating them', () => {
    const parsed = error('databases mysql-backup-restore 5 9 hunter2');
    expect(parsed.message).toContain('Too many arguments');
    expect(parsed.message).toContain('but 3 were given');
    expect(parsed.message).not.toContain('hunter2');
  });

  it('reports a positional that is not a whole number in <name> form', () => {
    expect(error('databases mysql-backup-restore five 9').message).toBe(
      '<instanceId>: must be a whole number (got "five")',
    );
  });

  it('reports schema rules on positionals in <name> form', () => {
    expect(error('databases mysql-backup-restore 0 9').message).toBe('<instanceId>: must be 1 or more');
  });

  it('also takes a path parameter as a flag', () => {
    expect(operation('databases mysql-backup-restore --instance-id 5 9').input).toEqual({
      instanceId: 5,
      backupId: 9,
    });
  });
});

describe('a body field named like a path parameter', () => {
  it('regression: --node-id is the restore target, not the source node of the path', () => {
    expect(real('nodes backups-restore 1 2 --node-id 3').input).toEqual({
      nodeId: 1,
      backupId: 2,
      node_id: 3,
    });
  });

  it('regression: --node-id of a clone names the existing target node', () => {
    expect(real('nodes clone 1 --node-id 2').input).toEqual({ nodeId: 1, node_id: 2 });
  });
});

describe('flags', () => {
  const required = '--image node/debian12 --root-pass c0rrect-Horse';

  it('matches --node-id, --node_id and --nodeId to the same field', () => {
    expect(real('volumes attach 1 --node_id 2').input).toEqual({ volumeId: 1, node_id: 2 });
    expect(real('volumes attach 1 --node_id=2').input).toEqual({ volumeId: 1, node_id: 2 });
    expect(real('volumes attach 1 --nodeId 2').input).toEqual({ volumeId: 1, node_id: 2 });
  });

  it('reports a wrong type with the typed value', () => {
    expect(error(`nodes rebuild 7 ${required} --size big`).message).toBe(
      '--size: must be a whole number (got "big")',
    );
  });

  it('reports an enum violation with the allowed values', () => {
    expect(error(`nodes rebuild 7 ${required} --updates.frequency daily`).message).toBe(
      '--updates.frequency: must be one of weekly, monthly (got "daily")',
    );
    expect(error(`nodes rebuild 7 ${required} --cluster-size 2`).message).toBe(
      '--cluster-size: must be one of 1, 3 (got "2")',
    );
  });

  it('converts numeric enum values to numbers', () => {
    expect(operation(`nodes rebuild 7 ${required} --cluster-size 3`).input).toMatchObject({
      cluster_size: 3,
    });
  });

  it("reports the schema's range and length rules per flag, with the usage line", () => {
    const parsed = error(`nodes rebuild 7 ${required} --size 500 --label ab`);
    expect(parsed.message.split('\n')).toEqual([
      '--label: must be 3 to 64 characters',
      '--size: must be between 1 and 100',
    ]);
    expect(parsed.usage).toMatch(
      /^\/cloud nodes rebuild <nodeId> --image <text> --root-pass <text 7\.\.128> /,
    );
  });

  it("reports a cross-field rule from the schema's refinement", () => {
    expect(error(`nodes rebuild 7 ${required} --no-booted --configs 1`).message).toBe(
      '--configs: must not be given when booted is false',
    );
  });

  it('names every missing required flag', () => {
    expect(error('nodes rebuild 7').message.split('\n')).toEqual([
      '--image: is required',
      '--root-pass: is required',
    ]);
  });

  it('suggests a flag for an unknown one and lists the known ones', () => {
    const parsed = error(`nodes rebuild 7 ${required} --imgae x`);
    expect(parsed.suggestions).toEqual(['--image']);
    expect(parsed.message).toContain('--imgae: `nodes rebuild` has no such flag.');
    expect(parsed.message).toContain('Did you mean `--image`?');
  });

  it('does not take the value of an unknown flag for a positional', () => {
    expect(realError('volumes view --colour red 3').message).not.toContain('Too many arguments');
  });

  it('needs a value for a non-boolean flag at the end', () => {
    expect(error(`nodes rebuild 7 ${required} --label`).message).toBe('--label: needs a value');
  });

  it('rejects a single-value flag given twice', () => {
    expect(error(`nodes rebuild 7 ${required} --label abc --label def`).message).toBe(
      '--label: given more than once',
    );
  });
});

describe('boolean flags', () => {
  const base = 'nodes rebuild 7 --image i --root-pass c0rrect-Horse';

  it('sets true with a bare flag', () => {
    expect(operation(`${base} --booted`).input).toMatchObject({ booted: true });
  });

  it('sets false with =false, a following false, or --no-', () => {
    expect(operation(`${base} --booted=false`).input).toMatchObject({ booted: false });
    expect(operation(`${base} --booted false`).input).toMatchObject({ booted: false });
    expect(operation(`${base} --no-booted`).input).toMatchObject({ booted: false });
  });

  it('does not swallow a positional id after a bare flag', () => {
    expect(operation('nodes rebuild --booted 7 --image i --root-pass c0rrect-Horse').input).toMatchObject({
      nodeId: 7,
      booted: true,
    });
  });

  it('refuses --no- on a field that is not true/false', () => {
    expect(error(`${base} --no-label`).message).toBe('--no-label: only true/false fields have a --no- form');
  });

  it('rejects a word that is not true or false', () => {
    expect(error(`${base} --booted=maybe`).message).toBe('--booted: must be true or false (got "maybe")');
  });
});

describe('lists', () => {
  const base = 'nodes rebuild 7 --image i --root-pass c0rrect-Horse';

  it('collects repeated flags', () => {
    expect(operation(`${base} --tags a --tags b`).input).toMatchObject({ tags: ['a', 'b'] });
  });

  it('splits single-word text items on commas', () => {
    expect(operation(`${base} --tags a,b --tags "c, d"`).input).toMatchObject({ tags: ['a', 'b', 'c', 'd'] });
  });

  it('does not split text items that contain spaces (an SSH key with a comma in its comment)', () => {
    const key = 'ssh-ed25519 AAAAC3Nz me@host,laptop';
    expect(operation(`${base} --authorized-keys "${key}"`).input).toMatchObject({ authorized_keys: [key] });
  });

  it('splits number lists on commas and converts each item', () => {
    expect(operation(`${base} --configs 1,2 --configs 3`).input).toMatchObject({ configs: [1, 2, 3] });
    expect(error(`${base} --configs 1,x`).message).toBe(
      '--configs: each item must be a whole number (got "x")',
    );
  });

  it('takes a JSON list as it is, never split', () => {
    expect(operation(`${base} --tags '["a,b", "c"]'`).input).toMatchObject({ tags: ['a,b', 'c'] });
  });

  it('takes list items that are objects as JSON, one per flag or as a list', () => {
    const parsed = operation(
      `${base} --interfaces '{"purpose":"public"}' --interfaces '[{"purpose":"vlan","label":"v1"}]'`,
    );
    expect(parsed.input).toMatchObject({
      interfaces: [{ purpose: 'public' }, { purpose: 'vlan', label: 'v1' }],
    });
  });

  it('reports rules inside list items with their index', () => {
    expect(error(`${base} --interfaces '{"purpose":"private"}'`).message).toBe(
      '--interfaces.0.purpose: must be one of public, vlan',
    );
  });

  it('sets list items field by field with an index', () => {
    expect(
      operation(`${base} --interfaces.0.purpose public --interfaces.1.purpose vlan`).input,
    ).toMatchObject({
      interfaces: [{ purpose: 'public' }, { purpose: 'vlan' }],
    });
  });
});

describe('objects', () => {
  const base = 'nodes rebuild 7 --image i --root-pass c0rrect-Horse';

  it('builds nested fields from dotted flags, dashes or underscores', () => {
    expect(operation(`${base} --updates.day-of-week 3 --updates.frequency weekly`).input).toMatchObject({
      updates: { day_of_week: 3, frequency: 'weekly' },
    });
    expect(operation(`${base} --phone.primary 555-0100 --phone.secondary null`).input).toMatchObject({
      phone: { primary: '555-0100', secondary: null },
    });
  });

  it('takes a JSON object and lets dotted flags complete it', () => {
    expect(
      operation(`${base} --updates '{"day_of_week": 1}' --updates.frequency monthly`).input,
    ).toMatchObject({
      updates: { day_of_week: 1, frequency: 'monthly' },
    });
  });

  it('takes map keys verbatim (devices.sda)', () => {
    expect(
      operation(`${base} --devices '{"sda":{"disk_id":1}}' --devices.sdb.volume-id 2`).input,
    ).toMatchObject({
      devices: { sda: { disk_id: 1 }, sdb: { volume_id: 2 } },
    });
  });

  it('reports an invalid JSON object without quoting it', () => {
    expect(error(`${base} --updates '{"day_of_week": }'`).message).toBe('--updates: is not valid JSON');
  });

  it('reports rules inside JSON objects as dotted flags', () => {
    expect(error(`${base} --devices '{"sda":{"disk_id":"x"}}'`).message).toBe(
      '--devices.sda.disk-id: must be a whole number',
    );
    expect(error(`${base} --updates '{"colour": 1}'`).message).toBe('--updates.colour: is not a known field');
  });

  it('suggests among the fields of the object for an unknown dotted flag', () => {
    const parsed = error(`${base} --updates.day-of-wek 3`);
    expect(parsed.suggestions).toEqual(['--updates.day-of-week']);
    expect(parsed.message).toContain('Its fields: --updates.day-of-week, --updates.frequency.');
  });

  it('clears a nullable field with null', () => {
    expect(operation(`${base} --group null`).input).toMatchObject({ group: null });
  });
});

describe('list options', () => {
  it('takes --all, --page and --page-size on lists', () => {
    expect(operation('nodes list --all').options).toEqual({ all: true, json: false });
    const paged = operation('nodes list --page 2 --page-size 50');
    expect(paged.options).toEqual({ all: false, json: false, page: 2, pageSize: 50 });
    expect(paged.input).toEqual({ page: 2, page_size: 50 });
  });

  it('keeps page options out of the request of a list without page parameters', () => {
    const parsed = operation('nodes events-list --page 2');
    expect(parsed.options.page).toBe(2);
    expect(parsed.input).toEqual({});
  });

  it('enforces the page bounds', () => {
    expect(error('nodes list --page-size 10').message).toBe('--page-size: must be between 25 and 500');
    expect(error('nodes list --page-size 501').message).toBe('--page-size: must be between 25 and 500');
    expect(error('nodes list --page 0').message).toBe('--page: must be 1 or more');
    expect(error('nodes list --page two').message).toBe('--page: must be a whole number (got "two")');
    expect(operation('nodes list --page-size 25').options.pageSize).toBe(25);
  });

  it('refuses --all with --page', () => {
    expect(error('nodes list --all --page 2').message).toBe('--all: cannot be combined with --page');
  });

  it('refuses list options on an action that is not a list', () => {
    expect(error('databases mysql-backup-restore 5 9 --all').message).toBe(
      '--all: only list actions take it, and `databases mysql-backup-restore` is not one',
    );
    expect(error('databases mysql-backup-restore 5 9 --page-size 50').message).toContain(
      '--page-size: only list actions',
    );
  });

  it('takes --json on any action', () => {
    expect(operation('databases mysql-backup-restore 5 9 --json').options.json).toBe(true);
    expect(operation('nodes list --json').options.json).toBe(true);
  });
});

describe('filters and order', () => {
  it('turns filterable fields into equality filters, typed by the listed item', () => {
    expect(operation('nodes list --label web --size 50 --deprecated').options.filter).toEqual({
      label: 'web',
      size: 50,
      deprecated: true,
    });
    expect(operation('nodes list --no-deprecated').options.filter).toEqual({ deprecated: false });
  });

  it('matches any of several values of one field', () => {
    expect(operation('nodes list --tags a --tags b').options.filter).toEqual({
      '+or': [{ tags: 'a' }, { tags: 'b' }],
    });
  });

  it('reports a filter value of the wrong type', () => {
    expect(error('nodes list --size big').message).toBe('--size: must be a whole number (got "big")');
  });

  it('lists the filterable fields for a field the list cannot filter by', () => {
    const parsed = error('nodes list --region us-east');
    expect(parsed.message).toBe(
      '--region: `nodes list` has no such flag. It can be filtered by --label, --tags, --deprecated, --size, --status.',
    );
    expect(error('nodes events-list --label x').message).toContain('It cannot be filtered by any field.');
  });

  it('takes a raw --filter object and combines it with filter flags', () => {
    expect(operation(`nodes list --filter '{"size": {"+gte": 100}}'`).options.filter).toEqual({
      size: { '+gte': 100 },
    });
    expect(
      operation(`nodes list --filter '{"+or": [{"label": "a"}]}' --tags a --tags b`).options.filter,
    ).toEqual({
      '+and': [{ '+or': [{ label: 'a' }] }, { '+or': [{ tags: 'a' }, { tags: 'b' }] }],
    });
    expect(error('nodes list --filter label=web').message).toBe(
      `--filter: must be a JSON object, e.g. '{"label": "web-1"}'`,
    );
  });

  it('sorts by a filterable field', () => {
    expect(operation('nodes list --order-by label --order desc').options).toEqual({
      all: false,
      json: false,
      orderBy: 'label',
      order: 'desc',
    });
  });

  it('refuses to sort by an unorderable or unknown field', () => {
    expect(error('nodes list --order-by status').message).toBe(
      '--order-by: status cannot be used to sort; sort by one of label, tags, deprecated, size.',
    );
    expect(error('nodes list --order-by lable').message).toContain('Did you mean `label`?');
  });

  it('checks --order and needs --order-by with it', () => {
    expect(error('nodes list --order-by label --order up').message).toBe(
      '--order: must be one of asc, desc (got "up")',
    );
    expect(error('nodes list --order desc').message).toBe(
      '--order: needs --order-by to say which field to sort by',
    );
  });
});

describe('secret values', () => {
  it('never echoes a secret field in a type error', () => {
    const parsed = error('profile tfa-confirm --tfa-code 123456 --password 12345678 --attempts many');
    expect(parsed.message).toBe('--attempts: must be a whole number (got "many")');
    const secretEnum = error('profile tfa-confirm --tfa-code 654321x');
    expect(secretEnum.message).toBe('--tfa-code: is 7 characters; the most it can be is 6');
    expect(secretEnum.message).not.toContain('654321x');
  });

  it('never echoes secrets in any error of the command', () => {
    const parsed = error('nodes rebuild 7 --image i --root-pass Sup3r-S3cret --size big --colour Sup3r');
    expect(parsed.message).not.toContain('Sup3r-S3cret');
    expect(JSON.stringify(parsed)).not.toContain('Sup3r');
  });

  it('does not repeat a secret given to a flag that does not exist', () => {
    expect(JSON.stringify(error('databases mysql-backup-restore 5 9 --root-pass hunter22'))).not.toContain(
      'hunter22',
    );
  });
});

describe('bot commands', () => {
  it('parses login with its profile flag', () => {
    expect(parseCommand('login --profile staging', fixtureRegistry)).toEqual({
      kind: 'bot',
      command: 'login',
      args: [],
      flags: { profile: 'staging' },
    });
  });

  it('refuses words after login without repeating them (a pasted token)', () => {
    const parsed = error('login abcdef0123456789');
    expect(parsed.message).toContain('A token never goes into a command');
    expect(parsed.message).not.toContain('abcdef');
    expect(parsed.usage).toBeUndefined();
  });

  it('parses subcommands, their arguments and flags', () => {
    expect(parseCommand('reports add issues --daily 09:00 --tz Europe/Berlin', fixtureRegistry)).toEqual({
      kind: 'bot',
      command: 'reports',
      subcommand: 'add',
      args: ['issues'],
      flags: { daily: '09:00', tz: 'Europe/Berlin' },
    });
    expect(parseCommand('use staging', fixtureRegistry)).toEqual({
      kind: 'bot',
      command: 'use',
      args: ['staging'],
      flags: {},
    });
  });

  it('collects repeatable flags and reads switches', () => {
    expect(
      parseCommand(
        'approvals policy --approvers <@U01>,<@U02> --approvers <@U03> --no-allow-self-approval',
        fixtureRegistry,
      ),
    ).toEqual({
      kind: 'bot',
      command: 'approvals',
      subcommand: 'policy',
      args: [],
      flags: { approvers: ['U01', 'U02', 'U03'], 'allow-self-approval': false },
    });
  });

  it("runs a command's default subcommand when none is named, and still needs one otherwise", () => {
    expect(parseCommand('agents', fixtureRegistry)).toEqual({
      kind: 'bot',
      command: 'agents',
      subcommand: 'list',
      args: [],
      flags: {},
    });
    expect(error('reports').message).toContain('`reports` needs one of: add, list');
  });

  it('suggests a subcommand and a flag', () => {
    expect(error('reports pase 3').suggestions).toEqual(['reports pause']);
    expect(error('reports add issues --dialy 09:00').message).toContain('Did you mean `--daily`?');
  });

  it('names a missing argument', () => {
    expect(error('reports remove').message).toBe('Missing REPORT_ID: `reports remove` needs REPORT_ID.');
    expect(error('use').message).toBe('Missing PROFILE: `use` needs PROFILE.');
  });
});

describe('syntax errors', () => {
  it('reports an unterminated quote as an error', () => {
    expect(error('nodes rebuild 7 --label "abc').message).toContain('never closed');
  });

  it('explains a command that starts with a flag', () => {
    expect(error('--label x').message).toContain('Start with a group or a command');
  });
});
