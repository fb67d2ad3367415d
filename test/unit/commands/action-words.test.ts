import { describe, expect, it } from 'vitest';
import { operations } from '../../../lib/api/operations/index.js';
import { catalog } from '../../../lib/commands/catalog.js';
import { helpFor } from '../../../lib/commands/help.js';
import { registry } from '../../../lib/commands/operation-registry.js';
import { type FrontParse, parseFront } from '../../../lib/commands/parse/front.js';
import { parseCommand } from '../../../lib/commands/parse.js';
import type { CommandOperation } from '../../../lib/commands/registry.js';

/**
 * Actions typed with spaces (`managed issues list`) mean the hyphenated action (`managed
 * issues-list`) wherever that cannot change what a command means (`lib/commands/action-words.ts`).
 * Every hyphenated action of the operations table is checked, with its own example.
 */

const hyphenated = operations.filter((op) => op.action.includes('-'));

function byId<Op extends CommandOperation>(parsed: FrontParse<Op>) {
  return parsed.kind === 'operation-args' ? { ...parsed, op: parsed.op.id } : parsed;
}

/** The op's example with its action written with spaces: `managed issues list --x`. */
function spacedExample(op: (typeof operations)[number]): string {
  return `${op.group} ${op.action.replaceAll('-', ' ')}${op.example.slice(`${op.group} ${op.action}`.length)}`;
}

function helpText(topic: Parameters<typeof helpFor>[0]): string {
  return helpFor(topic)
    .sections.flatMap((section) => section.lines)
    .join('\n');
}

