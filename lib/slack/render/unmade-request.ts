import type { RequestOutcome } from '../../changes/requests.js';
import { channelRefusalHint } from '../../slack-kit/channel-access.js';

/**
 * Why a request was not made, or was made and will not run, in the same words for every kind of
 * request (an operation, a reset of someone's step-up methods, a settings change).
 */
export type UnmadeRequest =
  | Extract<RequestOutcome, { readonly kind: 'card_not_posted' | 'not_saved' }>
  | Extract<RequestOutcome, { readonly kind: 'refused'; readonly reason: 'channel_closed' }>;

export function unmadeRequestText(outcome: UnmadeRequest): string {
  switch (outcome.kind) {
    case 'refused':
      return `Nothing was requested: the approval card goes in this channel. ${channelRefusalHint(outcome.refusal)}`;
    case 'card_not_posted': {
      const why = outcome.refusal
        ? channelRefusalHint(outcome.refusal)
        : 'Slack did not take the approval card; try again in a minute.';
      return outcome.discarded
        ? `Nothing was requested: I could not post the approval card. ${why}`
        : `I could not post the approval card. ${why} Request ${outcome.approvalId} will expire unused; nobody can approve it without its card.`;
    }
    case 'not_saved':
      return "The bot's storage did not answer while the request was being saved, so it will not run. Ask again in a minute.";
  }
}
