import { randomUUID } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { WebClient } from '@slack/web-api';
import type { StepUpCompletion, StepUpDeps } from '../changes/decisions.js';
import type { FactorChangeCompletion, StepUpEnrollmentDeps } from '../core/step-up-enrollment.js';
import { type PasskeyLinkContext, passkeyEnrollmentLink } from '../passkeys/links.js';
import type {
  AssertionOutcome,
  DescribeProof,
  OnVerifiedAssertion,
  PasskeyFactorEvents,
  ProofSubject,
} from '../passkeys/routes.js';
import { inSlackTeam } from '../slack-kit/web-client.js';
import type { ChallengeDecision, StepUpChallenge, StepUpRequirement, Store } from '../store/index.js';
import type { RunnerDeps } from './operation-runner.js';

/**
 * A passkey approval, recorded: the passkey page (`lib/passkeys/routes.ts`) has checked the
 * assertion against a passkey of the person its link names, and hands over the challenge the link
 * was bound to. The step-up challenge is completed with method `passkey` through the same path as
 * a code (`completeStepUp`), so the card, the thread and the audit say "with a passkey" and the
 * operation runs once; a challenge used, expired, not theirs or of a rule that no longer takes a
 * passkey records nothing, and the page says which.
 *
 * The page is not a Slack request: the Slack calls are made with the bot's own client for the
 * link's workspace (`slack`, routed by team for a distributed app). The workflow modules load on
 * the first approval, not on the Slack function's cold start.
 */
export function passkeyApprovalRecorder(
  deps: StepUpDeps & RunnerDeps,
  slack: WebClient,
): OnVerifiedAssertion {
  return (challengeId, proof) =>
    inSlackTeam(proof.teamId, async () => {
      const [{ completeStepUp }, { slackApprovalSurface }, { runbookFollower }] = await Promise.all([
        import('../changes/decisions.js'),
        import('./approval-surface.js'),
        import('./approval-answers.js'),
      ]);
      const completion = await completeStepUp(
        deps,
        slackApprovalSurface(slack, deps, runbookFollower({ ...deps, slack })),
        { team: proof.teamId, user: proof.userId, correlationId: randomUUID() },
        challengeId,
        { method: 'passkey', credentialId: proof.credentialId },
      );
      return assertionOutcome(completion);
    });
}

/**
 * The passkey page's news of a person's own methods: a passkey registered (audited, and the person
 * told in their DM), and a factor link's assertion checked out, which makes the change it was for
 * and says on the page what came of it: the link to set up the new passkey, the new app's key (on
 * this page only, which the person's own passkey opened), or what was removed.
 */
export function passkeyFactorRecorder(
  deps: Omit<StepUpEnrollmentDeps, 'factorNotices'> & { readonly passkeyLinks: PasskeyLinkContext },
  slack: WebClient,
): PasskeyFactorEvents {
  const withNotices = async () => {
    const [core, factors] = await Promise.all([
      import('../core/step-up-enrollment.js'),
      import('./step-up-factors.js'),
    ]);
    return {
      core,
      enrollmentDeps: { ...deps, factorNotices: factors.slackFactorNotices(slack, deps.logger) },
    };
  };
  return {
    passkeyAdded: (who) =>
      inSlackTeam(who.teamId, async () => {
        const { core, enrollmentDeps } = await withNotices();
        await core.passkeyAdded(enrollmentDeps, { team: who.teamId, user: who.userId });
      }),
    proved: (challengeId, proof) =>
      inSlackTeam(proof.teamId, async () => {
        const { core, enrollmentDeps } = await withNotices();
        const completion = await core.completeFactorChange(
          enrollmentDeps,
          { team: proof.teamId, user: proof.userId },
          challengeId,
          { method: 'passkey', credentialId: proof.credentialId },
        );
        return factorOutcome(completion, deps.passkeyLinks);
      }),
  };
}

/** What the page says of a proved change to the person's own methods: plain text, true to what was done. */
export async function factorOutcome(
  completion: FactorChangeCompletion,
  passkeyLinks: PasskeyLinkContext,
): Promise<AssertionOutcome> {
  switch (completion.kind) {
    case 'not_proved':
      return refused(
        'This link was already used, has expired, or is not yours. Nothing changed; run the command in Slack again.',
      );
    case 'reset':
      return recorded(
        completion.outcome.kind === 'reset'
          ? `Your step-up methods were removed. Enroll again from Slack with /cloud mfa enroll. ${CLOSE}`
          : `You had no step-up method left to remove. ${CLOSE}`,
      );
    case 'enrollment':
      break;
  }
  const { outcome } = completion;
  switch (outcome.kind) {
    case 'passkey_link': {
      const offer = await passkeyEnrollmentLink(passkeyLinks, { teamId: outcome.team, userId: outcome.user });
      return {
        recorded: true,
        message: 'It is you. Now set up the new passkey (on the device or security key that will keep it).',
        next: { url: offer.url, label: 'Set up the new passkey' },
      };
    }
    case 'app_started':
      return {
        recorded: true,
        message:
          `It is you. Add this key to your authenticator app: ${outcome.secret} (time-based, 6 digits, 30 seconds), ` +
          'or open the link below on your phone. Then confirm in Slack with /cloud mfa confirm and the code it shows; ' +
          'until then it does not count.',
        next: { url: outcome.uri, label: 'Open in your authenticator app' },
      };
    case 'app_enrolled_already':
      return refused(
        'You have an authenticator app enrolled already: to change it, reset first with /cloud mfa reset. Nothing changed.',
      );
  }
}

