import { describe, expect, it } from 'vitest';
import {
  type AliasTemplate,
  checkAliasName,
  expandAlias,
  MAX_EXPANSION_LENGTH,
  readTemplate,
  reservedNames,
} from '../../../lib/commands/aliases.js';
import { catalog } from '../../../lib/commands/catalog.js';
import { parseCommand } from '../../../lib/commands/parse.js';
import { tokenize } from '../../../lib/commands/tokenize.js';

function template(text: string): AliasTemplate {
  const read = readTemplate(text);
  if (!read.ok) throw new Error(read.message);
  return read.template;
}

function invocation(text: string) {
  const read = tokenize(text);
  if (!read.ok) throw new Error(read.message);
  return read.tokens;
}

function expand(expansion: string, args: string) {
  return expandAlias('rmvol', template(expansion), invocation(args));
}

describe('alias names', () => {
  it('accepts short lowercase names', () => {
    expect(checkAliasName('rmvol', catalog)).toEqual({ ok: true });
    expect(checkAliasName('db-restore-2', catalog)).toEqual({ ok: true });
  });

  it.each([
    ['volumes', 'a group'],
    ['vol', 'a short name of a group'],
    ['db', 'a short name of a group'],
    ['help', 'help'],
    ['policy', 'a bot command'],
    ['alias', 'the alias command itself'],
    ['login', 'a bot command'],
    ['delete', 'an action word'],
    ['list', 'an action word'],
  ])('refuses %s, %s', (name) => {
    const checked = checkAliasName(name, catalog);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? '' : checked.message).toContain('cannot shadow');
  });

  it('takes the reserved words from the registry, so every group and bot command is one', () => {
    const reserved = reservedNames(catalog);
    for (const group of catalog.groups) expect(reserved.has(group.name)).toBe(true);
    for (const command of catalog.botCommands) expect(reserved.has(command.name)).toBe(true);
  });

  it.each([
    ['__proto__'],
    ['constructor'],
    ['prototype'],
    ['Rmvol'],
    ['9lives'],
    ['rm vol'],
    ['a'.repeat(33)],
    ['rm\u200bvol'],
    ['rmvоl'], // a Cyrillic о
    ['<!channel>'],
    ['`x`'],
    [''],
  ])('refuses the hostile or odd name %j, without echoing it as markup', (name) => {
    const checked = checkAliasName(name, catalog);
    expect(checked.ok).toBe(false);
    const message = checked.ok ? '' : checked.message;
    expect(message).not.toContain('<!channel>');
    expect(message).not.toContain('\u200b');
    expect(message.length).toBeLessThan(300);
  });
});

describe('alias expansions', () => {
  it('counts the parameters $1 … $n', () => {
    expect(template('volumes delete $1').parameterCount).toBe(1);
    expect(template('volumes attach $1 --node-id $2').parameterCount).toBe(2);
    expect(template('volumes list').parameterCount).toBe(0);
  });

  it.each([
    ['volumes view $2', 'without gaps'],
    ['volumes list --label vol-$1', 'stands alone'],
    ['volumes delete $@', 'stands alone'],
    ['volumes list --label "unclosed', 'never closed'],
    ['   ', 'empty'],
    [
      `volumes list --label ${'x'.repeat(MAX_EXPANSION_LENGTH)}`,
      `The expansion is 521 characters; the most it can be is ${MAX_EXPANSION_LENGTH}.`,
    ],
    ['volumes list\n--all', 'one line'],
  ])('refuses %j (%s)', (text, reason) => {
    const read = readTemplate(text);
    expect(read.ok).toBe(false);
    expect(read.ok ? '' : read.message).toContain(reason);
  });
});

describe('expanding an alias', () => {
  it('puts each argument where its parameter is, and the result parses as the typed command', () => {
    const expanded = expand('volumes attach $1 --node-id $2', '12 34');
    expect(expanded).toMatchObject({ ok: true, displayText: 'volumes attach 12 --node-id 34' });
    const parsed = parseCommand(expanded.ok ? expanded.transportText : '');
    expect(parsed).toMatchObject({ kind: 'operation', input: { volumeId: 12, node_id: 34 } });
  });

  it('substitutes a flag value written --flag=$1', () => {
    const expanded = expand('volumes list --label=$1', '"my volume"');
    expect(expanded).toMatchObject({ ok: true, displayText: 'volumes list --label="my volume"' });
  });

  it('keeps an argument that looks like a flag one value: it cannot add --break-glass', () => {
    const expanded = expand('volumes list --label $1', '"--break-glass now"');
    expect(expanded.ok).toBe(true);
    const text = expanded.ok ? expanded.transportText : '';
    expect(tokenize(text)).toEqual({
      ok: true,
      tokens: [
        { kind: 'word', text: 'volumes' },
        { kind: 'word', text: 'list' },
        { kind: 'flag', name: 'label' },
        { kind: 'word', text: '--break-glass now' },
      ],
    });
    const parsed = parseCommand(text);
    expect(parsed.kind === 'operation' ? parsed.breakGlass : undefined).toBeUndefined();
  });

  it('keeps quotes, backslashes and markup inside an argument as they were typed', () => {
    for (const value of ['a "quoted" \\ value', 'x “curly” y', '<!channel> & <@U0ALICE>', '–dash', '']) {
      const typed = `"${value.replace(/[\\"“”]/g, (c) => `\\${c}`)}"`;
      const expanded = expand('volumes list --label $1', typed);
      expect(expanded.ok).toBe(true);
      const reread = tokenize(expanded.ok ? expanded.transportText : '');
      expect(reread.ok && reread.tokens[3]).toEqual({ kind: 'word', text: value });
    }
  });

  it('reads the stored expansion as it was typed: an entity in it is not decoded a second time', () => {
    const expanded = expand('volumes list --label "a&amp;b <@U0ALICE>"', '');
    expect(expanded).toMatchObject({ ok: true, displayText: 'volumes list --label "a&amp;b <@U0ALICE>"' });
  });

  it('refuses flags in the invocation, naming the alias and its parameters', () => {
    const expanded = expand('volumes delete $1', '12 --break-glass "why not"');
    expect(expanded.ok).toBe(false);
    expect(expanded.ok ? '' : expanded.message).toContain('`/cloud rmvol $1`');
    expect(expanded.ok ? '' : expanded.message).toContain('no flags');
  });

  it('refuses missing and extra arguments with the usage of the alias', () => {
    const missing = expand('volumes attach $1 --node-id $2', '12');
    expect(missing.ok ? '' : missing.message).toBe(
      'Alias `rmvol` takes 2 arguments, but 1 was given: `/cloud rmvol $1 $2`.',
    );
    const extra = expand('volumes delete $1', '12 13');
    expect(extra.ok ? '' : extra.message).toBe(
      'Alias `rmvol` takes 1 argument, but 2 were given: `/cloud rmvol $1`.',
    );
    const none = expand('volumes list', 'x');
    expect(none.ok ? '' : none.message).toContain('takes no arguments');
  });
});
