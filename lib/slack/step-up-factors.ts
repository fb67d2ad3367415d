import type { Logger } from '@aws-lambda-powertools/logger';
import type { WebClient } from '@slack/web-api';
import type { RequestOutcome } from '../changes/requests.js';
import { CHALLENGE_MINUTES, CODE_DIGITS } from '../changes/step-up.js';
import type {
  EnrollmentOutcome,
  FactorNotice,
  FactorNotices,
  ProofNeeded,
  ResetOutcome,
} from '../core/step-up-enrollment.js';
import {
  appQrLink,
  type PasskeyLinkContext,
  passkeyEnrollmentLink,
  passkeyFactorLink,
} from '../passkeys/links.js';
import { CallbackId } from '../slack-kit/interaction-ids.js';
import { notice, type Reply } from '../slack-kit/reply.js';
import { slackErrorOf } from '../slack-kit/slack-refusals.js';
import { codeSpan, slackDate } from '../slack-kit/text.js';
import type { FactorChange } from '../store/index.js';
import { openModal } from './modals.js';
import { unmadeRequestText } from './render/unmade-request.js';
import { CODE_INPUT_BLOCK, lockedOutText } from './step-up-prompts.js';

/**
 * A person's own step-up methods as Slack shows them: the proof that adding or removing one asks
 * for (the code modal, or a link to the passkey page), what an enrollment or a reset comes to, and
 * the direct message that tells the person whenever a method of theirs is added or removed. The
 * rules are `lib/core/step-up-enrollment.ts`; the command is `bot-commands/mfa.ts`.
 */

const CHANGE_WORDS: Record<FactorChange, string> = {
  add_passkey: 'add a passkey',
  add_app: 'add an authenticator app',
  remove_own: 'remove all your step-up methods',
};

/** The code modal for a change to one's own methods; its submission is `step-up-codes.ts`'s. */
export function factorCodeModal(challengeId: string, channel: string, change: FactorChange) {
  return {
    type: 'modal' as const,
    callback_id: CallbackId.stepUpCode,
    title: { type: 'plain_text' as const, text: 'Confirm it is you' },
    submit: { type: 'plain_text' as const, text: 'Confirm' },
    close: { type: 'plain_text' as const, text: 'Cancel' },
    private_metadata: JSON.stringify({ challenge: challengeId, channel, factor: true }),
    blocks: [
      {
        type: 'section' as const,
        text: {
          type: 'mrkdwn' as const,
          text:
            `To ${CHANGE_WORDS[change]}, confirm it is you with the current ${CODE_DIGITS}-digit code from the ` +
            `authenticator app you have. Nothing changes until it checks out. This window is good for ${CHALLENGE_MINUTES} minutes.`,
        },
      },
      CODE_INPUT_BLOCK,
    ],
  };
}

/**
 * Asks the person for the proof a change to their own methods needs: the code modal (then nothing
 * more to say), their own one-time link to the passkey page, or why neither can be asked.
 */
export async function askForFactorProof(
  client: WebClient,
  proof: ProofNeeded,
  where: {
    readonly team: string;
    readonly user: string;
    readonly channel: string;
    readonly triggerId?: string | undefined;
  },
  passkeyLinks: PasskeyLinkContext | undefined,
): Promise<Reply | undefined> {
  const { need } = proof;
  const again = `Nothing changed; run the command again to ${'challenge' in need ? CHANGE_WORDS[need.challenge.change] : 'try again'}.`;
  switch (need.kind) {
    case 'locked_out':
      return notice(`${lockedOutText(need.until)} Your step-up methods stay as they are.`);
    case 'code':
      if (!where.triggerId) return notice(`This needs a code from your authenticator app. ${again}`);
      await openModal(
        client,
        where.triggerId,
        factorCodeModal(need.challenge.id, where.channel, need.challenge.change),
        again,
      );
      return undefined;
    case 'passkey': {
      if (!passkeyLinks)
        return notice(
          'Changing your step-up methods takes a proof from a passkey you have, but this bot has no passkey page ' +
            `(it has no public URL set). ${again}`,
        );
      const offer = await passkeyFactorLink(passkeyLinks, {
        teamId: where.team,
        userId: where.user,
        challengeId: need.challenge.id,
        change: need.challenge.change,
      });
      return notice(
        `:closed_lock_with_key: You have step-up methods already, so to ${CHANGE_WORDS[need.challenge.change]} ` +
          `confirm it is you with a passkey you have: <${offer.url}|open your passkey page>. Only you see this link; ` +
          `it works once, until ${slackDate(offer.validUntil, 'time')}. Nothing changes until your passkey checks out.`,
      );
    }
  }
}

