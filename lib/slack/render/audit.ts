import { botOperationOf } from '../../changes/bot-operations.js';
import type { RequestStanding } from '../../changes/request-standing.js';
import { catalog } from '../../commands/catalog.js';
import { factLabel, shortId } from '../../slack-kit/field-words.js';
import { bold, codeSpan, escapeMrkdwn, slackDate, userMention } from '../../slack-kit/text.js';
import type { AuditEntry, AuditResult } from '../../store/audit-log.js';
import { truncate } from '../../truncate.js';
import { approvalPolicyChangeWords, channelPolicyChangeWords } from './policy-words.js';
import { standingLine } from './request-standing.js';

/**
 * One line of `/cloud audit` in words: when (in the reader's time zone, `2026-11-26 20:50 UTC`
 * where the client cannot say), who, what they did to which target, and how it ended, e.g.
 * `• 2026-11-26 20:50 UTC @bob ran \`volumes delete\` on volume 12 — succeeded (request 1a2b3c4d:
 * ✅ Approved and done)`.
 */

/** The bot's own audited actions, as what the actor did (`target` is mrkdwn, maybe empty). */
const BOT_ACTION_WORDS: Readonly<Record<string, (target: string) => string>> = {
  'policy.channel': (target) => `changed the policy of ${target || 'a channel'}`,
  'approvals.policy': () => 'changed the approval policy',
  'app.uninstalled': () => 'uninstalled the app',
  'app.tokens_revoked': () => "revoked the app's tokens",
  'alias.add': (target) => `added ${target || 'an alias'}`,
  'alias.remove': (target) => `removed ${target || 'an alias'}`,
  'alias.run': (target) => `used ${target || 'an alias'}`,
  'agents.revoke': (target) => `revoked ${target || 'an agent'}`,
  'agents.revoke_all': () => 'revoked all their agents',
  'agents.slackbot': (target) => `let Slackbot act for them from ${target || 'a channel'}`,
  'agents.sign_in': (target) => `signed an agent in, acting from ${target || 'a channel'}`,
};

/** What the actor did to an operation, and how it ended, by the entry's result. */
const OPERATION_RESULT_WORDS: Readonly<Record<AuditResult, { verb: string; outcome?: string }>> = {
  requested: { verb: 'asked to run' },
  approved: { verb: 'approved' },
  denied: { verb: 'denied' },
  cancelled: { verb: 'cancelled' },
  expired: { verb: 'asked to run', outcome: 'expired before approval' },
  succeeded: { verb: 'ran', outcome: 'succeeded' },
  failed: { verb: 'ran', outcome: 'failed' },
  in_doubt: { verb: 'ran', outcome: 'outcome not known yet; checking' },
  unknown: { verb: 'ran', outcome: 'outcome unknown' },
  not_run: { verb: 'asked to run', outcome: 'approved but never run' },
  break_glass: { verb: 'ran without waiting for approval', outcome: 'break-glass' },
};

/** `succeeded`, `in doubt`, `not run`, `break-glass`: a result in words. */
export function auditResultWords(result: AuditResult): string {
  return result === 'break_glass' ? 'break-glass' : result.replace(/_/g, ' ');
}

/** `volumes.delete` → `volumes delete`, `managed.issues-list` → `managed issues list`. */
function operationWords(action: string): string | undefined {
  // A change the bot makes itself (an admin's reviewed `mfa reset`) reads as an operation does.
  if (botOperationOf(action)) return action.replace('.', ' ');
  const dot = action.indexOf('.');
  if (dot === -1) return undefined;
  const group = catalog.findGroup(action.slice(0, dot));
  if (!group.found) return undefined;
  const op = group.value.actions.find((row) => row.id === action);
  return op === undefined ? undefined : `${op.group} ${catalog.spokenAction(op)}`;
}

/**
 * A stored target in mrkdwn words: `volumeId=12 backupId=3` (how ran operations name theirs) →
 * `volume 12 backup 3`, `channel C123` → the channel's mention.
 */
export function auditTargetWords(target: string): string {
  const words = target.replace(/\b([a-z][A-Za-z]*)Id=(\S+)/g, (_match, name: string, value: string) => {
    return `${factLabel(name.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase())} ${value}`;
  });
  return escapeMrkdwn(truncate(words, 80))
    .replace(/^channel ([CG][A-Z0-9]+)$/, '<#$1>')
    .replace(/^user ([UW][A-Z0-9]+)$/, '<@$1>');
}

/**
 * The entry's detail in mrkdwn: a policy change in words from the policy it stored (`allowed: read
 * operations; destructive: 2 approvals, from @alice; break-glass: off`), other details as written.
 */
function detailWords(action: string, detail: string): string {
  const policy = POLICY_DETAIL_WORDS[action]?.(detail);
  return policy ?? escapeMrkdwn(truncate(detail.replace(/\s+/g, ' '), 120));
}

const POLICY_DETAIL_WORDS: Readonly<Record<string, (detail: string) => string | undefined>> = {
  'policy.channel': channelPolicyChangeWords,
  'approvals.policy': approvalPolicyChangeWords,
};

/**
 * An audit entry as a line. `standing`: how the entry's request stands now, when it has one and it
 * can still be read; its words are the card's (a break-glass run is never called an approval).
 */
export function auditLine(entry: AuditEntry, standing?: RequestStanding): string {
  const when = slackDate(entry.at, 'logged');
  const target = entry.target ? auditTargetWords(entry.target) : '';
  const request = entry.approvalId
    ? ` (request ${shortId(entry.approvalId)}${standing ? `: ${standingLine(standing)}` : ''})`
    : '';
  const detail = entry.detail ? `: ${detailWords(entry.action, entry.detail)}` : '';
  const operation = operationWords(entry.action);
  let what: string;
  if (operation !== undefined) {
    const words = OPERATION_RESULT_WORDS[entry.result];
    const outcome = words.outcome === undefined ? '' : ` — *${words.outcome}*`;
    what = `${words.verb} ${codeSpan(operation)}${target ? ` on ${target}` : ''}${outcome}`;
  } else {
    const known = BOT_ACTION_WORDS[entry.action];
    const done = known
      ? known(target)
      : `did ${codeSpan(entry.action.replace(/[._]/g, ' '))}${target ? ` on ${target}` : ''}`;
    const outcome = entry.result === 'succeeded' ? '' : ` — *${auditResultWords(entry.result)}*`;
    what = `${done}${outcome}`;
  }
  const agent = entry.viaAgent ? ` through agent ${bold(truncate(entry.viaAgent, 60))}` : '';
  return `• ${when} ${userMention(entry.actor)}${agent} ${what}${request}${detail}`;
}
