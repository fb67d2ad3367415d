import { describe, expect, it } from 'vitest';
import {
  codeSpan,
  escapeKeepingMentions,
  escapeMrkdwn,
  formatAbsoluteDate,
  formatNumber,
  formatRelativeTime,
  parseApiDate,
  slackDate,
  statusEmoji,
  userMention,
} from '../../../lib/slack-kit/text.js';

describe('mrkdwn text', () => {
  it('escapes the three characters Slack requires', () => {
    expect(escapeMrkdwn('<!here> & <@U1>')).toBe('&lt;!here&gt; &amp; &lt;@U1&gt;');
  });

  it('keeps a code span closed whatever it holds', () => {
    expect(codeSpan('a`b<c')).toBe('`aˋb&lt;c`');
  });

  it('mentions user ids and escapes anything else', () => {
    expect(userMention('U024BE7LH')).toBe('<@U024BE7LH>');
    expect(userMention('<!channel>')).toBe('&lt;!channel&gt;');
  });
});

describe('statuses', () => {
  it('colours statuses by what they mean', () => {
    expect(statusEmoji('running')).toBe(':large_green_circle:');
    expect(statusEmoji('provisioning')).toBe(':large_yellow_circle:');
    expect(statusEmoji('offline')).toBe(':white_circle:');
    expect(statusEmoji('failed')).toBe(':red_circle:');
    expect(statusEmoji('something-new')).toBe(':grey_question:');
  });
});

describe('dates', () => {
  it('reads API date-times without a zone as UTC', () => {
    expect(parseApiDate('2018-01-01T00:01:01')?.toISOString()).toBe('2018-01-01T00:01:01.000Z');
    expect(parseApiDate('2018-01-01T00:01:01+02:00')?.toISOString()).toBe('2017-12-31T22:01:01.000Z');
    expect(parseApiDate('not a date')).toBeUndefined();
  });

  it('formats absolute, relative and Slack dates', () => {
    expect(formatAbsoluteDate('2018-01-01T00:01:01')).toBe('2018-01-01 00:01 UTC');
    const now = new Date('2018-01-04T00:01:01Z');
    expect(formatRelativeTime('2018-01-01T00:01:01', now)).toBe('3 days ago');
    expect(formatRelativeTime('2018-01-04T02:01:01', now)).toBe('in 2 hours');
    expect(slackDate('2018-01-01T00:01:01')).toBe(
      '<!date^1514764861^{date_short_pretty} {time}|2018-01-01 00:01 UTC>',
    );
  });
});

describe('formatNumber', () => {
  // A small deterministic generator, so a failure names a value that reproduces.
  function* numbers(count: number): Generator<number> {
    let seed = 0x2545f491;
    const next = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 2 ** 32;
    };
    for (let i = 0; i < count; i++) {
      const magnitude = 10 ** (next() * 40 - 20);
      const value =
        [next() * magnitude, Math.round(next() * 1e9) / 1000, Math.floor(next() * 1e15)][i % 3] ?? 0;
      yield next() < 0.3 ? -value : value;
    }
  }

  it('writes what toLocaleString("en-US") writes, rounding included', () => {
    const edges = [
      0,
      -0,
      1,
      -1,
      999,
      1000,
      -1000,
      0.0005,
      0.00049,
      1e-7,
      1.0005,
      9.9995,
      999.9995,
      0.1 + 0.2,
    ];
    const large = [1e20, 123456789012345680000, Number.MAX_SAFE_INTEGER, 1e21, Number.NaN, -Infinity];
    for (const value of [...edges, ...large, ...numbers(20_000)]) {
      expect(formatNumber(value), String(value)).toBe(value.toLocaleString('en-US'));
    }
  });

  it('groups thousands and keeps at most three decimals', () => {
    expect(formatNumber(1234567.891)).toBe('1,234,567.891');
    expect(formatNumber(1.0005)).toBe('1.001');
    expect(formatNumber(-0.0004)).toBe('-0');
  });
});

describe('escapeKeepingMentions', () => {
  it("keeps the bot's own mentions of a person and escapes everything else", () => {
    expect(escapeKeepingMentions('paused by <@U0ALICE>')).toBe('paused by <@U0ALICE>');
    expect(escapeKeepingMentions('a & b <@U0ALICE> <!channel> <https://evil.example|x>')).toBe(
      'a &amp; b <@U0ALICE> &lt;!channel&gt; &lt;https://evil.example|x&gt;',
    );
  });

  it('escapes a mention with a label or of anything but a person', () => {
    for (const hostile of [
      '<@U0ALICE|boss>',
      '<!subteam^S0ONCALL>',
      '<#C0OPS>',
      '<@__proto__>',
      '<@u0alice>',
    ]) {
      expect(escapeKeepingMentions(hostile)).toBe(escapeMrkdwn(hostile));
    }
  });
});
