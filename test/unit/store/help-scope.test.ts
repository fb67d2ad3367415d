import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelPolicyRepository } from '../../../lib/store/channel-policy.js';
import { keys } from '../../../lib/store/keys.js';
import { readHelpScope } from '../../../lib/store/read-ahead.js';
import { TokenLinkRepository } from '../../../lib/store/token-links.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * `/cloud help` reads what it is fitted to without the repositories. Written by the repositories
 * and read back both ways, the two must agree, or help would list what the caller cannot run.
 */

const TEAM = 'T0HELP';
const CHANNEL = 'C0HELP';
let table: TestTable;
let links: TokenLinkRepository;
let policies: ChannelPolicyRepository;

beforeAll(async () => {
  table = await createTestTable();
  links = new TokenLinkRepository(table.ctx, randomLocalCipher());
  policies = new ChannelPolicyRepository(table.ctx);
});
afterAll(async () => {
  await table?.dispose();
});

/** What helpFitFor read before: through the repositories. */
async function throughRepositories(user: string, channel: string) {
  const [profile, policy] = await Promise.all([
    links.getActiveProfile(TEAM, user),
    policies.get(TEAM, channel),
  ]);
  const link = await links.getLink(TEAM, user, profile ?? 'default');
  return {
    scopes:
      link && link.scopes !== 'unknown' ? link.scopes.split(/[\s,]+/).filter((s) => s !== '') : undefined,
    channelPolicy: policy && { allowedClasses: policy.allowedClasses },
  };
}

const link = (user: string, profile: string, scopes: string, expiry: Date | null = null) =>
  links.saveLink({
    team: TEAM,
    user,
    profile,
    token: 'tok',
    label: profile,
    apiUsername: 'u',
    scopes,
    expiry,
  });

describe('readHelpScope', () => {
  it('reads nothing for a user without a link in a channel without a policy', async () => {
    const read = await readHelpScope(table.ctx, TEAM, 'U0NOBODY', 'C0NONE');
    expect(read).toEqual({ scopes: undefined, channelPolicy: undefined });
    expect(read).toEqual(await throughRepositories('U0NOBODY', 'C0NONE'));
  });

  it('follows the active profile to its link, and reads the channel policy, as the repositories do', async () => {
    await link('U0ACTIVE', 'default', 'nodes:read');
    await link('U0ACTIVE', 'ops', 'nodes:read_write volumes:read');
    expect(await links.setActiveProfile(TEAM, 'U0ACTIVE', 'ops')).toBe(true);
    await policies.put(TEAM, CHANNEL, { allowedClasses: ['read', 'change'] }, 'U0ADMIN');
    const read = await readHelpScope(table.ctx, TEAM, 'U0ACTIVE', CHANNEL);
    expect(read).toEqual({
      scopes: ['nodes:read_write', 'volumes:read'],
      channelPolicy: { allowedClasses: ['read', 'change'] },
    });
    expect(read).toEqual(await throughRepositories('U0ACTIVE', CHANNEL));
  });

  it('treats unknown scopes and an expired link as no scopes', async () => {
    await link('U0UNKNOWN', 'default', 'unknown');
    await link('U0EXPIRED', 'default', '*', new Date(table.clock.now().getTime() - 1000));
    for (const user of ['U0UNKNOWN', 'U0EXPIRED']) {
      const read = await readHelpScope(table.ctx, TEAM, user, 'C0NONE');
      expect(read.scopes).toBeUndefined();
      expect(read).toEqual(await throughRepositories(user, 'C0NONE'));
    }
  });

  it('says a malformed item is malformed, as the repositories do, instead of guessing', async () => {
    await table.table.put({
      TableName: table.ctx.tableName,
      Item: { pk: keys.user(TEAM, 'U0BROKEN'), sk: keys.link('default'), kind: 'token_link', scopes: 7 },
    });
    await expect(readHelpScope(table.ctx, TEAM, 'U0BROKEN', 'C0NONE')).rejects.toMatchObject({
      code: 'malformed_item',
    });
    await expect(throughRepositories('U0BROKEN', 'C0NONE')).rejects.toMatchObject({ code: 'malformed_item' });
  });

  it('reads in one request when the default profile is active, two for another profile', async () => {
    await link('U0ROUNDS', 'default', 'nodes:read');
    await link('U0ROUNDS', 'ops', 'volumes:read');
    const requests: string[][] = [];
    const counted = {
      ...table.ctx,
      table: {
        ...table.ctx.table,
        get: async () => {
          throw new Error('help reads in batches');
        },
        batchGet: async (input: Parameters<typeof table.ctx.table.batchGet>[0]) => {
          requests.push((input.RequestItems?.[table.ctx.tableName]?.Keys ?? []).map((key) => String(key.sk)));
          return table.ctx.table.batchGet(input);
        },
      },
    };
    expect((await readHelpScope(counted, TEAM, 'U0ROUNDS', CHANNEL)).scopes).toEqual(['nodes:read']);
    expect(requests).toEqual([[keys.active, keys.channelPolicy(CHANNEL), keys.link('default')]]);

    requests.length = 0;
    expect(await links.setActiveProfile(TEAM, 'U0ROUNDS', 'ops')).toBe(true);
    expect((await readHelpScope(counted, TEAM, 'U0ROUNDS', CHANNEL)).scopes).toEqual(['volumes:read']);
    expect(requests).toEqual([
      [keys.active, keys.channelPolicy(CHANNEL), keys.link('default')],
      [keys.link('ops')],
    ]);
  });

  it('asks again for keys DynamoDB left unprocessed, and says storage is unavailable if it keeps leaving them', async () => {
    await link('U0LEFT', 'default', 'nodes:read');
    await policies.put(TEAM, 'C0LEFT', { allowedClasses: ['read'] }, 'U0ADMIN');
    const asked: number[] = [];
    // Answers only the first key of each request and leaves the rest, as DynamoDB may under load.
    const leaving = (leaveAlways: boolean) => ({
      ...table.ctx,
      table: {
        ...table.ctx.table,
        batchGet: async (input: Parameters<typeof table.ctx.table.batchGet>[0]) => {
          const request = input.RequestItems?.[table.ctx.tableName];
          const keysAsked = request?.Keys ?? [];
          asked.push(keysAsked.length);
          const [first, ...rest] = keysAsked;
          const answered = leaveAlways || !first ? [] : [first];
          const left = leaveAlways ? keysAsked : rest;
          const answer =
            answered.length > 0
              ? await table.ctx.table.batchGet({
                  RequestItems: { [table.ctx.tableName]: { ...request, Keys: answered } },
                })
              : { Responses: { [table.ctx.tableName]: [] } };
          return left.length > 0
            ? { ...answer, UnprocessedKeys: { [table.ctx.tableName]: { ...request, Keys: left } } }
            : answer;
        },
      },
    });
    const read = await readHelpScope(leaving(false), TEAM, 'U0LEFT', 'C0LEFT');
    expect(read).toEqual({ scopes: ['nodes:read'], channelPolicy: { allowedClasses: ['read'] } });
    expect(asked).toEqual([3, 2, 1]);

    asked.length = 0;
    await expect(readHelpScope(leaving(true), TEAM, 'U0LEFT', 'C0LEFT')).rejects.toMatchObject({
      code: 'storage_unavailable',
    });
    expect(asked).toEqual([3, 3, 3]);
  });
});
