import { createHash, randomBytes } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACCESS_TOKEN_SECONDS,
  type AgentGrant,
  AgentGrantRepository,
  REFRESH_TOKEN_SECONDS,
  SLACKBOT_GRANT_ID,
} from '../../../lib/store/agent-grants.js';
import { createStore } from '../../../lib/store/index.js';
import { keys } from '../../../lib/store/keys.js';
import { callerKeys } from '../../../lib/store/read-ahead.js';
import { countingContext, createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

let table: TestTable;
let grants: AgentGrantRepository;
beforeAll(async () => {
  table = await createTestTable();
  grants = new AgentGrantRepository(table.ctx);
});
afterAll(() => table.dispose());

const RESOURCE = 'https://bot.example.com/mcp';

function newGrant(user = 'U0ALICE', team = 'T0TEAM'): Promise<AgentGrant> {
  return grants.create({
    team,
    user,
    clientId: 'https://agent.example.com/client.json',
    clientName: 'Claude Code',
    homeChannel: 'C0OPS',
    scopes: ['cloud:read', 'cloud:change'],
  });
}

describe('agent grants', () => {
  it('lists a person’s agents and no one else’s', async () => {
    const mine = await newGrant('U0LISTER');
    await newGrant('U0OTHER');
    const listed = await grants.listFor('T0TEAM', 'U0LISTER');
    expect(listed.map((g) => g.id)).toEqual([mine.id]);
    expect(listed[0]).toMatchObject({ clientName: 'Claude Code', homeChannel: 'C0OPS' });
  });

  it('keeps one Slackbot grant per person: a second replaces the first', async () => {
    const base = { team: 'T0TEAM', user: 'U0SLACKBOT', clientId: 'slackbot', clientName: 'Slackbot' };
    await grants.create({ ...base, id: SLACKBOT_GRANT_ID, homeChannel: 'C0OPS', scopes: ['cloud:read'] });
    await grants.create({ ...base, id: SLACKBOT_GRANT_ID, homeChannel: 'C0DEV', scopes: ['cloud:read'] });
    const listed = await grants.listFor('T0TEAM', 'U0SLACKBOT');
    expect(listed.map((g) => g.homeChannel)).toEqual(['C0DEV']);
  });

  it('stores tokens only as hashes', async () => {
    const grant = await newGrant('U0HASHED');
    const issued = await grants.issueTokens(grant, RESOURCE);
    const items = await table.client.send(new ScanCommand({ TableName: table.ctx.tableName }));
    const dump = JSON.stringify(items.Items);
    expect(dump).not.toContain(issued.accessToken);
    expect(dump).not.toContain(issued.refreshToken);
    expect(dump).toContain(createHash('sha256').update(issued.accessToken).digest('base64url'));
  });
});

describe('access tokens', () => {
  it('verify for the resource they were issued for, naming the grant', async () => {
    const grant = await newGrant('U0VERIFY');
    const { accessToken, expiresInSeconds } = await grants.issueTokens(grant, RESOURCE);
    expect(expiresInSeconds).toBe(ACCESS_TOKEN_SECONDS);
    const verified = await grants.verifyAccessToken(accessToken, RESOURCE);
    expect(verified).toMatchObject({ grant: { id: grant.id, user: 'U0VERIFY' }, resource: RESOURCE });
  });

  it('are refused for another resource', async () => {
    const { accessToken } = await grants.issueTokens(await newGrant('U0RESOURCE'), RESOURCE);
    expect(await grants.verifyAccessToken(accessToken, 'https://other.example.com/mcp')).toEqual({
      refused: 'wrong_resource',
    });
  });

  it('stop counting after an hour', async () => {
    const { accessToken } = await grants.issueTokens(await newGrant('U0EXPIRE'), RESOURCE);
    table.clock.advance(ACCESS_TOKEN_SECONDS * 1000);
    try {
      expect(await grants.verifyAccessToken(accessToken, RESOURCE)).toEqual({ refused: 'expired' });
    } finally {
      table.clock.advance(-ACCESS_TOKEN_SECONDS * 1000);
    }
  });

  it('stop counting when their grant is revoked', async () => {
    const grant = await newGrant('U0REVOKE');
    const { accessToken } = await grants.issueTokens(grant, RESOURCE);
    expect(await grants.revoke('T0TEAM', 'U0REVOKE', grant.id)).toBe(true);
    expect(await grants.verifyAccessToken(accessToken, RESOURCE)).toEqual({ refused: 'revoked' });
    expect(await grants.revoke('T0TEAM', 'U0REVOKE', grant.id)).toBe(false);
  });

  it('refuse malformed and refresh tokens without reading them as access', async () => {
    const { refreshToken } = await grants.issueTokens(await newGrant('U0KINDS'), RESOURCE);
    expect(await grants.verifyAccessToken(refreshToken, RESOURCE)).toEqual({ refused: 'unknown' });
    expect(await grants.verifyAccessToken('__proto__', RESOURCE)).toEqual({ refused: 'unknown' });
    expect(await grants.verifyAccessToken('x'.repeat(100_000), RESOURCE)).toEqual({ refused: 'unknown' });
  });

  it('logging out takes every agent of the person away', async () => {
    const first = await grants.issueTokens(await newGrant('U0LOGOUT'), RESOURCE);
    await grants.issueTokens(await newGrant('U0LOGOUT'), RESOURCE);
    expect(await grants.revokeAllFor('T0TEAM', 'U0LOGOUT')).toBe(2);
    expect(await grants.listFor('T0TEAM', 'U0LOGOUT')).toEqual([]);
    expect(await grants.verifyAccessToken(first.accessToken, RESOURCE)).toEqual({ refused: 'revoked' });
  });
});

describe('verifying an access token', () => {
  /** The repository over a table that names each call it is asked. */
  function countedGrants(): { counted: AgentGrantRepository; calls: string[] } {
    const { ctx, calls } = countingContext(table.ctx);
    return { counted: new AgentGrantRepository(ctx), calls };
  }

  it('reads the token, its grant and the caller’s items in one batch, and writes nothing', async () => {
    const grant = await newGrant('U0BATCH');
    const { accessToken } = await grants.issueTokens(grant, RESOURCE);
    await table.ctx.table.put({
      TableName: table.ctx.tableName,
      Item: {
        pk: keys.team('T0TEAM'),
        sk: keys.channelPolicy('C0OPS'),
        kind: 'channel_policy',
        marker: 'ops',
      },
    });
    const { counted, calls } = countedGrants();

    const verified = await counted.verifyAccessToken(accessToken, RESOURCE);

    if ('refused' in verified) throw new Error(`refused: ${verified.refused}`);
    expect(calls).toEqual(['batchGet']);
    const [active, policy, defaultLink] = callerKeys('T0TEAM', 'U0BATCH', 'C0OPS');
    if (!active || !policy || !defaultLink) throw new Error('callerKeys named fewer items');
    // The caller's items come from that batch: asking for them reads nothing more.
    expect(await verified.callerRead?.itemAt(policy)).toMatchObject({ marker: 'ops' });
    expect(await verified.callerRead?.itemAt(defaultLink)).toBeUndefined();
    expect(verified.callerRead?.itemAt({ pk: keys.team('T0TEAM'), sk: keys.channelPolicy('C0DEV') })).toBe(
      undefined,
    );
    expect(calls).toEqual(['batchGet']);
  });

  it('gives no caller’s items read for a channel the grant no longer has', async () => {
    const grant = await newGrant('U0MOVED');
    const { accessToken } = await grants.issueTokens(grant, RESOURCE);
    // The grant now names another home channel than the one the token was issued with.
    await table.ctx.table.update({
      TableName: table.ctx.tableName,
      Key: { pk: keys.user('T0TEAM', 'U0MOVED'), sk: keys.agentGrant(grant.id) },
      UpdateExpression: 'SET home_channel = :channel',
      ExpressionAttributeValues: { ':channel': 'C0DEV' },
    });

    const verified = await grants.verifyAccessToken(accessToken, RESOURCE);

    expect(verified).toMatchObject({ grant: { id: grant.id, homeChannel: 'C0DEV' } });
    expect(verified).not.toHaveProperty('callerRead');
  });

  /**
   * An access token as issued before access tokens named their grant: 32 random bytes, its item
   * naming the home channel (`withChannel`) or, older still, not.
   */
  async function legacyAccessToken(grant: AgentGrant, withChannel: boolean): Promise<string> {
    const token = `cbat_${randomBytes(32).toString('base64url')}`;
    await table.ctx.table.put({
      TableName: table.ctx.tableName,
      Item: {
        pk: keys.agentToken(createHash('sha256').update(token).digest('base64url')),
        sk: 'TOKEN',
        kind: 'agent_token',
        token_kind: 'access',
        team_id: grant.team,
        user_id: grant.user,
        grant_id: grant.id,
        client_id: grant.clientId,
        resource: RESOURCE,
        scopes: [...grant.scopes],
        ...(withChannel ? { home_channel: grant.homeChannel } : {}),
        valid_until_ms: table.clock.now().getTime() + ACCESS_TOKEN_SECONDS * 1000,
      },
    });
    return token;
  }

  it.each([
    ['its item, then the grant with the caller’s items', 'U0OLDTOKEN', true, ['get', 'batchGet']],
    ['its item naming no home channel, then the grant alone', 'U0OLDERTOKEN', false, ['get', 'get']],
  ])('still counts a token that names no grant: %s', async (_, user, withChannel, expectedCalls) => {
    const grant = await newGrant(user);
    const token = await legacyAccessToken(grant, withChannel);
    const { counted, calls } = countedGrants();

    const verified = await counted.verifyAccessToken(token, RESOURCE);

    expect(verified).toMatchObject({ grant: { id: grant.id } });
    expect('callerRead' in verified).toBe(withChannel);
    expect(calls).toEqual(expectedCalls);
  });

  it('refuses a token whose names were changed, and one naming someone else’s grant with a made-up secret', async () => {
    const victim = await newGrant('U0VICTIM');
    const mine = await newGrant('U0MALLORY');
    const { accessToken } = await grants.issueTokens(mine, RESOURCE);
    const secretPart = accessToken.slice(accessToken.lastIndexOf('.') + 1);
    const renamed = `cbat_T0TEAM.U0VICTIM.${victim.id}.C0OPS.${secretPart}`;
    const forged = `cbat_T0TEAM.U0VICTIM.${victim.id}.C0OPS.${randomBytes(32).toString('base64url')}`;
    // Only the names that point elsewhere: the secret and the rest are Mallory's own.
    const moved = accessToken.replace('.C0OPS.', '.C0DEV.');

    for (const token of [renamed, forged, moved]) {
      expect(await grants.verifyAccessToken(token, RESOURCE), token).toEqual({ refused: 'unknown' });
    }
    expect(await grants.verifyAccessToken(accessToken, RESOURCE)).toMatchObject({ grant: { id: mine.id } });
  });

  it('refuses names that are no key parts without reading anything', async () => {
    const { counted, calls } = countedGrants();
    const tail = randomBytes(32).toString('base64url');
    for (const token of [
      `cbat_T0TEAM#X.U0A.grant.C0OPS.${tail}`,
      `cbat_T0TEAM.U0A.grant.C0OPS.extra.${tail}`,
      `cbat_${'T'.repeat(65)}.U0A.grant.C0OPS.${tail}`,
      `cbat_T0TEAM.U0A..C0OPS.${tail}`,
      `cbat_T0TEAM.U0A.grant.C0OPS.${tail}\n`,
    ]) {
      expect(await counted.verifyAccessToken(token, RESOURCE), token).toEqual({ refused: 'unknown' });
    }
    expect(calls).toEqual([]);
    // Names that are key parts but no one's: looked for, found nowhere, refused.
    expect(
      await grants.verifyAccessToken(`cbat___proto__.constructor.prototype.C0OPS.${tail}`, RESOURCE),
    ).toEqual({
      refused: 'unknown',
    });
  });

  it('is the store’s own repository, not one loaded on first use, in a function that loads it at start', async () => {
    const loaded = createStore(table.ctx, randomLocalCipher(), { agentGrants: AgentGrantRepository });
    const onFirstUse = createStore(table.ctx, randomLocalCipher());
    expect(loaded.agentGrants).toBeInstanceOf(AgentGrantRepository);
    expect(onFirstUse.agentGrants).not.toBeInstanceOf(AgentGrantRepository);
    const grant = await newGrant('U0LOADED');
    const { accessToken } = await grants.issueTokens(grant, RESOURCE);
    expect(await loaded.agentGrants.verifyAccessToken(accessToken, RESOURCE)).toMatchObject({
      grant: { id: grant.id },
    });
  });

  it('writes the last use apart from the check, at most every five minutes', async () => {
    const grant = await newGrant('U0LASTUSE');
    await grants.noteUse(grant);
    const used = await grants.get('T0TEAM', 'U0LASTUSE', grant.id);
    expect(used?.lastUsedAt?.toISOString()).toBe(table.clock.now().toISOString());
    if (!used) throw new Error('the grant is gone');

    const { counted, calls } = countedGrants();
    table.clock.advance(60_000);
    await counted.noteUse(used);
    expect(calls).toEqual([]);
    table.clock.advance(5 * 60_000);
    await counted.noteUse(used);
    expect(calls).toEqual(['update']);
  });

  it('writes no last use for a grant revoked meanwhile, and does not fail for it', async () => {
    const grant = await newGrant('U0GONE');
    await grants.revoke('T0TEAM', 'U0GONE', grant.id);
    await expect(grants.noteUse(grant)).resolves.toBeUndefined();
    expect(await grants.get('T0TEAM', 'U0GONE', grant.id)).toBeUndefined();
  });
});

describe('refresh tokens', () => {
  it('give a new pair once, for the same grant', async () => {
    const grant = await newGrant('U0ROTATE');
    const first = await grants.issueTokens(grant, RESOURCE);
    const second = await grants.refresh(first.refreshToken, grant.clientId, RESOURCE);
    if ('refused' in second) throw new Error(`refused: ${second.refused}`);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(await grants.verifyAccessToken(second.accessToken, RESOURCE)).toMatchObject({
      grant: { id: grant.id },
    });
  });

  it('used twice, revoke the grant: a replayed refresh token ends the agent’s access', async () => {
    const grant = await newGrant('U0REPLAY');
    const first = await grants.issueTokens(grant, RESOURCE);
    const second = await grants.refresh(first.refreshToken, grant.clientId, RESOURCE);
    expect(await grants.refresh(first.refreshToken, grant.clientId, RESOURCE)).toEqual({ refused: 'reused' });
    if ('refused' in second) throw new Error('the first refresh was refused');
    expect(await grants.verifyAccessToken(second.accessToken, RESOURCE)).toEqual({ refused: 'revoked' });
  });

  it('are refused for another client, and then still work for their own', async () => {
    const grant = await newGrant('U0CLIENT');
    const { refreshToken } = await grants.issueTokens(grant, RESOURCE);
    expect(await grants.refresh(refreshToken, 'https://evil.example.com/c.json', RESOURCE)).toEqual({
      refused: 'wrong_client',
    });
    expect(await grants.refresh(refreshToken, grant.clientId, RESOURCE)).toHaveProperty('accessToken');
  });

  it('expire after 30 days', async () => {
    const grant = await newGrant('U0OLD');
    const { refreshToken } = await grants.issueTokens(grant, RESOURCE);
    table.clock.advance(REFRESH_TOKEN_SECONDS * 1000);
    try {
      expect(await grants.refresh(refreshToken, grant.clientId, RESOURCE)).toEqual({ refused: 'expired' });
    } finally {
      table.clock.advance(-REFRESH_TOKEN_SECONDS * 1000);
    }
  });

  it('are not refresh tokens when they are access tokens', async () => {
    const grant = await newGrant('U0SWAP');
    const { accessToken } = await grants.issueTokens(grant, RESOURCE);
    expect(await grants.refresh(accessToken, grant.clientId, RESOURCE)).toEqual({ refused: 'unknown' });
  });
});
