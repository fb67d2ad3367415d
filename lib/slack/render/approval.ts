import type { ActionsBlock, KnownBlock } from '@slack/types';
import type { AnyOperation } from '../../api/operation.js';
import { findOperation } from '../../api/operations/index.js';
import { voteWords } from '../../changes/audit.js';
import { type BotOperationId, botOperationOf, subjectOf } from '../../changes/bot-operations.js';
import { standingOf } from '../../changes/request-standing.js';
import {
  actionButton,
  actionsBlock,
  confirmDialog,
  contextBlock,
  fallbackText,
  headerBlock,
  type RenderedMessage,
  sectionBlock,
  truncateMrkdwn,
} from '../../slack-kit/blocks.js';
import { shortId } from '../../slack-kit/field-words.js';
import { ActionId } from '../../slack-kit/interaction-ids.js';
import {
  bold,
  codeSpan,
  defuseMarkup,
  defuseMarkupKeepingDates,
  escapeMrkdwn,
  slackDate,
  userMention,
} from '../../slack-kit/text.js';
import type {
  ApprovalOutcome,
  ApprovalRunbookStep,
  ApprovalStatus,
  VoteMethod,
} from '../../store/approvals.js';
import type { StepUpRequirement } from '../../store/index.js';
import { truncate } from '../../truncate.js';
import { NOW_LABEL } from '../preview.js';
import { routeOf } from './related-operations.js';
import { standingLine, standingWords } from './request-standing.js';
import { kindOfRoute } from './resource-kinds.js';

/**
 * The approval card for a destructive operation: what will happen and to what, who asked, how
 * many approvals it has, when it expires, and Approve / Deny / Cancel while it is pending. Once
 * decided, the same card shows the final state and no buttons, so it is updated in place.
 */

/** The card shows every state a request can be in. */
export type ApprovalCardStatus = ApprovalStatus;

type When = Date | string | number;

/** The agent's name as its client gave it: outside text, so escaped and cut, never markup. */
function agentWords(agent: { readonly name: string } | null | undefined): string {
  return agent ? ` (through agent ${bold(truncate(agent.name, 60))})` : '';
}

export interface ApprovalVoteView {
  readonly user: string;
  readonly at: When;
  /** How the vote was proved besides the click; `none` when absent. */
  readonly method?: VoteMethod | undefined;
}

/** The fields of an approval request the card shows (the store's `Approval` fits as it is). */
export interface ApprovalCardView {
  readonly id: string;
  readonly operationId: string;
  /** What the request is about, without secrets: `volume db-data (12)`. */
  readonly summary: string;
  /** What will change, read when the request was made: mrkdwn lines, outside text escaped. */
  readonly preview?: readonly string[] | undefined;
  /** Run without approvals: by whom and why. */
  readonly breakGlass?: { readonly user: string; readonly reason: string } | null | undefined;
  /** Why the requester asked (`--reason`), as typed: escaped here. */
  readonly reason?: string | null | undefined;
  /** The alias the requester typed that ran this command. */
  readonly viaAlias?: string | null | undefined;
  /** The agent that asked for the requester (MCP), when one did. */
  readonly viaAgent?: { readonly name: string } | null | undefined;
  /** The runbook run whose step this request is, when it is one. */
  readonly viaRunbook?: ApprovalRunbookStep | null | undefined;
  /** Overrides `summary` as the target named in the header. */
  readonly targetLabel?: string | undefined;
  /** What the operation destroys; the operation's own `destructive.consequence` when absent. */
  readonly consequence?: string | undefined;
  /** Slack user id of the person who asked. */
  readonly requester: string;
  readonly requiredApprovals: number;
  readonly approvals: readonly ApprovalVoteView[];
  readonly status: ApprovalCardStatus;
  /** When the request expires unless approved. */
  readonly decideBy: When;
  readonly deniedBy?: ApprovalVoteView | null | undefined;
  readonly cancelledBy?: ApprovalVoteView | null | undefined;
  readonly result?: { readonly outcome: ApprovalOutcome; readonly detail: string } | null | undefined;
  /** While in doubt: what the checks have found so far. */
  readonly doubtNote?: string | null | undefined;
  /** The proof the rule in force asks of whoever decides (step-up), when it was read. */
  readonly stepUp?: StepUpRequirement | undefined;
}

