import { CLASS_WORDS, type GuardrailRefusal } from '../../changes/guardrails.js';
import { codeSpan, escapeMrkdwn, slackDate } from '../../slack-kit/text.js';

/** Why an operation may not run in this channel, naming the rule and where it is allowed. */
export function guardrailRefusalText(refusal: GuardrailRefusal): string {
  const { op } = refusal;
  const allowed = refusal.allowedClasses.map((c) => CLASS_WORDS[c]).join(', ') || 'nothing';
  const where = [
    ...refusal.allowedIn.map((channel) => `<#${channel}>`),
    'channels without a policy of their own',
  ].join(', ');
  return (
    `:no_entry: ${codeSpan(`${op.group} ${op.action}`)} is a *${CLASS_WORDS[op.class]}* operation, and this ` +
    `channel allows only ${allowed} operations (channel policy set by <@${escapeMrkdwn(refusal.setBy)}> ` +
    `${slackDate(refusal.setAt)}). Nothing was sent to the API. It is allowed in ${where}.`
  );
}
