import { CLASS_WORDS, type GuardrailRefusal } from '../../changes/guardrails.js';
import { codeSpan, escapeMrkdwn, slackDate } from '../../slack-kit/text.js';

/** Why an operation may not run in this channel, naming the rule and where it is allowed. */
export function guardrailRefusalText(refusal: GuardrailRefusal): string {
  const { op } = refusal;
  const allowed = refusal.allowedClasses.map((c) => CLASS_WORDS[c]).join(', ') || 'nothing';
  const where = allowedWhere(refusal);
  return (
    `:no_entry: ${codeSpan(`${op.group} ${op.action}`)} is a *${CLASS_WORDS[op.class]}* operation, and this ` +
    `channel allows only ${allowed} operations (channel policy set by <@${escapeMrkdwn(refusal.setBy)}> ` +
    `${slackDate(refusal.setAt)}). Nothing was sent to the API. ${where}`
  );
}

/**
 * Where the operation may run, from the stored policies: the channels whose own policy allows its
 * class, and any channel without a policy of its own (no policy allows every class).
 */
function allowedWhere(refusal: GuardrailRefusal): string {
  const { allowedIn, allowedInCount, op } = refusal;
  if (allowedInCount === 0) return 'It is allowed only in channels without a policy of their own.';
  const more = allowedInCount - allowedIn.length;
  const named = allowedIn.map((channel) => `<#${channel}>`);
  const channels =
    more > 0
      ? `${named.join(', ')} and ${more} more`
      : named.length > 1
        ? `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`
        : (named[0] ?? '');
  const whose = allowedInCount === 1 ? 'whose policy allows' : 'whose policies allow';
  return `It is allowed in ${channels}, ${whose} ${CLASS_WORDS[op.class]} operations, and in any channel without a policy of its own.`;
}