export interface ApprovalCardInput {
  readonly approval: ApprovalCardView;
}

const DETAIL_MAX = 1500;
const REASON_MAX = 500;
/** A section holds 3,000 characters; the preview leaves room for the rest of the card. */
const PREVIEW_MAX = 2000;

export function renderApprovalCard({ approval }: ApprovalCardInput): RenderedMessage {
  const op = findOperation(approval.operationId);
  const { phrase, target, named, consequence } = requestWords(approval);
  const pending = approval.status === 'pending';
  const heading = approval.breakGlass
    ? `BREAK-GLASS: ${phrase} ${target}`
    : pending
      ? `Approval needed: ${phrase} ${target}`
      : `${capitalizeFirst(phrase)} ${target}`;

  const blocks: KnownBlock[] = [headerBlock(heading)];
  // A break-glass run was nobody's request to approve: it says who used it, never "asked".
  const asked = approval.breakGlass
    ? `${userMention(approval.breakGlass.user)} used break-glass to ${escapeMrkdwn(phrase)} ${named}.`
    : `${userMention(approval.requester)}${agentWords(approval.viaAgent)} asked to ${escapeMrkdwn(phrase)} ${named}${approval.viaAlias ? ` via alias ${codeSpan(approval.viaAlias)}` : ''}${runbookWords(approval.viaRunbook)}.`;
  blocks.push(sectionBlock(consequence ? `${asked}\n:warning: ${escapeMrkdwn(consequence)}` : asked));
  if (approval.reason && !approval.breakGlass) {
    blocks.push(sectionBlock(`*Reason:* “${escapeMrkdwn(truncate(approval.reason, REASON_MAX))}”`));
  }
  if (approval.breakGlass) {
    blocks.push(
      sectionBlock(
        `:rotating_light: *Break-glass:* ${userMention(approval.breakGlass.user)} ran this without waiting for ` +
          `approvals. Reason: “${escapeMrkdwn(truncate(approval.breakGlass.reason, 500))}”`,
      ),
    );
  }
  const preview = previewAsItStands(approval, op);
  if (preview.length > 0) {
    blocks.push(sectionBlock(defuseMarkupKeepingDates(truncateMrkdwn(preview.join('\n'), PREVIEW_MAX))));
  }
  blocks.push(contextBlock(...progressLine(approval)));
  const proof = pending && !approval.breakGlass ? proofLine(approval.stepUp) : undefined;
  if (proof) blocks.push(contextBlock(proof));

  if (pending) {
    const actions = voteButtons(approval, { withCancel: true });
    if (actions) blocks.push(actions);
  } else {
    blocks.push(sectionBlock(finalStateLine(approval)));
  }
  blocks.push(contextBlock(`Request ${escapeMrkdwn(approval.id)} · ${escapeMrkdwn(approval.operationId)}`));
  return {
    text: fallbackText(
      pending
        ? `Approval needed: ${phrase} ${target}`
        : `${heading}: ${standingWords(standingOf(approval)).words}`,
    ),
    blocks,
  };
}

/** " as step 2 of 3 of runbook `restart-web` (run 1a2b3c4d)": the run a step's request belongs to. */
export function runbookWords(step: ApprovalRunbookStep | null | undefined): string {
  if (!step) return '';
  return ` as step ${step.step} of ${step.steps} of runbook ${codeSpan(step.runbook)} (run ${codeSpan(shortId(step.runId))})`;
}

/**
 * Approve (behind a confirmation naming what it runs and what it destroys) and Deny, wherever a
 * request is voted on: its card, and the approver's Home. Only the card offers Cancel, to the
 * person who asked.
 */
export function voteButtons(
  approval: ApprovalCardView,
  options: { readonly withCancel: boolean },
): ActionsBlock | undefined {
  const { phrase, target, consequence } = requestWords(approval);
  const payload = { approvalId: approval.id };
  return actionsBlock([
    actionButton({
      label: 'Approve',
      actionId: ActionId.approve,
      payload,
      style: 'primary',
      confirm: confirmDialog({
        title: `Approve: ${phrase} ${target}?`,
        text: consequence ?? `This runs ${approval.operationId} with the requester’s token.`,
        confirm: 'Approve',
        deny: 'Not yet',
        style: 'danger',
      }),
    }),
    actionButton({ label: 'Deny', actionId: ActionId.deny, payload, style: 'danger' }),
    ...(options.withCancel
      ? [actionButton({ label: 'Cancel request', actionId: ActionId.cancel, payload })]
      : []),
  ]);
}

