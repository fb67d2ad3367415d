import type { ApiError } from '../../api/errors.js';
import type { AnyOperation } from '../../api/operation.js';
import { checkCommandFor } from '../../api/outcome.js';
import { type Verdict, whatWentWrong } from '../../changes/outcomes.js';
import { codeSpan } from '../../slack-kit/text.js';

/**
 * How the truthful-outcome checks read in Slack: the note while the bot finds out, and what the
 * checks concluded (`lib/changes/outcomes.ts` decides; this words it).
 */

/** The note shown while the bot finds out. */
export function checkingText(op: AnyOperation, error: ApiError): string {
  return (
    `:grey_question: ${whatWentWrong(error)}, so ${codeSpan(`${op.group} ${op.action}`)} may or may not ` +
    'have happened. I am reading it back to find out; do not run it again until I say how it ended.'
  );
}

/** What to say once the checks are over. */
export function verdictText(
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  verdict: Verdict,
): string {
  const command = codeSpan(checkCommandFor(op, input));
  const name = codeSpan(`${op.group} ${op.action}`);
  const { strategy } = verdict;
  if (verdict.check === 'done') {
    const seen =
      strategy === 'gone'
        ? 'it is gone now'
        : strategy === 'appears'
          ? 'a new one matching the request is there now'
          : strategy === 'event'
            ? "the account's events show it, started by your API user after the request was sent"
            : 'it shows the requested values now';
    return `${name} went through after all: read back, ${seen}. Check with ${command}.`;
  }
  if (verdict.check === 'unknowable') {
    // Only the account's events tell a node action, by whom: a token without the events scope
    // cannot read them, nor can a check that lost the time the request was sent.
    const why =
      strategy === 'event'
        ? "only the account's events can tell, and the bot could not read them for this request (a token without `events:read_only` cannot)"
        : 'the bot cannot read it back';
    return `Whether ${name} happened is unknown: ${why}. Check with ${command} before running it again.`;
  }
  const still =
    strategy === 'gone'
      ? 'it is still there'
      : strategy === 'appears'
        ? 'no new one has appeared'
        : strategy === 'event'
          ? "the account's events show no sign of it from your API user since the request was sent"
          : 'it does not show the requested values';
  return (
    `Still unknown after ${verdict.waited}: ${still}, so it most likely did not happen, but the API never said so. ` +
    `Check with ${command} before running it again.`
  );
}

/**
 * A delete proven not to have happened: every attempt was answered with a server error and the
 * target, read back, is there as the approvers saw it. Nothing is left that could still delete it.
 */
export function notDeletedText(
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  error: ApiError,
): string {
  return (
    `${whatWentWrong(error)} to every attempt of ${codeSpan(`${op.group} ${op.action}`)}, and read back ` +
    'just now it is still there as the approvers saw it and not being deleted, so it was not deleted. ' +
    `Nothing changed: it can be asked for again. Check with ${codeSpan(checkCommandFor(op, input))}.`
  );
}
