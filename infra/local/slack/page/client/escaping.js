// @ts-check
// What the page lets through from the bot's text: text escaped for HTML, Slack's own entities
// decoded, and only addresses a browser can open without running anything.

/** @param {unknown} text */
export function escapeHtml(text) {
  return String(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * Slack escapes `&`, `<` and `>` in message text; these are the only entities it uses.
 * @param {unknown} text
 */
export function decodeSlackEntities(text) {
  return String(text).replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/**
 * Only addresses a browser can open without running anything.
 * @param {string} url
 * @returns {string | undefined}
 */
export function safeUrl(url, schemes = ['http:', 'https:', 'mailto:']) {
  try {
    const parsed = new URL(url);
    return schemes.includes(parsed.protocol) ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * @param {unknown} url
 * @returns {string | undefined}
 */
export function safeImageUrl(url) {
  if (typeof url !== 'string') return undefined;
  if (/^data:image\/(png|gif|jpeg|webp);base64,[a-z0-9+/=]+$/i.test(url)) return url;
  return safeUrl(url, ['http:', 'https:']);
}