describe('actions typed with spaces', () => {
  it('the table has hyphenated actions to check', () => {
    expect(hyphenated.length).toBeGreaterThan(0);
    for (const op of hyphenated) expect(op.example.startsWith(`${op.group} ${op.action}`), op.id).toBe(true);
  });

  it('the example of every hyphenated action parses to the same request with spaces, whenever help writes it so', () => {
    for (const op of hyphenated) {
      if (registry.spokenAction(op) !== op.action.replaceAll('-', ' ')) continue;
      expect(parseCommand(spacedExample(op)), op.id).toEqual(parseCommand(op.example));
      const parsed = parseCommand(spacedExample(op));
      expect(parsed.kind === 'operation' && parsed.op.id, op.id).toBe(op.id);
    }
  });

  it('a hyphenated action help keeps hyphenated is one whose first word is an action itself, or whose spaced words are ambiguous', () => {
    for (const op of hyphenated) {
      if (registry.spokenAction(op) !== op.action) continue;
      const group = registry.groups.find((g) => g.name === op.group);
      if (group === undefined) throw new Error(op.id);
      const [firstWord = ''] = op.action.split('-');
      const first = registry.findAction(group, firstWord);
      const parsed = parseFront(spacedExample(op), registry);
      if (first.found) {
        // `databases engines view 5` is `engines` with two words more, as it always was.
        expect(parsed.kind === 'operation-args' && parsed.op.id, op.id).toBe(first.value.id);
      } else {
        expect(parsed.kind, op.id).toBe('error');
        expect(parsed.kind === 'error' && parsed.message, op.id).toContain(`\`${op.group} ${op.action}\``);
        expect(parsed.kind === 'error' && parsed.message, op.id).toContain('could mean');
      }
    }
  });

  it('most hyphenated actions read with spaces (the rule is not so strict that it never applies)', () => {
    const spoken = hyphenated.filter((op) => registry.spokenAction(op).includes(' '));
    expect(spoken.length).toBeGreaterThan(hyphenated.length / 2);
  });

  it('the light parser (the command catalog) reads spaced actions as the full parser does', () => {
    const texts = hyphenated.flatMap((op) => [
      spacedExample(op),
      `${op.group} ${op.action.replaceAll('-', ' ')} 1 --x`,
      `help ${op.group} ${op.action.replaceAll('-', ' ')}`,
    ]);
    for (const text of texts) {
      expect(byId(parseFront(text, catalog)), text).toEqual(byId(parseFront(text, registry)));
    }
    for (const op of hyphenated)
      expect(catalog.spokenAction(catalogOp(op.id))).toBe(registry.spokenAction(op));
  });

  it('`managed issues list` and `databases mysql list` are the hyphenated actions, with their flags', () => {
    const issues = parseCommand('managed issues list --page 2');
    expect(issues.kind === 'operation' && issues.op.id).toBe('managed.issues-list');
    expect(issues.kind === 'operation' && issues.options.page).toBe(2);
    const mysql = parseCommand('databases mysql list');
    expect(mysql.kind === 'operation' && mysql.op.id).toBe('databases.mysql-list');
    const restore = parseCommand('DB MySQL Backup Restore 5 9');
    expect(restore.kind === 'operation' && restore.op.id).toBe('databases.mysql-backup-restore');
    expect(restore.kind === 'operation' && restore.input).toEqual({ instanceId: 5, backupId: 9 });
    const configs = parseCommand('nodes configs list 12');
    expect(configs.kind === 'operation' && configs.op.id).toBe('nodes.configs-list');
  });

  it('never takes a word that could be an argument: a one-word action keeps its arguments', () => {
    // `clone` is an action; `list` stays its (invalid) node id rather than naming another action.
    const clone = parseFront('nodes clone list', registry);
    expect(clone.kind === 'operation-args' && clone.op.id).toBe('nodes.clone');
    const wordy = parseCommand('nodes clone list');
    expect(wordy.kind).toBe('error');
  });

  it('refuses words that read as two actions, naming both', () => {
    const parsed = parseCommand('managed credentials update login 5 --password x');
    expect(parsed.kind).toBe('error');
    const message = parsed.kind === 'error' ? parsed.message : '';
    expect(message).toContain('`managed credentials-update-login`');
    expect(message).toContain('`managed credentials-update` with `login` as its <credentialId>');
    expect(parsed.kind === 'error' && parsed.suggestions).toEqual([
      'managed credentials-update-login',
      'managed credentials-update',
    ]);
    // Without the extra word there is one reading.
    const rename = parseCommand('managed credentials update 5 --label web-db');
    expect(rename.kind === 'operation' && rename.op.id).toBe('managed.credentials-update');
  });

  it('words after a flag never join the action', () => {
    const parsed = parseCommand('managed issues --json list');
    expect(parsed.kind).toBe('error');
    expect(parsed.kind === 'error' && parsed.message).toContain('`managed` has no action `issues`');
  });

  it.each([
    ['managed __proto__ list'],
    ['managed constructor list'],
    ['managed issues __proto__'],
    ['managed prototype'],
    ['managed issues\u200Blist'], // zero-width space is no space
    ['managed issues\u2060list'], // word joiner
    ['managed issues\u180Elist'], // Mongolian vowel separator (no longer a space)
    ['managed issues\u200B list'],
    ['managed issues list\u202E'], // right-to-left override
    ['managed "issues list"'], // one quoted word, not two words
  ])('%j is still not a command', (text) => {
    const parsed = parseCommand(text);
    expect(parsed.kind).toBe('error');
    expect(parsed.kind === 'error' && parsed.message).toMatch(/has no action|Too many arguments/);
    expect(byId(parseFront(text, catalog))).toEqual(byId(parseFront(text, registry)));
  });

  it('what the tokenizer counts as space separates words as anywhere else (`volumes\u00A0list` works too)', () => {
    // JavaScript's \s: a no-break space, an ideographic space, and the byte-order mark.
    for (const space of ['\u00A0', '\u3000', '\uFEFF']) {
      const parsed = parseCommand(`managed issues${space}list`);
      expect(parsed.kind === 'operation' && parsed.op.id).toBe('managed.issues-list');
    }
  });
});

describe('help writes actions with spaces', () => {
  it('`/cloud help managed` lists `issues list`', () => {
    const text = helpText({ group: 'managed' });
    expect(text).toContain('`issues list` — ');
    expect(text).toContain('`issues view <issueId>` — ');
    expect(text).not.toContain('`issues-list`');
    // Ambiguous with spaces, so written hyphenated.
    expect(text).toContain('`credentials-update-login <credentialId>`');
  });

  it('`/cloud help managed issues list` is the help of issues-list, titled with spaces and naming the hyphenated form', () => {
    expect(parseCommand('help managed issues list')).toEqual({
      kind: 'help',
      topic: { group: 'managed', action: 'issues-list' },
    });
    const doc = helpFor({ group: 'managed', action: 'issues-list' });
    expect(doc.title).toBe('/cloud managed issues list');
    const text = helpText({ group: 'managed', action: 'issues-list' });
    expect(text).toContain('`/cloud managed issues list [list options]`');
    expect(text).toContain('Also typed as `issues-list`');
  });

  it('the overview says actions read as words', () => {
    expect(helpText(undefined)).toContain('`managed issues list`');
  });
});

function catalogOp(id: string): CommandOperation {
  const op = catalog.groups.flatMap((group) => group.actions).find((row) => row.id === id);
  if (op === undefined) throw new Error(`${id} is not in the catalog`);
  return op;
}
