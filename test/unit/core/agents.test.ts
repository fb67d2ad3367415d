import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentDeps,
  type AgentHomeChannels,
  type HomeChannelAccess,
  listAgents,
  revokeAgent,
  setSlackbotHome,
} from '../../../lib/core/agents.js';
import type { Caller } from '../../../lib/core/caller.js';
import { unlinkProfile } from '../../../lib/core/membership.js';
import { type AgentGrant, SLACKBOT_GRANT_ID } from '../../../lib/store/agent-grants.js';
import { createStore, type Store } from '../../../lib/store/index.js';
import { testCaller } from '../../support/caller.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * The rules of a person's agents, called as any surface calls them: whose agents a person sees and
 * revokes, what a revoke takes (the grant and every token under it), where Slackbot's home may be,
 * and that logging out of the last profile takes the agents. DynamoDB Local holds the grants; the
 * surface's answer about a channel is a stand-in the test sets.
 */

const OPS = 'C0OPS';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';
const RESOURCE = 'https://bot.example.com/mcp';

let table: TestTable;
let store: Store;
let deps: AgentDeps;
beforeAll(async () => {
  table = await createTestTable();
  store = createStore(table.ctx, randomLocalCipher());
  deps = { store, logger: new Logger({ serviceName: 'agents-test', logLevel: 'SILENT' }) };
});
afterAll(() => table.dispose());

let teams = 0;
/** A team of its own for each test, so no test sees another's agents. */
function newTeam(): string {
  teams += 1;
  return `T0AGENTS${teams}`;
}

/** No rule of agents asks whether the caller is a workspace admin: asking fails the test. */
function callerIn(team: string, user: string, channel = OPS): Caller {
  return testCaller({ team, channel }, user);
}

function agentCaller(team: string, user: string, grantId: string): Caller {
  return {
    ...callerIn(team, user),
    surface: 'agent',
    agent: { grantId, clientId: 'https://claude.ai/oauth/claude-code-client-metadata', name: 'Claude Code' },
  };
}

async function linkProfile(team: string, user: string, profile = 'default'): Promise<void> {
  await store.tokenLinks.saveLink({
    team,
    user,
    profile,
    token: `secret-token-${team}-${user}-${profile}`,
    label: 'ci',
    apiUsername: user.toLowerCase(),
    scopes: '*',
    expiry: null,
  });
}

async function addAgent(team: string, user: string, name: string): Promise<AgentGrant> {
  const grant = await store.agentGrants.create({
    team,
    user,
    clientId: `https://${name.toLowerCase().replace(/\s/g, '-')}.example/client`,
    clientName: name,
    homeChannel: OPS,
    scopes: ['cloud:read'],
  });
  // Grants made in the same millisecond would list in no fixed order.
  table.clock.advance(1000);
  return grant;
}

async function auditOf(team: string) {
  return (await store.audit.list(team, { limit: 50 })).entries;
}

/** The surface's answer about any channel, and which channels it was asked about. */
function channelsAnswering(access: HomeChannelAccess): AgentHomeChannels & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    canBeHome: async (channel) => {
      asked.push(channel);
      return access;
    },
  };
}

const OPEN: HomeChannelAccess = { kind: 'open' };

describe('listing agents', () => {
  it("lists the caller's agents oldest first, and none of another person's", async () => {
    const team = newTeam();
    const first = await addAgent(team, ALICE, 'Claude Code');
    const second = await addAgent(team, ALICE, 'Cursor');
    await addAgent(team, BOB, 'Bob agent');

    const listed = await listAgents(deps, callerIn(team, ALICE));

    expect(listed.map((grant) => grant.id)).toEqual([first.id, second.id]);
  });
});

