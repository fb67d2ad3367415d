import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { ApprovalPolicyRepository, DEFAULT_APPROVAL_POLICY } from '../../../lib/store/approval-policy.js';
import { createTestTable, type TestTable } from '../../support/store.js';

let table: TestTable;
let policies: ApprovalPolicyRepository;
beforeAll(async () => {
  table = await createTestTable();
  policies = new ApprovalPolicyRepository(table.ctx);
});
afterAll(() => table.dispose());

describe('ApprovalPolicyRepository', () => {
  it('gives a workspace without a policy the defaults: one approval, no self-approval, 15 minutes', async () => {
    expect(await policies.get('T0NEW')).toEqual({
      approverUsers: [],
      approverGroup: null,
      requiredApprovals: 1,
      allowSelfApproval: false,
      expiryMinutes: 15,
      admins: [],
      stepUp: 'none',
      requireReason: false,
    });
    expect(DEFAULT_APPROVAL_POLICY.requiredApprovals).toBe(1);
  });

  it('stores a policy and reads it back, filling what was left out with defaults', async () => {
    const saved = await policies.put(
      'T0001',
      { approverUsers: ['U0A', 'U0B'], approverGroup: 'S0OPS', requiredApprovals: 2, admins: ['U0ADMIN'] },
      'U0ADMIN',
    );
    expect(saved).toMatchObject({ requiredApprovals: 2, allowSelfApproval: false, expiryMinutes: 15 });
    expect(await policies.get('T0001')).toEqual(saved);
  });

  it('keeps workspaces apart', async () => {
    await policies.put('T0002', { requiredApprovals: 3 }, 'U0ADMIN');
    expect((await policies.get('T0003')).requiredApprovals).toBe(1);
  });

  it('rejects a policy outside its bounds and leaves the stored one as it was', async () => {
    await policies.put('T0004', { expiryMinutes: 30 }, 'U0ADMIN');
    await expect(policies.put('T0004', { requiredApprovals: 0 }, 'U0ADMIN')).rejects.toThrow(ZodError);
    await expect(policies.put('T0004', { approverUsers: ['not-a-user'] }, 'U0ADMIN')).rejects.toThrow(
      ZodError,
    );
    expect((await policies.get('T0004')).expiryMinutes).toBe(30);
  });
});
