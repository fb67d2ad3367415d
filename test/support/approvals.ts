import type { NewApproval } from '../../lib/store/approvals.js';

/** A one-approval delete of volume 12 in `#ops`, changed where a test says. */
export function approvalRequest(overrides: Partial<NewApproval> = {}): NewApproval {
  return {
    team: 'T0001',
    requester: 'U0REQ',
    operationId: 'volumes.delete',
    input: { volumeId: 12 },
    summary: 'Delete volume 12',
    channel: 'C0OPS',
    requiredApprovals: 1,
    expiryMinutes: 15,
    ...overrides,
  };
}
