import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AliasRepository } from '../../../lib/store/aliases.js';
import { ChannelPolicyRepository } from '../../../lib/store/channel-policy.js';
import { StoreError } from '../../../lib/store/errors.js';
import { createTestTable, type TestTable } from '../../support/store.js';

let table: TestTable;
let aliases: AliasRepository;
let policies: ChannelPolicyRepository;
beforeAll(async () => {
  table = await createTestTable();
  aliases = new AliasRepository(table.ctx);
  policies = new ChannelPolicyRepository(table.ctx);
});
afterAll(() => table.dispose());

const OPS = { kind: 'channel', channel: 'C0OPS' } as const;
const WORKSPACE = { kind: 'workspace' } as const;

describe('AliasRepository', () => {
  it("finds a channel's alias before the workspace's of the same name, and the workspace's elsewhere", async () => {
    await aliases.put('T0001', WORKSPACE, 'vv', 'volumes list', 'U0ADMIN');
    await aliases.put('T0001', OPS, 'vv', 'regions list', 'U0ALICE');
    expect((await aliases.find('T0001', 'C0OPS', 'vv'))?.expansion).toBe('regions list');
    expect(await aliases.find('T0001', 'C0OTHER', 'vv')).toMatchObject({
      expansion: 'volumes list',
      scope: WORKSPACE,
      createdBy: 'U0ADMIN',
    });
    expect(await aliases.find('T0002', 'C0OPS', 'vv')).toBeUndefined();
  });

  it('lists by scope and removes once', async () => {
    await aliases.put('T0003', OPS, 'b', 'volumes list', 'U0ALICE');
    await aliases.put('T0003', OPS, 'a', 'regions list', 'U0ALICE');
    await aliases.put('T0003', { kind: 'channel', channel: 'C0OTHER' }, 'c', 'regions list', 'U0ALICE');
    const listed = await aliases.list('T0003', 'C0OPS');
    expect(listed.channel.map((a) => a.name)).toEqual(['a', 'b']);
    expect(listed.workspace).toEqual([]);
    expect(await aliases.remove('T0003', OPS, 'a')).toBe(true);
    expect(await aliases.remove('T0003', OPS, 'a')).toBe(false);
  });

  it('does not show up among the channel policies, which are listed by key prefix', async () => {
    await policies.put('T0004', 'C0OPS', { allowedClasses: ['read'] }, 'U0ADMIN');
    await aliases.put('T0004', OPS, 'vv', 'volumes list', 'U0ALICE');
    expect((await policies.list('T0004')).map((p) => p.channel)).toEqual(['C0OPS']);
    // Not even as an item the policy listing reads and skips as malformed.
    const underPolicyPrefix = await table.table.query({
      TableName: table.ctx.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': 'TEAM#T0004', ':prefix': 'CHANNEL#' },
    });
    expect(underPolicyPrefix.Items?.map((item) => item.kind)).toEqual(['channel_policy']);
  });

  it('refuses a name that could reach into another key, before writing', async () => {
    await expect(aliases.put('T0005', OPS, 'x#POLICY', 'volumes list', 'U0ALICE')).rejects.toBeInstanceOf(
      StoreError,
    );
    await expect(aliases.put('T0005', OPS, '__proto__', 'volumes list', 'U0ALICE')).rejects.toBeInstanceOf(
      StoreError,
    );
    expect((await aliases.list('T0005', 'C0OPS')).channel).toEqual([]);
  });
});
