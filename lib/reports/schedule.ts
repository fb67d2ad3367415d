import type { ReportSchedule } from '../store/report-subscriptions.js';

/**
 * When reports run. `--every 30m` runs on a fixed grid anchored at the subscription's first run,
 * `--daily 09:00 --tz Europe/Berlin` at a wall-clock time of a zone. Zone arithmetic uses the
 * runtime's own time-zone database through `Intl.DateTimeFormat`, so daylight-saving changes are
 * those of the IANA data Node ships with; no date library is needed for this little.
 */

export const MIN_INTERVAL_MINUTES = 5;
export const MAX_INTERVAL_MINUTES = 7 * 24 * 60;
export const DEFAULT_ZONE = 'UTC';

export type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly message: string };

const UNIT_MINUTES: Readonly<Record<string, number>> = { m: 1, h: 60, d: 24 * 60 };

/** `15m`, `1h`, `1h30m`, `1d` → minutes, at least 5 and at most 7 days. */
export function parseInterval(text: string): Parsed<number> {
  const trimmed = text.trim().toLowerCase();
  const usage = 'Give `--every` as minutes, hours or days, e.g. `15m`, `30m`, `1h`, `6h` or `1d`.';
  if (!/^(\d+[mhd])+$/.test(trimmed))
    return { ok: false, message: `\`${text}\` is not an interval. ${usage}` };
  let minutes = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+)([mhd])/g)) {
    minutes += Number(amount) * (UNIT_MINUTES[unit ?? 'm'] ?? 1);
  }
  if (minutes < MIN_INTERVAL_MINUTES) {
    return {
      ok: false,
      message: `\`--every ${text}\` is too often: reports run at most every ${MIN_INTERVAL_MINUTES} minutes (\`--every 5m\`).`,
    };
  }
  if (minutes > MAX_INTERVAL_MINUTES) {
    return {
      ok: false,
      message: `\`--every ${text}\` is too long: the longest interval is 7 days (\`--every 7d\`).`,
    };
  }
  return { ok: true, value: minutes };
}

/** `90` → `1h30m`, `1440` → `1d`: the shortest text `parseInterval` reads back. */
export function formatInterval(minutes: number): string {
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  return `${days ? `${days}d` : ''}${hours ? `${hours}h` : ''}${rest ? `${rest}m` : ''}` || '0m';
}

/** `9:00` or `09:00` → `09:00`. */
export function parseDailyTime(text: string): Parsed<string> {
  const match = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(text.trim());
  if (!match) {
    return {
      ok: false,
      message: `\`--daily ${text}\` is not a time of day. Use 24-hour \`HH:MM\`, e.g. \`--daily 09:00\` or \`--daily 17:30\`.`,
    };
  }
  return { ok: true, value: `${(match[1] ?? '').padStart(2, '0')}:${match[2]}` };
}

/**
 * An IANA zone the runtime knows, spelled as the zone database spells it (`europe/berlin` →
 * `Europe/Berlin`). The name people typed is kept rather than swapped for the runtime's preferred
 * alias: ICU resolves `Asia/Kolkata` to the older `Asia/Calcutta`, which would surprise them.
 */
export function parseTimeZone(text: string): Parsed<string> {
  const name = text.trim();
  try {
    if (name === '') throw new RangeError('empty');
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    const lower = name.toLowerCase();
    const listed = Intl.supportedValuesOf('timeZone').find((zone) => zone.toLowerCase() === lower);
    if (listed) return { ok: true, value: listed };
    if (resolved.toLowerCase() === lower) return { ok: true, value: resolved };
    return {
      ok: true,
      value: name.replace(
        /(^|[/_])([a-z])/g,
        (_, separator: string, letter: string) => separator + letter.toUpperCase(),
      ),
    };
  } catch {
    return {
      ok: false,
      message: `\`--tz ${text}\` is not a time zone I know. Use an IANA name such as \`Europe/Berlin\`, \`America/New_York\`, \`Asia/Kolkata\` or \`UTC\`.`,
    };
  }
}

export interface ScheduleFlags {
  readonly every?: string | undefined;
  readonly daily?: string | undefined;
  readonly tz?: string | undefined;
}

/**
 * A report kind's schedule rules, from its entry in `kinds.ts`. Passed in rather than looked up by
 * kind: the table's deliverers draw messages that describe schedules with this module, so
 * importing the table here would make a cycle.
 */
export interface ScheduleRule {
  /** What the kind runs on when no flag says otherwise. */
  readonly defaultRun: 'every-tick' | 'daily';
  /** Set for a kind `--daily` makes no sense for: why. */
  readonly whyNotDaily?: string;
}

/** What a kind runs on when no flag says otherwise. */
export function defaultSchedule(rule: ScheduleRule, zone: string = DEFAULT_ZONE): ReportSchedule {
  if (rule.defaultRun === 'every-tick') return { type: 'every', minutes: MIN_INTERVAL_MINUTES };
  return { type: 'daily', time: '09:00', tz: zone };
}

