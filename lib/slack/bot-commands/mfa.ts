import { CODE_DIGITS } from '../../changes/step-up.js';
import type { ParsedCommand } from '../../commands/parse.js';
import {
  confirmAuthenticatorApp,
  resetStepUp,
  startEnrollment,
  stepUpStatus,
} from '../../core/step-up-enrollment.js';
import { passkeyEnrollmentLink } from '../../passkeys/links.js';
import { notice, type Reply } from '../../slack-kit/reply.js';
import { codeSpan, slackDate } from '../../slack-kit/text.js';
import { callerOf } from '../caller.js';
import type { BotCommandContext } from '../context.js';
import { attempts } from '../step-up-codes.js';
import { lockedOutText, passkeyLinksOf } from '../step-up-prompts.js';

/**
 * `/cloud mfa enroll|confirm|status|reset`: a person's step-up methods, an authenticator app or
 * passkeys. Who may enroll, confirm or reset whose methods, and those writes, are
 * `lib/core/step-up-enrollment.ts`. The enrollment secret is shown once, in the enrolling person's
 * ephemeral reply, and never again: not in logs, channel messages, errors, the audit or the
 * modal's metadata.
 */

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;

export async function handleMfaCommand(context: BotCommandContext, parsed: BotParsed): Promise<Reply> {
  switch (parsed.subcommand) {
    case 'enroll':
      return enroll(context, parsed.args[0]);
    case 'confirm':
      return confirm(context, parsed.args[0] ?? '');
    case 'reset':
      return reset(context, parsed.args[0]);
    default:
      return status(context);
  }
}

async function enroll(context: BotCommandContext, method: string | undefined): Promise<Reply> {
  if (method !== undefined && method !== 'code' && method !== 'passkey') {
    return notice(
      `Enroll with ${codeSpan('/cloud mfa enroll')} (an authenticator app) or ${codeSpan('/cloud mfa enroll passkey')}.`,
    );
  }
  const outcome = await startEnrollment(context.deps, callerOf(context), { method: method ?? 'code' });
  switch (outcome.kind) {
    case 'app_enrolled_already':
      return notice(
        `You are enrolled already. To enroll a new app, reset first with ${codeSpan('/cloud mfa reset')}.`,
      );
    case 'app_started':
      // Only this reply, which only this person sees, ever holds the secret.
      return notice(
        ':iphone: *Add the bot to your authenticator app.* Only you see this message.\n' +
          `Open this link on your phone, or add a key by hand: ${codeSpan(outcome.uri)}\n` +
          `Secret: ${codeSpan(outcome.secret)} (time-based, ${CODE_DIGITS} digits, 30 seconds)\n` +
          `Then confirm with the code it shows: ${codeSpan('/cloud mfa confirm 123456')}. ` +
          'Until then it does not count.',
      );
    case 'passkey_link': {
      const links = passkeyLinksOf(context.deps);
      if (!links) {
        return notice(
          'This bot has no passkey page (it has no public URL set), so passkeys cannot be enrolled here. ' +
            `Enroll an authenticator app instead: ${codeSpan('/cloud mfa enroll')}.`,
        );
      }
      // Whoever opens the link within its minutes adds a passkey to this person's name, so it is
      // given to them alone and never posted anywhere else.
      const offer = await passkeyEnrollmentLink(links, { teamId: outcome.team, userId: outcome.user });
      return notice(
        `:closed_lock_with_key: *Add a passkey.* <${offer.url}|Open your passkey page> on the device that keeps ` +
          `your passkey. Only you see this link; it works once, until ${slackDate(offer.validUntil, 'time')}. ` +
          'Where a rule asks for a passkey, your Approve and Deny then open the page to confirm.',
      );
    }
  }
}

async function confirm(context: BotCommandContext, code: string): Promise<Reply> {
  const outcome = await confirmAuthenticatorApp(context.deps, callerOf(context), { code });
  switch (outcome.kind) {
    case 'confirmed':
      return notice(
        ':white_check_mark: Your authenticator app is enrolled. Where a rule asks for step-up, your Approve and Deny ask for its code.',
      );
    case 'confirmed_already':
      return notice('Your authenticator app is confirmed already.');
    case 'nothing_to_confirm':
      return notice(`There is nothing to confirm: start with ${codeSpan('/cloud mfa enroll')}.`);
    case 'locked_out':
      return notice(lockedOutText(outcome.until));
    case 'wrong':
    case 'replayed':
      return notice(
        `That code is not right (or was used already); the app is not enrolled yet. ${attempts(outcome.attemptsLeft)}`,
      );
  }
}

async function status(context: BotCommandContext): Promise<Reply> {
  const { app, passkeysAddedAt } = await stepUpStatus(context.deps, callerOf(context));
  const passkeyLine = passkeysText(passkeysAddedAt);
  switch (app.kind) {
    case 'none':
      return passkeysAddedAt.length === 0
        ? notice(
            `You have no step-up method enrolled. Enroll with ${codeSpan('/cloud mfa enroll')} (an authenticator app) ` +
              `or ${codeSpan('/cloud mfa enroll passkey')}.`,
          )
        : notice(`No authenticator app enrolled.\n${passkeyLine}`);
    case 'pending':
      return notice(
        `Your authenticator app is not confirmed yet: confirm with ${codeSpan('/cloud mfa confirm CODE')}, or start again with ${codeSpan('/cloud mfa enroll')}.\n${passkeyLine}`,
      );
    case 'active': {
      const since = app.confirmedAt ? ` since ${slackDate(app.confirmedAt)}` : '';
      return notice(`:white_check_mark: Authenticator app enrolled${since}.\n${passkeyLine}`);
    }
  }
}

/** How many passkeys, and when each was added (oldest first): nothing that identifies one. */
function passkeysText(addedAt: readonly Date[]): string {
  if (addedAt.length === 0) return 'No passkey enrolled.';
  const added = addedAt.map((at) => slackDate(at)).join(', ');
  return `:closed_lock_with_key: ${addedAt.length} passkey${addedAt.length === 1 ? '' : 's'} enrolled (added ${added}).`;
}

async function reset(context: BotCommandContext, other: string | undefined): Promise<Reply> {
  const me = context.ctx.user;
  const outcome = await resetStepUp(context.deps, callerOf(context), { user: other });
  switch (outcome.kind) {
    case 'not_allowed':
      return notice(
        "Only workspace admins (or the admins named in the approval policy) can reset someone else's step-up.",
      );
    case 'nothing_enrolled':
      return notice(
        `${outcome.user === me ? 'You have' : `<@${outcome.user}> has`} no step-up method enrolled; nothing was reset.`,
      );
    case 'reset': {
      const { user, appRemoved, passkeysRemoved } = outcome;
      const what = [
        ...(appRemoved ? ['authenticator app'] : []),
        ...(passkeysRemoved > 0 ? [`${passkeysRemoved} passkey${passkeysRemoved === 1 ? '' : 's'}`] : []),
      ].join(' and ');
      return notice(
        `${user === me ? 'Your' : `<@${user}>'s`} ${what} ${(appRemoved ? 1 : 0) + passkeysRemoved > 1 ? 'were' : 'was'} removed. ` +
          `Enroll again with ${codeSpan('/cloud mfa enroll')} or ${codeSpan('/cloud mfa enroll passkey')}.`,
      );
    }
  }
}
