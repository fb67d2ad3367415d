import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretDecryptionError, StoreError } from '../../../lib/store/errors.js';
import { keys } from '../../../lib/store/keys.js';
import { type NewTokenLink, TokenLinkRepository } from '../../../lib/store/token-links.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

let table: TestTable;
let links: TokenLinkRepository;
beforeAll(async () => {
  table = await createTestTable();
  links = new TokenLinkRepository(table.ctx, randomLocalCipher());
});
afterAll(() => table.dispose());

let tokenCounter = 0;
/** A token shaped like the API's: 64 hex characters, different every time. */
function newToken(): string {
  tokenCounter++;
  return `${tokenCounter.toString(16).padStart(8, '0')}c9e2b7d84f6a9c0e1b2d3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e`;
}

function link(overrides: Partial<NewTokenLink> & Pick<NewTokenLink, 'team' | 'user'>): NewTokenLink {
  return {
    token: newToken(),
    label: 'chatops',
    apiUsername: 'alice',
    scopes: 'volumes:read_write nodes:read_only',
    expiry: null,
    ...overrides,
  };
}

describe('saveLink and getToken', () => {
  it('returns the token of the default profile, decrypted', async () => {
    const input = link({ team: 'T0001', user: 'U0A' });
    const saved = await links.saveLink(input);
    expect(saved).toMatchObject({ profile: 'default', status: 'active', apiUsername: 'alice', expiry: null });
    expect(saved).not.toHaveProperty('token');
    const lookup = await links.getToken('T0001', 'U0A');
    expect(lookup).toMatchObject({ status: 'found', token: input.token, link: { label: 'chatops' } });
  });

  it('keeps profiles apart and makes the first one linked the active one', async () => {
    const work = link({ team: 'T0001', user: 'U0B', profile: 'work' });
    const lab = link({ team: 'T0001', user: 'U0B', profile: 'lab' });
    await links.saveLink(work);
    await links.saveLink(lab);
    expect(await links.getActiveProfile('T0001', 'U0B')).toBe('work');
    expect(await links.getToken('T0001', 'U0B')).toMatchObject({ status: 'found', token: work.token });
    expect(await links.getToken('T0001', 'U0B', 'lab')).toMatchObject({ status: 'found', token: lab.token });
  });

  it('with activate, makes the profile active in the one write that stores the link and the member item', async () => {
    await links.saveLink(link({ team: 'T0ACT', user: 'U0A' }));
    const writes: string[] = [];
    const counting = new TokenLinkRepository(
      {
        ...table.ctx,
        table: {
          ...table.ctx.table,
          put: (input) => {
            writes.push('put');
            return table.ctx.table.put(input);
          },
          transactWrite: (input) => {
            writes.push(`transactWrite:${input.TransactItems?.length}`);
            return table.ctx.table.transactWrite(input);
          },
        },
      },
      randomLocalCipher(),
    );
    await counting.saveLink(link({ team: 'T0ACT', user: 'U0A', profile: 'ops' }), { activate: true });
    expect(writes).toEqual(['transactWrite:3']);
    expect(await links.getActiveProfile('T0ACT', 'U0A')).toBe('ops');
    const member = await table.ctx.table.get({
      TableName: table.ctx.tableName,
      Key: { pk: keys.team('T0ACT'), sk: keys.member('U0A') },
    });
    expect(member.Item).toMatchObject({ kind: 'team_member', user_id: 'U0A' });
  });

  it('writes nothing when the write fails: no link without its member item or active profile', async () => {
    const failing = new TokenLinkRepository(
      {
        ...table.ctx,
        table: {
          ...table.ctx.table,
          transactWrite: () =>
            Promise.reject(new StoreError('storage_unavailable', 'DynamoDB is not answering.')),
        },
      },
      randomLocalCipher(),
    );
    await expect(
      failing.saveLink(link({ team: 'T0FAIL', user: 'U0A', profile: 'ops' }), { activate: true }),
    ).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect(await links.getActiveProfile('T0FAIL', 'U0A')).toBeUndefined();
    expect(await links.getLink('T0FAIL', 'U0A', 'ops')).toBeUndefined();
  });

  it('replaces the token when the same profile logs in again', async () => {
    await links.saveLink(link({ team: 'T0001', user: 'U0C' }));
    const again = link({ team: 'T0001', user: 'U0C', label: 'renewed' });
    await links.saveLink(again);
    expect(await links.getToken('T0001', 'U0C')).toMatchObject({ status: 'found', token: again.token });
    expect((await links.listLinks('T0001', 'U0C')).links).toHaveLength(1);
  });

  it("reads the default profile's link alongside the active profile: one round of reads, two for another profile", async () => {
    // Each read as it starts, with how many reads had finished: one started after another ended waited for it.
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
    const cipher = randomLocalCipher();
    const writer = new TokenLinkRepository(table.ctx, cipher);
    const reader = new TokenLinkRepository(counted, cipher);
    const own = link({ team: 'T0001', user: 'U0R' });
    await writer.saveLink(own);
    expect(await reader.getToken('T0001', 'U0R')).toMatchObject({ status: 'found', token: own.token });
    expect(started).toEqual([0, 0]);

    const lab = link({ team: 'T0001', user: 'U0R', profile: 'lab' });
    await writer.saveLink(lab);
    expect(await writer.setActiveProfile('T0001', 'U0R', 'lab')).toBe(true);
    started.length = 0;
    finished = 0;
    expect(await reader.getToken('T0001', 'U0R')).toMatchObject({ status: 'found', token: lab.token });
    expect(started).toEqual([0, 0, 2]);
  });

  it('does not fail on a malformed default link while another profile is active', async () => {
    const lab = link({ team: 'T0001', user: 'U0M', profile: 'lab' });
    await links.saveLink(lab);
    await table.table.put({
      TableName: table.ctx.tableName,
      Item: { pk: keys.user('T0001', 'U0M'), sk: keys.link('default'), kind: 'token_link', scopes: 7 },
    });
    expect(await links.getActiveProfile('T0001', 'U0M')).toBe('lab');
    expect(await links.getToken('T0001', 'U0M')).toMatchObject({ status: 'found', token: lab.token });
  });

  it('reports a missing link with the profile it looked for', async () => {
    expect(await links.getToken('T0001', 'U0NOBODY', 'ops')).toEqual({ status: 'missing', profile: 'ops' });
  });

  it('refuses profile names that could reach into other keys', async () => {
    await expect(links.saveLink(link({ team: 'T0001', user: 'U0D', profile: 'a#ACTIVE' }))).rejects.toThrow(
      StoreError,
    );
    await expect(links.getToken('T0001', 'U0D', '')).rejects.toThrow(StoreError);
  });
});

