import type { CallToolResult } from '@modelcontextprotocol/server';
import { requestView } from '../core/agent-calls.js';
import { type AgentChangeOutcome, agentChange } from '../core/agent-changes.js';
import type { AgentOperationKind } from '../core/agent-operations.js';
import type { Caller } from '../core/caller.js';
import { slackApprovalSurface } from '../slack/approval-surface.js';
import { previewTarget } from '../slack/preview.js';
import { inSlackTeam } from '../slack-kit/web-client.js';
import type { ReadAhead } from '../store/index.js';
import { errorResult, jsonResult, refusalResult, viewJson, withBlocks } from './tool-answers.js';
import type { AgentToolDeps } from './tool-deps.js';

/**
 * What `request_change` and `request_destructive_change` answer: the approval card posted in the
 * home channel, in words an agent acts on. Loaded on the first change asked for, with the Slack
 * client and the card's rendering, which neither a list nor a read needs.
 */

export interface ChangeCall {
  readonly operation: string;
  readonly arguments?: Record<string, unknown> | undefined;
  readonly reason?: string | undefined;
}

/**
 * `request_change` and `request_destructive_change`: the approval card posted in the home channel.
 * For Slackbot (`slackbot`), the answer's first line also as Block Kit.
 */
export async function changeAnswer(
  deps: AgentToolDeps,
  caller: Caller,
  change: ChangeCall,
  kind: Exclude<AgentOperationKind, 'read'>,
  slackbot: boolean,
  callerRead?: ReadAhead,
): Promise<CallToolResult> {
  const surface = slackApprovalSurface(await deps.slack(), deps);
  const outcome = await inSlackTeam(caller.team, () =>
    agentChange(
      { ...deps, previewTarget },
      surface,
      caller,
      { operation: change.operation, arguments: change.arguments, reason: change.reason },
      kind,
      callerRead,
    ),
  );
  const result = changeResult(outcome, caller);
  return slackbot ? withBlocks(result) : result;
}

function changeResult(outcome: AgentChangeOutcome, caller: Caller): CallToolResult {
  switch (outcome.kind) {
    case 'requested': {
      const view = requestView(outcome.approval);
      return jsonResult(
        viewJson(view),
        `Requested: it needs ${view.requiredApprovals} approval${view.requiredApprovals === 1 ? '' : 's'} in ` +
          `the Slack channel ${caller.channel} and has not run. Follow it with get_request (request_id ${view.id}).`,
      );
    }
    case 'refused':
      if (outcome.reason === 'target_not_found')
        return errorResult('Nothing was requested: the target does not exist, or the person cannot see it.');
      if (outcome.reason === 'reason_required')
        return errorResult(
          "Nothing was requested: the home channel's rule asks every request to say why; pass reason.",
        );
      return errorResult(
        `Nothing was requested: the bot cannot post the approval card in the home channel (${outcome.refusal}).`,
      );
    case 'card_not_posted':
      return errorResult(
        outcome.discarded
          ? 'Nothing was requested: Slack did not take the approval card. Try again in a minute.'
          : `Slack's answer to the approval card was lost; request ${outcome.approvalId} expires unused if its card is not up. Nothing runs without approval.`,
      );
    case 'not_saved':
      return errorResult(
        "Nothing will run: the bot's storage did not answer while saving the request. Ask again.",
      );
    default:
      return refusalResult(outcome);
  }
}
