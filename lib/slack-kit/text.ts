/**
 * Formatting of values for Slack `mrkdwn` text: escaping, status emoji, dates, field names.
 * Pure functions; every renderer goes through these so a value looks the same everywhere.
 */

import { statusWords } from './enum-words.js';

/** Slack requires `&`, `<` and `>` escaped in text; everything else is literal. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Inline code. A backtick inside would end the span, so it becomes a look-alike. */
/**
 * Takes the life out of any `<…>` markup (mentions, broadcasts, links) in text that may mix the
 * bot's escaped mrkdwn with raw outside text, without escaping entities twice: `&lt;` stays.
 */
export function defuseMarkup(text: string): string {
  return text.replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function codeSpan(text: string): string {
  const safe = escapeMrkdwn(text).replace(/`/g, 'ˋ').replace(/\n/g, ' ');
  return `\`${safe === '' ? ' ' : safe}\``;
}

/** Bold text; `*` inside would end the bold run. */
export function bold(text: string): string {
  const safe = escapeMrkdwn(text).replace(/\*/g, '∗').replace(/\n/g, ' ');
  return safe.trim() === '' ? safe : `*${safe}*`;
}

/** A link whose label is escaped and cannot break the `<url|label>` syntax. */
export function link(url: string, label: string): string {
  const safeLabel = escapeMrkdwn(label).replace(/\|/g, '¦');
  return `<${url.replace(/[<>|\s]/g, encodeURIComponent)}|${safeLabel}>`;
}

/** A mention exactly as `userMention` writes it: a person's id, no label. */
const BOT_USER_MENTION = /<@[UW][A-Z0-9]{2,20}>/g;

/**
 * `escapeMrkdwn` that leaves the bot's own mentions of a person working: stored text the bot
 * composed (a report's "paused by <@U0ALICE>") shows the person's name, and nothing else in it can
 * ping, link or broadcast (a labelled mention, `<!channel>`, a user group, a link stay text).
 */
export function escapeKeepingMentions(text: string): string {
  let kept = '';
  let from = 0;
  for (const match of text.matchAll(BOT_USER_MENTION)) {
    kept += escapeMrkdwn(text.slice(from, match.index)) + match[0];
    from = match.index + match[0].length;
  }
  return kept + escapeMrkdwn(text.slice(from));
}

/** A Slack user mention from a user id (`U123`). */
export function userMention(userId: string): string {
  return /^[UW][A-Z0-9]+$/.test(userId) ? `<@${userId}>` : escapeMrkdwn(userId);
}

const GOOD = new Set([
  'running',
  'active',
  'ok',
  'successful',
  'available',
  // A disk's statuses (API-FACTS-MORE.md §3.4): `ready`, `not ready`, `deleting`.
  'ready',
  'enabled',
  'approved',
  'executed',
]);
const BUSY = new Set([
  'provisioning',
  'booting',
  'rebooting',
  'creating',
  'resizing',
  'pending',
  'pending_upload',
  'cloning',
  'restoring',
  'migrating',
  'rebuilding',
  'resuming',
  'updating',
  'backing_up',
  'needsPostProcessing',
  'executing',
  'shutting_down',
  'suspending',
  'deleting',
  'not ready',
]);
const IDLE = new Set([
  'offline',
  'stopped',
  'disabled',
  'suspended',
  'paused',
  'userAborted',
  'cancelled',
  'expired',
]);
const BAD = new Set(['failed', 'problem', 'degraded', 'billing_suspension', 'denied']);

/** An emoji for a resource status: green good, yellow in progress, white idle, red broken. */
export function statusEmoji(status: string): string {
  if (GOOD.has(status)) return ':large_green_circle:';
  if (BUSY.has(status)) return ':large_yellow_circle:';
  if (IDLE.has(status)) return ':white_circle:';
  if (BAD.has(status)) return ':red_circle:';
  return ':grey_question:';
}

/** `:large_green_circle: running`, with the status in words (`shutting_down` → `shutting down`). */
export function statusText(status: string): string {
  return `${statusEmoji(status)} ${escapeMrkdwn(statusWords(status))}`;
}

/**
 * Parses the API's date-times. The API writes UTC without a zone suffix
 * (`2018-01-01T00:01:01`); reading that as local time would shift it by the server's offset.
 */
export function parseApiDate(value: string): Date | undefined {
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(value);
  const looksLikeDateTime = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?/.test(value);
  if (!looksLikeDateTime) return undefined;
  const date = new Date(hasZone || value.length === 10 ? value : `${value.replace(' ', 'T')}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * `2018-01-01 00:01 UTC`: unambiguous in every reader's time zone. For text Slack does not read as
 * mrkdwn (headers, buttons, options, file names) and the fallback of `slackDate`; mrkdwn shows
 * times with `slackDate`. Text that is not a date comes back escaped: it is the API's, not the bot's.
 */
export function formatAbsoluteDate(value: string | Date): string {
  const date = typeof value === 'string' ? parseApiDate(value) : value;
  if (!date) return typeof value === 'string' ? escapeMrkdwn(value) : '';
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];
// Made on first use: creating an `Intl` formatter loads its locale data, which cost a cold start
// about 15 ms before `/cloud help`, which shows no relative time.
let relativeFormat: Intl.RelativeTimeFormat | undefined;
function relativeTimeFormat(): Intl.RelativeTimeFormat {
  relativeFormat ??= new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  return relativeFormat;
}

/** `3 days ago`, `in 2 hours`, relative to `now`. */
export function formatRelativeTime(value: string | Date, now: Date): string {
  const date = typeof value === 'string' ? parseApiDate(value) : value;
  if (!date) return typeof value === 'string' ? escapeMrkdwn(value) : '';
  const seconds = Math.round((date.getTime() - now.getTime()) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === 'second') {
      return relativeTimeFormat().format(Math.round(seconds / size), unit);
    }
  }
  return relativeTimeFormat().format(0, 'second');
}

/**
 * How a point in time reads, as a Slack date format (`<!date^EPOCH^FORMAT|fallback>`, "Date
 * formatting" in api.slack.com/reference/surfaces/formatting). `{date_short_pretty}` says
 * today/yesterday/tomorrow where it can, else `Feb 18, 2014`; `{date_short}` is always the date
 * (for log lines read long after); `{time}` is `6:39 PM` or `18:39` by the reader's preference;
 * `{ago}` is `3 minutes ago` (for facts whose age matters more than their hour: a backup taken).
 */
const TIME_FORMATS = {
  /** `today 18:39` */
  moment: '{date_short_pretty} {time}',
  /** `today at 18:39`, for deadlines in a sentence (`expires today at 18:39`). */
  at: '{date_short_pretty} at {time}',
  /** `Nov 26, 2026 18:39`, never `today`: audit lines are read long after they were written. */
  logged: '{date_short} {time}',
  /** `18:39`, for a time of the day the reader is in (a pending request expiring soon). */
  time: '{time}',
  /** `Feb 18, 2014`, where the hour means nothing (a token that expires on a day). */
  day: '{date_short_pretty}',
  /** `2 days ago` */
  ago: '{ago}',
} as const;
export type TimeStyle = keyof typeof TIME_FORMATS;

/**
 * A point in time as every renderer shows it in mrkdwn: a Slack date token, which each reader's
 * client shows in their own time zone, with `2026-11-26 20:50 UTC` as the fallback for clients
 * that cannot (notifications, email). Only mrkdwn renders tokens: plain_text (headers, buttons,
 * options, modal labels) takes `formatAbsoluteDate` instead. A value that is not a date comes
 * back escaped as text.
 */
export function slackDate(value: string | Date | number, style: TimeStyle = 'moment'): string {
  const date =
    typeof value === 'number' ? new Date(value) : typeof value === 'string' ? parseApiDate(value) : value;
  if (!date || Number.isNaN(date.getTime())) return escapeMrkdwn(String(value));
  const seconds = Math.floor(date.getTime() / 1000);
  return `<!date^${seconds}^${TIME_FORMATS[style]}|${formatAbsoluteDate(date)}>`;
}

/** A token exactly as `slackDate` writes it: no link, a known format, a UTC fallback. */
const BOT_DATE_TOKEN = new RegExp(
  `<!date\\^\\d+\\^(?:${Object.values(TIME_FORMATS)
    .map((format) => format.replace(/[{}]/g, '\\$&'))
    .join('|')})\\|\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC>`,
  'g',
);

/**
 * `defuseMarkup` that leaves the bot's own date tokens working: stored text the bot composed (an
 * approval's preview) shows times in each reader's zone, and nothing else in it can ping or link.
 */
export function defuseMarkupKeepingDates(text: string): string {
  let kept = '';
  let from = 0;
  for (const match of text.matchAll(BOT_DATE_TOKEN)) {
    kept += defuseMarkup(text.slice(from, match.index)) + match[0];
    from = match.index + match[0].length;
  }
  return kept + defuseMarkup(text.slice(from));
}

/**
 * `12,345.678`: a number with en-US digit grouping and at most three decimals, exactly as
 * `toLocaleString('en-US')` writes it, without it: the first `Intl` call of a process loads
 * locale data, about 20 ms of a cold start.
 */
export function formatNumber(value: number): string {
  // Past 1e21 the shortest decimal is an exponent; infinities and NaN have locale words.
  if (!Number.isFinite(value) || Math.abs(value) >= 1e21) return value.toLocaleString('en-US');
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  const magnitude = Math.abs(value);
  // The shortest decimal that reads back as the number, rounded to three decimals half away from
  // zero, as ICU rounds it (so 1.0005, a little under in binary, is written 1.001). Below 1e-6
  // that decimal is an exponent, and it rounds to 0 anyway.
  let [whole = '0', fraction = ''] = (magnitude < 1e-6 ? '0' : String(magnitude)).split('.');
  if (fraction.length > 3) {
    const roundsUp = Number(fraction[3]) >= 5;
    const digits = (BigInt(whole + fraction.slice(0, 3)) + (roundsUp ? 1n : 0n)).toString().padStart(4, '0');
    whole = digits.slice(0, -3);
    fraction = digits.slice(-3);
  }
  const decimals = fraction.replace(/0+$/, '');
  return `${sign}${whole.replace(/\B(?=(\d{3})+$)/g, ',')}${decimals ? `.${decimals}` : ''}`;
}

/** `1 node`, `3 nodes`. */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${formatNumber(count)} ${count === 1 ? singular : plural}`;
}

/** `Nodes` from `nodes`. */
export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `1,024 MB`, `2.5 GB` from a size in megabytes. */
export function formatMegabytes(megabytes: number): string {
  if (megabytes >= 1024 && megabytes % 1024 === 0) return `${formatNumber(megabytes / 1024)} GB`;
  if (megabytes >= 10 * 1024) return `${(megabytes / 1024).toFixed(1)} GB`;
  return `${formatNumber(megabytes)} MB`;
}
