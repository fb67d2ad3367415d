import { fieldsInWords } from '../../api/decided-fields.js';
import { describeFieldErrors } from '../../api/errors.js';
import { voteWords } from '../../changes/audit.js';
import type { ClosingReason } from '../../changes/closing.js';
import type { ApprovalEvent, BreakGlassAnnouncement } from '../../changes/ports.js';
import { type StandingSource, standingOf } from '../../changes/request-standing.js';
import { factLabel } from '../../slack-kit/field-words.js';
import { defuseMarkup, escapeMrkdwn, slackDate } from '../../slack-kit/text.js';
import type { ApprovalPolicy, VoteMethod } from '../../store/index.js';
import { renderError } from './errors.js';
import { checkingText, notDeletedText, verdictText } from './outcome.js';
import { standingLine } from './request-standing.js';

/**
 * What an approval request's thread says at each step, and the words stored with its outcome
 * (the card shows them). `lib/changes/` decides; this words it for Slack.
 */

/** One line in the card's thread; a closing line starts with how the request ended (`standingLine`). */
export function approvalEventText(event: ApprovalEvent, approval: StandingSource): string {
  switch (event.kind) {
    case 'expired':
      return ':hourglass: The request expired before it was approved; nothing was run.';
    case 'cancelled':
      return `<@${event.by}> cancelled the request; nothing was run.`;
    case 'denied':
      return `<@${event.by}> denied ${howAndWhen(event)}; nothing was run.`;
    case 'vote_counted':
      return `<@${event.by}> approved ${howAndWhen(event)} (${event.count} of ${event.required}).`;
    case 'approved':
      return `<@${event.by}> approved ${howAndWhen(event)}; running it now.`;
    case 'checking':
      return checkingText(event.op, event.error);
    case 'worker_stopped':
      return (
        ':grey_question: The worker stopped before it recorded how this ended, so it may or may not have happened. ' +
        'I am reading it back to find out; do not ask again until this card says how it ended.'
      );
    case 'could_not_start':
      return ':heavy_multiplication_x: It could not be started; nothing was run.';
    case 'closed': {
      // The request as stored once closed; its outcome is the event's even if a read lagged.
      const closed = { ...approval, status: event.outcome };
      return `${standingLine(standingOf(closed))}. ${defuseMarkup(event.detail)}`;
    }
  }
}

/** "with a code at 14:02". */
function howAndWhen(event: { readonly method: VoteMethod; readonly at: Date }): string {
  return `${voteWords(event.method)} at ${slackDate(event.at, 'time')}`;
}

/** The words stored with a closed request. */
export function closingDetailText(reason: ClosingReason): string {
  switch (reason.kind) {
    case 'operation_gone':
      return `The operation ${reason.operationId} no longer exists; nothing was run.`;
    case 'target_changed': {
      const words = reason.fields.map((field) => field.words ?? factLabel(field.path));
      const which = words.length > 0 ? ` (${escapeMrkdwn(fieldsInWords(words))} changed)` : '';
      return `The target changed after the approvers saw it${which}, so nothing was run. Ask again to see what it is now.`;
    }
    case 'refused':
      return refusalDetail(reason);
    case 'not_started': {
      const detail = renderError(reason.error, {
        operationId: reason.op.id,
        referenceId: reason.correlationId.slice(0, 8),
        beforeAnyChange: true,
      }).text;
      return `${detail}${reason.storageUnavailable ? '' : ' Nothing was sent to the API.'}`;
    }
    case 'answered':
      return reason.answer.text;
    case 'verdict':
      return verdictText(reason.op, reason.input, reason.verdict);
    case 'not_deleted':
      return notDeletedText(reason.op, reason.input, reason.error);
    case 'bot_operation_unfinished':
      return 'It stopped part way, so some of it may have been done: ask again to finish it.';
    case 'unreadable':
      return 'The request can no longer be read back; check the target before asking again.';
  }
}

/** The API's own words for a refusal, so the card says why and not only that. */
function refusalDetail(reason: Extract<ClosingReason, { kind: 'refused' }>): string {
  const { error, op, input, correlationId } = reason;
  const summary = renderError(error, {
    operationId: op.id,
    referenceId: correlationId.slice(0, 8),
    input,
  }).text;
  const reasons =
    error.errors.length > 0 ? ` The API said: ${escapeMrkdwn(describeFieldErrors(error.errors))}` : '';
  return `${summary}${reasons}`;
}

/**
 * Who a break-glass alarm is for: the approvers it bypassed, mentioned by name. Where the policy
 * names none there is nobody to mention, so the alarm says where it was posted instead.
 */
export function breakGlassAudience(
  policy: ApprovalPolicy,
  user: string,
  channel: string,
  auditChannel: string | undefined,
): { alarm: string; note: string; summary: string } {
  const approvers = [
    ...policy.approverUsers.filter((u) => u !== user).map((u) => `<@${u}>`),
    ...(policy.approverGroup ? [`<!subteam^${policy.approverGroup}>`] : []),
  ];
  const places = [`<#${channel}>`, ...(auditChannel ? [`the audit channel <#${auditChannel}>`] : [])].join(
    ' and ',
  );
  if (approvers.length > 0) {
    return {
      alarm: `${approvers.join(', ')}: `,
      note: '',
      summary: `The approvers (${approvers.join(', ')}) and ${places} have been told.`,
    };
  }
  return {
    alarm: '',
    note: ` No approvers are named in the approval policy, so this is told to ${places}.`,
    summary: `No approvers are named in the approval policy, so ${places} ${auditChannel ? 'have' : 'has'} been told.`,
  };
}

/** The alarm beside a break-glass card: who broke it, why, and who is told. */
export function breakGlassAlarm(channel: string, announcement: BreakGlassAnnouncement): string {
  const { by, reason, policy, auditChannel } = announcement;
  const told = breakGlassAudience(policy, by, channel, auditChannel);
  return `:rotating_light: ${told.alarm}<@${by}> used break-glass. Reason: “${escapeMrkdwn(reason)}”${told.note}`;
}
