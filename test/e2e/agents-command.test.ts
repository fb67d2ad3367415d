import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentGrant, SLACKBOT_GRANT_ID } from '../../lib/store/agent-grants.js';
import { ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';

/**
 * `/cloud agents` end to end: people type it (signed slash commands through Bolt) against
 * DynamoDB Local and the Slack stand-in, which answers whether the bot is in a channel as Slack
 * does. Each test has a person of its own, so one's agents never show in another's list.
 */

const RESOURCE = 'https://bot.example.com/mcp';
let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;

beforeAll(async () => {
  e2e = await startE2E();
  await e2e.login(ALICE, e2e.emulator.demoToken);
});

afterAll(async () => {
  await e2e?.close();
});

let people = 0;
/** A person of the seeded workspace's team with a linked token, unless `linked` is false. */
async function newPerson(linked = true): Promise<string> {
  people += 1;
  const user = `U0AGENTS${people}`;
  if (linked) await e2e.login(user, e2e.emulator.demoToken);
  return user;
}

async function addAgent(user: string, name: string): Promise<AgentGrant> {
  const grant = await e2e.stack.store.agentGrants.create({
    team: team(),
    user,
    clientId: `https://${name.toLowerCase().replace(/\W/g, '-')}.example/client`,
    clientName: name,
    homeChannel: CHANNEL,
    scopes: ['cloud:read', 'cloud:change'],
  });
  // Grants made in the same millisecond would list in no fixed order.
  await new Promise((resolve) => setTimeout(resolve, 5));
  return grant;
}

/** `/cloud <text>` by `user` in `channel`: the reply they alone see. */
async function say(user: string, text: string, channel = CHANNEL) {
  const delivery = await e2e.command(user, text, channel);
  expect(delivery.status).toBe(200);
  const reply = e2e.lastSeen(user, channel);
  return { text: e2e.textOf(reply), ephemeral: reply.ephemeral && reply.visibleTo === user };
}

const agentsOf = (user: string) => e2e.stack.store.agentGrants.listFor(team(), user);

async function auditActions(user: string): Promise<string[]> {
  const { entries } = await e2e.stack.store.audit.list(team(), { limit: 50 });
  return entries.filter((entry) => entry.actor === user).map((entry) => entry.action);
}

describe('/cloud agents', () => {
  it('tells a person with no agents how they come, only to them', async () => {
    const user = await newPerson();
    const reply = await say(user, 'agents');
    expect(reply.ephemeral).toBe(true);
    expect(reply.text).toContain('No agent acts for you');
    expect(reply.text).toContain('/cloud agents slackbot');
  });

  it("lists the person's agents numbered, with home channel, what each may do, since when and last use", async () => {
    const user = await newPerson();
    const claude = await addAgent(user, 'Claude Code');
    await e2e.stack.store.agentGrants.create({
      id: SLACKBOT_GRANT_ID,
      team: team(),
      user,
      clientId: 'slackbot',
      clientName: 'Slackbot',
      homeChannel: 'C0GENERAL',
      scopes: ['cloud:read'],
    });
    // A use of the agent's token is its last use.
    const tokens = await e2e.stack.store.agentGrants.issueTokens(claude, RESOURCE);
    const verified = await e2e.stack.store.agentGrants.verifyAccessToken(tokens.accessToken, RESOURCE);
    if ('refused' in verified) throw new Error(`the token was refused: ${verified.refused}`);
    await e2e.stack.store.agentGrants.noteUse(verified.grant);

    const reply = await say(user, 'agents list');

    expect(reply.ephemeral).toBe(true);
    expect(reply.text).toContain('Agents acting for you');
    expect(reply.text).toMatch(
      /1\. \*Claude Code\* · home <#C0OPS> · may read and ask for changes · since <!date\^\d+\^[^>]+> · last used <!date/,
    );
    expect(reply.text).toMatch(
      /2\. \*Slackbot\* · home <#C0GENERAL> · may read · since <!date[^·]+· not used yet · id `slackbot`/,
    );
    expect(reply.text).not.toContain(tokens.accessToken);
  });

  it('lists 30 at most, and says how many more there are and their numbers', async () => {
    const user = await newPerson();
    await Promise.all(
      Array.from({ length: 32 }, (_, i) =>
        e2e.stack.store.agentGrants.create({
          team: team(),
          user,
          clientId: `https://agent-${i}.example/client`,
          clientName: `Agent ${i}`,
          homeChannel: CHANNEL,
          scopes: ['cloud:read'],
        }),
      ),
    );
    const reply = await say(user, 'agents');
    expect(reply.text).toContain('30. ');
    expect(reply.text).not.toContain('31. ');
    expect(reply.text).toContain('…and 2 more, numbers 31 to 32.');
  });

  it("shows an agent's name as text, whatever its client calls itself", async () => {
    const user = await newPerson();
    await addAgent(user, '<!channel> *bold*');
    const reply = await say(user, 'agents');
    expect(reply.text).not.toContain('<!channel>');
    expect(reply.text).toContain('&lt;!channel&gt;');
  });
});

describe('/cloud agents revoke', () => {
  it('revokes the agent a number names: its grant goes, its tokens stop at once, and the audit says who', async () => {
    const user = await newPerson();
    await addAgent(user, 'Claude Code');
    const cursor = await addAgent(user, 'Cursor');
    const tokens = await e2e.stack.store.agentGrants.issueTokens(cursor, RESOURCE);

    const reply = await say(user, 'agents revoke 2');

    expect(reply.text).toContain('Revoked *Cursor* (home <#C0OPS>)');
    expect((await agentsOf(user)).map((grant) => grant.clientName)).toEqual(['Claude Code']);
    expect(await e2e.stack.store.agentGrants.verifyAccessToken(tokens.accessToken, RESOURCE)).toEqual({
      refused: 'revoked',
    });
    expect(await auditActions(user)).toContain('agents.revoke');
  });

  it('revokes the agent its id names', async () => {
    const user = await newPerson();
    const grant = await addAgent(user, 'Claude Code');
    expect((await say(user, `agents revoke ${grant.id}`)).text).toContain('Revoked *Claude Code*');
    expect(await agentsOf(user)).toEqual([]);
  });

  it("cannot revoke another person's agent by its id", async () => {
    const [user, other] = [await newPerson(), await newPerson()];
    await addAgent(user, 'Claude Code');
    const theirs = await addAgent(other, 'Cursor');

    expect((await say(user, `agents revoke ${theirs.id}`)).text).toContain('You have no such agent');
    expect(await agentsOf(other)).toHaveLength(1);
  });

  it.each([
    ['markup', '<!channel>'],
    ['a key separator', 'AGENT#1'],
    ['a prototype key', '__proto__'],
    ['a long word', 'x'.repeat(5000)],
  ])(
    'answers %s with how to name an agent, changes nothing, and does not repeat it',
    async (_what, which) => {
      const user = await newPerson();
      await addAgent(user, 'Claude Code');

      const reply = await say(user, `agents revoke ${which}`);

      expect(reply.text).toMatch(/Name the agent by its number|You have no such agent/);
      expect(reply.text).not.toContain(which);
      expect(await agentsOf(user)).toHaveLength(1);
    },
  );

  it('asks which agent when none is named', async () => {
    const user = await newPerson();
    expect((await say(user, 'agents revoke')).text).toContain('Missing N|ID');
  });
});

describe('/cloud agents slackbot', () => {
  it('lets Slackbot read for the person from the channel it is typed in, audited', async () => {
    const user = await newPerson();

    const reply = await say(user, 'agents slackbot');

    expect(reply.ephemeral).toBe(true);
    expect(reply.text).toContain('Your Slackbot acts for you from this channel now: it may read;');
    expect(await agentsOf(user)).toEqual([
      expect.objectContaining({ id: SLACKBOT_GRANT_ID, homeChannel: CHANNEL, scopes: ['cloud:read'] }),
    ]);
    expect(await auditActions(user)).toContain('agents.slackbot');
  });

  it('moves its home, and lets it ask for changes, when run again in another channel with `change`', async () => {
    const user = await newPerson();
    await say(user, 'agents slackbot read');

    const reply = await say(user, 'agents slackbot change', 'C0GENERAL');

    expect(reply.text).toContain('ask for changes: each becomes an approval card here');
    expect(reply.text).toContain('It acted from <#C0OPS> before');
    expect(await agentsOf(user)).toEqual([
      expect.objectContaining({ homeChannel: 'C0GENERAL', scopes: ['cloud:read', 'cloud:change'] }),
    ]);
  });

  it('refuses a channel the bot is not in, with how to invite it, and grants nothing', async () => {
    const user = await newPerson();
    const secret = e2e.stack.standIn.store.createChannel({ name: `secret-${user}`, is_private: true });
    e2e.stack.standIn.store.addMember(secret.id, user);

    const reply = await say(user, 'agents slackbot', secret.id);

    expect(reply.text).toContain('/invite @cloud');
    expect(await agentsOf(user)).toEqual([]);
  });

  it('refuses a direct message: what Slackbot asks for must be seen where it is approved', async () => {
    const user = await newPerson();
    const reply = await say(user, 'agents slackbot', `D${user}`);
    expect(reply.text).toContain("Slackbot's home must be a channel");
    expect(await agentsOf(user)).toEqual([]);
  });

  it("refuses `change` where the channel's guardrails let only reads run, and offers `read`", async () => {
    const user = await newPerson();
    const channel = e2e.stack.standIn.store.createChannel({
      name: `readonly-${user}`,
      members: [user, 'U0CLOUDBOT'],
    });
    await e2e.stack.store.channelPolicy.put(team(), channel.id, { allowedClasses: ['read'] }, BOB);

    const reply = await say(user, 'agents slackbot change', channel.id);

    expect(reply.text).toContain(
      "This channel's guardrails allow read here, so Slackbot could not read and ask for changes",
    );
    expect(reply.text).toContain('/cloud agents slackbot read');
    expect(await agentsOf(user)).toEqual([]);
  });

  it('asks a person with no linked token to log in first', async () => {
    const user = await newPerson(false);
    const reply = await say(user, 'agents slackbot');
    expect(reply.text).toContain('you have none yet');
    expect(reply.text).toContain('"action_id":"bot:login"');
    expect(await agentsOf(user)).toEqual([]);
  });

  it('refuses a word other than read or change, naming both', async () => {
    const user = await newPerson();
    expect((await say(user, 'agents slackbot write')).text).toContain('`ACCESS` is `read` or `change`.');
    expect(await agentsOf(user)).toEqual([]);
  });
});

describe('/cloud logout and agents', () => {
  it('revokes the agents with the last linked token, and says so', async () => {
    const user = await newPerson();
    const grant = await addAgent(user, 'Claude Code');
    const tokens = await e2e.stack.store.agentGrants.issueTokens(grant, RESOURCE);

    const reply = await say(user, 'logout');

    expect(reply.text).toContain('It was your last linked token, so your agent was revoked too');
    expect(await agentsOf(user)).toEqual([]);
    expect(await e2e.stack.store.agentGrants.verifyAccessToken(tokens.accessToken, RESOURCE)).toEqual({
      refused: 'revoked',
    });
  });

  it('keeps them while another linked token is left', async () => {
    const user = await newPerson();
    await e2e.login(user, e2e.emulator.demoToken, 'staging');
    await addAgent(user, 'Claude Code');

    const reply = await say(user, 'logout --profile staging');

    expect(reply.text).toContain('Unlinked profile `staging`');
    expect(reply.text).not.toContain('revoked too');
    expect(await agentsOf(user)).toHaveLength(1);
  });
});

describe('help', () => {
  it('lists the agents command from its spec', async () => {
    const text = (await say(ALICE, 'help agents')).text;
    expect(text).toContain('agents revoke N|ID');
    expect(text).toContain('agents slackbot [read|change]');
  });
});
