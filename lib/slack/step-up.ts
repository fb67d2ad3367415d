import type { ViewOutput } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import * as z from 'zod';
import { completeStepUp, type StepUpCompletion } from '../changes/decisions.js';
import {
  CODE_DIGITS,
  checkCode,
  LOCKOUT_WINDOW_MINUTES,
  type ProofCheck,
  startCodeEnrollment,
} from '../changes/step-up.js';
import type { ParsedCommand } from '../commands/parse.js';
import { isPolicyAdmin } from '../core/admins.js';
import { passkeyEnrollmentLink } from '../passkeys/links.js';
import { notice, type Reply } from '../slack-kit/reply.js';
import { codeSpan, formatAbsoluteDate, slackDate } from '../slack-kit/text.js';
import type { StoredPasskey } from '../store/passkeys.js';
import { slackApprovalSurface } from './approval-surface.js';
import { runbookFollower } from './approvals.js';
import { callerOf } from './caller.js';
import type { BotCommandContext, BotDeps } from './context.js';
import { CODE_BLOCK, CODE_INPUT, lockedOutText, passkeyLinksOf } from './step-up-prompts.js';
import '../zod-settings.js';

export { CODE_BLOCK };

/**
 * Step-up approvals as Slack asks for them: the code modal a click opens, its submission, what a
 * person who cannot prove anything is told, and `/cloud mfa enroll|confirm|status|reset`. The
 * rules (which step-up a rule asks for, codes, lockout, challenges) are `lib/changes/step-up.ts`.
 *
 * The prompts a click answers with are `step-up-prompts.ts`. The enrollment secret is shown once, in the enrolling person's ephemeral reply, and never
 * again: not in logs, channel messages, errors, the audit or the modal's metadata.
 */

// ---------------------------------------------------------------------------------------------
// the code modal's submission

/** What the modal carries to its submission: which challenge, and where to answer. */
const CodeModalMetadataSchema = z.object({ challenge: z.string().max(64), channel: z.string().max(32) });

export interface CodeSubmission {
  readonly team: string;
  readonly user: string;
  readonly view: ViewOutput;
  readonly client: WebClient;
  readonly correlationId: string;
}

type CodeAck = { response_action: 'errors'; errors: Record<string, string> } | undefined;

/**
 * Checks the code and, when it checks out, records the vote (or breaks the glass) the click asked
 * for. A refused code keeps the modal open with why; `tell` gets what the person is told after
 * it closed.
 */
export async function handleCodeSubmission(
  deps: BotDeps,
  submission: CodeSubmission,
  tell: (channel: string, reply: Reply) => Promise<void>,
): Promise<{ ack: CodeAck }> {
  const code = submission.view.state.values[CODE_BLOCK]?.[CODE_INPUT]?.value ?? '';
  const metadata = CodeModalMetadataSchema.safeParse(safeJson(submission.view.private_metadata));
  if (!metadata.success) return refuse('This window is out of date. Click the button again.');
  const click = { team: submission.team, user: submission.user, correlationId: submission.correlationId };
  const completion = await completeStepUp(
    deps,
    slackApprovalSurface(submission.client, deps, runbookFollower({ ...deps, slack: submission.client })),
    click,
    metadata.data.challenge,
    { method: 'code', code },
  );
  if (completion.kind === 'not_proved') return refuse(proofRefusalText(completion.check));
  const reply = await completionReply(completion, metadata.data.channel, submission.user);
  if (reply) await tell(metadata.data.channel, reply);
  return { ack: undefined };
}

function refuse(text: string): { ack: CodeAck } {
  return { ack: { response_action: 'errors', errors: { [CODE_BLOCK]: text } } };
}

