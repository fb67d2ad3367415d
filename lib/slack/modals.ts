import type { View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { rateLimitedFor, slackErrorOf } from '../slack-kit/slack-refusals.js';

/**
 * Opening a modal with the `trigger_id` of an interaction. Slack takes a trigger once and only for
 * about three seconds: a slow start (a cold start, a login that read storage, a `--form` that
 * loaded its schemas) can miss that window. Then no modal opens, and the person must be told to
 * try again instead of seeing nothing, or an error with a reference id.
 */

/** `views.open` refusals that mean the interaction's trigger can no longer open anything. */
const SPENT_TRIGGER_ERRORS = new Set(['expired_trigger_id', 'exchanged_trigger_id', 'invalid_trigger_id']);

/**
 * The modal did not open: its trigger was late or used up (`window_missed`), or Slack rate
 * limited `views.open`. `again` says how to ask for it again.
 */
export class ModalNotOpenedError extends Error {
  override readonly name = 'ModalNotOpenedError';
  readonly code = 'modal_not_opened';

  constructor(
    readonly reason: 'window_missed' | 'rate_limited',
    readonly again: string,
    readonly slackError: string,
    options?: ErrorOptions & { readonly retryAfterSeconds?: number | undefined },
  ) {
    super(`The modal did not open (${slackError}).`, options);
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }

  /** For `rate_limited`: how long Slack asked to wait, when it said. */
  readonly retryAfterSeconds: number | undefined;
}

/**
 * `views.open`, turning a spent or late trigger, or a 429, into `ModalNotOpenedError` (rendered
 * as "run it again"); any other failure is thrown as it came.
 */
export async function openModal(
  client: WebClient,
  triggerId: string,
  view: View,
  again: string,
): Promise<void> {
  try {
    await client.views.open({ trigger_id: triggerId, view });
  } catch (error) {
    const slackError = slackErrorOf(error);
    if (slackError !== undefined && SPENT_TRIGGER_ERRORS.has(slackError)) {
      throw new ModalNotOpenedError('window_missed', again, slackError, { cause: error });
    }
    const retryAfter = rateLimitedFor(error);
    if (retryAfter !== undefined) {
      throw new ModalNotOpenedError('rate_limited', again, 'ratelimited', {
        cause: error,
        retryAfterSeconds: retryAfter,
      });
    }
    throw error;
  }
}