/**
 * What an approval link proves, for its page: the challenge the link is bound to, its request
 * (the operation in people's words, the target as the card names it, who asked and why, until
 * when), in the person's own time zone, and whether a passkey can count for it under the rule in
 * force now. Names and the time zone are Slack's (`users.info`); when Slack cannot say, the page
 * shows the ids and UTC rather than nothing.
 */
export function passkeyProofDescriber(
  deps: { readonly store: Store; readonly logger: Logger },
  slack: WebClient,
): DescribeProof {
  return (link) =>
    inSlackTeam(link.team, async () => {
      const challenge = await deps.store.stepUp.challenge(link.team, link.challengeId);
      if (!challenge || challenge.user !== link.user) return undefined;
      const approval = await deps.store.approvals.get(link.team, challenge.approvalId);
      if (!approval) return undefined;
      const [{ findOperation }, { effectiveApprovalPolicy }, { passkeyCounts }, { actionPhrase }] =
        await Promise.all([
          import('../api/operations/index.js'),
          import('../changes/guardrails.js'),
          import('../changes/step-up.js'),
          import('./render/approval.js'),
        ]);
      const op = findOperation(approval.operationId);
      const [policy, requester, person] = await Promise.all([
        op
          ? effectiveApprovalPolicy(deps.store, approval.team, approval.channel, op).then((e) => e.policy)
          : deps.store.approvalPolicy.get(approval.team),
        slackPerson(slack, deps.logger, approval.requester),
        slackPerson(slack, deps.logger, link.user),
      ]);
      const subject: ProofSubject = {
        decision: challenge.decision,
        action: op ? actionPhrase(op) : approval.operationId,
        target: approval.summary,
        requester: requester.name,
        reason: approval.reason ?? approval.breakGlass?.reason ?? null,
        requestId: approval.id,
        requestExpires: approval.decideBy,
        timeZone: person.timeZone,
      };
      return passkeyCounts(challenge, policy.stepUp)
        ? subject
        : { ...subject, passkeyRefused: passkeyRefusedText(challenge, policy.stepUp) };
    });
}

/** A person as Slack names them and the zone their clock is in; their id and UTC when unreadable. */
async function slackPerson(
  slack: WebClient,
  logger: Logger,
  user: string,
): Promise<{ readonly name: string; readonly timeZone: string }> {
  try {
    const found = (await slack.users.info({ user })).user;
    return {
      name: found?.profile?.real_name || found?.real_name || found?.name || user,
      timeZone: found?.tz || 'UTC',
    };
  } catch (error) {
    logger.info('passkey page: users.info failed', {
      error: error instanceof Error ? error.name : 'unknown',
    });
    return { name: user, timeZone: 'UTC' };
  }
}

const CLICK_AGAIN: Record<ChallengeDecision, string> = {
  approve: 'click Approve in Slack again',
  deny: 'click Deny in Slack again',
  break_glass: 'ask again with --break-glass in Slack',
};

/** Why a passkey cannot count for this link, in plain words: the page shows it instead of a button. */
function passkeyRefusedText(challenge: StepUpChallenge, ruleNow: StepUpRequirement): string {
  const again = CLICK_AGAIN[challenge.decision];
  if (ruleNow === 'code')
    return (
      'The rule for this request changed after this link was made: it now asks for a code from your ' +
      `authenticator app, not a passkey. Nothing was recorded; ${again} to be asked for a code.`
    );
  return `This link was made for a code, not a passkey, so a passkey cannot count for it. Nothing was recorded; ${again}.`;
}

const CLOSE = 'You may close this page.';
const AGAIN = 'Nothing was recorded; click the button in Slack again for a new link.';

/** What the page tells the person: plain text, true to what was recorded. */
export function assertionOutcome(completion: StepUpCompletion): AssertionOutcome {
  switch (completion.kind) {
    case 'not_proved':
      return refused(
        completion.check.kind === 'wrong_method'
          ? 'The rule for this request does not take a passkey. Nothing was recorded.'
          : `This approval was already used, has expired, or is not yours. ${AGAIN}`,
      );
    case 'broke_glass':
      return completion.outcome.kind === 'running'
        ? recorded(`Break-glass: it is running now; the card in Slack shows how it ends. ${CLOSE}`)
        : refused(
            'Break-glass is no longer allowed for you here (or the request could not be made). Nothing was run.',
          );
    case 'decided':
      break;
  }
  const { outcome } = completion;
  const cardNote = (cardShown: boolean) => (cardShown ? '' : ' The card in Slack could not show it yet.');
  switch (outcome.kind) {
    case 'approved':
      return recorded(`Approved: it is running now; the card in Slack shows how it ends. ${CLOSE}`);
    case 'vote_counted':
      return recorded(
        `Your approval counts (${outcome.count} of ${outcome.required}).${cardNote(outcome.cardShown)} ${CLOSE}`,
      );
    case 'denied':
      return recorded(`Denied: nothing will run.${cardNote(outcome.cardShown)} ${CLOSE}`);
    case 'cancelled':
      return recorded(`Cancelled: nothing will run.${cardNote(outcome.cardShown)} ${CLOSE}`);
    case 'refused':
      switch (outcome.reason) {
        case 'no_such_request':
          return refused('That request no longer exists. Nothing was recorded.');
        case 'expired':
        case 'expired_meanwhile':
          return refused('That request expired before your decision. Nothing was recorded.');
        case 'duplicate_vote':
          return refused('You have approved this request already; it counts once.');
        case 'already_closed':
        case 'too_late':
          return refused('That request was decided already. Nothing was recorded.');
        case 'not_requester':
        case 'not_eligible':
          return refused('You may not decide this request (any more). Nothing was recorded.');
      }
  }
}

function recorded(message: string): AssertionOutcome {
  return { recorded: true, message };
}

function refused(message: string): AssertionOutcome {
  return { recorded: false, message };
}
