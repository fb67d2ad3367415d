/**
 * `--break-glass "reason"` on any command: read before the command is parsed, because it is not
 * a field of any operation. Slack may turn straight quotes into curly ones.
 */

const BREAK_GLASS =
  /(?:^|\s)--break-glass(?:(?:\s+|=)(?:"([^"]*)"|“([^”]*)”|'([^']*)'|([^\s-][^\s]*)))?(?=\s|$)/;
export const MAX_BREAK_GLASS_REASON = 500;

export type BreakGlassFlag =
  | { readonly present: false; readonly text: string }
  | { readonly present: true; readonly text: string; readonly reason: string }
  | { readonly present: true; readonly text: string; readonly problem: string };

export function extractBreakGlass(text: string): BreakGlassFlag {
  const match = BREAK_GLASS.exec(text);
  if (!match) return { present: false, text };
  const rest = `${text.slice(0, match.index)} ${text.slice(match.index + match[0].length)}`.trim();
  const reason = (match[1] ?? match[2] ?? match[3] ?? match[4] ?? '').trim();
  if (reason === '') {
    return {
      present: true,
      text: rest,
      problem: 'Break-glass needs a reason, e.g. `--break-glass "db down, restoring last night\'s backup"`.',
    };
  }
  if (reason.length > MAX_BREAK_GLASS_REASON) {
    return {
      present: true,
      text: rest,
      problem: `The break-glass reason is at most ${MAX_BREAK_GLASS_REASON} characters.`,
    };
  }
  return { present: true, text: rest, reason };
}
