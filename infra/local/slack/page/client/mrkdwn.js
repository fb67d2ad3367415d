// @ts-check
// Slack's mrkdwn as escaped HTML: bold, italic, strike-through, code, quotes, emoji, mentions,
// links and dates. Pure functions, which the tests load without a browser.

import { replaceEmoji } from './emoji.js';
import { decodeSlackEntities, escapeHtml, safeUrl } from './escaping.js';
import { slackDateHtml } from './slack-dates.js';

/**
 * What mrkdwn needs to know about its reader: names for mentions, and for `<!date^…>` tokens the
 * reader's time zone (IANA; the browser's when absent) and the time "today" is judged from.
 * @typedef {{ users?: Record<string, string>; channels?: Record<string, string>; timeZone?: string; now?: number }} MentionNames
 */

/**
 * One `<…>` control sequence of mrkdwn as HTML: mentions, channels, special mentions, dates
 * (their fallback text) and links. `inner` is the raw text between the brackets.
 * @param {string} inner
 * @param {MentionNames} names
 */
function controlSequenceHtml(inner, names) {
  const bar = inner.indexOf('|');
  const target = bar < 0 ? inner : inner.slice(0, bar);
  const label = bar < 0 ? undefined : decodeSlackEntities(inner.slice(bar + 1));
  if (/^@[UW][A-Z0-9]+$/.test(target)) {
    const id = target.slice(1);
    const name = label ?? names.users?.[id] ?? id;
    return `<span class="mention">@${escapeHtml(name.replace(/^@/, ''))}</span>`;
  }
  if (/^#C[A-Z0-9]+$/.test(target)) {
    const id = target.slice(1);
    return `<span class="mention">#${escapeHtml(label ?? names.channels?.[id] ?? id)}</span>`;
  }
  if (target.startsWith('!date^')) return slackDateHtml(target, label, names);
  if (target.startsWith('!subteam^')) return `<span class="mention">${escapeHtml(label ?? '@group')}</span>`;
  if (/^!(here|channel|everyone)$/.test(target))
    return `<span class="mention">@${escapeHtml(target.slice(1))}</span>`;
  const url = safeUrl(decodeSlackEntities(target));
  const text = label ?? decodeSlackEntities(target);
  if (!url) return escapeHtml(text);
  return `<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer">${escapeHtml(text)}</a>`;
}

/**
 * Bold, italic and strike-through on text that is already HTML-escaped.
 * @param {string} html
 */
function inlineFormatting(html) {
  return html
    .replace(/(^|[^\w*])\*(?!\s)([^*\n]+?)\*(?![\w*])/g, '$1<b>$2</b>')
    .replace(/(^|[^\w_])_(?!\s)([^_\n]+?)_(?!\w)/g, '$1<i>$2</i>')
    .replace(/(^|[^\w~])~(?!\s)([^~\n]+?)~(?!\w)/g, '$1<s>$2</s>');
}

/**
 * Text outside code blocks: inline code and control sequences are set aside, the rest formatted.
 * @param {string} text
 * @param {MentionNames} names
 */
function mrkdwnTextHtml(text, names) {
  /** @type {string[]} */
  const held = [];
  const hold = (/** @type {string} */ html) => {
    held.push(html);
    return `\uE000${held.length - 1}\uE001`;
  };
  let work = text.replace(/`([^`\n]+)`/g, (_, /** @type {string} */ code) =>
    hold(`<code>${escapeHtml(decodeSlackEntities(code))}</code>`),
  );
  work = work.replace(/<([^<>\n]+)>/g, (_, /** @type {string} */ inner) =>
    hold(controlSequenceHtml(inner, names)),
  );
  let html = inlineFormatting(replaceEmoji(escapeHtml(decodeSlackEntities(work))));
  html = html.replace(/\uE000(\d+)\uE001/g, (_, /** @type {string} */ index) => held[Number(index)] ?? '');
  const lines = html.split('\n');
  return lines
    .map((line, index) => {
      const quote = /^&gt; ?(.*)$/.exec(line);
      if (quote) return `<blockquote>${quote[1]}</blockquote>`;
      return index < lines.length - 1 ? `${line}<br>` : line;
    })
    .join('');
}

/**
 * Slack's mrkdwn as HTML. Everything from the message is escaped; only the tags made here
 * (b, i, s, code, pre, blockquote, a with a checked http(s)/mailto address, span) are produced.
 * `names` maps user and channel ids to names for mentions.
 * @param {unknown} source
 * @param {MentionNames} [names]
 */
export function mrkdwnToHtml(source, names = {}) {
  const text = String(source ?? '').replace(/[\uE000\uE001]/g, '');
  const parts = text.split('```');
  // An odd number of fences leaves the last one unclosed: it is shown as typed.
  const closed = parts.length % 2 === 1;
  return parts
    .map((part, index) => {
      const isCode = index % 2 === 1 && (closed || index < parts.length - 1);
      if (isCode) {
        const code = part.replace(/^\n/, '').replace(/\n$/, '');
        const plain = code.replace(/<([^<>\n]+)>/g, (_, /** @type {string} */ inner) => {
          const bar = inner.indexOf('|');
          return bar < 0 ? inner : inner.slice(bar + 1);
        });
        return `<pre>${escapeHtml(decodeSlackEntities(plain))}</pre>`;
      }
      const prefix = index % 2 === 1 ? '```' : '';
      return mrkdwnTextHtml(prefix + part, names);
    })
    .join('');
}
