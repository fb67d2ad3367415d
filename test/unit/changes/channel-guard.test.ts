import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../lib/api/operations/index.js';
import { channelGuard } from '../../../lib/changes/guardrails.js';
import type { Store, StoredChannelPolicy } from '../../../lib/store/index.js';

/**
 * The guard in front of every operation decides from the channel's policy. A command reads that
 * policy while its delivery claim is in flight; the guard then decides on that read.
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
  const reads: string[] = [];
  const store = {
    channelPolicy: {
      get: async (_team: string, channel: string) => {
        reads.push(channel);
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

describe('channelGuard', () => {
  it('decides on a policy read ahead without reading it again', async () => {
    const { store, reads } = storeReading(undefined);
    const guard = await channelGuard(store, 'T0G', 'C0READ', op('volumes.create'), Promise.resolve(policy));
    expect(reads).toEqual([]);
    expect(guard.refusal).toMatchObject({ allowedClasses: ['read'], setBy: 'U0ADMIN' });
  });

  it('reads the policy itself when none was read ahead', async () => {
    const { store, reads } = storeReading(policy);
    const guard = await channelGuard(store, 'T0G', 'C0READ', op('volumes.list'), undefined);
    expect(reads).toEqual(['C0READ']);
    expect(guard).toEqual({ approvalRequired: false });
  });

  it('reports a read ahead that failed, as its own read would have', async () => {
    const { store } = storeReading(undefined);
    const failed = Promise.reject(new Error('storage is not answering'));
    await expect(channelGuard(store, 'T0G', 'C0READ', op('volumes.list'), failed)).rejects.toThrow(
      'storage is not answering',
    );
  });
});
