import { describe, expect, it } from 'vitest';
import { MAX_WRITTEN_NAME_LENGTH, readWrittenName } from '../../../lib/slack-kit/directory.js';

/**
 * How a settings document's names are read before Slack is asked: each written form of a channel,
 * a person and a user group, and what is refused without a lookup.
 */

describe('readWrittenName for a channel', () => {
  it('reads #ops as the name ops', () => {
    expect(readWrittenName('channel', '#ops')).toEqual({ form: 'name', name: 'ops' });
  });

  it('reads a bare ops as the name ops', () => {
    expect(readWrittenName('channel', 'ops')).toEqual({ form: 'name', name: 'ops' });
  });

  it("reads Slack's escaped mention <#C123|ops> as the id, not the label", () => {
    expect(readWrittenName('channel', '<#C0123ABC|ops>')).toEqual({ form: 'id', id: 'C0123ABC' });
  });

  it('reads a mention without a label, <#C0123ABC>, as the id', () => {
    expect(readWrittenName('channel', '<#C0123ABC>')).toEqual({ form: 'id', id: 'C0123ABC' });
  });

  it('reads a raw channel id C0123ABC, a private channel id G0123 and a DM id D0123 as ids', () => {
    expect(readWrittenName('channel', 'C0123ABC')).toEqual({ form: 'id', id: 'C0123ABC' });
    expect(readWrittenName('channel', 'G0123')).toEqual({ form: 'id', id: 'G0123' });
    expect(readWrittenName('channel', 'D0123')).toEqual({ form: 'id', id: 'D0123' });
  });

  it('trims the spaces around a name', () => {
    expect(readWrittenName('channel', '  #ops \t')).toEqual({ form: 'name', name: 'ops' });
  });

  it('refuses a person or a user group where a channel belongs', () => {
    expect(readWrittenName('channel', '@alice')).toEqual({ form: 'malformed', problem: 'other_kind' });
    expect(readWrittenName('channel', '<@U0123>')).toEqual({ form: 'malformed', problem: 'other_kind' });
    expect(readWrittenName('channel', '<!subteam^S0123|@oncall>')).toEqual({
      form: 'malformed',
      problem: 'other_kind',
    });
  });

  it('refuses a special mention or a link as naming nothing', () => {
    expect(readWrittenName('channel', '<!here>')).toEqual({ form: 'malformed', problem: 'not_a_mention' });
    expect(readWrittenName('channel', '<https://example.com|ops>')).toEqual({
      form: 'malformed',
      problem: 'not_a_mention',
    });
  });

  it('refuses a mention whose id is not an id of a channel (lower case, too long)', () => {
    expect(readWrittenName('channel', '<#c0123>')).toEqual({ form: 'malformed', problem: 'not_a_mention' });
    expect(readWrittenName('channel', `<#C${'1'.repeat(30)}>`)).toEqual({
      form: 'malformed',
      problem: 'not_a_mention',
    });
  });
});

describe('readWrittenName for a person', () => {
  it('reads @alice and a bare alice as the name alice', () => {
    expect(readWrittenName('user', '@alice')).toEqual({ form: 'name', name: 'alice' });
    expect(readWrittenName('user', 'alice')).toEqual({ form: 'name', name: 'alice' });
  });

  it('reads a display name with spaces as one name', () => {
    expect(readWrittenName('user', '@Glinda the Good')).toEqual({ form: 'name', name: 'Glinda the Good' });
  });

  it('reads <@U123> and <@U0123|alice> as the id', () => {
    expect(readWrittenName('user', '<@U123>')).toEqual({ form: 'id', id: 'U123' });
    expect(readWrittenName('user', '<@U0123|alice>')).toEqual({ form: 'id', id: 'U0123' });
  });

  it('reads raw ids U0123 and an Enterprise Grid W0123 as ids', () => {
    expect(readWrittenName('user', 'U0123')).toEqual({ form: 'id', id: 'U0123' });
    expect(readWrittenName('user', 'W0123')).toEqual({ form: 'id', id: 'W0123' });
  });

  it('refuses a channel or a user group mention where a person belongs', () => {
    expect(readWrittenName('user', '#ops')).toEqual({ form: 'malformed', problem: 'other_kind' });
    expect(readWrittenName('user', '<#C0123|ops>')).toEqual({ form: 'malformed', problem: 'other_kind' });
    expect(readWrittenName('user', '<!subteam^S0123>')).toEqual({ form: 'malformed', problem: 'other_kind' });
  });
});

