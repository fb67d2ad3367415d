import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../../infra/local/emulator/server.js';
import type { DispatchedRequest, RequestDispatcher } from '../../../lib/api/client.js';
import { castVote } from '../../../lib/changes/votes.js';
import type { Caller } from '../../../lib/core/caller.js';
import {
  isTeamRemovalError,
  type RemovalReason,
  rememberServingOrg,
  removeTeam,
  type TeamRemoval,
  type TeamRemovalRequest,
} from '../../../lib/core/installations.js';
import { linksOf, linkToken, unlinkProfile, useProfile } from '../../../lib/core/membership.js';
import { createStore, type Store } from '../../../lib/store/index.js';
import type { SlackInstallation } from '../../../lib/store/installations.js';
import { testCaller } from '../../support/caller.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * A person's linked tokens and a workspace's installation, decided by the core with no surface in
 * between: DynamoDB Local holds the state; the API emulator answers only where a token is checked.
 */

const cipher = randomLocalCipher();
const logger = new Logger({ serviceName: 'membership-test', logLevel: 'SILENT' });
let table: TestTable;
let store: Store;
let emulator: RunningEmulator;
beforeAll(async () => {
  [table, emulator] = await Promise.all([createTestTable(), startEmulator()]);
  store = createStore(table.ctx, cipher);
});
afterAll(async () => {
  await emulator?.close();
  await table?.dispose();
});

/** No rule of membership asks whether the caller is a workspace admin: asking fails the test. */
function callerOf(team: string, user: string): Caller {
  return testCaller({ team, channel: 'C0MEMBERS' }, user);
}

const EXPIRY = new Date('2031-01-01T00:00:00.000Z');

async function link(team: string, user: string, profile = 'default', activate = false): Promise<void> {
  await store.tokenLinks.saveLink(
    {
      team,
      user,
      profile,
      token: `secret-token-${team}-${user}-${profile}`,
      label: 'ci',
      apiUsername: user.toLowerCase(),
      scopes: '*',
      expiry: EXPIRY,
    },
    { activate },
  );
}

/** Answers no request until the client's deadline aborts it. */
const silentApi: RequestDispatcher = {
  request: ({ signal }: DispatchedRequest) =>
    new Promise((_, reject) => {
      signal?.addEventListener('abort', () => reject(signal.reason));
    }),
};

describe('linkToken', () => {
  it('links a token the API accepts as the active profile, with its username, scopes, label and expiry', async () => {
    const { token } = emulator.control.createToken('demo', {
      scopes: '*',
      label: 'chatops',
      expiry: '2031-06-30T12:00:00',
    });
    const caller = callerOf('T0LINK', 'U0LINKED');

    const outcome = await linkToken({ store, api: { baseUrl: emulator.url, timeoutMs: 5_000 } }, caller, {
      profile: 'staging',
      token,
    });

    expect(outcome).toEqual({
      kind: 'linked',
      profile: 'staging',
      apiUsername: 'demo',
      scopes: '*',
      label: 'chatops',
      expiry: new Date('2031-06-30T12:00:00.000Z'),
    });
    expect(await linksOf({ store }, caller)).toEqual([
      expect.objectContaining({ profile: 'staging', active: true, apiUsername: 'demo' }),
    ]);
    expect(await store.tokenLinks.getToken('T0LINK', 'U0LINKED')).toMatchObject({ status: 'found', token });
  });

  it('refuses a token the API rejects, and links nothing', async () => {
    const { token } = emulator.control.createToken('demo', { label: 'revoked' });
    emulator.control.revokeToken(token);
    const caller = callerOf('T0LINK', 'U0REJECTED');

    const outcome = await linkToken({ store, api: { baseUrl: emulator.url, timeoutMs: 5_000 } }, caller, {
      profile: 'default',
      token,
    });

    expect(outcome).toEqual({ kind: 'refused', reason: 'token_rejected' });
    expect(await linksOf({ store }, caller)).toEqual([]);
  });

  it('refuses as unreachable when the API does not answer in time', async () => {
    const outcome = await linkToken(
      { store, api: { baseUrl: emulator.url, timeoutMs: 100, dispatcher: silentApi } },
      callerOf('T0LINK', 'U0WAITING'),
      { profile: 'default', token: 'a-token-nobody-answers-for' },
    );

    expect(outcome).toEqual({ kind: 'refused', reason: 'api_unreachable' });
  });

  it.each([
    [
      'a profile name that is not one',
      { profile: '-staging', token: 'a-well-formed-token-0123' },
      'profile_name_invalid',
    ],
    [
      'a profile name that reaches a prototype',
      { profile: '__proto__', token: 'a-well-formed-token-0123' },
      'profile_name_invalid',
    ],
    ['a token too short to be one', { profile: 'default', token: 'short' }, 'token_malformed'],
    ['a token with a space in it', { profile: 'default', token: 'two halves of-a-token' }, 'token_malformed'],
  ] as const)('refuses %s without asking the API', async (_, request, reason) => {
    const asked: string[] = [];
    const recording: RequestDispatcher = {
      request: async (sent) => {
        asked.push(sent.path);
        throw new Error('the API is not to be asked');
      },
    };

    const outcome = await linkToken(
      { store, api: { baseUrl: emulator.url, timeoutMs: 1_000, dispatcher: recording } },
      callerOf('T0LINK', 'U0MALFORMED'),
      request,
    );

    expect(outcome).toEqual({ kind: 'refused', reason });
    expect(asked).toEqual([]);
  });
});

