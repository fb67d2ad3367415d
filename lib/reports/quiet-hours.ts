import type { ReportNoise } from '../store/report-subscriptions.js';
import { wallClockAt } from './schedule.js';

/**
 * A subscription's quiet hours: what it finds while they last is held (not remembered as done) and
 * posted as one summary by the first run after they end. `22:00`–`07:00` wraps midnight; the start
 * is quiet, the end is not. Wall-clock time of the subscription's zone, so they follow its
 * daylight-saving changes.
 */

export type QuietHours = NonNullable<ReportNoise['quietHours']>;

function minuteOfDay(hhmm: string): number {
  const [hours, minutes] = hhmm.split(':').map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
}

/** Whether `at` falls within the quiet hours. */
export function inQuietHours(quiet: QuietHours, at: Date): boolean {
  const wall = wallClockAt(at, quiet.tz);
  const now = wall.hour * 60 + wall.minute;
  const from = minuteOfDay(quiet.from);
  const to = minuteOfDay(quiet.to);
  return from < to ? now >= from && now < to : now >= from || now < to;
}

/**
 * Whether a run now ends a quiet spell: it is not quiet now and the subscription's last run was
 * (a run missed while the reporter was down changes nothing: the one after posts the summary).
 */
export function quietHoursJustEnded(
  quiet: QuietHours | null,
  lastRunAt: Date | undefined,
  now: Date,
): quiet is QuietHours {
  return (
    quiet !== null && lastRunAt !== undefined && !inQuietHours(quiet, now) && inQuietHours(quiet, lastRunAt)
  );
}

/** `22:00–07:00 Europe/Berlin`, as a summary names the quiet hours it ends. */
export function quietHoursText(quiet: QuietHours): string {
  return `${quiet.from}–${quiet.to} ${quiet.tz}`;
}