/** Plain text (modal errors render no mrkdwn): the times in UTC. */
function proofRefusalText(check: Exclude<ProofCheck, { kind: 'proved' }>): string {
  switch (check.kind) {
    case 'wrong':
      return `That code is not right; nothing was counted. ${attempts(check.attemptsLeft)}`;
    case 'replayed':
      return `That code was used already; wait for the next one. Nothing was counted. ${attempts(check.attemptsLeft)}`;
    case 'locked_out':
      return `Too many wrong codes: none is accepted from you until ${formatAbsoluteDate(check.until)}. Nothing was counted.`;
    case 'not_enrolled':
      return 'You have no authenticator app enrolled: run /cloud mfa enroll. Nothing was counted.';
    case 'wrong_method':
      return 'This rule requires a passkey; a code does not count here.';
    case 'challenge_unusable':
      return 'This window has expired or was used. Click the button again.';
  }
}

function attempts(left: number): string {
  return `${left} attempt${left === 1 ? '' : 's'} left before a ${LOCKOUT_WINDOW_MINUTES}-minute lockout.`;
}

async function completionReply(
  completion: Exclude<StepUpCompletion, { kind: 'not_proved' }>,
  channel: string,
  user: string,
): Promise<Reply | undefined> {
  const approvals = await import('./approvals.js');
  return completion.kind === 'decided'
    ? approvals.decisionReply(completion.outcome)
    : approvals.breakGlassReply(completion.outcome, { user, channel });
}

function safeJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// `/cloud mfa enroll|confirm|status|reset`

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

async function enroll({ deps, ctx }: BotCommandContext, method: string | undefined): Promise<Reply> {
  if (method === 'passkey') return enrollPasskey(deps, ctx);
  if (method !== undefined && method !== 'code') {
    return notice(
      `Enroll with ${codeSpan('/cloud mfa enroll')} (an authenticator app) or ${codeSpan('/cloud mfa enroll passkey')}.`,
    );
  }
  const started = await startCodeEnrollment(deps.store, ctx.team, ctx.user, `${ctx.user}@${ctx.team}`);
  if (started.kind === 'already_enrolled') {
    return notice(
      `You are enrolled already. To enroll a new app, reset first with ${codeSpan('/cloud mfa reset')}.`,
    );
  }
  // Only this reply, which only this person sees, ever holds the secret.
  return notice(
    ':iphone: *Add the bot to your authenticator app.* Only you see this message.\n' +
      `Open this link on your phone, or add a key by hand: ${codeSpan(started.uri)}\n` +
      `Secret: ${codeSpan(started.secret)} (time-based, ${CODE_DIGITS} digits, 30 seconds)\n` +
      `Then confirm with the code it shows: ${codeSpan('/cloud mfa confirm 123456')}. ` +
      'Until then it does not count.',
  );
}

async function confirm({ deps, ctx }: BotCommandContext, code: string): Promise<Reply> {
  const check = await checkCode(deps.store, ctx.team, ctx.user, code, true);
  switch (check.kind) {
    case 'accepted':
      await auditMfa(deps, ctx.team, ctx.user, `mfa.enroll`, ctx.user, 'authenticator app confirmed');
      return notice(
        ':white_check_mark: Your authenticator app is enrolled. Where a rule asks for step-up, your Approve and Deny ask for its code.',
      );
    case 'not_enrolled': {
      const enrollment = await deps.store.stepUp.enrollment(ctx.team, ctx.user);
      return notice(
        enrollment?.status === 'active'
          ? 'Your authenticator app is confirmed already.'
          : `There is nothing to confirm: start with ${codeSpan('/cloud mfa enroll')}.`,
      );
    }
    case 'locked_out':
      return notice(lockedOutText(check.until));
    case 'wrong':
    case 'replayed':
      return notice(
        `That code is not right (or was used already); the app is not enrolled yet. ${attempts(check.attemptsLeft)}`,
      );
  }
}

async function status({ deps, ctx }: BotCommandContext): Promise<Reply> {
  const [enrollment, passkeys] = await Promise.all([
    deps.store.stepUp.enrollment(ctx.team, ctx.user),
    deps.store.passkeys.list(ctx.team, ctx.user),
  ]);
  const passkeyLine = passkeysText(passkeys);
  if (!enrollment && passkeys.length === 0)
    return notice(
      `You have no step-up method enrolled. Enroll with ${codeSpan('/cloud mfa enroll')} (an authenticator app) ` +
        `or ${codeSpan('/cloud mfa enroll passkey')}.`,
    );
  if (enrollment?.status === 'pending') {
    return notice(
      `Your authenticator app is not confirmed yet: confirm with ${codeSpan('/cloud mfa confirm CODE')}, or start again with ${codeSpan('/cloud mfa enroll')}.\n${passkeyLine}`,
    );
  }
  if (!enrollment) return notice(`No authenticator app enrolled.\n${passkeyLine}`);
  const since = enrollment.confirmedAt ? ` since ${slackDate(enrollment.confirmedAt)}` : '';
  return notice(`:white_check_mark: Authenticator app enrolled${since}.\n${passkeyLine}`);
}

