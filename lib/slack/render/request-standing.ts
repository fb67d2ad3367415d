import type { RequestStanding, RunStanding } from '../../changes/request-standing.js';

/**
 * The one wording of how a request stands (`lib/changes/request-standing.ts`), which every Slack
 * surface and the agent's answer read: the card's last line, the thread's closing line, the copies
 * of the card, both Homes, `/cloud audit` and `get_request`'s sentence. `words` is plain text
 * (no markup, no mentions), so a surface without mrkdwn shows it as it is.
 */

export interface StandingWords {
  /** Slack's emoji shortcode, for the surfaces that draw it. */
  readonly emoji: string;
  /** "Run with break-glass and done", "Approved; checking whether it happened", "Denied; nothing was run". */
  readonly words: string;
}

const RUN_WORDS: Record<RunStanding, { readonly emoji: string; readonly after: string }> = {
  starting: { emoji: ':hourglass_flowing_sand:', after: '; starting' },
  running: { emoji: ':hourglass_flowing_sand:', after: '; running' },
  done: { emoji: ':white_check_mark:', after: ' and done' },
  failed: { emoji: ':x:', after: ', but it did not happen' },
  in_doubt: { emoji: ':grey_question:', after: '; checking whether it happened' },
  unknown: { emoji: ':warning:', after: '; whether it happened is unknown' },
  not_run: { emoji: ':heavy_multiplication_x:', after: ', but it never started; nothing was run' },
};

export function standingWords(standing: RequestStanding): StandingWords {
  switch (standing.kind) {
    case 'waiting':
      return {
        emoji: ':hourglass_flowing_sand:',
        words: `Waiting for approval (${standing.approvals} of ${standing.required})`,
      };
    case 'awaiting_requester':
      return { emoji: ':closed_lock_with_key:', words: 'Break-glass, waiting for its requester to confirm' };
    case 'denied':
      return { emoji: ':no_entry:', words: 'Denied; nothing was run' };
    case 'cancelled':
      return { emoji: ':heavy_multiplication_x:', words: 'Cancelled; nothing was run' };
    case 'expired':
      return { emoji: ':hourglass:', words: 'Expired before it was approved; nothing was run' };
    case 'let_run': {
      const run = RUN_WORDS[standing.run];
      const how = standing.by === 'break_glass' ? 'Run with break-glass' : 'Approved';
      return { emoji: run.emoji, words: `${how}${run.after}` };
    }
  }
}

/** `:white_check_mark: Approved and done`: the words with their emoji, for mrkdwn surfaces. */
export function standingLine(standing: RequestStanding): string {
  const { emoji, words } = standingWords(standing);
  return `${emoji} ${words}`;
}
