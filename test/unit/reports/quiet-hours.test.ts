import { describe, expect, it } from 'vitest';
import { inQuietHours, quietHoursJustEnded } from '../../../lib/reports/quiet-hours.js';

const NIGHT_IN_BERLIN = { from: '22:00', to: '07:00', tz: 'Europe/Berlin' };

describe('quiet hours', () => {
  it.each([
    ['2030-01-15T20:59:00Z', false],
    ['2030-01-15T21:00:00Z', true],
    ['2030-01-15T23:30:00Z', true],
    ['2030-01-16T05:59:00Z', true],
    ['2030-01-16T06:00:00Z', false],
  ])('22:00-07:00 in Berlin (UTC+1 in winter) wraps midnight: %s is quiet: %s', (at, quiet) => {
    expect(inQuietHours(NIGHT_IN_BERLIN, new Date(at))).toBe(quiet);
  });

  it('follow the zone into summer time: 06:30 Berlin is 04:30 UTC in July', () => {
    expect(inQuietHours(NIGHT_IN_BERLIN, new Date('2030-07-15T04:30:00Z'))).toBe(true);
    expect(inQuietHours(NIGHT_IN_BERLIN, new Date('2030-07-15T05:30:00Z'))).toBe(false);
  });

  it('a span that does not wrap is quiet only between its ends', () => {
    const lunch = { from: '12:00', to: '13:00', tz: 'UTC' };
    expect(inQuietHours(lunch, new Date('2030-01-15T12:30:00Z'))).toBe(true);
    expect(inQuietHours(lunch, new Date('2030-01-15T00:30:00Z'))).toBe(false);
  });

  it('just ended only for the first run after a quiet run, however long the gap', () => {
    const quietRun = new Date('2030-01-16T05:00:00Z');
    expect(quietHoursJustEnded(NIGHT_IN_BERLIN, quietRun, new Date('2030-01-16T09:00:00Z'))).toBe(true);
    expect(
      quietHoursJustEnded(
        NIGHT_IN_BERLIN,
        new Date('2030-01-16T08:00:00Z'),
        new Date('2030-01-16T09:00:00Z'),
      ),
    ).toBe(false);
    expect(quietHoursJustEnded(null, quietRun, new Date('2030-01-16T09:00:00Z'))).toBe(false);
  });
});
