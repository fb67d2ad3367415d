import type { ViewOutput } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import * as z from 'zod';
import { completeStepUp, type StepUpCompletion } from '../changes/decisions.js';
import { LOCKOUT_WINDOW_MINUTES, type ProofCheck } from '../changes/step-up.js';
import type { Reply } from '../slack-kit/reply.js';
import { formatAbsoluteDate } from '../slack-kit/text.js';
import { runbookFollower } from './approval-answers.js';
import { slackApprovalSurface } from './approval-surface.js';
import type { BotDeps } from './context.js';
import { CODE_BLOCK, CODE_INPUT, passkeyLinksOf } from './step-up-prompts.js';
import '../zod-settings.js';

export { CODE_BLOCK };

/**
 * Step-up approvals as Slack asks for them: the submission of the code modal a click opens, which
 * records the vote (or breaks the glass) once the code checks out. The rules (which step-up a rule
 * asks for, codes, lockout, challenges) are `lib/changes/step-up.ts`. The prompts a click answers
 * with are `step-up-prompts.ts`; enrolling a method is `/cloud mfa` (`bot-commands/mfa.ts`).
 */

// ---------------------------------------------------------------------------------------------
// the code modal's submission

/** What the modal carries to its submission: which challenge, and where to answer. */
const CodeModalMetadataSchema = z.object({
  challenge: z.string().max(64),
  channel: z.string().max(32),
  /** A change to the person's own step-up methods, not a vote (`step-up-factors.ts`). */
  factor: z.literal(true).optional(),
});

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
  if (metadata.data.factor) return factorSubmission(deps, submission, metadata.data, code, tell);
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

/** A code proving a change to the person's own methods: the change is made once it checks out. */
async function factorSubmission(
  deps: BotDeps,
  submission: CodeSubmission,
  metadata: { readonly challenge: string; readonly channel: string },
  code: string,
  tell: (channel: string, reply: Reply) => Promise<void>,
): Promise<{ ack: CodeAck }> {
  const [{ completeFactorChange }, factors] = await Promise.all([
    import('../core/step-up-enrollment.js'),
    import('./step-up-factors.js'),
  ]);
  const completion = await completeFactorChange(
    { ...deps, factorNotices: factors.slackFactorNotices(submission.client, deps.logger) },
    { team: submission.team, user: submission.user },
    metadata.challenge,
    { method: 'code', code },
  );
  if (completion.kind === 'not_proved') return refuse(proofRefusalText(completion.check, 'Nothing changed'));
  const reply =
    completion.kind === 'reset'
      ? factors.resetReply(completion.outcome, submission.user)
      : await factors.enrollmentReply(completion.outcome, passkeyLinksOf(deps));
  await tell(metadata.channel, reply);
  return { ack: undefined };
}

function refuse(text: string): { ack: CodeAck } {
  return { ack: { response_action: 'errors', errors: { [CODE_BLOCK]: text } } };
}

/** Plain text (modal errors render no mrkdwn): the times in UTC. `nothing`: what did not happen. */
function proofRefusalText(
  check: Exclude<ProofCheck, { kind: 'proved' }>,
  nothing = 'Nothing was counted',
): string {
  switch (check.kind) {
    case 'wrong':
      return `That code is not right. ${nothing}. ${attempts(check.attemptsLeft)}`;
    case 'replayed':
      return `That code was used already; wait for the next one. ${nothing}. ${attempts(check.attemptsLeft)}`;
    case 'locked_out':
      return `Too many wrong codes: none is accepted from you until ${formatAbsoluteDate(check.until)}. ${nothing}.`;
    case 'not_enrolled':
      return `You have no authenticator app enrolled: run /cloud mfa enroll. ${nothing}.`;
    case 'wrong_method':
      return 'This rule requires a passkey; a code does not count here.';
    case 'challenge_unusable':
      return 'This window has expired or was used. Click the button again.';
  }
}

/** How many wrong codes are left before the lockout, for a refused code. */
export function attempts(left: number): string {
  return `${left} attempt${left === 1 ? '' : 's'} left before a ${LOCKOUT_WINDOW_MINUTES}-minute lockout.`;
}

async function completionReply(
  completion: Exclude<StepUpCompletion, { kind: 'not_proved' }>,
  channel: string,
  user: string,
): Promise<Reply | undefined> {
  const approvals = await import('./approval-answers.js');
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