/**
 * The line a channel message that follows an approved run carries: what ran, on what (by label
 * and id, as the card names it) and who let it run.
 */
export function approvedRunLine(approval: ApprovalCardView): string {
  const { phrase, named } = requestWords(approval);
  const alias = approval.viaAlias ? ` · via alias ${codeSpan(approval.viaAlias)}` : '';
  return `:ballot_box_with_check: ${escapeMrkdwn(capitalizeFirst(phrase))} ${named}${alias} · ${whoLetItRun(approval)}`;
}

/** How a request reads: what it does, to what (plain, and as mrkdwn), and what it destroys. */
export interface RequestWords {
  readonly phrase: string;
  /** Plain text, for headers and confirmation dialogs. */
  readonly target: string;
  /** The target in mrkdwn: bold, or the person it is about. */
  readonly named: string;
  readonly consequence: string | undefined;
}

/** The words of a change the bot makes itself, by its id: a new one is a compile error here. */
const BOT_OPERATION_WORDS: Record<
  BotOperationId,
  (summary: string) => Pick<RequestWords, 'phrase' | 'target' | 'named' | 'consequence'>
> = {
  'mfa.reset': (summary) => {
    const user = subjectOf({ operationId: 'mfa.reset', summary });
    return {
      phrase: 'remove every step-up method of',
      target: 'a teammate',
      named: user ? userMention(user) : bold(summary),
      consequence:
        'Their authenticator app and every passkey are removed: they enroll again from nothing, and are told in their DM.',
    };
  },
  'settings.apply': (summary) => {
    const rollback = /^settings version (\d+)/.exec(summary)?.[1];
    // The summary (the audit's target) starts with "settings", which the phrase already says.
    const target = rollback
      ? summary.replace(/^settings /, '')
      : summary.replace(/^settings /, 'the imported document ');
    return {
      phrase: rollback ? 'roll back the workspace settings to' : 'apply to the workspace settings',
      target,
      named: bold(rollback ? `version ${rollback}` : target),
      consequence:
        'The changes listed below are written only if the settings have not changed since this request was made; a new version is kept, and `/cloud settings rollback` can return to the one before.',
    };
  },
};

export function requestWords(
  approval: Pick<ApprovalCardView, 'operationId' | 'summary' | 'targetLabel' | 'consequence'>,
): RequestWords {
  const bot = botOperationOf(approval.operationId);
  if (bot) return BOT_OPERATION_WORDS[bot](approval.summary);
  const op = findOperation(approval.operationId);
  const target = approval.targetLabel ?? approval.summary;
  return {
    phrase: op ? actionPhrase(op) : approval.operationId,
    target,
    named: bold(target),
    consequence: approval.consequence ?? op?.destructive?.consequence,
  };
}

/** `delete volume`, `restore backup`, `reset credentials of database`; else the summary in lower case. */
export function actionPhrase(op: AnyOperation): string {
  const match = kindOfRoute(routeOf(op.path));
  const noun = match.kind.noun === 'item' ? undefined : match.kind.noun;
  if (op.method === 'DELETE' && noun)
    return `${match.kind.deleted === 'revoked' ? 'revoke' : 'delete'} ${noun}`;
  const literals = match.rest.filter((segment) => segment !== '{}');
  const verb = literals[literals.length - 1];
  if (op.method === 'POST' && verb && noun) {
    const object = literals.slice(0, -1).join(' ');
    return object ? `${verb} ${object} of ${noun}` : `${verb} ${noun}`;
  }
  // "Take a manual snapshot backup of a node" reads "… of node web-1 (1001)" before the target.
  const summary = op.summary.replace(/\b(?:a|an|the) (\w+)$/, '$1');
  return `${summary.charAt(0).toLowerCase()}${summary.slice(1)}`;
}

function capitalizeFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The preview lines, true as of now: the state line was read when the request was made, so once
 * the request is settled it says so, and once a delete has run the target it described is gone.
 */
function previewAsItStands(approval: ApprovalCardView, op: AnyOperation | undefined): readonly string[] {
  const lines = approval.preview ?? [];
  if (approval.status === 'pending') return lines;
  const deleted = approval.status === 'executed' && op?.method === 'DELETE';
  return lines.flatMap((line) => {
    if (!line.startsWith(NOW_LABEL)) return [line];
    return deleted ? [] : [`*When asked:*${line.slice(NOW_LABEL.length)}`];
  });
}

