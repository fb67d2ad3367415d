/** Shortens text visibly: the result is at most `max` characters and ends with `…` when cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  let end = max - 1;
  // A cut between the two halves of a surrogate pair would render as a replacement character.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end).trimEnd()}…`;
}

/** `5000` → `5,000`, without `Intl` (whose locale data a cold start would load for this alone). */
function grouped(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * The one way an over-long value is told, wherever it was typed (a command, a flag, a form field):
 * `is 5,000 characters; the most it can be is 4,000`, after its subject (`That command`, `--label:`).
 * The length is the one the check compared (`text.length`, as zod's `max` counts), so the two
 * numbers never disagree, whatever the text holds (an emoji counts two).
 */
export function overLongWords(length: number, max: number): string {
  return `is ${grouped(length)} characters; the most it can be is ${grouped(max)}`;
}