describe('readWrittenName for a user group', () => {
  it('reads @oncall and a bare oncall as the handle oncall', () => {
    expect(readWrittenName('usergroup', '@oncall')).toEqual({ form: 'name', name: 'oncall' });
    expect(readWrittenName('usergroup', 'oncall')).toEqual({ form: 'name', name: 'oncall' });
  });

  it('reads <!subteam^S123|@oncall> and <!subteam^S123> as the id', () => {
    expect(readWrittenName('usergroup', '<!subteam^S123|@oncall>')).toEqual({ form: 'id', id: 'S123' });
    expect(readWrittenName('usergroup', '<!subteam^S123>')).toEqual({ form: 'id', id: 'S123' });
  });

  it('reads a raw id S0123 as the id', () => {
    expect(readWrittenName('usergroup', 'S0123')).toEqual({ form: 'id', id: 'S0123' });
  });

  it('refuses a person mention or a channel where a user group belongs', () => {
    expect(readWrittenName('usergroup', '<@U0123>')).toEqual({ form: 'malformed', problem: 'other_kind' });
    expect(readWrittenName('usergroup', '#ops')).toEqual({ form: 'malformed', problem: 'other_kind' });
  });
});

describe('readWrittenName with hostile text', () => {
  it('refuses an empty name, blanks, and a sigil alone', () => {
    expect(readWrittenName('channel', '')).toEqual({ form: 'malformed', problem: 'empty' });
    expect(readWrittenName('user', '   ')).toEqual({ form: 'malformed', problem: 'empty' });
    expect(readWrittenName('channel', '#')).toEqual({ form: 'malformed', problem: 'empty' });
    expect(readWrittenName('usergroup', '@ ')).toEqual({ form: 'malformed', problem: 'empty' });
  });

  it('refuses a name longer than any Slack name, without reading it through', () => {
    expect(readWrittenName('channel', `#${'a'.repeat(MAX_WRITTEN_NAME_LENGTH)}`)).toEqual({
      form: 'malformed',
      problem: 'too_long',
    });
    expect(readWrittenName('user', 'x'.repeat(1_000_000))).toEqual({
      form: 'malformed',
      problem: 'too_long',
    });
  });

  it('refuses control characters (NUL, newline inside, C1)', () => {
    expect(readWrittenName('channel', '#o\u0000ps')).toEqual({
      form: 'malformed',
      problem: 'control_characters',
    });
    expect(readWrittenName('user', '@ali\nce')).toEqual({ form: 'malformed', problem: 'control_characters' });
    expect(readWrittenName('usergroup', '@on\u0085call')).toEqual({
      form: 'malformed',
      problem: 'control_characters',
    });
  });

  it('reads prototype keys, right-to-left overrides, emoji and lone surrogates as plain names', () => {
    expect(readWrittenName('channel', '#__proto__')).toEqual({ form: 'name', name: '__proto__' });
    expect(readWrittenName('user', 'constructor')).toEqual({ form: 'name', name: 'constructor' });
    expect(readWrittenName('user', '@\u202eecila')).toEqual({ form: 'name', name: '\u202eecila' });
    expect(readWrittenName('channel', '#🔥-incidents')).toEqual({ form: 'name', name: '🔥-incidents' });
    expect(readWrittenName('usergroup', '@\ud800')).toEqual({ form: 'name', name: '\ud800' });
  });
});