/** The schedule `/cloud reports add KIND [--every …] [--daily …] [--tz …]` asks for, by KIND's rules. */
export function scheduleFromFlags(rule: ScheduleRule, flags: ScheduleFlags): Parsed<ReportSchedule> {
  if (flags.every !== undefined && flags.daily !== undefined) {
    return { ok: false, message: 'Use either `--every` or `--daily`, not both.' };
  }
  let zone = DEFAULT_ZONE;
  if (flags.tz !== undefined) {
    const parsedZone = parseTimeZone(flags.tz);
    if (!parsedZone.ok) return parsedZone;
    zone = parsedZone.value;
  }
  if (flags.every !== undefined) {
    if (flags.tz !== undefined) {
      return {
        ok: false,
        message: '`--tz` sets the zone of `--daily`; `--every` runs the same in every zone.',
      };
    }
    const minutes = parseInterval(flags.every);
    return minutes.ok ? { ok: true, value: { type: 'every', minutes: minutes.value } } : minutes;
  }
  if (flags.daily !== undefined) {
    const whyNotDaily = rule.whyNotDaily;
    if (whyNotDaily !== undefined) return { ok: false, message: whyNotDaily };
    const time = parseDailyTime(flags.daily);
    return time.ok ? { ok: true, value: { type: 'daily', time: time.value, tz: zone } } : time;
  }
  const fallback = defaultSchedule(rule, zone);
  if (flags.tz !== undefined && fallback.type !== 'daily') {
    return {
      ok: false,
      message: '`--tz` sets the zone of `--daily`; alerts run every few minutes in every zone.',
    };
  }
  return { ok: true, value: fallback };
}

/** "every 30m", "daily at 09:00 (Europe/Berlin)". */
export function describeSchedule(schedule: ReportSchedule): string {
  return schedule.type === 'every'
    ? `every ${formatInterval(schedule.minutes)}`
    : `daily at ${schedule.time} (${schedule.tz})`;
}

/**
 * The first run of a new subscription: interval schedules start now (the next tick shows the
 * channel what it subscribed to), daily ones at the next occurrence of their time.
 */
export function firstRunAt(schedule: ReportSchedule, now: Date): Date {
  return schedule.type === 'every' ? new Date(now) : nextDailyRun(schedule, now);
}

/**
 * The run after `previous`, strictly after `now`. Interval schedules keep their grid (ticks that
 * were missed are skipped, not made up); daily ones go to the next occurrence of the time.
 */
export function nextRunAfter(schedule: ReportSchedule, previous: Date, now: Date): Date {
  if (schedule.type === 'daily') return nextDailyRun(schedule, now);
  const step = schedule.minutes * 60_000;
  const behind = now.getTime() - previous.getTime();
  const steps = behind < 0 ? 1 : Math.floor(behind / step) + 1;
  return new Date(previous.getTime() + steps * step);
}

/** The first instant strictly after `now` at which the zone's clock shows the schedule's time. */
export function nextDailyRun(schedule: Extract<ReportSchedule, { type: 'daily' }>, now: Date): Date {
  const [hour = 0, minute = 0] = schedule.time.split(':').map(Number);
  const today = wallClockAt(now, schedule.tz);
  for (let dayOffset = 0; dayOffset < 3; dayOffset++) {
    // Date.UTC normalises day overflow, so this walks calendar days of the zone.
    const day = new Date(Date.UTC(today.year, today.month - 1, today.day + dayOffset));
    const candidate = instantOfWallClock(
      { year: day.getUTCFullYear(), month: day.getUTCMonth() + 1, day: day.getUTCDate(), hour, minute },
      schedule.tz,
    );
    if (candidate.getTime() > now.getTime()) return candidate;
  }
  // Unreachable with real zones (a day never lasts 48 hours); a day later is still a safe answer.
  return new Date(now.getTime() + 24 * 3_600_000);
}

export interface WallClock {
  readonly year: number;
  /** 1 to 12. */
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** What a clock in `zone` shows at `instant`. */
export function wallClockAt(instant: Date, zone: string): WallClock & { readonly second: number } {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(zone).formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

/** How far the zone's clock is ahead of UTC at `instant`, in milliseconds. */
export function zoneOffsetMs(instant: Date, zone: string): number {
  const wall = wallClockAt(instant, zone);
  const wallAsUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return wallAsUtc - Math.floor(instant.getTime() / 1000) * 1000;
}

/**
 * The instant a zone's clock shows `wall`. A time that happens twice (clocks go back) is its first
 * occurrence; a time that never happens (clocks go forward) is moved forward by the gap, so a
 * 02:30 run on the spring-forward day in Berlin happens at 03:30, as cron does it.
 */
export function instantOfWallClock(wall: WallClock, zone: string): Date {
  const wallAsUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  const day = 24 * 3_600_000;
  // No zone changes its offset twice within two days, so the offsets a day before and a day
  // after are the only ones in play.
  const before = zoneOffsetMs(new Date(wallAsUtc - day), zone);
  const after = zoneOffsetMs(new Date(wallAsUtc + day), zone);
  const candidates = [wallAsUtc - before, wallAsUtc - after]
    .filter((t) => zoneOffsetMs(new Date(t), zone) === wallAsUtc - t)
    .sort((a, b) => a - b);
  const first = candidates[0];
  if (first !== undefined) return new Date(first);
  // In the gap: with the offset from before the change, the instant reads as wall time + gap.
  return new Date(wallAsUtc - before);
}
