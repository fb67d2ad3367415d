import { describe, expect, it } from 'vitest';
import { splitCommands, type Token, tokenize, unescapeSlackText } from '../../../lib/commands/tokenize.js';

function tokensOf(text: string): readonly Token[] {
  const result = tokenize(text);
  if (!result.ok) throw new Error(`expected tokens, got: ${result.message}`);
  return result.tokens;
}

const word = (text: string): Token => ({ kind: 'word', text });
const flag = (name: string, value?: string): Token =>
  value === undefined ? { kind: 'flag', name } : { kind: 'flag', name, value };

describe('tokenize', () => {
  it('splits words and flags on any whitespace', () => {
    expect(tokensOf('  volumes\tattach 12\u00a0--node-id   34 ')).toEqual([
      word('volumes'),
      word('attach'),
      word('12'),
      flag('node-id'),
      word('34'),
    ]);
  });

  it('reads --field=value as a flag with its value, keeping later = signs', () => {
    expect(tokensOf('--node_id=34 --label=a=b --empty=')).toEqual([
      flag('node_id', '34'),
      flag('label', 'a=b'),
      flag('empty', ''),
    ]);
  });

  it('keeps double-quoted text as one word, with backslash escapes', () => {
    expect(tokensOf('--label "web server" "say \\"hi\\" \\\\ \\n"')).toEqual([
      flag('label'),
      word('web server'),
      word('say "hi" \\ \\n'),
    ]);
  });

  it('keeps single-quoted text literally, backslashes and double quotes included', () => {
    expect(tokensOf(`--devices '{"sda": {"disk_id": 1}}' 'a\\b'`)).toEqual([
      flag('devices'),
      word('{"sda": {"disk_id": 1}}'),
      word('a\\b'),
    ]);
  });

  it('accepts quotes inside a flag value after =', () => {
    expect(tokensOf('--label="web server" --x=\'a b\'')).toEqual([
      flag('label', 'web server'),
      flag('x', 'a b'),
    ]);
  });

  it('reads the typographic quotes Slack clients insert', () => {
    expect(tokensOf('--label \u201cweb server\u201d --notes \u2018it is\u2019')).toEqual([
      flag('label'),
      word('web server'),
      flag('notes'),
      word('it is'),
    ]);
  });

  it('keeps an apostrophe (right single quote) inside a word', () => {
    expect(tokensOf('--notes don\u2019t')).toEqual([flag('notes'), word('don\u2019t')]);
  });

  it('reads an em or en dash that replaced -- as a flag', () => {
    expect(tokensOf('\u2014label a \u2013size 3')).toEqual([
      flag('label'),
      word('a'),
      flag('size'),
      word('3'),
    ]);
  });

  it('treats quoted text that starts with -- as a word, not a flag', () => {
    expect(tokensOf('--label "--not-a-flag"')).toEqual([flag('label'), word('--not-a-flag')]);
  });

  it('keeps an empty quoted string as an empty word', () => {
    expect(tokensOf('--body ""')).toEqual([flag('body'), word('')]);
  });

  it('escapes a space outside quotes with a backslash', () => {
    expect(tokensOf('web\\ server')).toEqual([word('web server')]);
  });

  it('ends flags at a bare --', () => {
    expect(tokensOf('a -- --b')).toEqual([word('a'), { kind: 'end-of-flags' }, word('--b')]);
  });

  it('reports an unterminated double quote with its position', () => {
    const result = tokenize('nodes create --root-pass "s3cret value');
    expect(result).toEqual({ ok: false, message: expect.stringContaining('double quote at character 26') });
  });

  it('reports an unterminated single quote', () => {
    const result = tokenize("--label 'abc");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain('single quote at character 9 is never closed');
  });

  it('never repeats the text of an unterminated quote (it may be a password)', () => {
    const result = tokenize('--root-pass "hunter2hunter2');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).not.toContain('hunter2');
  });

  it('unescapes Slack entities before splitting', () => {
    expect(tokensOf('--body "a &amp; b &lt;ok&gt;"')).toEqual([flag('body'), word('a & b <ok>')]);
  });

  it('turns Slack links back into the typed text', () => {
    expect(
      tokensOf('--address <http://example.com|example.com> --email <mailto:ops@example.com|ops@example.com>'),
    ).toEqual([flag('address'), word('example.com'), flag('email'), word('ops@example.com')]);
  });
});

describe('unescapeSlackText', () => {
  it('uses the address of a link without a label', () => {
    expect(unescapeSlackText('<https://example.com/a?b=1&amp;c=2>')).toBe('https://example.com/a?b=1&c=2');
  });

  it('drops mailto: from a bare mail link', () => {
    expect(unescapeSlackText('<mailto:a@b.example>')).toBe('a@b.example');
  });

  it('keeps mentions in their canonical form, without the display name', () => {
    expect(unescapeSlackText('<@U123|alice> <#C42|ops> <!subteam^S9|@sre>')).toBe(
      '<@U123> <#C42> <!subteam^S9>',
    );
  });

  it('decodes &amp;lt; only once', () => {
    expect(unescapeSlackText('&amp;lt;')).toBe('&lt;');
  });
});

describe('splitCommands', () => {
  it.each([
    ['nodes shutdown $1; nodes boot $1', ['nodes shutdown $1', ' nodes boot $1']],
    [`volumes update $1 --label 'a;b'; nodes boot $1`, [`volumes update $1 --label 'a;b'`, ' nodes boot $1']],
    ['volumes update $1 --label "a;b"', ['volumes update $1 --label "a;b"']],
    ['volumes update $1 --label \u2018a;b\u2019; x', ['volumes update $1 --label \u2018a;b\u2019', ' x']],
    ['volumes update $1 --label \u201ca;b\u201d', ['volumes update $1 --label \u201ca;b\u201d']],
    ['volumes update $1 --label a\\;b; x', ['volumes update $1 --label a;b', ' x']],
    ['volumes update $1 --label "a\\";b"; x', ['volumes update $1 --label "a\\";b"', ' x']],
    ['a;;b;', ['a', '', 'b', '']],
  ])('splits %s', (text, commands) => {
    expect(splitCommands(text, ';')).toEqual(commands);
  });

  it('keeps an unclosed quote and what follows in one command, for its own tokenizing to refuse', () => {
    const [only, ...rest] = splitCommands("volumes update $1 --label 'a; nodes boot $1", ';');
    expect(rest).toEqual([]);
    expect(tokenize(only ?? '').ok).toBe(false);
  });
});