/** How many passkeys, and when each was added (oldest first): nothing that identifies one. */
function passkeysText(passkeys: readonly StoredPasskey[]): string {
  if (passkeys.length === 0) return 'No passkey enrolled.';
  const added = [...passkeys]
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
    .map((passkey) => slackDate(passkey.createdAt))
    .join(', ');
  return `:closed_lock_with_key: ${passkeys.length} passkey${passkeys.length === 1 ? '' : 's'} enrolled (added ${added}).`;
}

/**
 * A one-time link to the passkey page, in a reply only the enrolling person sees: whoever opens
 * it within its minutes adds a passkey to their name, so it is never posted anywhere else.
 */
async function enrollPasskey(deps: BotDeps, ctx: BotCommandContext['ctx']): Promise<Reply> {
  const links = passkeyLinksOf(deps);
  if (!links) {
    return notice(
      'This bot has no passkey page (it has no public URL set), so passkeys cannot be enrolled here. ' +
        `Enroll an authenticator app instead: ${codeSpan('/cloud mfa enroll')}.`,
    );
  }
  const offer = await passkeyEnrollmentLink(links, { teamId: ctx.team, userId: ctx.user });
  return notice(
    `:closed_lock_with_key: *Add a passkey.* <${offer.url}|Open your passkey page> on the device that keeps ` +
      `your passkey. Only you see this link; it works once, until ${slackDate(offer.validUntil, 'time')}. ` +
      'Where a rule asks for a passkey, your Approve and Deny then open the page to confirm.',
  );
}

async function reset(context: BotCommandContext, other: string | undefined): Promise<Reply> {
  const { deps, ctx } = context;
  const whose = other ?? ctx.user;
  if (whose !== ctx.user) {
    const policy = await deps.store.approvalPolicy.get(ctx.team);
    if (!(await isPolicyAdmin(context.deps, callerOf(context), policy))) {
      return notice(
        "Only workspace admins (or the admins named in the approval policy) can reset someone else's step-up.",
      );
    }
  }
  const [codeRemoved, passkeysRemoved] = await Promise.all([
    deps.store.stepUp.reset(ctx.team, whose),
    deps.store.passkeys.removeAll(ctx.team, whose),
  ]);
  const who = whose === ctx.user ? 'You have' : `<@${whose}> has`;
  if (!codeRemoved && passkeysRemoved === 0)
    return notice(`${who} no step-up method enrolled; nothing was reset.`);
  const what = [
    ...(codeRemoved ? ['authenticator app'] : []),
    ...(passkeysRemoved > 0 ? [`${passkeysRemoved} passkey${passkeysRemoved === 1 ? '' : 's'}`] : []),
  ].join(' and ');
  await auditMfa(deps, ctx.team, ctx.user, 'mfa.reset', whose, `${what} removed`);
  return notice(
    `${whose === ctx.user ? 'Your' : `<@${whose}>'s`} ${what} ${(codeRemoved ? 1 : 0) + passkeysRemoved > 1 ? 'were' : 'was'} removed. ` +
      `Enroll again with ${codeSpan('/cloud mfa enroll')} or ${codeSpan('/cloud mfa enroll passkey')}.`,
  );
}

async function auditMfa(
  deps: BotDeps,
  team: string,
  actor: string,
  action: string,
  whose: string,
  detail: string,
): Promise<void> {
  await deps.store.audit
    .append({ team, actor, action, target: `user ${whose}`, result: 'succeeded', detail })
    .catch((error: unknown) => deps.logger.error('audit entry not written', { error }));
}
