import type { ParsedCommand } from '../../commands/parse.js';
import {
  confirmAuthenticatorApp,
  resetStepUp,
  startEnrollment,
  stepUpStatus,
} from '../../core/step-up-enrollment.js';
import { notice, type Reply } from '../../slack-kit/reply.js';
import { codeSpan, slackDate } from '../../slack-kit/text.js';
import { slackApprovalSurface } from '../approval-surface.js';
import { callerOf } from '../caller.js';
import type { BotCommandContext } from '../context.js';
import { attempts } from '../step-up-codes.js';
import { askForFactorProof, enrollmentReply, resetReply, slackFactorNotices } from '../step-up-factors.js';
import { lockedOutText, passkeyLinksOf } from '../step-up-prompts.js';

/**
 * `/cloud mfa enroll|confirm|status|reset`: a person's step-up methods, an authenticator app or
 * passkeys. Who may enroll, confirm or reset whose methods, and those writes, are
 * `lib/core/step-up-enrollment.ts`; adding a method to someone who has one, or removing their own,
 * first asks for a proof from one they have (`step-up-factors.ts`). The enrollment secret is shown once, in the enrolling person's
 * ephemeral reply, and never again: not in logs, channel messages, errors, the audit or the
 * modal's metadata.
 */

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;

export async function handleMfaCommand(
  context: BotCommandContext,
  parsed: BotParsed,
): Promise<Reply | undefined> {
  switch (parsed.subcommand) {
    case 'enroll':
      return enroll(context, parsed.args[0]);
    case 'confirm':
      return confirm(context, parsed.args[0] ?? '');
    case 'reset':
      return reset(context, parsed.args[0], stringFlag(parsed.flags.reason));
    default:
      return status(context);
  }
}

async function enroll(context: BotCommandContext, method: string | undefined): Promise<Reply | undefined> {
  if (method !== undefined && method !== 'code' && method !== 'passkey') {
    return notice(
      `Enroll with ${codeSpan('/cloud mfa enroll')} (an authenticator app) or ${codeSpan('/cloud mfa enroll passkey')}.`,
    );
  }
  const outcome = await startEnrollment(context.deps, callerOf(context), { method: method ?? 'code' });
  const links = passkeyLinksOf(context.deps);
  if (outcome.kind === 'proof_needed') return askForFactorProof(context.client, outcome, context.ctx, links);
  return enrollmentReply(outcome, links);
}

async function confirm(context: BotCommandContext, code: string): Promise<Reply> {
  const outcome = await confirmAuthenticatorApp(factorDeps(context), callerOf(context), { code });
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

/**
 * `reason`: why, for an admin's reset of someone else (the card, the approvers and the audit show
 * it); one's own reset is no request, and has no one to tell.
 */
async function reset(
  context: BotCommandContext,
  other: string | undefined,
  reason: string | undefined,
): Promise<Reply | undefined> {
  const cards = slackApprovalSurface(context.client, context.deps);
  const outcome = await resetStepUp(factorDeps(context), cards, callerOf(context), { user: other, reason });
  switch (outcome.kind) {
    case 'not_allowed':
      return notice(
        "Only workspace admins (or the admins named in the approval policy) can reset someone else's step-up.",
      );
    case 'proof_needed':
      return askForFactorProof(context.client, outcome, context.ctx, passkeyLinksOf(context.deps));
    default:
      return resetReply(outcome, context.ctx.user);
  }
}

function stringFlag(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The core's enrollment dependencies, with the person told of a change in their DM. */
function factorDeps(context: BotCommandContext) {
  return { ...context.deps, factorNotices: slackFactorNotices(context.client, context.deps.logger) };
}
