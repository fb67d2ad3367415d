import { describe, expect, it } from 'vitest';
import { assertionOutcome } from '../../../lib/slack/passkey-approvals.js';

/**
 * What the passkey page says after a verified assertion: `recorded` only when the decision
 * counted, and why not otherwise. The page shows the words; the bot must never claim a vote it
 * did not record.
 */
describe('assertionOutcome', () => {
  it('says a used, expired or foreign challenge recorded nothing', () => {
    expect(assertionOutcome({ kind: 'not_proved', check: { kind: 'challenge_unusable' } })).toEqual({
      recorded: false,
      message:
        'This approval was already used, has expired, or is not yours. Nothing was recorded; click the button in Slack again for a new link.',
    });
    expect(assertionOutcome({ kind: 'not_proved', check: { kind: 'wrong_method' } })).toEqual({
      recorded: false,
      message: 'The rule for this request does not take a passkey. Nothing was recorded.',
    });
  });

  it('says what counted, and when the card could not show it yet', () => {
    expect(assertionOutcome({ kind: 'decided', outcome: { kind: 'approved' } }).recorded).toBe(true);
    expect(
      assertionOutcome({
        kind: 'decided',
        outcome: { kind: 'vote_counted', count: 1, required: 2, cardShown: false },
      }),
    ).toEqual({
      recorded: true,
      message:
        'Your approval counts (1 of 2). The card in Slack could not show it yet. You may close this page.',
    });
    expect(assertionOutcome({ kind: 'decided', outcome: { kind: 'denied', cardShown: true } })).toEqual({
      recorded: true,
      message: 'Denied: nothing will run. You may close this page.',
    });
  });

  it('refuses every refusal of the vote as not recorded', () => {
    const reasons = [
      { kind: 'refused', reason: 'no_such_request' },
      { kind: 'refused', reason: 'expired' },
      { kind: 'refused', reason: 'expired_meanwhile' },
      { kind: 'refused', reason: 'duplicate_vote' },
      { kind: 'refused', reason: 'not_requester' },
      { kind: 'refused', reason: 'already_closed', approval: undefined },
      { kind: 'refused', reason: 'not_eligible', why: { kind: 'not_an_approver' } },
    ] as const;
    for (const outcome of reasons) {
      const said = assertionOutcome({ kind: 'decided', outcome });
      expect(said.recorded, outcome.reason).toBe(false);
      expect(said.message.length).toBeGreaterThan(10);
    }
  });
});
