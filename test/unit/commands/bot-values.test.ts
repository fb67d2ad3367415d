import { describe, expect, it } from 'vitest';
import type { BotValueKind } from '../../../lib/commands/bot-command-specs.js';
import { readBotValue } from '../../../lib/commands/parse/bot-values.js';
import { MAX_LISTED_PEOPLE, readSlackId, SLACK_ID_MAX_LENGTH } from '../../../lib/commands/slack-ids.js';

/**
 * The kinds of bot-command flags and words: each reads typed text into the value a handler uses,
 * or says what is wrong and how to write it, repeating the text only clipped.
 */

function value(kind: BotValueKind, text: string, previous?: readonly string[]) {
  const read = readBotValue(kind, text, '--flag', previous);
  if (!read.ok) throw new Error(`expected a value, got: ${read.problem}`);
  return read.value;
}

function problem(kind: BotValueKind, text: string, flag = '--flag'): string {
  const read = readBotValue(kind, text, flag);
  if (read.ok) throw new Error(`expected a problem, got ${JSON.stringify(read.value)}`);
  return read.problem;
}

describe('Slack ids', () => {
  it('reads mentions as the tokenizer leaves them, and bare ids', () => {
    expect(readSlackId('user', '<@U0123ABC>')).toEqual({ ok: true, id: 'U0123ABC' });
    expect(readSlackId('user', 'W0123ABC')).toEqual({ ok: true, id: 'W0123ABC' });
    expect(readSlackId('channel', '<#C0123ABC>')).toEqual({ ok: true, id: 'C0123ABC' });
    expect(readSlackId('channel', 'G0123ABC')).toEqual({ ok: true, id: 'G0123ABC' });
    expect(readSlackId('usergroup', '<!subteam^S0123ABC>')).toEqual({ ok: true, id: 'S0123ABC' });
  });

  it(`takes ${SLACK_ID_MAX_LENGTH} characters and refuses one more, saying the bound`, () => {
    const longest = `U${'A'.repeat(SLACK_ID_MAX_LENGTH - 1)}`;
    expect(readSlackId('user', longest)).toEqual({ ok: true, id: longest });
    const read = readSlackId('user', `${longest}A`);
    expect(read.ok).toBe(false);
    if (!read.ok)
      expect(read.why).toBe(
        `the id is ${SLACK_ID_MAX_LENGTH + 1} characters; the most it can be is ${SLACK_ID_MAX_LENGTH}`,
      );
  });

  it('refuses the wrong kind of id and what is not an id', () => {
    expect(readSlackId('user', '<#C0123ABC>').ok).toBe(false);
    expect(readSlackId('channel', 'U0123ABC').ok).toBe(false);
    expect(readSlackId('usergroup', '<@U0123ABC>').ok).toBe(false);
    expect(readSlackId('user', 'alice').ok).toBe(false);
    expect(readSlackId('user', 'U0123abc').ok).toBe(false);
  });
});

describe('people', () => {
  const PEOPLE = { type: 'people' } as const;

  it('reads comma-separated mentions and adds repeated flags to the list, once each', () => {
    expect(value(PEOPLE, '<@U01>, <@U02>')).toEqual(['U01', 'U02']);
    expect(value(PEOPLE, '<@U03>,<@U01>', ['U01', 'U02'])).toEqual(['U01', 'U02', 'U03']);
  });

  it('reads `none` as nobody', () => {
    expect(value(PEOPLE, 'none')).toEqual([]);
  });

  it('refuses an over-long id without repeating it, saying how to write people', () => {
    const long = `U${'A'.repeat(3499)}`;
    const said = problem(PEOPLE, long, '--approvers');
    expect(said).toContain('`--approvers`');
    expect(said).toContain(`the id is 3,500 characters; the most it can be is ${SLACK_ID_MAX_LENGTH}`);
    expect(said).toContain('e.g. `--approvers @alice,@bob`');
    expect(said).not.toContain(long);
    expect(said.length).toBeLessThan(300);
  });

  it(`names at most ${MAX_LISTED_PEOPLE} people`, () => {
    const ids = (count: number) => Array.from({ length: count }, (_, i) => `U${String(i).padStart(4, '0')}`);
    expect(value(PEOPLE, ids(MAX_LISTED_PEOPLE).join(','))).toHaveLength(MAX_LISTED_PEOPLE);
    expect(problem(PEOPLE, ids(MAX_LISTED_PEOPLE + 1).join(','))).toContain(
      `at most ${MAX_LISTED_PEOPLE} people`,
    );
  });
});

