import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretDecryptionError } from '../../../lib/store/errors.js';
import {
  InstallationNotFoundError,
  InstallationRepository,
  OAUTH_STATE_SECONDS,
  OAuthStateError,
  OAuthStateStore,
  type SlackInstallation,
} from '../../../lib/store/installations.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

let table: TestTable;
let installations: InstallationRepository;
let states: OAuthStateStore;
beforeAll(async () => {
  table = await createTestTable();
  installations = new InstallationRepository(table.ctx, randomLocalCipher());
  states = new OAuthStateStore(table.ctx);
});
afterAll(() => table.dispose());

function teamInstall(team: string, token: string, extra: Partial<SlackInstallation> = {}): SlackInstallation {
  return {
    team: { id: team, name: `Workspace ${team}` },
    enterprise: undefined,
    user: { id: 'U0INSTALLER', token: undefined, scopes: undefined },
    bot: { token, scopes: ['commands', 'chat:write'], id: `B${team}`, userId: `U${team}BOT` },
    appId: 'A0CLOUD',
    tokenType: 'bot',
    isEnterpriseInstall: false,
    authVersion: 'v2',
    ...extra,
  };
}

const teamQuery = (teamId: string) => ({ teamId, enterpriseId: undefined, isEnterpriseInstall: false });

describe('installations', () => {
  it('gives back the bot token of the team it was installed in', async () => {
    await installations.storeInstallation(teamInstall('T0STOREA', 'xoxb-team-a-secret'));
    const found = await installations.fetchInstallation(teamQuery('T0STOREA'));
    expect(found.bot).toMatchObject({ token: 'xoxb-team-a-secret', id: 'BT0STOREA', userId: 'UT0STOREABOT' });
    expect(found.team?.id).toBe('T0STOREA');
  });

  it('keeps the bot and refresh tokens out of the table: a scan shows neither', async () => {
    await installations.storeInstallation(
      teamInstall('T0SCAN', 'xoxe.xoxb-rotating-secret', {
        bot: {
          token: 'xoxe.xoxb-rotating-secret',
          refreshToken: 'xoxe-1-refresh-secret',
          expiresAt: 2_000_000_000,
          scopes: ['commands'],
          id: 'B0SCAN',
          userId: 'U0SCANBOT',
        },
      }),
    );
    const scan = await table.ctx.table.scan({ TableName: table.ctx.tableName });
    const dump = JSON.stringify(scan.Items);
    expect(dump).toContain('T0SCAN');
    expect(dump).not.toContain('rotating-secret');
    expect(dump).not.toContain('refresh-secret');
    const found = await installations.fetchInstallation(teamQuery('T0SCAN'));
    expect(found.bot).toMatchObject({ refreshToken: 'xoxe-1-refresh-secret', expiresAt: 2_000_000_000 });
  });

  it("refuses another team's sealed token copied into a team's item", async () => {
    await installations.storeInstallation(teamInstall('T0VICTIM', 'xoxb-victim-secret'));
    await installations.storeInstallation(teamInstall('T0THIEF', 'xoxb-thief-secret'));
    const key = (team: string) => ({ pk: `TEAM#${team}`, sk: 'INSTALLATION' });
    const victim = await table.ctx.table.get({ TableName: table.ctx.tableName, Key: key('T0VICTIM') });
    const thief = await table.ctx.table.get({ TableName: table.ctx.tableName, Key: key('T0THIEF') });
    await table.ctx.table.put({
      TableName: table.ctx.tableName,
      Item: { ...thief.Item, bot_token_ciphertext: victim.Item?.bot_token_ciphertext },
    });
    await expect(installations.fetchInstallation(teamQuery('T0THIEF'))).rejects.toBeInstanceOf(
      SecretDecryptionError,
    );
  });

  it('finds nothing for a team where the app is not installed', async () => {
    await expect(installations.fetchInstallation(teamQuery('T0NEVER'))).rejects.toBeInstanceOf(
      InstallationNotFoundError,
    );
  });

  it('finds an org-wide install for any team of the org, named by the request or remembered', async () => {
    await installations.storeInstallation({
      team: undefined,
      enterprise: { id: 'E0ORG', name: 'Org' },
      user: { id: 'U0ORGADMIN', token: undefined, scopes: undefined },
      bot: { token: 'xoxb-org-secret', scopes: ['commands'], id: 'B0ORG', userId: 'U0ORGBOT' },
      isEnterpriseInstall: true,
      authVersion: 'v2',
    });
    const viaRequest = await installations.fetchInstallation({
      teamId: 'T0ORGMEMBER',
      enterpriseId: 'E0ORG',
      isEnterpriseInstall: true,
    } as never);
    expect(viaRequest.bot?.token).toBe('xoxb-org-secret');
    // The worker knows only the job's team: the org is found through the note the Slack function left.
    await expect(installations.find(teamQuery('T0ORGOTHER'))).resolves.toBeUndefined();
    await installations.rememberServedBy('T0ORGOTHER', 'E0ORG');
    expect((await installations.fetchInstallation(teamQuery('T0ORGOTHER'))).bot?.token).toBe(
      'xoxb-org-secret',
    );
  });

  it('deletes an installation, and a second delete finds nothing', async () => {
    await installations.storeInstallation(teamInstall('T0GONE', 'xoxb-gone-secret'));
    await expect(installations.remove(teamQuery('T0GONE'))).resolves.toBe(true);
    await expect(installations.remove(teamQuery('T0GONE'))).resolves.toBe(false);
    await expect(installations.find(teamQuery('T0GONE'))).resolves.toBeUndefined();
  });
});

describe('OAuth state', () => {
  const options = {
    scopes: ['commands', 'chat:write'],
    redirectUri: 'https://bot.example/slack/oauth_redirect',
  };

  it('gives back the install options of a state issued here', async () => {
    const state = await states.generateStateParam(options);
    await expect(states.verifyStateParam(table.clock.now(), state)).resolves.toEqual(options);
  });

  it('issues the state when the put landed but its answer was lost and the client sent it again', async () => {
    // The first attempt is written; the retry then finds it there (a condition failure).
    const real = table.ctx.table;
    const retried = new OAuthStateStore({
      ...table.ctx,
      table: {
        ...real,
        put: async (input) => {
          await real.put(input);
          return real.put(input);
        },
      },
    });
    const state = await retried.generateStateParam(options);
    await expect(states.verifyStateParam(table.clock.now(), state)).resolves.toEqual(options);
  });

  it('refuses a state used twice (a replayed redirect)', async () => {
    const state = await states.generateStateParam(options);
    await states.verifyStateParam(table.clock.now(), state);
    const replay = states.verifyStateParam(table.clock.now(), state);
    await expect(replay).rejects.toBeInstanceOf(OAuthStateError);
    await expect(replay).rejects.toMatchObject({ reason: 'unknown_or_used' });
  });

  it('refuses a state after ten minutes', async () => {
    const state = await states.generateStateParam(options);
    table.clock.advance(OAUTH_STATE_SECONDS * 1000);
    await expect(states.verifyStateParam(table.clock.now(), state)).rejects.toMatchObject({
      reason: 'expired',
    });
  });

  it('refuses a state it never issued, including one shaped to reach into other keys', async () => {
    await expect(states.verifyStateParam(table.clock.now(), 'made-up-state')).rejects.toMatchObject({
      reason: 'unknown_or_used',
    });
    await expect(states.verifyStateParam(table.clock.now(), 'x#TEAM#T0STOREA')).rejects.toBeInstanceOf(
      OAuthStateError,
    );
  });
});
