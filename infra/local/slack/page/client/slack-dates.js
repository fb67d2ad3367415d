// @ts-check
// Slack's `<!date^…>` tokens in mrkdwn, shown as Slack shows them to their reader: in the reader's
// time zone, in Slack's English wording.

import { decodeSlackEntities, escapeHtml, safeUrl } from './escaping.js';

/**
 * Whom a date is shown to: the reader's time zone (IANA; the browser's when absent) and the time
 * "today" is judged from.
 * @typedef {{ timeZone?: string; now?: number }} DateReader
 */

/**
 * `{date_short}`, `{time}`… of Slack's date formatting ("Date formatting" in
 * api.slack.com/reference/surfaces/formatting), written the way Slack writes them in English.
 * @type {Record<string, (at: Date, zone: string | undefined, now: number) => string>}
 */
const DATE_TOKENS = {
  date_num: (at, zone) => {
    const part = zonedParts(at, zone, { year: 'numeric', month: '2-digit', day: '2-digit' });
    return `${part.year}-${part.month}-${part.day}`;
  },
  date: (at, zone) => longDate(at, zone, false),
  date_short: (at, zone) =>
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      month: 'short',
      day: 'numeric',
      year: 'numeric',
    }).format(at),
  date_long: (at, zone) => longDate(at, zone, true),
  date_pretty: (at, zone, now) => nearDay(at, zone, now) ?? longDate(at, zone, false),
  date_short_pretty: (at, zone, now) =>
    nearDay(at, zone, now) ?? DATE_TOKENS.date_short?.(at, zone, now) ?? '',
  date_long_pretty: (at, zone, now) => nearDay(at, zone, now) ?? longDate(at, zone, true),
  time: (at, zone) =>
    new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: 'numeric', minute: '2-digit' }).format(at),
  time_secs: (at, zone) =>
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hour: 'numeric',
      minute: '2-digit',
      second: '2-digit',
    }).format(at),
  ago: (at, _zone, now) => agoText(at.getTime(), now),
};

/**
 * The named parts of `at` in `zone`.
 * @param {Date} at
 * @param {string | undefined} zone
 * @param {Intl.DateTimeFormatOptions} options
 * @returns {Record<string, string>}
 */
function zonedParts(at, zone, options) {
  /** @type {Record<string, string>} */
  const parts = {};
  for (const part of new Intl.DateTimeFormat('en-US', { ...options, timeZone: zone }).formatToParts(at)) {
    parts[part.type] = part.value;
  }
  return parts;
}

/** @param {number} day */
function ordinal(day) {
  const tens = day % 100;
  if (tens >= 11 && tens <= 13) return `${day}th`;
  return `${day}${['th', 'st', 'nd', 'rd'][day % 10] ?? 'th'}`;
}

/**
 * `February 18th, 2014`, or with the weekday `Tuesday, February 18th, 2014`.
 * @param {Date} at
 * @param {string | undefined} zone
 * @param {boolean} weekday
 */
function longDate(at, zone, weekday) {
  const part = zonedParts(at, zone, { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric' });
  const date = `${part.month} ${ordinal(Number(part.day))}, ${part.year}`;
  return weekday ? `${part.weekday}, ${date}` : date;
}

/**
 * `today`, `yesterday` or `tomorrow` in the reader's zone, else undefined.
 * @param {Date} at
 * @param {string | undefined} zone
 * @param {number} now
 */
function nearDay(at, zone, now) {
  const dayOf = (/** @type {Date} */ date) => {
    const part = zonedParts(date, zone, { year: 'numeric', month: 'numeric', day: 'numeric' });
    return Date.UTC(Number(part.year), Number(part.month) - 1, Number(part.day)) / 86_400_000;
  };
  const days = dayOf(at) - dayOf(new Date(now));
  return days === 0 ? 'today' : days === -1 ? 'yesterday' : days === 1 ? 'tomorrow' : undefined;
}

/**
 * `3 minutes ago`, `in 2 hours`.
 * @param {number} atMs
 * @param {number} now
 */
function agoText(atMs, now) {
  const seconds = Math.round((atMs - now) / 1000);
  /** @type {[Intl.RelativeTimeFormatUnit, number][]} */
  const units = [
    ['year', 365 * 86_400],
    ['month', 30 * 86_400],
    ['week', 7 * 86_400],
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit);
  }
  return format.format(seconds, 'second');
}

/**
 * A `<!date^EPOCH^FORMAT^LINK|fallback>` token as Slack shows it: the format's tokens filled in
 * in the reader's time zone, linked when a link is given. A token Slack could not read (no epoch,
 * no format, an unknown zone) shows its fallback, as Slack does.
 * @param {string} target `!date^EPOCH^FORMAT` with an optional `^LINK`
 * @param {string | undefined} fallback
 * @param {DateReader} reader
 */
export function slackDateHtml(target, fallback, reader) {
  const [, epoch = '', format = '', ...rest] = target.split('^');
  const shown = fallback ?? target;
  const at = /^-?\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : undefined;
  if (!at || Number.isNaN(at.getTime()) || format === '') return escapeHtml(shown);
  const zone = reader.timeZone;
  const now = reader.now ?? Date.now();
  let text;
  try {
    text = format.replace(/\{([a-z_]+)\}/g, (whole, /** @type {string} */ name) => {
      const token = DATE_TOKENS[name];
      return token ? token(at, zone, now) : whole;
    });
  } catch {
    // RangeError: a time zone Intl does not know.
    return escapeHtml(shown);
  }
  const url = rest.length > 0 ? safeUrl(decodeSlackEntities(rest.join('^'))) : undefined;
  const title = escapeHtml(shown);
  return url
    ? `<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer" title="${title}">${escapeHtml(text)}</a>`
    : `<time datetime="${at.toISOString()}" title="${title}">${escapeHtml(text)}</time>`;
}