describe('revoking an agent', () => {
  it('revokes the agent at a position of the list (1 is the oldest) and leaves the others', async () => {
    const team = newTeam();
    await addAgent(team, ALICE, 'Claude Code');
    const second = await addAgent(team, ALICE, 'Cursor');

    const outcome = await revokeAgent(deps, callerIn(team, ALICE), { which: '2' });

    expect(outcome).toEqual({ kind: 'revoked', grant: second });
    expect((await listAgents(deps, callerIn(team, ALICE))).map((grant) => grant.clientName)).toEqual([
      'Claude Code',
    ]);
  });

  it('revokes the agent a grant id names', async () => {
    const team = newTeam();
    const grant = await addAgent(team, ALICE, 'Claude Code');

    const outcome = await revokeAgent(deps, callerIn(team, ALICE), { which: grant.id });

    expect(outcome).toMatchObject({ kind: 'revoked', grant: { id: grant.id } });
    expect(await store.agentGrants.get(team, ALICE, grant.id)).toBeUndefined();
  });

  it('stops every token issued under the grant at once: access and refresh', async () => {
    const team = newTeam();
    const grant = await addAgent(team, ALICE, 'Claude Code');
    const tokens = await store.agentGrants.issueTokens(grant, RESOURCE);
    expect(await store.agentGrants.verifyAccessToken(tokens.accessToken, RESOURCE)).toMatchObject({
      grant: { id: grant.id },
    });

    await revokeAgent(deps, callerIn(team, ALICE), { which: '1' });

    expect(await store.agentGrants.verifyAccessToken(tokens.accessToken, RESOURCE)).toEqual({
      refused: 'revoked',
    });
    expect(await store.agentGrants.refresh(tokens.refreshToken, grant.clientId, RESOURCE)).toEqual({
      refused: 'revoked',
    });
  });

  it('writes who revoked which agent to the audit', async () => {
    const team = newTeam();
    await addAgent(team, ALICE, 'Claude Code');

    await revokeAgent(deps, callerIn(team, ALICE), { which: '1' });

    expect(await auditOf(team)).toEqual([
      expect.objectContaining({
        actor: ALICE,
        action: 'agents.revoke',
        target: 'agent Claude Code',
        result: 'succeeded',
      }),
    ]);
  });

  it("cannot reach another person's agent by its id: not found, and it keeps working", async () => {
    const team = newTeam();
    const bobs = await addAgent(team, BOB, 'Bob agent');
    await addAgent(team, ALICE, 'Claude Code');

    const outcome = await revokeAgent(deps, callerIn(team, ALICE), { which: bobs.id });

    expect(outcome).toEqual({ kind: 'not_found', count: 1 });
    expect(await store.agentGrants.get(team, BOB, bobs.id)).toEqual(bobs);
  });

  it('says how many agents there are when the position is past the end, and revokes nothing', async () => {
    const team = newTeam();
    await addAgent(team, ALICE, 'Claude Code');

    expect(await revokeAgent(deps, callerIn(team, ALICE), { which: '2' })).toEqual({
      kind: 'not_found',
      count: 1,
    });
    expect(await listAgents(deps, callerIn(team, ALICE))).toHaveLength(1);
    expect(await auditOf(team)).toEqual([]);
  });

  it.each([
    ['a key part separator', 'AGENT#x'],
    ['a path', '../slackbot'],
    ['a zero position', '0'],
    ['a position past any list', '99999'],
    ['text too long for an id', 'a'.repeat(65)],
    ['odd unicode', 'slackbot\u202e'],
    ['nothing', '  '],
  ])('refuses %s as no reference to an agent, and changes nothing', async (_what, which) => {
    const team = newTeam();
    await addAgent(team, ALICE, 'Claude Code');

    expect(await revokeAgent(deps, callerIn(team, ALICE), { which })).toEqual({ kind: 'invalid_reference' });
    expect(await listAgents(deps, callerIn(team, ALICE))).toHaveLength(1);
  });

  it.each(['__proto__', 'constructor'])('finds no agent called `%s`', async (which) => {
    const team = newTeam();
    await addAgent(team, ALICE, 'Claude Code');

    expect(await revokeAgent(deps, callerIn(team, ALICE), { which })).toEqual({
      kind: 'not_found',
      count: 1,
    });
  });

  it('says the agent was already revoked when it went between the read and the delete, and audits nothing', async () => {
    const team = newTeam();
    const grant = await addAgent(team, ALICE, 'Claude Code');
    // Another window's revoke lands right after this one listed the agents.
    const racing: AgentDeps = {
      ...deps,
      store: {
        ...store,
        agentGrants: {
          ...store.agentGrants,
          listFor: async (t, u) => {
            const listed = await store.agentGrants.listFor(t, u);
            await store.agentGrants.revoke(t, u, grant.id);
            return listed;
          },
          revoke: (t, u, id) => store.agentGrants.revoke(t, u, id),
        },
      },
    };

    expect(await revokeAgent(racing, callerIn(team, ALICE), { which: '1' })).toEqual({
      kind: 'already_revoked',
      grant,
    });
    expect(await auditOf(team)).toEqual([]);
  });

  it('is refused to an agent: an agent does not take away the agents of its person', async () => {
    const team = newTeam();
    const grant = await addAgent(team, ALICE, 'Claude Code');

    expect(await revokeAgent(deps, agentCaller(team, ALICE, grant.id), { which: '1' })).toEqual({
      kind: 'refused',
      reason: 'agent_caller',
    });
    expect(await store.agentGrants.get(team, ALICE, grant.id)).toEqual(grant);
  });
});

