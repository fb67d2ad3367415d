import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../../lib/store/errors.js';
import { keys } from '../../../lib/store/keys.js';
import { ReportSubscriptionRepository } from '../../../lib/store/report-subscriptions.js';
import type { StoreContext } from '../../../lib/store/store-context.js';
import type { Table } from '../../../lib/store/table.js';
import { TeamUserData } from '../../../lib/store/team-data.js';
import { TokenLinkRepository } from '../../../lib/store/token-links.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * A workspace's removal deletes its users' items (token links, active profiles, expiry reminders).
 * The functions' roles allow no Scan, so they are found by key: the team's member items, then each
 * member's partition. Regression: the removal scanned the table, which the Slack function's role
 * refuses in AWS, so every linked token of an uninstalled workspace stayed.
 */

let test: TestTable;
let links: TokenLinkRepository;
let reports: ReportSubscriptionRepository;
beforeAll(async () => {
  test = await createTestTable();
  links = new TokenLinkRepository(test.ctx, randomLocalCipher());
  reports = new ReportSubscriptionRepository(test.ctx);
});
afterAll(() => test.dispose());

/** The table as the Slack function's role allows it: every call recorded, a Scan refused. */
function withoutScan(table: Table, calls: string[]): Table {
  const recorded =
    <Input, Output>(action: string, call: (input: Input) => Promise<Output>) =>
    (input: Input) => {
      calls.push(action);
      return call(input);
    };
  return {
    get: recorded('GetItem', table.get),
    batchGet: recorded('BatchGetItem', table.batchGet),
    put: recorded('PutItem', table.put),
    update: recorded('UpdateItem', table.update),
    delete: recorded('DeleteItem', table.delete),
    query: recorded('Query', table.query),
    scan: recorded('Scan', async () => {
      throw Object.assign(new Error('not authorized to perform: dynamodb:Scan'), {
        name: 'AccessDeniedException',
      });
    }),
    batchWrite: recorded('BatchWriteItem', table.batchWrite),
    transactWrite: recorded('TransactWriteItems', table.transactWrite),
  };
}

async function link(team: string, user: string, profile = 'default') {
  await links.saveLink({
    team,
    user,
    profile,
    token: `secret-token-${team}-${user}-${profile}`,
    label: 'ci',
    apiUsername: user.toLowerCase(),
    scopes: '*',
    expiry: new Date('2031-01-01T00:00:00Z'),
  });
}

async function partition(pk: string) {
  const page = await test.table.query({
    TableName: test.ctx.tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': pk },
    ConsistentRead: true,
  });
  return page.Items ?? [];
}

describe("removing a workspace's user data", () => {
  it("deletes every user's links, active profile and reminders of that team only, by key, with no scan", async () => {
    const users = Array.from({ length: 30 }, (_, i) => `U0MEMBER${i}`);
    for (const user of users) await link('T0GONE', user);
    await link('T0GONE', 'U0MEMBER0', 'staging');
    await reports.claimExpiryReminder('T0GONE', 'U0MEMBER1', 'default', new Date('2031-01-01T00:00:00Z'));
    await link('T0STAYS', 'U0MEMBER0');
    await link('T0STAYS', 'U0OTHER');

    const calls: string[] = [];
    const ctx: StoreContext = { ...test.ctx, table: withoutScan(test.table, calls) };
    const deleted = await new TeamUserData(ctx).deleteUserItems('T0GONE');

    expect(deleted).toBe(31);
    expect(calls).not.toContain('Scan');
    expect(new Set(calls)).toEqual(new Set(['Query', 'BatchWriteItem']));
    for (const user of users) expect(await partition(keys.user('T0GONE', user))).toEqual([]);
    const teamItems = await partition(keys.team('T0GONE'));
    expect(teamItems.filter((item) => String(item.sk).startsWith(keys.memberPrefix))).toEqual([]);

    expect((await links.getToken('T0STAYS', 'U0MEMBER0')).status).toBe('found');
    expect((await links.getToken('T0STAYS', 'U0OTHER')).status).toBe('found');
  });

  it('finds nothing left when run again', async () => {
    await expect(new TeamUserData(test.ctx).deleteUserItems('T0GONE')).resolves.toBe(0);
  });

  it('fails as unavailable storage when DynamoDB keeps leaving deletions unprocessed, instead of looping', async () => {
    await link('T0BUSY', 'U0BUSY');
    let batches = 0;
    const busy: Table = {
      ...test.table,
      query: (input) => test.table.query(input),
      batchWrite: async (input) => {
        batches += 1;
        return { UnprocessedItems: input.RequestItems };
      },
    };
    const sleeps: number[] = [];
    const removal = new TeamUserData({ ...test.ctx, table: busy }, async (ms) => {
      sleeps.push(ms);
    });
    const error = await removal.deleteUserItems('T0BUSY').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'storage_unavailable' });
    expect(batches).toBe(6);
    expect(sleeps).toEqual([50, 100, 200, 400, 800]);
    // Nothing was lost track of: the link is still there, and still findable.
    expect((await links.getToken('T0BUSY', 'U0BUSY')).status).toBe('found');
  });

  it('finishes on a second run after failing part-way: a member goes only after its partition is empty', async () => {
    for (const user of ['U0FIRST', 'U0SECOND', 'U0THIRD']) await link('T0HALF', user);
    let batches = 0;
    const failing: Table = {
      ...test.table,
      query: (input) => test.table.query(input),
      batchWrite: async (input) => {
        batches += 1;
        if (batches > 1) throw new StoreError('storage_unavailable', 'DynamoDB stopped answering');
        return test.table.batchWrite(input);
      },
    };
    await expect(
      new TeamUserData({ ...test.ctx, table: failing }).deleteUserItems('T0HALF'),
    ).rejects.toBeInstanceOf(StoreError);
    const membersLeft = (await partition(keys.team('T0HALF'))).filter((item) =>
      String(item.sk).startsWith(keys.memberPrefix),
    );
    expect(membersLeft).toHaveLength(3);

    await expect(new TeamUserData(test.ctx).deleteUserItems('T0HALF')).resolves.toBe(2);
    for (const user of ['U0FIRST', 'U0SECOND', 'U0THIRD']) {
      expect((await links.getToken('T0HALF', user)).status).toBe('missing');
    }
  });
});
