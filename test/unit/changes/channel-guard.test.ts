import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../lib/api/operations/index.js';
import { channelGuard } from '../../../lib/changes/guardrails.js';
import type { ReadAhead, Store, StoredChannelPolicy } from '../../../lib/store/index.js';

/**
 * The guard in front of every operation decides from the channel's policy. A command reads the
 * caller's items, the policy among them, while its delivery claim is in flight; the guard reads the
 * policy from that read (`ChannelPolicyRepository.get`, tested in `read-ahead.test.ts`).
 */

const policy: StoredChannelPolicy = {
  channel: 'C0READ',
  allowedClasses: ['read'],
  rules: {},
  breakGlass: { enabled: false, users: [] },
  auditChannel: null,
  updatedBy: 'U0ADMIN',
  updatedAt: new Date('2026-11-27T08:00:00Z'),
};

function storeReading(found: StoredChannelPolicy | undefined) {
  const reads: { channel: string; read: ReadAhead | undefined }[] = [];
  const store = {
    channelPolicy: {
      get: async (_team: string, channel: string, read?: ReadAhead) => {
        reads.push({ channel, read });
        return found;
      },
      list: async () => [],
    },
  } as unknown as Store;
  return { store, reads };
}

const op = (id: string) => {
  const found = findOperation(id);
  if (!found) throw new Error(`no operation ${id}`);
  return found;
};

const readAhead: ReadAhead = { itemAt: () => undefined };

describe('channelGuard', () => {
  it('hands the caller read sent with the claim to the policy read, and decides on the policy', async () => {
    const { store, reads } = storeReading(policy);
    const guard = await channelGuard(store, 'T0G', 'C0READ', op('volumes.create'), readAhead);
    expect(reads).toEqual([{ channel: 'C0READ', read: readAhead }]);
    expect(guard.refusal).toMatchObject({ allowedClasses: ['read'], setBy: 'U0ADMIN' });
  });

  it('reads the policy itself when nothing was read ahead', async () => {
    const { store, reads } = storeReading(policy);
    const guard = await channelGuard(store, 'T0G', 'C0READ', op('volumes.list'), undefined);
    expect(reads).toEqual([{ channel: 'C0READ', read: undefined }]);
    expect(guard).toEqual({ approvalRequired: false });
  });
});