/** What starting an enrollment (at once, or once proved) gives the person, for their eyes only. */
export async function enrollmentReply(
  outcome: Exclude<EnrollmentOutcome, ProofNeeded>,
  passkeyLinks: PasskeyLinkContext | undefined,
): Promise<Reply> {
  switch (outcome.kind) {
    case 'app_enrolled_already':
      return notice(
        `You are enrolled already. To enroll a new app, reset first with ${codeSpan('/cloud mfa reset')}.`,
      );
    case 'app_started': {
      // Only this reply, which only this person sees, ever holds the secret. The QR link holds
      // none: its page reads the sealed enrollment of the person it names, once. A link that could
      // not be made leaves the key to type: the enrollment has started, and this reply must say it.
      const qr =
        passkeyLinks &&
        (await appQrLink(passkeyLinks, { teamId: outcome.team, userId: outcome.user }).catch(
          () => undefined,
        ));
      const scan = qr
        ? `Scan a QR code with the app: <${qr.url}|show the QR code> (works once, until ${slackDate(qr.validUntil, 'time')}).\n`
        : '';
      return notice(
        ':iphone: *Add the bot to your authenticator app.* Only you see this message.\n' +
          scan +
          `Or open this link on your phone, or add a key by hand: ${codeSpan(outcome.uri)}\n` +
          `Secret: ${codeSpan(outcome.secret)} (time-based, ${CODE_DIGITS} digits, 30 seconds)\n` +
          `Then confirm with the code it shows: ${codeSpan('/cloud mfa confirm 123456')}. ` +
          'Until then it does not count.',
      );
    }
    case 'passkey_link': {
      if (!passkeyLinks) {
        return notice(
          'This bot has no passkey page (it has no public URL set), so passkeys cannot be enrolled here. ' +
            `Enroll an authenticator app instead: ${codeSpan('/cloud mfa enroll')}.`,
        );
      }
      // Whoever opens the link within its minutes adds a passkey to this person's name, so it is
      // given to them alone and never posted anywhere else.
      const offer = await passkeyEnrollmentLink(passkeyLinks, { teamId: outcome.team, userId: outcome.user });
      return notice(
        `:closed_lock_with_key: *Add a passkey.* <${offer.url}|Open your passkey page> on the device that keeps ` +
          `your passkey. Only you see this link; it works once, until ${slackDate(offer.validUntil, 'time')}. ` +
          'Where a rule asks for a passkey, your Approve and Deny then open the page to confirm.',
      );
    }
  }
}

/** What a reset came to, for the person who asked. */
export function resetReply(outcome: Exclude<ResetOutcome, { kind: 'not_allowed' }>, me: string): Reply {
  if (outcome.kind === 'requested') return resetRequestedReply(outcome.user, outcome.request);
  if (outcome.kind === 'nothing_enrolled')
    return notice(
      `${outcome.user === me ? 'You have' : `<@${outcome.user}> has`} no step-up method enrolled; nothing was reset.`,
    );
  const { user, appRemoved, passkeysRemoved } = outcome;
  return notice(
    `${user === me ? 'Your' : `<@${user}>'s`} ${methodsText(appRemoved, passkeysRemoved)} ` +
      `${(appRemoved ? 1 : 0) + passkeysRemoved > 1 ? 'were' : 'was'} removed. ` +
      `Enroll again with ${codeSpan('/cloud mfa enroll')} or ${codeSpan('/cloud mfa enroll passkey')}.`,
  );
}

/** An admin's reset of someone else, asked for: nothing is removed until it is approved. */
function resetRequestedReply(user: string, outcome: RequestOutcome): Reply {
  switch (outcome.kind) {
    case 'requested': {
      const { policy } = outcome;
      return notice(
        `:lock: Nothing is removed yet: removing every step-up method of <@${user}> needs ` +
          `${policy.requiredApprovals} approval${policy.requiredApprovals === 1 ? '' : 's'} from someone other ` +
          `than you and <@${user}>. I posted a card in this channel; it expires in ${policy.expiryMinutes} minutes.`,
      );
    }
    case 'refused':
      return notice(
        outcome.reason === 'channel_closed'
          ? unmadeRequestText(outcome)
          : `Nothing was requested: the workspace's rule asks every request to say why. Add ${codeSpan('--reason "…"')} to the command, e.g. ${codeSpan('/cloud mfa reset @bob --reason "lost phone"')}.`,
      );
    case 'card_not_posted':
    case 'not_saved':
      return notice(unmadeRequestText(outcome));
  }
}

function methodsText(app: boolean, passkeys: number): string {
  return [
    ...(app ? ['authenticator app'] : []),
    ...(passkeys > 0 ? [passkeys === 1 ? 'passkey' : `${passkeys} passkeys`] : []),
  ].join(' and ');
}

/** The direct message a change to a person's methods sends them: what, by whom, when, and what to do. */
export function factorNoticeText(notice: FactorNotice): string {
  const who =
    notice.by === notice.user
      ? 'by you'
      : `by <@${notice.by}>, with the approval the workspace's rule asks for`;
  const head =
    notice.change === 'added'
      ? `:closed_lock_with_key: *A step-up method was added to your account:* ${notice.app ? 'an authenticator app' : 'a passkey'}, ${who}, ${slackDate(notice.at)}.`
      : `:closed_lock_with_key: *Your step-up methods were removed:* ${methodsText(notice.app, notice.passkeys)}, ${who}, ${slackDate(notice.at)}.`;
  return (
    `${head}\n` +
    'If this was not you, someone may be using your Slack account: sign out of Slack on every device, tell a ' +
    `workspace admin at once, and check your methods with ${codeSpan('/cloud mfa status')}.`
  );
}

/**
 * Tells people of changes to their methods in their direct message with the app: a post to the
 * user id opens it (SLACK-FACTS "Direct messages"; the manifest enables the Messages tab). A lost
 * notice is logged, never thrown: the change itself has happened.
 */
export function slackFactorNotices(client: WebClient, logger: Pick<Logger, 'error'>): FactorNotices {
  return {
    async factorChanged(change) {
      const text = factorNoticeText(change);
      try {
        await client.chat.postMessage({ channel: change.user, text, blocks: notice(text).blocks });
      } catch (error) {
        logger.error('step-up change not told to its person', {
          team: change.team,
          user: change.user,
          error: slackErrorOf(error) ?? (error instanceof Error ? error.name : 'unknown'),
        });
      }
    },
  };
}
