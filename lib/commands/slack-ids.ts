/**
 * Slack's ids as people type them into a command: a mention (`@alice`, `#ops`, `@sre`), which
 * Slack sends as `<@U0123|alice>`, `<#C0123|ops>` or `<!subteam^S0123|@sre>` when the slash command
 * escapes (our manifest sets `should_escape`), and which the tokenizer reduces to `<@U0123>`,
 * `<#C0123>` and `<!subteam^S0123>`; or the bare id.
 *
 * Shape: a type letter, then upper-case letters and digits (`U`/`W` people, `C`/`G` channels, `S`
 * user groups). Length: Slack publishes no maximum. Ids were 9 characters until about 2020 and
 * are 11 now (channel ids "are now more than 9 letters": postgres-ai/joe!171; bots that pinned
 * 9 had to widen their patterns: target/flottbot#138). 21 leaves room for Slack to grow them by
 * as much again, and still keeps a list of ids far below the 3,000 characters a message section
 * holds, so a stored id can never push a policy out of `/cloud policy`.
 */

import { overLongWords } from '../truncate.js';

export const SLACK_ID_MIN_LENGTH = 3;
export const SLACK_ID_MAX_LENGTH = 21;
/**
 * People named in one list flag (`--approvers`, `--break-glass-users`). At most 10 approvals can
 * be required; twice that many approvers is room for absence. 20 mentions shown are about 500
 * characters.
 */
export const MAX_LISTED_PEOPLE = 20;

export type SlackIdKind = 'user' | 'channel' | 'usergroup';

interface IdRule {
  /** Letters an id of this kind starts with. */
  readonly letters: string;
  readonly mention: RegExp;
  /** How the problem names it and how to write it. */
  readonly noun: string;
  readonly example: string;
}

const ID_RULES: { readonly [K in SlackIdKind]: IdRule } = {
  user: { letters: 'UW', mention: /^<@([^>|]*)>$/, noun: 'a person', example: '@alice' },
  channel: { letters: 'CG', mention: /^<#([^>|]*)>$/, noun: 'a channel', example: '#audit' },
  usergroup: { letters: 'S', mention: /^<!subteam\^([^>|]*)>$/, noun: 'a user group', example: '@sre' },
};

export type IdReading =
  | { readonly ok: true; readonly id: string }
  | { readonly ok: false; readonly why: string };

/** The id in a mention or a bare id of `kind`, or why it is not one (never repeating the text). */
export function readSlackId(kind: SlackIdKind, text: string): IdReading {
  const rule = ID_RULES[kind];
  const trimmed = text.trim();
  const id = rule.mention.exec(trimmed)?.[1] ?? trimmed;
  if (id.length > SLACK_ID_MAX_LENGTH) {
    return {
      ok: false,
      why: `the id ${overLongWords(id.length, SLACK_ID_MAX_LENGTH)}`,
    };
  }
  const letters = rule.letters.split('').join(' or ');
  if (id.length < SLACK_ID_MIN_LENGTH || !rule.letters.includes(id[0] ?? '') || !/^[A-Z0-9]+$/.test(id)) {
    return {
      ok: false,
      why: `it is not ${rule.noun}: write a mention such as \`${rule.example}\`, or an id that starts with ${letters} followed by capital letters and digits (at most ${SLACK_ID_MAX_LENGTH} characters)`,
    };
  }
  return { ok: true, id };
}

/** How to write a flag of `kind`, for the end of a problem: `e.g. --approvers @alice,@bob`. */
export function exampleOf(kind: SlackIdKind): string {
  return ID_RULES[kind].example;
}