describe('unlinkProfile', () => {
  it('reports the profile it unlinked, and its token is gone', async () => {
    await link('T0LOGOUT', 'U0NAMED', 'staging');
    const caller = callerOf('T0LOGOUT', 'U0NAMED');

    expect(await unlinkProfile({ store, logger }, caller, { profile: 'staging' })).toEqual({
      kind: 'unlinked',
      profile: 'staging',
      agentsRevoked: 0,
    });
    expect(await store.tokenLinks.getToken('T0LOGOUT', 'U0NAMED', 'staging')).toMatchObject({
      status: 'missing',
    });
  });

  it('unlinks the active profile when none is named', async () => {
    await link('T0LOGOUT', 'U0ACTIVE', 'default');
    await link('T0LOGOUT', 'U0ACTIVE', 'prod', true);
    const caller = callerOf('T0LOGOUT', 'U0ACTIVE');

    expect(await unlinkProfile({ store, logger }, caller, {})).toEqual({
      kind: 'unlinked',
      profile: 'prod',
      agentsRevoked: 0,
    });
    expect((await linksOf({ store }, caller)).map((linked) => linked.profile)).toEqual(['default']);
  });

  it('says there was no such profile when the caller has none of that name', async () => {
    await link('T0LOGOUT', 'U0OTHER', 'default');

    expect(
      await unlinkProfile({ store, logger }, callerOf('T0LOGOUT', 'U0OTHER'), { profile: 'staging' }),
    ).toEqual({
      kind: 'no_such_profile',
      profile: 'staging',
    });
  });

  it('still reports what it removed when the delete was sent again after its answer was lost', async () => {
    await link('T0LOGOUT', 'U0LOST', 'ops', true);
    // The table client's resend after a lost answer: the same delete, once more, after the first landed.
    const resending = new Proxy(table.ctx.table, {
      get(target, property, receiver) {
        if (property !== 'delete') return Reflect.get(target, property, receiver);
        return async (params: Parameters<typeof target.delete>[0]) => {
          await target.delete(params).catch(() => undefined);
          return target.delete(params);
        };
      },
    });
    const lossy = createStore({ ...table.ctx, table: resending }, cipher);

    expect(await unlinkProfile({ store: lossy, logger }, callerOf('T0LOGOUT', 'U0LOST'), {})).toEqual({
      kind: 'unlinked',
      profile: 'ops',
      agentsRevoked: 0,
    });
    expect(await store.tokenLinks.listLinks('T0LOGOUT', 'U0LOST')).toEqual({
      links: [],
      activeProfile: undefined,
    });
  });
});