describe("Slackbot's home", () => {
  it('lets Slackbot read for the caller with their channel as its home', async () => {
    const team = newTeam();
    await linkProfile(team, ALICE);

    const outcome = await setSlackbotHome(
      { ...deps, channels: channelsAnswering(OPEN) },
      callerIn(team, ALICE),
      {
        access: 'read',
      },
    );

    expect(outcome).toMatchObject({ kind: 'granted', previous: undefined });
    expect(await store.agentGrants.get(team, ALICE, SLACKBOT_GRANT_ID)).toMatchObject({
      clientId: 'slackbot',
      clientName: 'Slackbot',
      homeChannel: OPS,
      scopes: ['cloud:read'],
    });
  });

  it('lets it ask for changes too with `change`', async () => {
    const team = newTeam();
    await linkProfile(team, ALICE);

    await setSlackbotHome({ ...deps, channels: channelsAnswering(OPEN) }, callerIn(team, ALICE), {
      access: 'change',
    });

    expect(await store.agentGrants.get(team, ALICE, SLACKBOT_GRANT_ID)).toMatchObject({
      scopes: ['cloud:read', 'cloud:change'],
    });
  });

  it('moves the home when run again in another channel: one Slackbot, and the audit says where it was', async () => {
    const team = newTeam();
    await linkProfile(team, ALICE);
    const channels = channelsAnswering(OPEN);
    await setSlackbotHome({ ...deps, channels }, callerIn(team, ALICE, OPS), { access: 'change' });
    // The store's clock stands still in these tests: a moment later, so the audit's order is known.
    table.clock.advance(1000);

    const outcome = await setSlackbotHome({ ...deps, channels }, callerIn(team, ALICE, 'C0OTHER'), {
      access: 'read',
    });

    expect(outcome).toMatchObject({ kind: 'granted', previous: { homeChannel: OPS } });
    const agents = await listAgents(deps, callerIn(team, ALICE));
    expect(agents.map(({ id, homeChannel, scopes }) => ({ id, homeChannel, scopes }))).toEqual([
      { id: SLACKBOT_GRANT_ID, homeChannel: 'C0OTHER', scopes: ['cloud:read'] },
    ]);
    const [latest] = await auditOf(team);
    expect(latest).toMatchObject({
      actor: ALICE,
      action: 'agents.slackbot',
      target: 'channel C0OTHER',
      detail: `Slackbot acts for them from this channel: read; before: home channel ${OPS}, change`,
    });
  });

  it('is refused to a person with no linked profile, before the surface is asked', async () => {
    const team = newTeam();
    const channels = channelsAnswering(OPEN);

    expect(await setSlackbotHome({ ...deps, channels }, callerIn(team, ALICE), { access: 'read' })).toEqual({
      kind: 'no_profile',
    });
    expect(channels.asked).toEqual([]);
    expect(await listAgents(deps, callerIn(team, ALICE))).toEqual([]);
  });

  it('refuses `change` where the guardrails let only reads run, and says what the channel allows', async () => {
    const team = newTeam();
    await linkProfile(team, ALICE);
    await store.channelPolicy.put(team, OPS, { allowedClasses: ['read'], rules: {} }, BOB);
    const channels = channelsAnswering(OPEN);

    expect(await setSlackbotHome({ ...deps, channels }, callerIn(team, ALICE), { access: 'change' })).toEqual(
      {
        kind: 'guardrails',
        access: 'change',
        allowedClasses: ['read'],
      },
    );
    expect(channels.asked).toEqual([]);
    expect(await listAgents(deps, callerIn(team, ALICE))).toEqual([]);
  });

  it('allows `read` in that read-only channel', async () => {
    const team = newTeam();
    await linkProfile(team, ALICE);
    await store.channelPolicy.put(team, OPS, { allowedClasses: ['read'], rules: {} }, BOB);

    expect(
      await setSlackbotHome({ ...deps, channels: channelsAnswering(OPEN) }, callerIn(team, ALICE), {
        access: 'read',
      }),
    ).toMatchObject({ kind: 'granted' });
  });

  it('refuses even `read` where the guardrails do not let reads run', async () => {
    const team = newTeam();
    await linkProfile(team, ALICE);
    await store.channelPolicy.put(team, OPS, { allowedClasses: ['destructive'], rules: {} }, BOB);

    expect(
      await setSlackbotHome({ ...deps, channels: channelsAnswering(OPEN) }, callerIn(team, ALICE), {
        access: 'read',
      }),
    ).toMatchObject({ kind: 'guardrails', access: 'read' });
  });

  it('refuses a direct message: nobody but the person would see what their agent asks', async () => {
    const team = newTeam();
    await linkProfile(team, ALICE);

    expect(
      await setSlackbotHome(
        { ...deps, channels: channelsAnswering({ kind: 'direct_message' }) },
        callerIn(team, ALICE),
        { access: 'read' },
      ),
    ).toEqual({ kind: 'direct_message' });
    expect(await listAgents(deps, callerIn(team, ALICE))).toEqual([]);
  });

  it('refuses a channel the surface cannot post cards in, and keeps the home it had', async () => {
    const team = newTeam();
    await linkProfile(team, ALICE);
    await setSlackbotHome({ ...deps, channels: channelsAnswering(OPEN) }, callerIn(team, ALICE), {
      access: 'read',
    });

    const outcome = await setSlackbotHome(
      { ...deps, channels: channelsAnswering({ kind: 'refused', refusal: 'not_in_channel' }) },
      callerIn(team, ALICE, 'C0OTHER'),
      { access: 'read' },
    );

    expect(outcome).toEqual({ kind: 'channel_refused', refusal: 'not_in_channel' });
    expect(await store.agentGrants.get(team, ALICE, SLACKBOT_GRANT_ID)).toMatchObject({ homeChannel: OPS });
  });

  it('is refused to an agent: an agent does not grant Slackbot anything', async () => {
    const team = newTeam();
    await linkProfile(team, ALICE);
    const grant = await addAgent(team, ALICE, 'Claude Code');

    expect(
      await setSlackbotHome(
        { ...deps, channels: channelsAnswering(OPEN) },
        agentCaller(team, ALICE, grant.id),
        {
          access: 'change',
        },
      ),
    ).toEqual({ kind: 'refused', reason: 'agent_caller' });
    expect(await store.agentGrants.get(team, ALICE, SLACKBOT_GRANT_ID)).toBeUndefined();
  });
});

