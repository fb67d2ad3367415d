import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { castVote } from '../../../lib/changes/votes.js';
import { ApprovalRepository } from '../../../lib/store/approvals.js';
import { approvalRequest } from '../../support/approvals.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

let table: TestTable;
let approvals: ApprovalRepository;
beforeAll(async () => {
  table = await createTestTable();
  approvals = new ApprovalRepository(table.ctx, randomLocalCipher());
});
afterAll(() => table.dispose());

describe('create and get', () => {
  it('creates a pending request that reads back as written', async () => {
    const created = await approvals.create(approvalRequest());
    expect(created).toMatchObject({ status: 'pending', requester: 'U0REQ', approvals: [], messageTs: null });
    expect(created.decideBy.getTime() - table.clock.now().getTime()).toBe(15 * 60_000);
    expect(await approvals.get('T0001', created.id)).toEqual(created);
  });

  it('records where the card was posted', async () => {
    const { id } = await approvals.create(approvalRequest());
    expect(await approvals.setMessage('T0001', id, 'C0OPS', '1718000000.000100')).toBe(true);
    expect(await approvals.get('T0001', id)).toMatchObject({ messageTs: '1718000000.000100' });
    expect(await approvals.setMessage('T0001', 'missing', 'C0OPS', '1')).toBe(false);
  });

  it('stores the input encrypted: a scan does not show a password given to the operation', async () => {
    await approvals.create(
      approvalRequest({ operationId: 'nodes.rebuild', input: { nodeId: 7, root_pass: 'Hunter2-Secret!' } }),
    );
    const scan = await table.ctx.table.scan({ TableName: table.ctx.tableName });
    expect(JSON.stringify(scan.Items)).not.toContain('Hunter2-Secret!');
  });
});

describe('expire', () => {
  it('writes the expiry down once, and only after the deadline', async () => {
    const { id } = await approvals.create(approvalRequest({ expiryMinutes: 1 }));
    expect(await approvals.expire('T0001', id)).toBe(false);
    table.clock.advance(60_000);
    const results = await Promise.all(Array.from({ length: 5 }, () => approvals.expire('T0001', id)));
    expect(results.filter(Boolean)).toHaveLength(1);
    table.clock.set('2030-01-15T09:00:00.000Z');
  });
});

describe('cancel', () => {
  it('lets the requester withdraw a pending request, once', async () => {
    const { id } = await approvals.create(approvalRequest());
    expect((await approvals.cancel('T0001', id, 'U0APP1')).outcome).toBe('not_requester');
    expect(await approvals.cancel('T0001', id, 'U0REQ')).toMatchObject({
      outcome: 'cancelled',
      approval: { status: 'cancelled', cancelledBy: { user: 'U0REQ' } },
    });
    expect((await approvals.cancel('T0001', id, 'U0REQ')).outcome).toBe('already_decided');
    expect(
      (
        await castVote(
          { approvals, now: table.ctx.now },
          { team: 'T0001', approvalId: id, user: 'U0APP1', decision: 'approve' },
        )
      ).outcome,
    ).toBe('already_decided');
  });

  it('cannot withdraw an approved request', async () => {
    const { id } = await approvals.create(approvalRequest());
    await castVote(
      { approvals, now: table.ctx.now },
      { team: 'T0001', approvalId: id, user: 'U0APP1', decision: 'approve' },
    );
    expect((await approvals.cancel('T0001', id, 'U0REQ')).outcome).toBe('already_decided');
  });
});

describe('claimExecution and finish', () => {
  it('50 concurrent claims of an approved request: exactly one gets to execute, with the input', async () => {
    const { id } = await approvals.create(approvalRequest({ input: { volumeId: 12, note: 'ä ✓' } }));
    await castVote(
      { approvals, now: table.ctx.now },
      { team: 'T0001', approvalId: id, user: 'U0APP1', decision: 'approve' },
    );
    const claims = await Promise.all(Array.from({ length: 50 }, () => approvals.claimExecution('T0001', id)));
    const winners = claims.filter((c) => c.claimed);
    expect(winners).toHaveLength(1);
    expect(winners[0]).toMatchObject({
      input: { volumeId: 12, note: 'ä ✓' },
      approval: { status: 'executing' },
    });
  });

  it('cannot claim a request that is not approved', async () => {
    const { id } = await approvals.create(approvalRequest({ requiredApprovals: 2 }));
    await castVote(
      { approvals, now: table.ctx.now },
      { team: 'T0001', approvalId: id, user: 'U0APP1', decision: 'approve' },
    );
    expect(await approvals.claimExecution('T0001', id)).toMatchObject({
      claimed: false,
      approval: { status: 'pending' },
    });
  });

  it('finishes an execution once, with its result', async () => {
    const { id } = await approvals.create(approvalRequest());
    await castVote(
      { approvals, now: table.ctx.now },
      { team: 'T0001', approvalId: id, user: 'U0APP1', decision: 'approve' },
    );
    expect(await approvals.finish('T0001', id, 'executed', 'too early')).toBe(false);
    await approvals.claimExecution('T0001', id);
    expect(await approvals.finish('T0001', id, 'executed', 'Volume 12 deleted')).toBe(true);
    expect(await approvals.finish('T0001', id, 'failed', 'a second worker')).toBe(false);
    expect(await approvals.get('T0001', id)).toMatchObject({
      status: 'executed',
      result: { outcome: 'executed', detail: 'Volume 12 deleted' },
    });
  });
});