describe('useProfile', () => {
  it('switches the caller to a profile they linked', async () => {
    await link('T0USE', 'U0SWITCH', 'default');
    await link('T0USE', 'U0SWITCH', 'staging');
    const caller = callerOf('T0USE', 'U0SWITCH');

    expect(await useProfile({ store }, caller, { profile: 'staging' })).toEqual({
      kind: 'switched',
      profile: 'staging',
    });
    expect((await linksOf({ store }, caller)).filter((linked) => linked.active)).toEqual([
      expect.objectContaining({ profile: 'staging' }),
    ]);
  });

  it('refuses a profile the caller has not linked, and keeps the active one', async () => {
    await link('T0USE', 'U0UNKNOWN', 'default');
    const caller = callerOf('T0USE', 'U0UNKNOWN');

    expect(await useProfile({ store }, caller, { profile: 'prod' })).toEqual({
      kind: 'no_such_profile',
      profile: 'prod',
    });
    expect(await store.tokenLinks.getActiveProfile('T0USE', 'U0UNKNOWN')).toBe('default');
  });

  it("refuses another person's profile of that name", async () => {
    await link('T0USE', 'U0OWNER', 'shared');
    await link('T0USE', 'U0NEIGHBOUR', 'default');

    expect(await useProfile({ store }, callerOf('T0USE', 'U0NEIGHBOUR'), { profile: 'shared' })).toEqual({
      kind: 'no_such_profile',
      profile: 'shared',
    });
  });
});

