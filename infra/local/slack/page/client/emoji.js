// @ts-check
// Emoji shortcodes as the page shows them: in mrkdwn, in plain text objects and in rich text.

/**
 * Every shortcode the bot writes (a test walks `lib/` for them and fails on one missing here), and
 * a few common ones; others stay as typed, as Slack shows an unknown one. The characters are
 * Slack's own for each name (`double_vertical_bar` is Slack's other name for `pause_button`).
 * @type {Readonly<Record<string, string>>}
 */
export const EMOJI = {
  alarm_clock: '⏰',
  arrow_forward: '▶️',
  arrows_counterclockwise: '🔄',
  ballot_box_with_check: '☑️',
  bar_chart: '📊',
  bell: '🔔',
  boom: '💥',
  bust_in_silhouette: '👤',
  calendar: '📆',
  chart_with_upwards_trend: '📈',
  closed_lock_with_key: '🔐',
  crescent_moon: '🌙',
  double_vertical_bar: '⏸️',
  electric_plug: '🔌',
  envelope: '✉️',
  eyes: '👀',
  floppy_disk: '💾',
  gear: '⚙️',
  grey_question: '❔',
  heavy_check_mark: '✔️',
  heavy_minus_sign: '➖',
  heavy_multiplication_x: '✖️',
  hourglass: '⌛',
  hourglass_flowing_sand: '⏳',
  information_source: 'ℹ️',
  iphone: '📱',
  large_blue_circle: '🔵',
  large_green_circle: '🟢',
  large_yellow_circle: '🟡',
  link: '🔗',
  lock: '🔒',
  mag: '🔍',
  new: '🆕',
  no_entry: '⛔',
  no_entry_sign: '🚫',
  octagonal_sign: '🛑',
  outbox_tray: '📤',
  pause_button: '⏸️',
  red_circle: '🔴',
  repeat: '🔁',
  robot_face: '🤖',
  rocket: '🚀',
  rotating_light: '🚨',
  scissors: '✂️',
  tada: '🎉',
  warning: '⚠️',
  wastebasket: '🗑️',
  white_check_mark: '✅',
  white_circle: '⚪',
  x: '❌',
  zzz: '💤',
};

/** @param {unknown} text */
export function replaceEmoji(text) {
  return String(text).replace(
    /:([a-z0-9_+-]+):/g,
    (/** @type {string} */ match, /** @type {string} */ name) => EMOJI[name] ?? match,
  );
}
