import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelPolicyRepository } from '../../../lib/store/channel-policy.js';
import { readHelpScope } from '../../../lib/store/help-scope.js';
import { keys } from '../../../lib/store/keys.js';
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

  it('waits for one round of reads when the default profile is active, two for another profile', async () => {
    await link('U0ROUNDS', 'default', 'nodes:read');
    await link('U0ROUNDS', 'ops', 'volumes:read');
    // Each read as it starts, with how many reads had already finished: a read started after
    // another finished waited for it.
    const started: number[] = [];
    let finished = 0;
    const counted = {
      ...table.ctx,
      table: {
        ...table.ctx.table,
        get: async (input: Parameters<typeof table.ctx.table.get>[0]) => {
          started.push(finished);
          try {
            return await table.ctx.table.get(input);
          } finally {
            finished += 1;
          }
        },
      },
    };
    expect((await readHelpScope(counted, TEAM, 'U0ROUNDS', CHANNEL)).scopes).toEqual(['nodes:read']);
    expect(started).toEqual([0, 0, 0]);

    started.length = 0;
    finished = 0;
    expect(await links.setActiveProfile(TEAM, 'U0ROUNDS', 'ops')).toBe(true);
    expect((await readHelpScope(counted, TEAM, 'U0ROUNDS', CHANNEL)).scopes).toEqual(['volumes:read']);
    expect(started).toEqual([0, 0, 0, 3]);
  });
});