describe('linksOf', () => {
  it("lists the caller's links with the active one marked, and never a token", async () => {
    await link('T0WHO', 'U0MANY', 'default');
    await link('T0WHO', 'U0MANY', 'prod', true);
    await store.tokenLinks.markInvalid('T0WHO', 'U0MANY', 'default');

    const links = await linksOf({ store }, callerOf('T0WHO', 'U0MANY'));

    expect(links).toEqual([
      {
        profile: 'default',
        active: false,
        apiUsername: 'u0many',
        scopes: '*',
        expiry: EXPIRY,
        status: 'invalid',
      },
      { profile: 'prod', active: true, apiUsername: 'u0many', scopes: '*', expiry: EXPIRY, status: 'active' },
    ]);
    expect(JSON.stringify(links)).not.toContain('secret-token');
  });

  it('is empty for a person with no link', async () => {
    expect(await linksOf({ store }, callerOf('T0WHO', 'U0NOBODY'))).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// the workspace's installation

function installationOf(team: string): SlackInstallation {
  return {
    team: { id: team, name: `Workspace ${team}` },
    enterprise: undefined,
    user: { id: 'U0INSTALLER', token: undefined, scopes: undefined },
    bot: { token: `xoxb-${team}-secret`, scopes: ['commands'], id: `B${team}`, userId: `U${team}BOT` },
    appId: 'A0CLOUD',
    tokenType: 'bot',
    isEnterpriseInstall: false,
    authVersion: 'v2',
  };
}

const teamQuery = (teamId: string) => ({ teamId, enterpriseId: undefined, isEnterpriseInstall: false });

function approvalIn(team: string, operationId: string) {
  return {
    team,
    requester: 'U0REQUESTER',
    operationId,
    input: { volumeId: 12 },
    summary: `${operationId} volume 12`,
    channel: 'C0OPS',
    requiredApprovals: 1,
    expiryMinutes: 15,
  };
}

/** A workspace with all a removal deals with: installed, a report, requests in each state, links, step-up. */
async function seedWorkspace(team: string) {
  await store.installations.storeInstallation(installationOf(team));
  const report = await store.reports.create({
    team,
    kind: 'issues',
    channel: 'C0OPS',
    owner: 'U0OWNER',
    profile: 'default',
    schedule: { type: 'every', minutes: 60 },
    nextRunAt: table.clock.now(),
  });
  const pending = await store.approvals.create(approvalIn(team, 'volumes.delete'));
  const approved = await store.approvals.create(approvalIn(team, 'volumes.resize'));
  await castVote(store, { team, approvalId: approved.id, user: 'U0APPROVER', decision: 'approve' });
  const executing = await store.approvals.create(approvalIn(team, 'volumes.detach'));
  await castVote(store, { team, approvalId: executing.id, user: 'U0APPROVER', decision: 'approve' });
  await store.approvals.claimExecution(team, executing.id);
  await link(team, 'U0OWNER');
  await link(team, 'U0REQUESTER', 'staging');
  await store.stepUp.startEnrollment(team, 'U0OWNER', 'JBSWY3DPEHPK3PXP');
  const agent = await store.agentGrants.create({
    team,
    user: 'U0OWNER',
    clientId: 'https://claude.ai/oauth/claude-code-client-metadata',
    clientName: 'Claude Code',
    homeChannel: 'C0OPS',
    scopes: ['cloud:read', 'cloud:change'],
  });
  const agentTokens = await store.agentGrants.issueTokens(agent, AGENT_RESOURCE);
  return { report, pending, approved, executing, agent, agentTokens };
}

const AGENT_RESOURCE = 'https://bot.example.com/mcp';

function removal(team: string, reason: RemovalReason = 'app_uninstalled'): TeamRemovalRequest {
  return { team, enterprise: undefined, reason };
}

async function auditOf(team: string) {
  return (await store.audit.list(team, { limit: 50 })).entries;
}

describe('removeTeam of a workspace with all it deals with', () => {
  const TEAM = 'T0REMOVED';
  let seeded: Awaited<ReturnType<typeof seedWorkspace>>;
  let outcome: TeamRemoval;
  let told = 0;
  beforeAll(async () => {
    seeded = await seedWorkspace(TEAM);
    await link('T0NEIGHBOUR', 'U0OWNER');
    outcome = await removeTeam(
      { store, logger },
      {
        ...removal(TEAM),
        onInstallationRemoved: () => {
          told += 1;
        },
      },
    );
  });

  it('removes the installation, and tells the surface so', async () => {
    expect(outcome.installationRemoved).toBe(true);
    expect(await store.installations.find(teamQuery(TEAM))).toBeUndefined();
    expect(told).toBe(1);
  });

  it('pauses report subscriptions with the reason, and keeps them for a reinstall', async () => {
    expect(outcome.reportsPaused).toBe(1);
    expect(await store.reports.get(TEAM, seeded.report.id)).toMatchObject({
      paused: true,
      pauseReason: 'The app was removed from this workspace.',
    });
  });

  it('closes a pending request as expired and an approved unstarted one as not run', async () => {
    expect(outcome.approvalsClosed).toBe(2);
    expect(await store.approvals.get(TEAM, seeded.pending.id)).toMatchObject({ status: 'expired' });
    expect(await store.approvals.get(TEAM, seeded.approved.id)).toMatchObject({ status: 'not_run' });
  });

  it('writes what became of each closed request to the audit, as its requester', async () => {
    const closings = (await auditOf(TEAM)).filter((entry) => entry.approvalId !== null);
    expect(
      closings.map(({ approvalId, actor, result }) => ({ approvalId, actor, result })).sort(byId),
    ).toEqual(
      [
        { approvalId: seeded.pending.id, actor: 'U0REQUESTER', result: 'expired' },
        { approvalId: seeded.approved.id, actor: 'U0REQUESTER', result: 'not_run' },
      ].sort(byId),
    );
  });

  it('leaves a request already executing to its worker', async () => {
    expect(await store.approvals.get(TEAM, seeded.executing.id)).toMatchObject({ status: 'executing' });
  });

  it("deletes every linked token and step-up enrollment of the team's people", async () => {
    expect(outcome).toMatchObject({ linksDeleted: 2, stepUpEnrollmentsDeleted: 1 });
    expect(await store.tokenLinks.getToken(TEAM, 'U0OWNER')).toMatchObject({ status: 'missing' });
    expect(await store.tokenLinks.getToken(TEAM, 'U0REQUESTER', 'staging')).toMatchObject({
      status: 'missing',
    });
    expect(await store.stepUp.enrollment(TEAM, 'U0OWNER')).toBeUndefined();
  });

  it("revokes every agent of the team's people, whose grants are in their partitions: their tokens stop working", async () => {
    expect(await store.agentGrants.listFor(TEAM, 'U0OWNER')).toEqual([]);
    expect(await store.agentGrants.verifyAccessToken(seeded.agentTokens.accessToken, AGENT_RESOURCE)).toEqual(
      {
        refused: 'revoked',
      },
    );
    expect(
      await store.agentGrants.refresh(seeded.agentTokens.refreshToken, seeded.agent.clientId, AGENT_RESOURCE),
    ).toEqual({ refused: 'revoked' });
  });

  it("leaves another team's links alone", async () => {
    expect(await store.tokenLinks.getToken('T0NEIGHBOUR', 'U0OWNER')).toMatchObject({ status: 'found' });
  });

  it('writes one audit line that says what went', async () => {
    const lines = (await auditOf(TEAM)).filter((entry) => entry.action === 'app.uninstalled');
    expect(lines).toEqual([
      expect.objectContaining({
        actor: 'slack',
        result: 'succeeded',
        detail:
          'Installation removed; 1 report subscription(s) paused; 2 unstarted approval(s) closed; ' +
          '2 linked API token(s) deleted; 1 step-up enrollment(s) deleted.',
      }),
    ]);
  });
});

describe('removeTeam run again', () => {
  /** Enough for a removal to find something: the installation and one link. */
  async function seedSmallWorkspace(team: string) {
    await store.installations.storeInstallation(installationOf(team));
    await link(team, 'U0OWNER');
  }

  it('finds nothing the second time, and writes no second audit line', async () => {
    await seedSmallWorkspace('T0TWICE');
    await removeTeam({ store, logger }, removal('T0TWICE'));

    const again = await removeTeam({ store, logger }, removal('T0TWICE'));

    expect(again).toEqual({
      installationRemoved: false,
      reportsPaused: 0,
      approvalsClosed: 0,
      linksDeleted: 0,
      stepUpEnrollmentsDeleted: 0,
    });
    expect((await auditOf('T0TWICE')).filter((entry) => entry.action === 'app.uninstalled')).toHaveLength(1);
  });

  it('writes the audit line on a redelivery that finds nothing left, since the first attempt may not have', async () => {
    await seedSmallWorkspace('T0REDELIVERED');
    await removeTeam({ store, logger }, removal('T0REDELIVERED', 'tokens_revoked'));

    await removeTeam({ store, logger }, { ...removal('T0REDELIVERED', 'tokens_revoked'), redelivered: true });

    const lines = (await auditOf('T0REDELIVERED')).filter((entry) => entry.action === 'app.tokens_revoked');
    expect(lines).toHaveLength(2);
    expect(lines.map((entry) => entry.detail)).toContain(
      'Installation already gone; 0 report subscription(s) paused; 0 unstarted approval(s) closed; ' +
        '0 linked API token(s) deleted; 0 step-up enrollment(s) deleted.',
    );
  });

  it('throws TeamRemovalError, with the cause, when a step fails, and a retry finishes the work', async () => {
    await seedSmallWorkspace('T0PARTWAY');
    const failure = new Error('DynamoDB is not answering');
    const failing: Store = {
      ...store,
      teamUserData: {
        deleteUserItems: async () => {
          throw failure;
        },
      },
    };

    const error = await removeTeam({ store: failing, logger }, removal('T0PARTWAY')).catch((e: unknown) => e);

    expect(isTeamRemovalError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'team_removal_incomplete', cause: failure });
    const retried = await removeTeam({ store, logger }, { ...removal('T0PARTWAY'), redelivered: true });
    expect(retried).toMatchObject({ installationRemoved: false, linksDeleted: 1 });
    expect((await auditOf('T0PARTWAY')).filter((entry) => entry.action === 'app.uninstalled')).toHaveLength(
      1,
    );
  });
});

describe('rememberServingOrg', () => {
  it("lets a team of an org be served by the org's installation from then on", async () => {
    await store.installations.storeInstallation({
      team: undefined,
      enterprise: { id: 'E0SERVES', name: 'Org' },
      user: { id: 'U0ORGADMIN', token: undefined, scopes: undefined },
      bot: { token: 'xoxb-org-secret', scopes: ['commands'], id: 'B0ORG', userId: 'U0ORGBOT' },
      isEnterpriseInstall: true,
      authVersion: 'v2',
    });
    expect(await store.installations.find(teamQuery('T0ORGTEAM'))).toBeUndefined();

    await rememberServingOrg({ store }, { team: 'T0ORGTEAM', enterprise: 'E0SERVES' });

    expect((await store.installations.find(teamQuery('T0ORGTEAM')))?.bot?.token).toBe('xoxb-org-secret');
  });
});

function byId(a: { approvalId: string | null }, b: { approvalId: string | null }): number {
  return String(a.approvalId).localeCompare(String(b.approvalId));
}
