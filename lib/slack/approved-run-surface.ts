import type { WebClient } from '@slack/web-api';
import * as z from 'zod';
import type { ApprovedRunSurface } from '../changes/execution.js';
import type { ChangeRequest, OperationRunner } from '../changes/ports.js';
import type { RequestFollower } from '../changes/runbooks.js';
import type { ApplyOutcome } from '../core/settings/settings.js';
import { applyApprovedReset } from '../core/step-up-enrollment.js';
import { contextBlock } from '../slack-kit/blocks.js';
import { notice, type Reply } from '../slack-kit/reply.js';
import { codeSpan } from '../slack-kit/text.js';
import { slackApprovalSurface } from './approval-surface.js';
import { answerOperation, type RunnerDeps } from './operation-runner.js';
import { approvedRunLine } from './render/approval.js';
import { closingDetailText } from './render/approval-events.js';
import { followResourceCards } from './resource-cards.js';
import { slackStatusWatchSurface } from './status-watch.js';
import { resetReply, slackFactorNotices } from './step-up-factors.js';
import '../zod-settings.js';

/**
 * Running an approved change as Slack shows it: the runner, its answer on the card's thread and
 * the status watch of a long change. Apart from `approval-surface.ts` (the card, its thread and
 * the audit), so a click that only votes does not load the runner, the API client and the result
 * renderers: the run happens in the worker.
 */

/** An approved change runs as the command would have: the same runner, the same answer. */
export function slackChangeRunner(deps: RunnerDeps): OperationRunner<ChangeRequest, Reply> {
  return {
    run: (request, hooks) => answerOperation(deps, { ...request, options: {} }, hooks),
    wentThrough: (op) => notice(`Done: ${codeSpan(`${op.group} ${op.action}`)} went through.`),
  };
}

/** Everything running and settling an approved request shows in Slack, on the worker's client. */
export function slackExecutionSurface(
  deps: RunnerDeps & { readonly slack: WebClient },
  follower?: RequestFollower,
): ApprovedRunSurface {
  return {
    ...slackApprovalSurface(deps.slack, deps, follower),
    runner: slackChangeRunner(deps),
    approvedStepRan: async (approval, input, attempt) =>
      follower ? follower.approvedRan(approval, input, attempt) : false,
    closingDetail: closingDetailText,
    approvedRunMessage: (approval, answer) => ({
      text: answer.text,
      blocks: [...answer.blocks, contextBlock(approvedRunLine(approval))],
    }),
    watches: slackStatusWatchSurface(deps),
    resourceChanged: (approval, op, input) =>
      followResourceCards(deps, { team: approval.team, user: approval.requester, op, input }),
    botOperations: {
      'mfa.reset': async (approval, input) => {
        const { user } = ResetInputSchema.parse(input);
        const withNotices = { ...deps, factorNotices: slackFactorNotices(deps.slack, deps.logger) };
        const outcome = await applyApprovedReset(withNotices, approval, user);
        const reply = resetReply(outcome, approval.requester);
        return { text: reply.text, blocks: reply.blocks };
      },
      'settings.apply': async (approval, input) => {
        const { proposal } = SettingsInputSchema.parse(input);
        const { applyApprovedSettings } = await import('../core/settings/settings.js');
        const reply = appliedSettingsReply(await applyApprovedSettings(deps, approval, proposal));
        return { text: reply.text, blocks: reply.blocks };
      },
    },
    botOperationDone: async (approval) => {
      // A reset keeps no record of its own that says it finished: it stays unknown.
      if (approval.operationId !== 'settings.apply') return undefined;
      const { versionRecordedBy } = await import('../core/settings/settings.js');
      const version = await versionRecordedBy(deps, approval);
      if (!version) return undefined;
      const reply = appliedSettingsReply({ kind: 'applied', version, changes: version.changes });
      return { text: reply.text, blocks: reply.blocks };
    },
  };
}

/** What a settings request stores: the id of the document it proposes. */
const SettingsInputSchema = z.object({ proposal: z.uuid() });

/** What an approved settings request did, on the card's thread. */
function appliedSettingsReply(outcome: ApplyOutcome): Reply {
  switch (outcome.kind) {
    case 'applied':
      return notice(
        outcome.changes === 0
          ? `:white_check_mark: The settings were already as asked: version ${outcome.version.version} stands.`
          : `:white_check_mark: The settings are now version ${outcome.version.version} (${outcome.changes} setting${outcome.changes === 1 ? '' : 's'} written). ${codeSpan('/cloud settings rollback')} returns to an earlier one.`,
      );
    case 'stale':
      return notice(
        ':warning: Nothing was changed: the settings changed after this request was made, so its changes no longer say what would happen. Export them again, edit, and import again.',
      );
    case 'proposal_gone':
      return notice(
        ':warning: Nothing was changed: the document this request proposed is no longer kept. Import it again.',
      );
  }
}

/** What an admin's reset request stores: whose methods it removes. */
const ResetInputSchema = z.object({ user: z.string().regex(/^[UW][A-Z0-9]+$/) });
