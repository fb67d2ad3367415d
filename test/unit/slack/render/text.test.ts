import { describe, expect, it } from 'vitest';
import {
  codeSpan,
  escapeMrkdwn,
  formatAbsoluteDate,
  formatRelativeTime,
  parseApiDate,
  slackDate,
  statusEmoji,
  userMention,
} from '../../../../lib/slack/render/text.js';

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