describe('listLinks and setActiveProfile', () => {
  it('lists the profiles with the active one', async () => {
    await links.saveLink(link({ team: 'T0001', user: 'U0E', profile: 'one' }));
    await links.saveLink(link({ team: 'T0001', user: 'U0E', profile: 'two' }));
    const { links: listed, activeProfile } = await links.listLinks('T0001', 'U0E');
    expect(listed.map((l) => l.profile).sort()).toEqual(['one', 'two']);
    expect(activeProfile).toBe('one');
  });

  it('switches the active profile only to a profile that exists', async () => {
    await links.saveLink(link({ team: 'T0001', user: 'U0F', profile: 'one' }));
    await links.saveLink(link({ team: 'T0001', user: 'U0F', profile: 'two' }));
    expect(await links.setActiveProfile('T0001', 'U0F', 'two')).toBe(true);
    expect(await links.getActiveProfile('T0001', 'U0F')).toBe('two');
    expect(await links.setActiveProfile('T0001', 'U0F', 'three')).toBe(false);
    expect(await links.getActiveProfile('T0001', 'U0F')).toBe('two');
  });
});

describe('deleteLink (logout)', () => {
  it('deletes the link and the active pointer that named it', async () => {
    await links.saveLink(link({ team: 'T0001', user: 'U0G', profile: 'one' }));
    await links.saveLink(link({ team: 'T0001', user: 'U0G', profile: 'two' }));
    expect(await links.deleteLink('T0001', 'U0G', 'one')).toBe(true);
    expect(await links.getToken('T0001', 'U0G', 'one')).toEqual({ status: 'missing', profile: 'one' });
    expect(await links.getActiveProfile('T0001', 'U0G')).toBeUndefined();
    expect(await links.getToken('T0001', 'U0G', 'two')).toMatchObject({ status: 'found' });
  });

  it('keeps the active pointer when another profile is deleted, and says when there was nothing', async () => {
    await links.saveLink(link({ team: 'T0001', user: 'U0H', profile: 'one' }));
    await links.saveLink(link({ team: 'T0001', user: 'U0H', profile: 'two' }));
    expect(await links.deleteLink('T0001', 'U0H', 'two')).toBe(true);
    expect(await links.getActiveProfile('T0001', 'U0H')).toBe('one');
    expect(await links.deleteLink('T0001', 'U0H', 'two')).toBe(false);
  });
});

