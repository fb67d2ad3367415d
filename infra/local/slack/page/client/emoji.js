// @ts-check
// Emoji shortcodes as the page shows them: in mrkdwn, in plain text objects and in rich text.

/**
 * Shortcodes the bot uses, and a few common ones; others stay as typed, like Slack shows unknown ones.
 * @type {Readonly<Record<string, string>>}
 */
export const EMOJI = {
  boom: '💥',
  closed_lock_with_key: '🔐',
  electric_plug: '🔌',
  grey_question: '❔',
  heavy_check_mark: '✔️',
  heavy_multiplication_x: '✖️',
  hourglass: '⌛',
  hourglass_flowing_sand: '⏳',
  information_source: 'ℹ️',
  large_green_circle: '🟢',
  large_yellow_circle: '🟡',
  large_blue_circle: '🔵',
  lock: '🔒',
  mag: '🔍',
  no_entry: '⛔',
  octagonal_sign: '🛑',
  red_circle: '🔴',
  rocket: '🚀',
  scissors: '✂️',
  tada: '🎉',
  warning: '⚠️',
  white_check_mark: '✅',
  white_circle: '⚪',
  x: '❌',
  chart_with_upwards_trend: '📈',
  bell: '🔔',
  bar_chart: '📊',
  eyes: '👀',
  floppy_disk: '💾',
  new: '🆕',
  pause_button: '⏸️',
  rotating_light: '🚨',
};

/** @param {unknown} text */
export function replaceEmoji(text) {
  return String(text).replace(
    /:([a-z0-9_+-]+):/g,
    (/** @type {string} */ match, /** @type {string} */ name) => EMOJI[name] ?? match,
  );
}
