import type { WebClient } from '@slack/web-api';

/**
 * Opening a modal with the `trigger_id` of an interaction. Slack takes a trigger once and only for
 * about three seconds: a slow start (a cold start, a login that read storage, a `--form` that
 * loaded its schemas) can miss that window. Then no modal opens, and the person must be told to
 * try again instead of seeing nothing, or an error with a reference id.
 */

/** `views.open` refusals that mean the interaction's trigger can no longer open anything. */
const SPENT_TRIGGER_ERRORS = new Set(['expired_trigger_id', 'exchanged_trigger_id', 'invalid_trigger_id']);

/** The modal did not open because its trigger was late or used up; `again` says how to retry. */
export class ModalWindowMissedError extends Error {
  override readonly name = 'ModalWindowMissedError';
  readonly code = 'modal_window_missed';

  constructor(
    readonly again: string,
    readonly slackError: string,
    options?: ErrorOptions,
  ) {
    super(`The modal did not open (${slackError}).`, options);
  }
}

function slackErrorOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, data } = error as { code?: unknown; data?: { error?: unknown } };
  if (code !== 'slack_webapi_platform_error') return undefined;
  return typeof data?.error === 'string' ? data.error : undefined;
}

/**
 * `views.open`, turning a spent or late trigger into `ModalWindowMissedError` (rendered as "run
 * it again"); any other failure is thrown as it came.
 */
export async function openModal(
  client: WebClient,
  triggerId: string,
  view: unknown,
  again: string,
): Promise<void> {
  try {
    await client.views.open({ trigger_id: triggerId, view: view as never });
  } catch (error) {
    const slackError = slackErrorOf(error);
    if (slackError !== undefined && SPENT_TRIGGER_ERRORS.has(slackError)) {
      throw new ModalWindowMissedError(again, slackError, { cause: error });
    }
    throw error;
  }
}
