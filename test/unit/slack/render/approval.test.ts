import { describe, expect, it } from 'vitest';
import {
  type ApprovalCardView,
  approvedRunLine,
  renderApprovalCard,
} from '../../../../lib/slack/render/approval.js';
import {
  ActionId,
  ApprovalPayloadSchema,
  decodeActionValue,
} from '../../../../lib/slack-kit/interactions.js';
import type { Approval } from '../../../../lib/store/approvals.js';
import { buttonLabeled, buttons, expectSendable, visibleText } from './message-checks.js';

const pending: ApprovalCardView = {
  id: 'a1b2c3',
  operationId: 'volumes.delete',
  summary: 'db-data (12)',
  requester: 'U024BE7LH',
  requiredApprovals: 2,
  approvals: [{ user: 'U0G9QF9C6', at: '2024-05-01T10:00:00Z' }],
  status: 'pending',
  decideBy: '2024-05-01T10:15:00Z',
};

describe('renderApprovalCard while pending', () => {
  const message = renderApprovalCard({ approval: pending });

  it('says what will happen to what, and what it destroys', () => {
    expect(message.blocks[0]).toMatchObject({
      type: 'header',
      text: { text: 'Approval needed: delete volume db-data (12)' },
    });
    const text = visibleText(message);
    expect(text).toContain('<@U024BE7LH> asked to delete volume *db-data (12)*.');
    expect(text).toContain('Deletes the volume and all its data; this cannot be undone.');
    expectSendable(message);
  });

  it('shows progress, who approved, and the expiry in Slack date formatting', () => {
    const text = visibleText(message);
    expect(text).toContain('*1 of 2* approvals');
    // How and when: a vote recorded before step-up existed reads "without step-up".
    expect(text).toContain('approved by <@U0G9QF9C6> without step-up at <!date^1714557600^{time}|');
    expect(text).toContain(
      `expires <!date^${Date.parse('2024-05-01T10:15:00Z') / 1000}^{date_short_pretty} at {time}|2024-05-01 10:15 UTC>`,
    );
  });

  it('has Approve (primary, confirmed), Deny (danger) and Cancel, each carrying the request id', () => {
    const approve = buttonLabeled(message, 'Approve');
    const deny = buttonLabeled(message, 'Deny');
    const cancel = buttonLabeled(message, 'Cancel request');
    expect([approve?.action_id, deny?.action_id, cancel?.action_id]).toEqual([
      ActionId.approve,
      ActionId.deny,
      ActionId.cancel,
    ]);
    expect(approve?.style).toBe('primary');
    expect(deny?.style).toBe('danger');
    expect(approve?.confirm?.text.text).toContain('Deletes the volume');
    for (const button of [approve, deny, cancel]) {
      expect(decodeActionValue(ApprovalPayloadSchema, button?.value)).toEqual({ approvalId: 'a1b2c3' });
    }
  });

  it('stays within limits with a 3,000-character summary and a long consequence', () => {
    const long = renderApprovalCard({
      approval: { ...pending, summary: 's'.repeat(3000), consequence: 'c'.repeat(3000) },
    });
    expectSendable(long);
  });
});

describe('renderApprovalCard once decided', () => {
  const finalText = (overrides: Partial<ApprovalCardView>) => {
    const message = renderApprovalCard({ approval: { ...pending, ...overrides } });
    expect(buttons(message)).toEqual([]);
    expectSendable(message);
    return visibleText(message);
  };

  it('executed: approved and done, with the result, in the words every surface uses', () => {
    const text = finalText({
      status: 'executed',
      approvals: [...pending.approvals, { user: 'U0G9QF9C7', at: '2024-05-01T10:01:00Z' }],
      result: { outcome: 'executed', detail: 'Volume 12 deleted.' },
    });
    expect(text).toContain(':white_check_mark: Approved and done.\nVolume 12 deleted.');
    // Who approved, how and when, is the progress line's.
    expect(text).toContain('approved by <@U0G9QF9C6>');
    expect(text).not.toContain('Approval needed');
  });

  it('denied: by whom', () => {
    expect(
      finalText({ status: 'denied', deniedBy: { user: 'U0G9QF9C7', at: '2024-05-01T10:02:00Z' } }),
    ).toContain(':no_entry: Denied; nothing was run (denied by <@U0G9QF9C7>');
  });

  it('expired, cancelled and failed', () => {
    expect(finalText({ status: 'expired' })).toContain(
      ':hourglass: Expired before it was approved; nothing was run (expired <!date^',
    );
    expect(
      finalText({ status: 'cancelled', cancelledBy: { user: 'U024BE7LH', at: 1714557700000 } }),
    ).toContain('Cancelled; nothing was run (cancelled by <@U024BE7LH>).');
    expect(
      finalText({ status: 'failed', result: { outcome: 'failed', detail: 'No such volume 12.' } }),
    ).toContain(':x: Approved, but it did not happen: No such volume 12.');
  });
});

describe('renderApprovalCard with a stored approval', () => {
  it("takes the store's Approval as it is", () => {
    const approval: Approval = {
      id: 'f00',
      team: 'T1',
      requester: 'U024BE7LH',
      operationId: 'nodes.backups-cancel',
      summary: 'web-1 (123)',
      reason: null,
      preview: [],
      fingerprint: null,
      breakGlass: null,
      awaitingRequester: false,
      channel: 'C1',
      messageTs: null,
      status: 'pending',
      requiredApprovals: 1,
      approvals: [],
      deniedBy: null,
      cancelledBy: null,
      decideBy: new Date('2024-05-01T10:15:00Z'),
      createdAt: new Date('2024-05-01T10:00:00Z'),
      leaseUntil: null,
      doubtSince: null,
      doubtNote: null,
      result: null,
    };
    const message = renderApprovalCard({ approval });
    expect(message.blocks[0]).toMatchObject({
      text: { text: 'Approval needed: cancel backups of node web-1 (123)' },
    });
    expect(visibleText(message)).toContain('*0 of 1* approval');
    expectSendable(message);
  });
});

