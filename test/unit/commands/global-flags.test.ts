import { describe, expect, it } from 'vitest';
import { BOT_COMMANDS } from '../../../lib/commands/bot-command-specs.js';
import { helpFor } from '../../../lib/commands/help.js';
import { helpToText } from '../../../lib/commands/help-topics.js';
import { registry } from '../../../lib/commands/operation-registry.js';
import { namedCommand, parseFront } from '../../../lib/commands/parse/front.js';
import { MAX_BREAK_GLASS_REASON, MAX_REQUEST_REASON } from '../../../lib/commands/parse/global-flags.js';
import { type ParsedCommand, parseCommand } from '../../../lib/commands/parse.js';
import { REPORT_KIND_SPECS } from '../../../lib/reports/kinds.js';

/**
 * Global flags are read from the tokens like every other flag: where the tokenizer found a flag,
 * never inside a quoted value, and with the typographic quotes Slack clients type.
 */

const parse = (text: string): ParsedCommand => parseCommand(text, registry);

function messageOf(parsed: ParsedCommand): string {
  if (parsed.kind !== 'error') throw new Error(`expected an error, got ${JSON.stringify(parsed)}`);
  return parsed.message;
}

describe('--break-glass', () => {
  it.each([
    ['straight double quotes', '"db down"'],
    ['straight single quotes', "'db down'"],
    ['typographic single quotes', '\u2018db down\u2019'],
    ['typographic double quotes', '\u201cdb down\u201d'],
    ['an equals sign', '="db down"'],
  ])('takes the reason in %s', (_name, written) => {
    const separator = written.startsWith('=') ? '' : ' ';
    const parsed = parse(`volumes delete 12 --break-glass${separator}${written}`);
    expect(parsed).toMatchObject({ kind: 'operation', input: { volumeId: 12 }, breakGlass: 'db down' });
  });

  it('inside a quoted value is part of the value', () => {
    const parsed = parse('volumes update 12 --label "a --break-glass b"');
    expect(parsed).toMatchObject({ kind: 'operation', input: { label: 'a --break-glass b' } });
    expect(parsed).not.toHaveProperty('breakGlass');
  });

  it('needs a reason, of at most the documented length', () => {
    expect(messageOf(parse('volumes delete 12 --break-glass'))).toContain('Break-glass needs a reason');
    expect(messageOf(parse('volumes delete 12 --break-glass --json'))).toContain(
      'Break-glass needs a reason',
    );
    expect(
      messageOf(parse(`volumes delete 12 --break-glass "${'x'.repeat(MAX_BREAK_GLASS_REASON + 1)}"`)),
    ).toBe('`--break-glass`: is 501 characters; the most it can be is 500.');
  });

  it('goes with operations only', () => {
    expect(messageOf(parse('help volumes --break-glass "on fire"'))).toContain(
      'goes with a command that needs approval',
    );
    expect(messageOf(parse('whoami --break-glass "on fire"'))).toContain(
      'goes with a command that needs approval',
    );
  });

  it('after `--` is a word', () => {
    expect(messageOf(parse('volumes delete 12 -- --break-glass'))).toContain('Too many arguments');
  });
});

describe('--reason', () => {
  it('reaches a bot command that asks for a reviewed change: mfa reset @USER', () => {
    expect(parse('mfa reset <@U0BOB> --reason \u201clost phone\u201d')).toMatchObject({
      kind: 'bot',
      command: 'mfa',
      subcommand: 'reset',
      args: ['U0BOB'],
      flags: { reason: 'lost phone' },
    });
  });

  it('is read for a bot command as for every request: needed, and of at most the documented length', () => {
    expect(messageOf(parse('mfa reset <@U0BOB> --reason'))).toContain('`--reason` needs the reason itself');
    expect(messageOf(parse(`mfa reset <@U0BOB> --reason "${'x'.repeat(MAX_REQUEST_REASON + 1)}"`))).toBe(
      '`--reason`: is 501 characters; the most it can be is 500.',
    );
  });

  it('goes with no bot command that takes none', () => {
    for (const text of ['whoami --reason "why"', 'mfa status --reason "why"'])
      expect(messageOf(parse(text))).toContain('goes with a command that asks for a change');
  });
});

describe('--form', () => {
  it('asks for the action’s form, prefilled with what parsed', () => {
    expect(parse('volumes update 12 --form --label data')).toMatchObject({
      kind: 'form',
      op: { id: 'volumes.update' },
      input: { volumeId: 12, label: 'data' },
    });
    expect(parse('volumes create --form')).toMatchObject({
      kind: 'form',
      op: { id: 'volumes.create' },
      input: {},
    });
  });

  it('inside a quoted value is part of the value', () => {
    expect(parse('volumes update 12 --label "old --form new"')).toMatchObject({
      kind: 'operation',
      input: { label: 'old --form new' },
    });
  });

  it('goes with an action only', () => {
    expect(messageOf(parse('volumes --form'))).toContain('`--form` goes with an action');
    expect(messageOf(parse('policy --form'))).toContain('`--form` goes with an action');
  });
});

describe('--help and --all', () => {
  it('--help anywhere asks for help on what the words name', () => {
    expect(parse('volumes update 12 --label x --help')).toEqual({
      kind: 'help',
      topic: { group: 'volumes', action: 'update' },
    });
    expect(parse('reports add --help')).toEqual({ kind: 'help', topic: { group: 'reports' } });
  });

  it('--all with help asks for every action; on a list it is still the list option', () => {
    expect(parse('help volumes --all')).toEqual({ kind: 'help', topic: { group: 'volumes' }, all: true });
    expect(parse('volumes list --all')).toMatchObject({ kind: 'operation', options: { all: true } });
  });
});

describe('the login-token guard', () => {
  it('refuses any word after login, quoted or not, without repeating it', () => {
    for (const text of ['login xoxp-secret', 'login "xoxp secret"', 'login --profile staging xoxp-secret']) {
      const message = messageOf(parse(text));
      expect(message).toContain('A token never goes into a command');
      expect(message).not.toContain('xoxp');
    }
    expect(parse('login --profile staging')).toMatchObject({ kind: 'bot', flags: { profile: 'staging' } });
  });
});

describe('reports usage and help come from the report-kind registry', () => {
  const reports = BOT_COMMANDS.find((command) => command.name === 'reports');
  const help = helpToText(helpFor({ group: 'reports' }, registry));

  it.each(REPORT_KIND_SPECS.map((spec) => [spec.kind, spec] as const))(
    'names `%s` and what it is',
    (kind, spec) => {
      expect(
        reports?.usage.some((line) =>
          line.startsWith(`reports add ${REPORT_KIND_SPECS.map((s) => s.kind).join('|')} `),
        ),
      ).toBe(true);
      expect(help).toContain(`\`${kind}\` (${spec.usage})`);
      expect(parse(`reports add ${kind}`)).toMatchObject({ kind: 'bot', args: [kind] });
    },
  );
});

describe('the name a command is counted under', () => {
  it('is what the registry names, never a typed word', () => {
    const named = (text: string) => namedCommand(parseFront(text, registry));
    expect(named('vol ls --page 2')).toBe('volumes list');
    expect(named('reports add issues')).toBe('reports add');
    expect(named('help volumes')).toBe('help');
    // Regression: the first two lower-case words were the name, so this token became a metric.
    expect(named('login xoxp-1234-typed-in-the-channel')).toBe('unknown');
    expect(named('nosuch secret')).toBe('unknown');
  });
});
