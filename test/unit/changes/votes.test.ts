import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { castVote } from '../../../lib/changes/votes.js';
import { ApprovalRepository } from '../../../lib/store/approvals.js';
import { approvalClickKeys, readAhead } from '../../../lib/store/read-ahead.js';
import { approvalRequest } from '../../support/approvals.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

let table: TestTable;
let approvals: ApprovalRepository;
beforeAll(async () => {
  table = await createTestTable();
  approvals = new ApprovalRepository(table.ctx, randomLocalCipher());
});
afterAll(() => table.dispose());

const approvers = (count: number) => Array.from({ length: count }, (_, i) => `U0APP${i}`);

describe('castVote: the N-of-M rule, vote by vote, on the table', () => {
  it('50 concurrent approvals of a one-approval request: exactly one approves, the others lose', async () => {
    const { id } = await approvals.create(approvalRequest());
    const results = await Promise.all(
      approvers(50).map((user) =>
        castVote(
          { approvals, now: table.ctx.now },
          { team: 'T0001', approvalId: id, user, decision: 'approve' },
        ),
      ),
    );
    const outcomes = results.map((r) => r.outcome);
    expect(outcomes.filter((o) => o === 'approved')).toHaveLength(1);
    expect(
      outcomes.filter((o) => o !== 'approved').every((o) => o === 'lost' || o === 'already_decided'),
    ).toBe(true);
    const stored = await approvals.get('T0001', id);
    expect(stored?.status).toBe('approved');
    expect(stored?.approvals).toHaveLength(1);
  });

  it('counts votes up to the required number, then approves, however they race', async () => {
    const { id } = await approvals.create(approvalRequest({ requiredApprovals: 3 }));
    const results = await Promise.all(
      approvers(8).map((user) =>
        castVote(
          { approvals, now: table.ctx.now },
          { team: 'T0001', approvalId: id, user, decision: 'approve' },
        ),
      ),
    );
    const outcomes = results.map((r) => r.outcome);
    expect(outcomes.filter((o) => o === 'approved')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'recorded')).toHaveLength(2);
    const stored = await approvals.get('T0001', id);
    expect(stored?.status).toBe('approved');
    expect(new Set(stored?.approvals.map((v) => v.user)).size).toBe(3);
  });

  it('records a first vote of two and refuses the same voter twice', async () => {
    const { id } = await approvals.create(approvalRequest({ requiredApprovals: 2 }));
    expect(
      (
        await castVote(
          { approvals, now: table.ctx.now },
          { team: 'T0001', approvalId: id, user: 'U0APP1', decision: 'approve' },
        )
      ).outcome,
    ).toBe('recorded');
    expect(
      (
        await castVote(
          { approvals, now: table.ctx.now },
          { team: 'T0001', approvalId: id, user: 'U0APP1', decision: 'approve' },
        )
      ).outcome,
    ).toBe('duplicate_vote');
    const second = await castVote(
      { approvals, now: table.ctx.now },
      { team: 'T0001', approvalId: id, user: 'U0APP2', decision: 'approve' },
    );
    expect(second).toMatchObject({ outcome: 'approved', approval: { status: 'approved' } });
  });

  it('a vote on a request read ahead counts the vote that landed after the read as well', async () => {
    const { id } = await approvals.create(approvalRequest({ requiredApprovals: 2 }));
    const read = readAhead(table.ctx, approvalClickKeys('T0001', id, 'C0OPS'));
    expect(await approvals.get('T0001', id, read)).toMatchObject({ status: 'pending', approvals: [] });
    // Another approver's vote lands between the click's read and its vote.
    expect(
      (
        await castVote(
          { approvals, now: table.ctx.now },
          { team: 'T0001', approvalId: id, user: 'U0APP1', decision: 'approve' },
        )
      ).outcome,
    ).toBe('recorded');
    const late = await castVote(
      { approvals, now: table.ctx.now },
      { team: 'T0001', approvalId: id, user: 'U0APP2', decision: 'approve', method: 'none', read },
    );
    expect(late).toMatchObject({ outcome: 'approved', approval: { status: 'approved' } });
    expect((await approvals.get('T0001', id))?.approvals.map((vote) => vote.user)).toEqual([
      'U0APP1',
      'U0APP2',
    ]);
  });

  it('a double click of one approver counts once', async () => {
    const { id } = await approvals.create(approvalRequest({ requiredApprovals: 2 }));
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        castVote(
          { approvals, now: table.ctx.now },
          { team: 'T0001', approvalId: id, user: 'U0APP1', decision: 'approve' },
        ),
      ),
    );
    expect(results.filter((r) => r.outcome === 'recorded')).toHaveLength(1);
    expect(results.filter((r) => r.outcome === 'duplicate_vote')).toHaveLength(4);
  });

  it('a deny ends the request; later votes are told it is decided', async () => {
    const { id } = await approvals.create(approvalRequest({ requiredApprovals: 2 }));
    await castVote(
      { approvals, now: table.ctx.now },
      { team: 'T0001', approvalId: id, user: 'U0APP1', decision: 'approve' },
    );
    const denied = await castVote(
      { approvals, now: table.ctx.now },
      { team: 'T0001', approvalId: id, user: 'U0APP2', decision: 'deny' },
    );
    expect(denied).toMatchObject({
      outcome: 'denied',
      approval: { status: 'denied', deniedBy: { user: 'U0APP2' } },
    });
    expect(
      (
        await castVote(
          { approvals, now: table.ctx.now },
          { team: 'T0001', approvalId: id, user: 'U0APP3', decision: 'approve' },
        )
      ).outcome,
    ).toBe('already_decided');
  });

  it('a request past its deadline reads as expired and takes no votes, before anyone writes it down', async () => {
    const { id } = await approvals.create(approvalRequest({ expiryMinutes: 15 }));
    table.clock.advance(15 * 60_000);
    expect((await approvals.get('T0001', id))?.status).toBe('expired');
    expect(
      (
        await castVote(
          { approvals, now: table.ctx.now },
          { team: 'T0001', approvalId: id, user: 'U0APP1', decision: 'approve' },
        )
      ).outcome,
    ).toBe('expired');
    expect(await approvals.claimExecution('T0001', id)).toMatchObject({ claimed: false });
    table.clock.set('2030-01-15T09:00:00.000Z');
  });

  it('says when the request does not exist', async () => {
    expect(
      await castVote(
        { approvals, now: table.ctx.now },
        { team: 'T0001', approvalId: 'no-such-id', user: 'U0APP1', decision: 'approve' },
      ),
    ).toEqual({
      outcome: 'not_found',
    });
  });
});
