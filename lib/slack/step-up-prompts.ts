import type { WebClient } from '@slack/web-api';
import {
  CHALLENGE_MINUTES,
  CODE_DIGITS,
  LOCKOUT_WINDOW_MINUTES,
  MAX_WRONG_CODES,
  type StepUpNeed,
} from '../changes/step-up.js';
import { type PasskeyLinkContext, passkeyApprovalLink } from '../passkeys/links.js';
import { CallbackId } from '../slack-kit/interaction-ids.js';
import { notice, type Reply } from '../slack-kit/reply.js';
import { codeSpan, slackDate } from '../slack-kit/text.js';
import type { ChallengeDecision, StepUpChallenge, StepUpRequirement } from '../store/index.js';
import type { BotDeps } from './context.js';
import { openModal } from './modals.js';

/**
 * What a click that needs step-up is answered with: the code modal, or why the click counted for
 * nothing (not enrolled, locked out, a passkey required). Apart from `step-up-codes.ts` and
 * `bot-commands/mfa.ts` so the approval replies can open it without importing the enrollment
 * commands.
 */

const DECISION_WORDS: Record<ChallengeDecision, string> = {
  approve: 'approve',
  deny: 'deny',
  break_glass: 'break glass for',
};

export const CODE_BLOCK = 'step_up_code';
export const CODE_INPUT = 'code_input';

/** The field a code modal asks for the authenticator's code in (a vote's, or a change to one's own methods). */
export const CODE_INPUT_BLOCK = {
  type: 'input' as const,
  block_id: CODE_BLOCK,
  label: { type: 'plain_text' as const, text: 'Code' },
  element: {
    type: 'plain_text_input' as const,
    action_id: CODE_INPUT,
    min_length: CODE_DIGITS,
    max_length: CODE_DIGITS + 2,
    placeholder: { type: 'plain_text' as const, text: '123456' },
  },
};

export function codeModal(challengeId: string, channel: string, decision: ChallengeDecision) {
  return {
    type: 'modal' as const,
    callback_id: CallbackId.stepUpCode,
    title: { type: 'plain_text' as const, text: 'Confirm with a code' },
    submit: { type: 'plain_text' as const, text: 'Confirm' },
    close: { type: 'plain_text' as const, text: 'Cancel' },
    private_metadata: JSON.stringify({ challenge: challengeId, channel }),
    blocks: [
      {
        type: 'section' as const,
        text: {
          type: 'mrkdwn' as const,
          text:
            `This channel's rule asks for step-up: your click to ${DECISION_WORDS[decision]} this request counts ` +
            `only with the current ${CODE_DIGITS}-digit code from your authenticator app. ` +
            `This window is good for ${CHALLENGE_MINUTES} minutes.`,
        },
      },
      CODE_INPUT_BLOCK,
    ],
  };
}

/** Where the bot mints passkey links, or undefined when it has no passkey page (no public URL). */
export function passkeyLinksOf(deps: Pick<BotDeps, 'store' | 'passkeys'>): PasskeyLinkContext | undefined {
  return deps.passkeys ? { store: deps.store, relyingParty: deps.passkeys.relyingParty } : undefined;
}

/**
 * What a click that needs step-up is answered with: the code modal (then nothing more to say),
 * the person's own one-time link to the passkey page, or why it counted for nothing. Every one of
 * these is for the clicker alone.
 */
export async function answerStepUpNeed(
  client: WebClient,
  need: StepUpNeed,
  where: { readonly channel: string; readonly triggerId?: string | undefined },
  again: string,
  passkeyLinks: PasskeyLinkContext | undefined,
): Promise<Reply | undefined> {
  switch (need.kind) {
    case 'code':
      if (!where.triggerId) return notice(`This rule asks for a code; nothing was counted. ${again}`);
      await openModal(
        client,
        where.triggerId,
        codeModal(need.challenge.id, where.channel, need.challenge.decision),
        again,
      );
      return undefined;
    case 'passkey':
      return passkeyPrompt(need.challenge, passkeyLinks, again);
    case 'not_enrolled':
      return notice(notEnrolledText(need.requirement));
    case 'locked_out':
      return notice(lockedOutText(need.until));
  }
}

/**
 * The clicker's own approval link, in a reply only they see: whoever holds it could spend it
 * (though only their passkey can answer it), so it is never posted in the channel or logged.
 */
async function passkeyPrompt(
  challenge: StepUpChallenge,
  passkeyLinks: PasskeyLinkContext | undefined,
  again: string,
): Promise<Reply> {
  if (!passkeyLinks) {
    return notice(
      ':closed_lock_with_key: This rule asks for a passkey, but this bot has no passkey page (it has no public ' +
        `URL set), so your click counted for nothing. ${again}`,
    );
  }
  const offer = await passkeyApprovalLink(passkeyLinks, {
    teamId: challenge.team,
    userId: challenge.user,
    challengeId: challenge.id,
  });
  return notice(
    `:closed_lock_with_key: To ${DECISION_WORDS[challenge.decision]} this request, confirm with your passkey: ` +
      `<${offer.url}|open your passkey page>. Only you see this link; it works once, until ` +
      `${slackDate(offer.validUntil, 'time')}. Nothing counts until your passkey checks out.`,
  );
}

function notEnrolledText(requirement: Exclude<StepUpRequirement, 'none'>): string {
  const how =
    requirement === 'passkey'
      ? codeSpan('/cloud mfa enroll passkey')
      : `${codeSpan('/cloud mfa enroll')} (an authenticator app), then confirm with ${codeSpan('/cloud mfa confirm CODE')}` +
        (requirement === 'any' ? `, or add a passkey with ${codeSpan('/cloud mfa enroll passkey')}` : '');
  return `:lock: This channel's rule asks for step-up, and you have not enrolled, so your click counted for nothing. Enroll with ${how}, then click again.`;
}

export function lockedOutText(until: Date): string {
  return (
    `:no_entry: Too many wrong codes (${MAX_WRONG_CODES} in ${LOCKOUT_WINDOW_MINUTES} minutes): no code is ` +
    `accepted from you until ${slackDate(until, 'time')}, and nothing was counted. Try again then.`
  );
}