describe('logging out of the last profile', () => {
  it('revokes every agent of the person, and their tokens stop working', async () => {
    const team = newTeam();
    await linkProfile(team, ALICE);
    const grant = await addAgent(team, ALICE, 'Claude Code');
    await addAgent(team, ALICE, 'Cursor');
    const tokens = await store.agentGrants.issueTokens(grant, RESOURCE);

    const outcome = await unlinkProfile(deps, callerIn(team, ALICE), {});

    expect(outcome).toEqual({ kind: 'unlinked', profile: 'default', agentsRevoked: 2 });
    expect(await listAgents(deps, callerIn(team, ALICE))).toEqual([]);
    expect(await store.agentGrants.verifyAccessToken(tokens.accessToken, RESOURCE)).toEqual({
      refused: 'revoked',
    });
    expect(await auditOf(team)).toEqual([
      expect.objectContaining({ actor: ALICE, action: 'agents.revoke_all', result: 'succeeded' }),
    ]);
  });

  it('keeps the agents while another profile is left', async () => {
    const team = newTeam();
    await linkProfile(team, ALICE, 'default');
    await linkProfile(team, ALICE, 'staging');
    await addAgent(team, ALICE, 'Claude Code');

    expect(await unlinkProfile(deps, callerIn(team, ALICE), { profile: 'staging' })).toEqual({
      kind: 'unlinked',
      profile: 'staging',
      agentsRevoked: 0,
    });
    expect(await listAgents(deps, callerIn(team, ALICE))).toHaveLength(1);
  });

  it("leaves another person's agents alone", async () => {
    const team = newTeam();
    await linkProfile(team, ALICE);
    await addAgent(team, BOB, 'Bob agent');

    await unlinkProfile(deps, callerIn(team, ALICE), {});

    expect(await listAgents(deps, callerIn(team, BOB))).toHaveLength(1);
  });

  it('revokes nothing when there was no such profile to unlink', async () => {
    const team = newTeam();
    await linkProfile(team, ALICE);
    await addAgent(team, ALICE, 'Claude Code');

    expect(await unlinkProfile(deps, callerIn(team, ALICE), { profile: 'staging' })).toEqual({
      kind: 'no_such_profile',
      profile: 'staging',
    });
    expect(await listAgents(deps, callerIn(team, ALICE))).toHaveLength(1);
  });
});
