import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChannelPolicyRepository } from '../../../lib/store/channel-policy.js';
import { keys } from '../../../lib/store/keys.js';
import { callerKeys, readAhead } from '../../../lib/store/read-ahead.js';
import type { StoreContext } from '../../../lib/store/store-context.js';
import { type NewTokenLink, TokenLinkRepository } from '../../../lib/store/token-links.js';
import { countingContext, createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * An operation's command sends one read of the caller's items (active profile, default link, the
 * channel's policy) with its delivery claim. The policy and the token are then taken from that
 * read, with the same answers as reading them afresh, and without another round trip.
 */

const TEAM = 'T0READ';
const CHANNEL = 'C0READ';
let table: TestTable;
let calls: string[];
let ctx: StoreContext;
let links: TokenLinkRepository;
let policies: ChannelPolicyRepository;

/** A link of `user`'s `profile` in the test's team. */
function linkOf(
  user: string,
  profile: string,
  token: string,
  more: Partial<NewTokenLink> = {},
): NewTokenLink {
  return {
    team: TEAM,
    user,
    profile,
    token,
    label: profile,
    apiUsername: user,
    scopes: 'unknown',
    expiry: null,
    ...more,
  };
}

beforeAll(async () => {
  table = await createTestTable();
  ({ ctx, calls } = countingContext(table.ctx));
  const cipher = randomLocalCipher();
  links = new TokenLinkRepository(ctx, cipher);
  policies = new ChannelPolicyRepository(ctx);
  await new TokenLinkRepository(table.ctx, cipher).saveLink(
    linkOf('U0DEFAULT', 'default', 'tok_default', { scopes: 'volumes:read' }),
  );
  await new ChannelPolicyRepository(table.ctx).put(TEAM, CHANNEL, { allowedClasses: ['read'] }, 'U0ADMIN');
});
afterAll(async () => {
  await table?.dispose();
});
beforeEach(() => {
  calls.length = 0;
});

describe('a read of the caller’s items sent ahead', () => {
  it('gives the channel policy and the default profile’s token in one batch read', async () => {
    const read = readAhead(ctx, callerKeys(TEAM, 'U0DEFAULT', CHANNEL));
    const [policy, lookup] = await Promise.all([
      policies.get(TEAM, CHANNEL, read),
      links.getToken(TEAM, 'U0DEFAULT', undefined, read),
    ]);
    expect(calls).toEqual(['batchGet']);
    expect(policy).toEqual(await policies.get(TEAM, CHANNEL));
    expect(policy?.allowedClasses).toEqual(['read']);
    expect(lookup).toMatchObject({ status: 'found', token: 'tok_default', link: { profile: 'default' } });
  });

  it('reads another profile’s link next, as a lookup without the read does', async () => {
    await links.saveLink(linkOf('U0OTHER', 'ops', 'tok_ops'));
    expect(await links.setActiveProfile(TEAM, 'U0OTHER', 'ops')).toBe(true);
    calls.length = 0;
    const read = readAhead(ctx, callerKeys(TEAM, 'U0OTHER', CHANNEL));
    const lookup = await links.getToken(TEAM, 'U0OTHER', undefined, read);
    expect(calls).toEqual(['batchGet', 'get']);
    expect(lookup).toMatchObject({ status: 'found', token: 'tok_ops', link: { profile: 'ops' } });
  });

  it('is not used for keys it did not ask for (another user or channel): those are read afresh', async () => {
    const read = readAhead(ctx, callerKeys(TEAM, 'U0DEFAULT', CHANNEL));
    await policies.get(TEAM, CHANNEL, read);
    calls.length = 0;
    expect(await policies.get(TEAM, 'C0ELSEWHERE', read)).toBeUndefined();
    expect(await links.getToken(TEAM, 'U0NOBODY', undefined, read)).toEqual({
      status: 'missing',
      profile: 'default',
    });
    expect(calls).toEqual(['get', 'get', 'get']);
  });

  it('treats an expired default link as missing, and a malformed item as the repositories do', async () => {
    await links.saveLink(
      linkOf('U0EXPIRED', 'default', 'tok_old', { expiry: new Date(table.clock.now().getTime() + 60_000) }),
    );
    await table.ctx.table.put({
      TableName: table.ctx.tableName,
      Item: {
        pk: keys.team(TEAM),
        sk: keys.channelPolicy('C0BROKEN'),
        kind: 'channel_policy',
        policy: 'all',
      },
    });
    table.clock.advance(120_000);
    try {
      const read = readAhead(ctx, callerKeys(TEAM, 'U0EXPIRED', 'C0BROKEN'));
      expect(await links.getToken(TEAM, 'U0EXPIRED', undefined, read)).toEqual(
        await links.getToken(TEAM, 'U0EXPIRED'),
      );
      expect(await links.getToken(TEAM, 'U0EXPIRED', undefined, read)).toMatchObject({ status: 'missing' });
      const fromRead = await policies.get(TEAM, 'C0BROKEN', read).catch((e: unknown) => e);
      const afresh = await policies.get(TEAM, 'C0BROKEN').catch((e: unknown) => e);
      expect(fromRead).toMatchObject({ code: 'malformed_item' });
      expect(fromRead).toEqual(afresh);
    } finally {
      table.clock.advance(-120_000);
    }
  });

  it('surfaces a failed read where it is awaited, as a read of its own would', async () => {
    const failing = {
      ...ctx,
      table: { ...ctx.table, batchGet: () => Promise.reject(new Error('storage down')) },
    };
    const read = readAhead(failing, callerKeys(TEAM, 'U0DEFAULT', CHANNEL));
    await expect(policies.get(TEAM, CHANNEL, read)).rejects.toThrow('storage down');
    await expect(links.getToken(TEAM, 'U0DEFAULT', undefined, read)).rejects.toThrow('storage down');
  });
});