function progressLine(approval: ApprovalCardView): string[] {
  if (approval.breakGlass) {
    const { user } = approval.breakGlass;
    // Its one recorded vote is the break-glass user's own: it is not an approval and is not shown as one.
    const vote = approval.approvals[0];
    const when = vote ? ` ${voteWords(vote.method ?? 'none')} at ${slackDate(vote.at, 'time')}` : '';
    return [`*Break-glass* by ${userMention(user)}${when} · no approvals were asked for`];
  }
  const count = approval.approvals.length;
  const parts = [
    `*${count} of ${approval.requiredApprovals}* approval${approval.requiredApprovals === 1 ? '' : 's'}`,
  ];
  if (count > 0) {
    const voters = approval.approvals.slice(0, 10).map(votedLine);
    parts.push(`approved by ${voters.join(', ')}${count > 10 ? ` and ${count - 10} more` : ''}`);
  }
  if (approval.status === 'pending') parts.push(`expires ${slackDate(approval.decideBy, 'at')}`);
  return [parts.join(' · ')];
}

const PROOF_WORDS: Record<Exclude<StepUpRequirement, 'none'>, string> = {
  passkey: 'their passkey',
  code: 'the current code from their authenticator app',
  any: 'their passkey or the current code from their authenticator app',
};

/**
 * Said before anyone clicks: which proof Approve and Deny will ask for, and of whom (step-up),
 * so nobody is surprised by a modal or a link after the click.
 */
function proofLine(stepUp: StepUpRequirement | undefined): string | undefined {
  if (stepUp === undefined || stepUp === 'none') return undefined;
  return `:closed_lock_with_key: Step-up: whoever clicks Approve or Deny is asked right after for ${PROOF_WORDS[stepUp]}; the click counts only once it checks out.`;
}

/** "Approved by @Bob", or for break-glass "Run with break-glass by @Alice": who let it run. */
function whoLetItRun(approval: ApprovalCardView): string {
  if (approval.breakGlass) return `Run with break-glass by ${userMention(approval.breakGlass.user)}`;
  // Names only: the progress line above says how and when each of them approved.
  const approvers = approval.approvals.map((v) => userMention(v.user)).join(', ');
  return `Approved by ${approvers || 'the approvers'}`;
}

/**
 * The card's last line: how the request stands, in the words every surface uses
 * (`standingLine`), then what is known beside it (who decided, what the run answered).
 */
function finalStateLine(approval: ApprovalCardView): string {
  const line = standingLine(standingOf(approval));
  // Details are mrkdwn the bot wrote, with outside text escaped; defusing again costs nothing.
  const detail = approval.result?.detail ? defuseMarkup(truncate(approval.result.detail, DETAIL_MAX)) : '';
  switch (approval.status) {
    case 'executed':
      return `${line}.${detail ? `\n${detail}` : ''}`;
    case 'failed':
    case 'unknown':
    case 'not_run':
      return `${line}${detail ? `: ${detail}` : '.'}`;
    case 'in_doubt': {
      const note = approval.doubtNote ? `\n${defuseMarkup(truncate(approval.doubtNote, DETAIL_MAX))}` : '';
      return (
        `${line}. The API did not answer clearly, so it may or may not have happened. ` +
        `Do not ask again until this card says how it ended.${note}`
      );
    }
    case 'denied':
      return `${line}${approval.deniedBy ? ` (denied by ${votedLine(approval.deniedBy)})` : ''}.`;
    case 'cancelled':
      return `${line}${approval.cancelledBy ? ` (cancelled by ${userMention(approval.cancelledBy.user)})` : ''}.`;
    case 'expired':
      return `${line} (expired ${slackDate(approval.decideBy)} with ${approval.approvals.length} of ${approval.requiredApprovals} approvals).`;
    default:
      return `${line}.`;
  }
}

/** "@bob with a code at 14:02": who voted, how it was proved, and when (in the reader's time zone). */
function votedLine(vote: ApprovalVoteView): string {
  return `${userMention(vote.user)} ${voteWords(vote.method ?? 'none')} at ${slackDate(vote.at, 'time')}`;
}