describe('renderApprovalCard preview times', () => {
  const taken = '<!date^1714557600^{ago}|2024-05-01 10:00 UTC>';

  it('shows when the backup a restore uses was taken in each reader’s zone', () => {
    const message = renderApprovalCard({
      approval: { ...pending, preview: [`*Replaces* the current data with *nightly* taken ${taken}.`] },
    });
    expect(visibleText(message)).toContain(`*Replaces* the current data with *nightly* taken ${taken}.`);
  });

  it('still defuses every other markup in the stored preview, and tokens the bot would not write', () => {
    const message = renderApprovalCard({
      approval: {
        ...pending,
        preview: [`<!channel> <!date^1714557600^{ago}^https://evil.example|2024-05-01 10:00 UTC> ${taken}`],
      },
    });
    const text = visibleText(message);
    expect(text).toContain(
      `&lt;!channel&gt; &lt;!date^1714557600^{ago}^https://evil.example|2024-05-01 10:00 UTC&gt; ${taken}`,
    );
  });
});

describe('renderApprovalCard for break-glass', () => {
  const glass: ApprovalCardView = {
    ...pending,
    requiredApprovals: 1,
    // The store records the break-glass user's own vote; it is not an approval.
    approvals: [{ user: 'U024BE7LH', at: '2024-05-01T10:00:00Z' }],
    breakGlass: { user: 'U024BE7LH', reason: 'db is on fire' },
    status: 'executed',
    result: { outcome: 'executed', detail: 'Volume 12 deleted.' },
  };

  it('regression: read "1 of 1 approval · approved by" the requester; now says break-glass, by whom and why', () => {
    const text = visibleText(renderApprovalCard({ approval: glass }));
    expect(text).toContain('<@U024BE7LH> used break-glass to delete volume *db-data (12)*.');
    expect(text).toContain('Reason: “db is on fire”');
    expect(text).toContain('*Break-glass* by <@U024BE7LH> without step-up at <!date^1714557600^');
    expect(text).toContain('no approvals were asked for');
    expect(text).toContain(':white_check_mark: Run with break-glass and done.');
    expect(text).not.toMatch(/approved by|Approved by|1 of 1|asked to/);
  });

  it('says break-glass in every state it can end in', () => {
    for (const status of ['executing', 'failed', 'in_doubt', 'unknown', 'not_run'] as const) {
      const text = visibleText(renderApprovalCard({ approval: { ...glass, status } }));
      expect(text).toContain(':rotating_light: *Break-glass:* <@U024BE7LH> ran this');
      expect(text).toMatch(/\n:[a-z_]+: Run with break-glass[;,]/);
      expect(text).not.toMatch(/Approved|approved by/);
    }
  });
});

describe('the state line of the preview once the request is settled', () => {
  const state = '*Now:* volume db-data (12): status *active* · size *20*';
  const withState: ApprovalCardView = { ...pending, preview: [state, '*Attached volumes:* none'] };

  it('is shown as read while the request is pending', () => {
    expect(visibleText(renderApprovalCard({ approval: withState }))).toContain(state);
  });

  it('regression: "Now: status active" stayed after the delete ran; the line is gone once deleted', () => {
    const text = visibleText(
      renderApprovalCard({
        approval: {
          ...withState,
          status: 'executed',
          result: { outcome: 'executed', detail: 'Volume 12 deleted.' },
        },
      }),
    );
    expect(text).not.toContain('*Now:*');
    expect(text).not.toContain('status *active*');
    expect(text).toContain('*Attached volumes:* none');
  });

  it('says it was the state when asked on a card that did not delete', () => {
    for (const status of ['denied', 'failed', 'unknown'] as const) {
      const text = visibleText(renderApprovalCard({ approval: { ...withState, status } }));
      expect(text).toContain('*When asked:* volume db-data (12): status *active*');
      expect(text).not.toContain('*Now:*');
    }
  });

  it('lets Slack date tokens of the preview through and nothing else', () => {
    const text = visibleText(
      renderApprovalCard({
        approval: {
          ...pending,
          preview: [
            '*Replaces* with backup *b (9)*, taken <!date^1714557600^{ago}|2024-05-01 10:00 UTC>.',
            'label <!channel> <@U0EVIL>',
          ],
        },
      }),
    );
    expect(text).toContain('taken <!date^1714557600^{ago}|2024-05-01 10:00 UTC>.');
    expect(text).toContain('label &lt;!channel&gt; &lt;@U0EVIL&gt;');
  });
});

describe('a request an alias asked for', () => {
  const viaAlias: ApprovalCardView = { ...pending, viaAlias: 'dropvol' };

  it('names the alias beside what it runs, on the card and on the approved run’s answer', () => {
    expect(visibleText(renderApprovalCard({ approval: viaAlias }))).toContain(
      '<@U024BE7LH> asked to delete volume *db-data (12)* via alias `dropvol`.',
    );
    expect(approvedRunLine({ ...viaAlias, status: 'executed' })).toContain(
      '*db-data (12)* · via alias `dropvol`',
    );
    expect(approvedRunLine({ ...pending, status: 'executed' })).not.toContain('via alias');
  });
});