describe('markInvalid (the API answered 401)', () => {
  it('marks the link invalid and drops its ciphertext', async () => {
    await links.saveLink(link({ team: 'T0001', user: 'U0I' }));
    expect(await links.markInvalid('T0001', 'U0I', 'default')).toBe(true);
    const lookup = await links.getToken('T0001', 'U0I');
    expect(lookup).toMatchObject({ status: 'invalid', link: { status: 'invalid' } });
    const raw = await table.ctx.table.get({
      TableName: table.ctx.tableName,
      Key: { pk: 'TEAM#T0001#USER#U0I', sk: 'LINK#default' },
    });
    expect(raw.Item).not.toHaveProperty('token_ciphertext');
  });

  it('does not create a link that was not there', async () => {
    expect(await links.markInvalid('T0001', 'U0NOLINK', 'default')).toBe(false);
    expect((await links.listLinks('T0001', 'U0NOLINK')).links).toEqual([]);
  });
});

describe('expired tokens', () => {
  it('are excluded from every read before TTL deletes them, and carry the TTL attribute', async () => {
    const expiry = new Date(table.clock.now().getTime() + 60 * 60_000);
    await links.saveLink(link({ team: 'T0001', user: 'U0J', expiry }));
    expect(await links.getToken('T0001', 'U0J')).toMatchObject({ status: 'found' });

    table.clock.set(expiry);
    expect(await links.getToken('T0001', 'U0J')).toEqual({ status: 'missing', profile: 'default' });
    expect(await links.getLink('T0001', 'U0J', 'default')).toBeUndefined();
    expect((await links.listLinks('T0001', 'U0J')).links).toEqual([]);
    expect(await links.setActiveProfile('T0001', 'U0J', 'default')).toBe(false);

    const raw = await table.ctx.table.get({
      TableName: table.ctx.tableName,
      Key: { pk: 'TEAM#T0001#USER#U0J', sk: 'LINK#default' },
    });
    expect(raw.Item?.expires_at).toBe(Math.floor(expiry.getTime() / 1000));
    table.clock.set('2030-01-15T09:00:00.000Z');
  });
});

describe('what a leaked table reveals', () => {
  it('a scan after linking tokens holds none of them in plain text, nor any part of them', async () => {
    const linked = await Promise.all(
      ['U1A', 'U1B', 'U1C'].map(async (user) => {
        const input = link({ team: 'T0009', user });
        await links.saveLink(input);
        return input.token;
      }),
    );
    const scan = await table.ctx.table.scan({ TableName: table.ctx.tableName });
    const dump = JSON.stringify(scan.Items);
    expect(scan.Items?.length).toBeGreaterThan(3);
    for (const token of linked) {
      expect(dump).not.toContain(token);
      expect(dump).not.toContain(token.slice(0, 16));
      expect(dump).not.toContain(token.slice(-16));
    }
  });

  it("an item copied to another user's key cannot be decrypted as theirs", async () => {
    await links.saveLink(link({ team: 'T0001', user: 'U0VICTIM' }));
    const original = await table.ctx.table.get({
      TableName: table.ctx.tableName,
      Key: { pk: 'TEAM#T0001#USER#U0VICTIM', sk: 'LINK#default' },
    });
    for (const [team, user] of [
      ['T0001', 'U0THIEF'],
      ['T0002', 'U0VICTIM'],
    ] as const) {
      await table.ctx.table.put({
        TableName: table.ctx.tableName,
        Item: { ...original.Item, pk: `TEAM#${team}#USER#${user}`, team_id: team, user_id: user },
      });
      const error = await links.getToken(team, user).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SecretDecryptionError);
      expect((error as Error).message).not.toMatch(/[0-9a-f]{16}/);
    }
  });
});
