import { describe, expect, it } from 'vitest';
import { reportKindOf } from '../../../lib/reports/kinds.js';
import {
  describeSchedule,
  firstRunAt,
  formatInterval,
  instantOfWallClock,
  nextDailyRun,
  nextRunAfter,
  parseDailyTime,
  parseInterval,
  parseTimeZone,
  scheduleFromFlags,
  wallClockAt,
} from '../../../lib/reports/schedule.js';
import type { ReportKind, ReportSchedule } from '../../../lib/store/report-subscriptions.js';

const at = (iso: string) => new Date(iso);
const daily = (time: string, tz: string) => ({ type: 'daily', time, tz }) as const;
const rulesOf = (kind: ReportKind) => reportKindOf(kind).schedule;

describe('parseInterval', () => {
  it.each([
    ['15m', 15],
    ['30m', 30],
    ['1h', 60],
    ['6h', 360],
    ['1d', 1440],
    ['1h30m', 90],
    ['5m', 5],
    [' 2H ', 120],
  ])('reads %s as %i minutes', (text, minutes) => {
    expect(parseInterval(text)).toEqual({ ok: true, value: minutes });
  });

  it('refuses intervals under five minutes and says what is allowed', () => {
    const result = parseInterval('4m');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain('every 5 minutes');
  });

  it('refuses intervals over a week', () => {
    const result = parseInterval('8d');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain('7 days');
  });

  it.each(['hourly', '1', '1.5h', '-1h', ''])('refuses %j with examples', (text) => {
    const result = parseInterval(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain('`30m`');
  });

  it('formats minutes back into the shortest interval text', () => {
    expect([5, 60, 90, 1440, 1500].map(formatInterval)).toEqual(['5m', '1h', '1h30m', '1d', '1d1h']);
  });
});

describe('parseDailyTime and parseTimeZone', () => {
  it('pads a time of day and refuses impossible ones', () => {
    expect(parseDailyTime('9:05')).toEqual({ ok: true, value: '09:05' });
    expect(parseDailyTime('23:59')).toEqual({ ok: true, value: '23:59' });
    expect(parseDailyTime('24:00').ok).toBe(false);
    expect(parseDailyTime('9am').ok).toBe(false);
  });

  it('accepts IANA zones in any case and gives their canonical names', () => {
    expect(parseTimeZone('europe/berlin')).toEqual({ ok: true, value: 'Europe/Berlin' });
    expect(parseTimeZone('Asia/Kolkata')).toEqual({ ok: true, value: 'Asia/Kolkata' });
    expect(parseTimeZone('asia/kolkata')).toEqual({ ok: true, value: 'Asia/Kolkata' });
    expect(parseTimeZone('utc')).toEqual({ ok: true, value: 'UTC' });
  });

  it('refuses unknown zones naming examples', () => {
    const result = parseTimeZone('Mars/Olympus_Mons');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain('Europe/Berlin');
  });
});

describe('scheduleFromFlags', () => {
  it('defaults digests and charts to 09:00 daily and alerts to every five minutes', () => {
    expect(scheduleFromFlags(rulesOf('issues'), {})).toEqual({ ok: true, value: daily('09:00', 'UTC') });
    expect(scheduleFromFlags(rulesOf('stats'), { tz: 'Asia/Kolkata' })).toEqual({
      ok: true,
      value: daily('09:00', 'Asia/Kolkata'),
    });
    expect(scheduleFromFlags(rulesOf('alerts'), {})).toEqual({
      ok: true,
      value: { type: 'every', minutes: 5 },
    });
  });

  it('combines --daily with --tz', () => {
    expect(scheduleFromFlags(rulesOf('issues'), { daily: '17:30', tz: 'America/New_York' })).toEqual({
      ok: true,
      value: daily('17:30', 'America/New_York'),
    });
  });

  it.each([
    ['both --every and --daily', 'issues', { every: '1h', daily: '09:00' }, 'either'],
    ['--tz with --every', 'stats', { every: '1h', tz: 'Europe/Berlin' }, '--tz'],
    ['--daily for alerts', 'alerts', { daily: '09:00' }, '--every'],
    ['--tz for alerts', 'alerts', { tz: 'Europe/Berlin' }, '--tz'],
    ['a bad zone', 'issues', { daily: '09:00', tz: 'Nowhere' }, 'IANA'],
  ] as const)('refuses %s', (_case, kind, flags, mentioned) => {
    const result = scheduleFromFlags(rulesOf(kind), flags);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain(mentioned);
  });

  it('describes schedules as people wrote them', () => {
    expect(describeSchedule({ type: 'every', minutes: 90 })).toBe('every 1h30m');
    expect(describeSchedule(daily('09:00', 'Europe/Berlin'))).toBe('daily at 09:00 (Europe/Berlin)');
  });
});

describe('daily runs across time zones', () => {
  it.each([
    ['Europe/Berlin in winter (UTC+1)', 'Europe/Berlin', '2030-01-15T06:00:00Z', '2030-01-15T08:00:00.000Z'],
    ['Europe/Berlin in summer (UTC+2)', 'Europe/Berlin', '2030-07-01T06:00:00Z', '2030-07-01T07:00:00.000Z'],
    [
      'America/New_York in winter (UTC-5)',
      'America/New_York',
      '2030-01-15T06:00:00Z',
      '2030-01-15T14:00:00.000Z',
    ],
    [
      'America/New_York in summer (UTC-4)',
      'America/New_York',
      '2030-07-01T06:00:00Z',
      '2030-07-01T13:00:00.000Z',
    ],
    ['Asia/Kolkata (UTC+5:30)', 'Asia/Kolkata', '2030-01-15T02:00:00Z', '2030-01-15T03:30:00.000Z'],
  ])('09:00 in %s', (_case, tz, now, expected) => {
    expect(nextDailyRun(daily('09:00', tz), at(now)).toISOString()).toBe(expected);
  });

  it('goes to the next day once the time has passed, and never returns the present instant', () => {
    const schedule = daily('09:00', 'Asia/Kolkata');
    expect(nextDailyRun(schedule, at('2030-01-15T03:30:00Z')).toISOString()).toBe('2030-01-16T03:30:00.000Z');
    expect(nextDailyRun(schedule, at('2030-01-15T03:29:59Z')).toISOString()).toBe('2030-01-15T03:30:00.000Z');
  });

  it('uses the local date, not the UTC date (late evening in New York is the next day in UTC)', () => {
    // 2030-01-15 23:30 in New York is 04:30 UTC on the 16th; 23:45 local is still the 15th.
    expect(nextDailyRun(daily('23:45', 'America/New_York'), at('2030-01-16T04:30:00Z')).toISOString()).toBe(
      '2030-01-16T04:45:00.000Z',
    );
  });

  it('keeps 09:00 local through the spring and autumn changes in Berlin', () => {
    const schedule = daily('09:00', 'Europe/Berlin');
    let run = at('2030-03-29T08:00:00Z');
    const runs: string[] = [];
    for (let i = 0; i < 4; i++) {
      run = nextRunAfter(schedule, run, run);
      runs.push(run.toISOString());
      expect(wallClockAt(run, 'Europe/Berlin')).toMatchObject({ hour: 9, minute: 0 });
    }
    // Clocks go forward on Sunday 31 March 2030: 08:00 UTC before, 07:00 UTC from then on.
    expect(runs).toEqual([
      '2030-03-30T08:00:00.000Z',
      '2030-03-31T07:00:00.000Z',
      '2030-04-01T07:00:00.000Z',
      '2030-04-02T07:00:00.000Z',
    ]);
    expect(nextDailyRun(schedule, at('2030-10-26T08:00:00Z')).toISOString()).toBe('2030-10-27T08:00:00.000Z');
  });

  it('moves a time skipped by the spring change forward by the gap', () => {
    expect(
      instantOfWallClock(
        { year: 2030, month: 3, day: 31, hour: 2, minute: 30 },
        'Europe/Berlin',
      ).toISOString(),
    ).toBe('2030-03-31T01:30:00.000Z');
    expect(
      instantOfWallClock(
        { year: 2030, month: 3, day: 10, hour: 2, minute: 30 },
        'America/New_York',
      ).toISOString(),
    ).toBe('2030-03-10T07:30:00.000Z');
    expect(nextDailyRun(daily('02:30', 'Europe/Berlin'), at('2030-03-30T02:00:00Z')).toISOString()).toBe(
      '2030-03-31T01:30:00.000Z',
    );
  });

  it('runs a time that happens twice in autumn once, at its first occurrence', () => {
    const schedule = daily('02:30', 'Europe/Berlin');
    const first = nextDailyRun(schedule, at('2030-10-26T12:00:00Z'));
    expect(first.toISOString()).toBe('2030-10-27T00:30:00.000Z');
    // An hour later the clock shows 02:30 again; the next run is the next day's.
    expect(nextRunAfter(schedule, first, first).toISOString()).toBe('2030-10-28T01:30:00.000Z');
    expect(
      instantOfWallClock(
        { year: 2030, month: 11, day: 3, hour: 1, minute: 30 },
        'America/New_York',
      ).toISOString(),
    ).toBe('2030-11-03T05:30:00.000Z');
  });
});

describe('interval runs', () => {
  const hourly: ReportSchedule = { type: 'every', minutes: 60 };

  it('start at once and keep their grid', () => {
    const now = at('2030-01-15T09:07:00Z');
    expect(firstRunAt(hourly, now)).toEqual(now);
    expect(nextRunAfter(hourly, now, at('2030-01-15T09:08:00Z')).toISOString()).toBe(
      '2030-01-15T10:07:00.000Z',
    );
  });

  it('skip runs that were missed instead of making them up', () => {
    expect(nextRunAfter(hourly, at('2030-01-15T09:00:00Z'), at('2030-01-15T12:30:00Z')).toISOString()).toBe(
      '2030-01-15T13:00:00.000Z',
    );
    expect(nextRunAfter(hourly, at('2030-01-15T09:00:00Z'), at('2030-01-15T10:00:00Z')).toISOString()).toBe(
      '2030-01-15T11:00:00.000Z',
    );
  });

  it('first daily run is the next occurrence of the time', () => {
    expect(firstRunAt(daily('09:00', 'UTC'), at('2030-01-15T10:00:00Z')).toISOString()).toBe(
      '2030-01-16T09:00:00.000Z',
    );
  });
});