describe('one channel or user group', () => {
  it('reads a mention or id, and `none` as null', () => {
    expect(value({ type: 'channel' }, '<#C0AUDIT>')).toBe('C0AUDIT');
    expect(value({ type: 'channel' }, 'none')).toBeNull();
    expect(value({ type: 'usergroup' }, '<!subteam^S0SRE>')).toBe('S0SRE');
    expect(value({ type: 'usergroup' }, 'none')).toBeNull();
  });

  it('refuses an over-long id, saying the bound and an example', () => {
    const said = problem({ type: 'channel' }, `C${'A'.repeat(3499)}`, '--audit-channel');
    expect(said).toContain(`the id is 3,500 characters; the most it can be is ${SLACK_ID_MAX_LENGTH}`);
    expect(said).toContain('e.g. `--audit-channel #audit`');
    expect(problem({ type: 'usergroup' }, `S${'A'.repeat(3499)}`, '--approver-group')).toContain(
      'e.g. `--approver-group @sre`',
    );
  });
});

describe('switches, on/off, counts and minutes', () => {
  it('reads switches and on/off as booleans', () => {
    expect(value({ type: 'switch' }, 'no')).toBe(false);
    expect(value({ type: 'on-off' }, 'ON')).toBe(true);
    expect(value({ type: 'on-off' }, 'off')).toBe(false);
    expect(problem({ type: 'on-off' }, 'maybe', '--allow-break-glass')).toBe(
      '`--allow-break-glass` is `on` or `off`.',
    );
  });

  it('reads whole numbers within the declared range only', () => {
    const count = { type: 'count', min: 1, max: 10 } as const;
    expect(value(count, '10')).toBe(10);
    for (const text of ['0', '11', '2.5', '1e1', '', 'two', '-1']) {
      expect(problem(count, text, '--required')).toContain('a whole number from 1 to 10');
    }
    expect(problem({ type: 'minutes', min: 1, max: 1440 }, '1441', '--expiry')).toContain(
      'in minutes, a whole number from 1 to 1440',
    );
  });
});

describe('profile names and report kinds', () => {
  it('reads a profile name and refuses what cannot be one', () => {
    expect(value({ type: 'profile' }, 'staging')).toBe('staging');
    expect(problem({ type: 'profile' }, '-bad', '--profile')).toContain('a profile name is 1 to 32');
  });

  it('reads a report kind in any case and lists the kinds when it is not one', () => {
    expect(value({ type: 'report-kind' }, 'Alerts')).toBe('alerts');
    expect(problem({ type: 'report-kind' }, 'weather')).toContain('`issues` (digest of open issues)');
  });
});

describe('a choice of words', () => {
  const access = { type: 'choice', words: ['read', 'change'] } as const;

  it('reads one of its words in any case', () => {
    expect(value(access, 'Change')).toBe('change');
  });

  it('names every word when the text is none of them, without repeating it', () => {
    const said = problem(access, '<!channel>', 'ACCESS');
    expect(said).toBe('`ACCESS` is `read` or `change`.');
  });
});

describe('a filter list of words', () => {
  const words = { type: 'words' } as const;

  it('reads words with a hyphen inside, as region ids are (`us-east`), lowercased and once each', () => {
    expect(value(words, 'us-east, AP-South,us-east')).toEqual(['us-east', 'ap-south']);
  });

  it('refuses a word that starts or ends with a hyphen, or holds other marks, saying which', () => {
    expect(problem(words, '-rm')).toContain('`-rm` is not a word of letters, digits, `_` and `-`');
    expect(problem(words, 'us-east,a.b')).toContain('`a.b` is not a word');
  });
});
