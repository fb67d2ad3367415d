import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLogRepository } from '../../../lib/store/audit-log.js';
import { ChannelPolicyRepository } from '../../../lib/store/channel-policy.js';
import { createStore, type ReadPathRepositories } from '../../../lib/store/index.js';
import { TokenLinkRepository } from '../../../lib/store/token-links.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * The agents' function makes a read's repositories (the person's token, the channel's policy, the
 * audit) from the module that holds the read's code (`lib/agents/read-path.ts`), so a first read
 * loads one module for them all; other functions load each from its own module on first use.
 */

let table: TestTable;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(() => table.dispose());

function countingReadPath() {
  const loads: string[] = [];
  const readPath = async (): Promise<ReadPathRepositories> => {
    loads.push('read-path');
    return (await import('../../../lib/agents/read-path.js')) satisfies ReadPathRepositories;
  };
  return { readPath, loads };
}

describe('a store whose read repositories come from the read path', () => {
  it('makes the token, policy and audit repositories from it, which then work as their own modules do', async () => {
    const { readPath, loads } = countingReadPath();
    const store = createStore(table.ctx, randomLocalCipher(), { readPath });
    expect(loads).toEqual([]);

    await store.tokenLinks.saveLink({
      team: 'T0READPATH',
      user: 'U0READER',
      token: 'secret-token-value',
      label: 'ops',
      apiUsername: 'reader',
      scopes: '*',
      expiry: null,
    });
    const lookup = await store.tokenLinks.getToken('T0READPATH', 'U0READER');
    expect(lookup).toMatchObject({ token: 'secret-token-value' });
    await store.channelPolicy.put('T0READPATH', 'C0OPS', { allowedClasses: ['read'] }, 'U0ADMIN');
    expect(await store.channelPolicy.get('T0READPATH', 'C0OPS')).toMatchObject({
      allowedClasses: ['read'],
      updatedBy: 'U0ADMIN',
    });
    await store.audit.append({
      team: 'T0READPATH',
      actor: 'U0READER',
      action: 'volumes.list',
      target: 'volumes',
      result: 'succeeded',
    });
    expect((await store.audit.list('T0READPATH')).entries).toHaveLength(1);
    // Once per repository, on its first call: the module itself is one import.
    expect(loads).toEqual(['read-path', 'read-path', 'read-path']);
  });

  it('is not asked for by a store without it, whose repositories load their own modules', async () => {
    const { loads } = countingReadPath();
    const store = createStore(table.ctx, randomLocalCipher());
    expect(await store.channelPolicy.get('T0READPATH', 'C0NONE')).toBeUndefined();
    expect(loads).toEqual([]);
  });

  it('exports the very classes the repositories’ own modules do', async () => {
    const readPath = await import('../../../lib/agents/read-path.js');
    expect(readPath.TokenLinkRepository).toBe(TokenLinkRepository);
    expect(readPath.ChannelPolicyRepository).toBe(ChannelPolicyRepository);
    expect(readPath.AuditLogRepository).toBe(AuditLogRepository);
  });
});
