import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AliasDeps,
  addAlias,
  callAlias,
  MAX_ALIASES_PER_SCOPE,
  removeAlias,
} from '../../../lib/core/aliases.js';
import { createStore, type Store } from '../../../lib/store/index.js';
import { testCaller } from '../../support/caller.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * The rules of aliases, called as any surface calls them: who may add, replace and remove which
 * alias, how many a scope holds, and what is audited. No Slack: the caller says whether the
 * workspace makes them an admin, and counts how often it was asked.
 */

const CHANNEL = 'C0OPS';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';
const ADMIN = 'U0ADMIN';

let table: TestTable;
let store: Store;
let deps: AliasDeps;
beforeAll(async () => {
  table = await createTestTable();
  store = createStore(table.ctx, randomLocalCipher());
  deps = {
    store,
    logger: new Logger({ serviceName: 'aliases-test', logLevel: 'SILENT' }),
    approvalAdmins: [],
  };
});
afterAll(() => table.dispose());

let teams = 0;
/** A team of its own for each test, so no test sees another's aliases. */
function newTeam(): string {
  teams += 1;
  return `T0ALIAS${teams}`;
}

/** A caller in `team`'s ops channel; `admin` is what the workspace says when asked. */
function callerIn(team: string, user: string, admin = false) {
  const caller = testCaller({ team, channel: CHANNEL }, user, admin);
  return { caller, asked: caller.asked };
}

const channelScope = { kind: 'channel', channel: CHANNEL } as const;

/** Alice's `MAX_ALIASES_PER_SCOPE` aliases in the ops channel, `a0` … `a49`. */
async function fillChannel(team: string): Promise<void> {
  await Promise.all(
    Array.from({ length: MAX_ALIASES_PER_SCOPE }, (_, i) =>
      store.aliases.put(team, channelScope, `a${i}`, 'volumes list', ALICE),
    ),
  );
}

describe('adding an alias', () => {
  it('adds a channel alias for anyone in the channel, without asking whether they are an admin', async () => {
    const team = newTeam();
    const alice = callerIn(team, ALICE);
    const outcome = await addAlias(deps, alice.caller, {
      scope: 'channel',
      name: 'vv',
      expansion: 'volumes view $1',
    });
    expect(outcome).toMatchObject({
      kind: 'added',
      parameterCount: 1,
      alias: { name: 'vv', createdBy: ALICE },
    });
    expect(alice.asked()).toBe(0);
    expect((await store.aliases.get(team, channelScope, 'vv'))?.expansion).toBe('volumes view $1');
  });

  it('audits an added alias with who added it and the command it runs', async () => {
    const team = newTeam();
    await addAlias(deps, callerIn(team, ALICE).caller, {
      scope: 'channel',
      name: 'vv',
      expansion: 'volumes view $1',
    });
    const { entries } = await store.audit.list(team);
    expect(entries).toMatchObject([
      {
        actor: ALICE,
        action: 'alias.add',
        target: 'alias vv',
        result: 'succeeded',
        detail: '/cloud volumes view $1',
      },
    ]);
  });

  it('refuses a new alias when the channel already has the most it may have, and stores nothing', async () => {
    const team = newTeam();
    await fillChannel(team);
    const outcome = await addAlias(deps, callerIn(team, ALICE).caller, {
      scope: 'channel',
      name: 'one-more',
      expansion: 'volumes list',
    });
    expect(outcome).toEqual({ kind: 'at_cap', limit: MAX_ALIASES_PER_SCOPE });
    expect(await store.aliases.get(team, channelScope, 'one-more')).toBeUndefined();
  });

  it('replaces an alias of a full channel: the cap counts names, not changes', async () => {
    const team = newTeam();
    await fillChannel(team);
    const outcome = await addAlias(deps, callerIn(team, ALICE).caller, {
      scope: 'channel',
      name: 'a0',
      expansion: 'regions list',
    });
    expect(outcome).toMatchObject({ kind: 'replaced' });
  });

  it("counts the workspace's aliases apart from a full channel's", async () => {
    const team = newTeam();
    await fillChannel(team);
    const outcome = await addAlias(deps, callerIn(team, ADMIN, true).caller, {
      scope: 'workspace',
      name: 'rl',
      expansion: 'regions list',
    });
    expect(outcome).toMatchObject({ kind: 'added' });
  });

  it("refuses to replace another person's channel alias, naming its author, and keeps it", async () => {
    const team = newTeam();
    await store.aliases.put(team, channelScope, 'vv', 'volumes view $1', ALICE);
    const outcome = await addAlias(deps, callerIn(team, BOB).caller, {
      scope: 'channel',
      name: 'vv',
      expansion: 'volumes delete $1',
    });
    expect(outcome).toEqual({ kind: 'refused', reason: 'not_author', author: ALICE });
    expect((await store.aliases.get(team, channelScope, 'vv'))?.expansion).toBe('volumes view $1');
  });

  it('lets its author replace their own channel alias without asking whether they are an admin', async () => {
    const team = newTeam();
    await store.aliases.put(team, channelScope, 'vv', 'volumes view $1', ALICE);
    const alice = callerIn(team, ALICE);
    const outcome = await addAlias(deps, alice.caller, {
      scope: 'channel',
      name: 'vv',
      expansion: 'regions list',
    });
    expect(outcome).toMatchObject({ kind: 'replaced', parameterCount: 0 });
    expect(alice.asked()).toBe(0);
  });

  it("lets a workspace admin replace another person's channel alias", async () => {
    const team = newTeam();
    await store.aliases.put(team, channelScope, 'vv', 'volumes view $1', ALICE);
    const outcome = await addAlias(deps, callerIn(team, ADMIN, true).caller, {
      scope: 'channel',
      name: 'vv',
      expansion: 'regions list',
    });
    expect(outcome).toMatchObject({ kind: 'replaced', alias: { createdBy: ADMIN } });
  });

  it('refuses a workspace alias from someone who is no admin, and stores nothing', async () => {
    const team = newTeam();
    const outcome = await addAlias(deps, callerIn(team, ALICE).caller, {
      scope: 'workspace',
      name: 'vv',
      expansion: 'volumes view $1',
    });
    expect(outcome).toEqual({ kind: 'refused', reason: 'workspace_needs_admin' });
    expect(await store.aliases.get(team, { kind: 'workspace' }, 'vv')).toBeUndefined();
  });

  it('takes a workspace alias from an admin the approval policy names, without asking the workspace', async () => {
    const team = newTeam();
    await store.approvalPolicy.put(team, { admins: [BOB] }, ADMIN);
    const bob = callerIn(team, BOB);
    const outcome = await addAlias(deps, bob.caller, {
      scope: 'workspace',
      name: 'vv',
      expansion: 'volumes view $1',
    });
    expect(outcome).toMatchObject({ kind: 'added', alias: { scope: { kind: 'workspace' } } });
    expect(bob.asked()).toBe(0);
  });

  it('refuses a name that shadows a command, in the command language’s words', async () => {
    const outcome = await addAlias(deps, callerIn(newTeam(), ALICE).caller, {
      scope: 'channel',
      name: 'volumes',
      expansion: 'volumes list',
    });
    expect(outcome.kind).toBe('invalid_name');
    expect(outcome.kind === 'invalid_name' ? outcome.message : '').toContain('cannot shadow');
  });

  it('refuses an expansion with --break-glass, which is never stored under a short name', async () => {
    const outcome = await addAlias(deps, callerIn(newTeam(), ALICE).caller, {
      scope: 'channel',
      name: 'rmvol',
      expansion: 'volumes delete $1 --break-glass "always"',
    });
    expect(outcome).toEqual({ kind: 'invalid_expansion', problem: { kind: 'break_glass' } });
  });

  it("refuses an expansion that runs the bot's own commands instead of an operation", async () => {
    const outcome = await addAlias(deps, callerIn(newTeam(), ALICE).caller, {
      scope: 'channel',
      name: 'pol',
      expansion: 'policy --reset',
    });
    expect(outcome).toEqual({ kind: 'invalid_expansion', problem: { kind: 'not_an_operation' } });
  });
});

describe('removing an alias', () => {
  it('says there is no such alias in that scope, and audits nothing', async () => {
    const team = newTeam();
    await store.aliases.put(team, { kind: 'workspace' }, 'vv', 'volumes view $1', ADMIN);
    const outcome = await removeAlias(deps, callerIn(team, ALICE).caller, { scope: 'channel', name: 'vv' });
    expect(outcome).toEqual({ kind: 'not_found' });
    expect((await store.audit.list(team)).entries).toEqual([]);
  });

  it("refuses to remove another person's channel alias, naming its author", async () => {
    const team = newTeam();
    await store.aliases.put(team, channelScope, 'vv', 'volumes view $1', ALICE);
    const outcome = await removeAlias(deps, callerIn(team, BOB).caller, { scope: 'channel', name: 'vv' });
    expect(outcome).toEqual({ kind: 'refused', reason: 'not_author', author: ALICE });
    expect(await store.aliases.get(team, channelScope, 'vv')).toBeDefined();
  });

  it('refuses to remove a workspace alias for someone who is no admin', async () => {
    const team = newTeam();
    await store.aliases.put(team, { kind: 'workspace' }, 'vv', 'volumes view $1', ADMIN);
    const outcome = await removeAlias(deps, callerIn(team, ALICE).caller, { scope: 'workspace', name: 'vv' });
    expect(outcome).toEqual({ kind: 'refused', reason: 'workspace_needs_admin' });
  });

  it('removes its author’s alias and audits the command it ran', async () => {
    const team = newTeam();
    await store.aliases.put(team, channelScope, 'vv', 'volumes view $1', ALICE);
    const outcome = await removeAlias(deps, callerIn(team, ALICE).caller, { scope: 'channel', name: 'vv' });
    expect(outcome).toMatchObject({ kind: 'removed', alias: { name: 'vv' } });
    expect(await store.aliases.get(team, channelScope, 'vv')).toBeUndefined();
    expect((await store.audit.list(team)).entries).toMatchObject([
      { actor: ALICE, action: 'alias.remove', target: 'alias vv', detail: '/cloud volumes view $1' },
    ]);
  });

  it('says it was already removed when it went between the read and the delete, and audits nothing', async () => {
    const team = newTeam();
    await store.aliases.put(team, channelScope, 'vv', 'volumes view $1', ALICE);
    // Someone else's removal lands right after this one read the alias.
    const aliases = store.aliases;
    const racing: AliasDeps = {
      ...deps,
      store: {
        approvalPolicy: store.approvalPolicy,
        audit: store.audit,
        aliases: {
          find: (...args) => aliases.find(...args),
          list: (...args) => aliases.list(...args),
          listEvery: (...args) => aliases.listEvery(...args),
          put: (...args) => aliases.put(...args),
          remove: (...args) => aliases.remove(...args),
          get: async (...args) => {
            const found = await aliases.get(...args);
            await aliases.remove(team, channelScope, 'vv');
            return found;
          },
        },
      },
    };
    const outcome = await removeAlias(racing, callerIn(team, ALICE).caller, { scope: 'channel', name: 'vv' });
    expect(outcome).toEqual({ kind: 'already_removed' });
    expect((await store.audit.list(team)).entries).toEqual([]);
  });
});

describe('calling an alias', () => {
  it('audits a call that asks for a change as requested, with the command it expands to', async () => {
    const team = newTeam();
    await store.aliases.put(team, channelScope, 'rmvol', 'volumes delete $1', ALICE);
    const call = await callAlias(deps, callerIn(team, BOB).caller, 'rmvol 12');
    expect(call).toMatchObject({ kind: 'expanded', displayText: 'volumes delete 12' });
    expect((await store.audit.list(team)).entries).toMatchObject([
      {
        actor: BOB,
        action: 'alias.run',
        target: 'alias rmvol',
        result: 'requested',
        detail: '/cloud volumes delete 12',
      },
    ]);
  });

  it('audits nothing for a call that only reads', async () => {
    const team = newTeam();
    await store.aliases.put(team, channelScope, 'vv', 'volumes view $1', ALICE);
    expect(await callAlias(deps, callerIn(team, BOB).caller, 'vv 12')).toMatchObject({ kind: 'expanded' });
    expect((await store.audit.list(team)).entries).toEqual([]);
  });

  it('refuses to run a stored expansion with --break-glass, however it got there', async () => {
    const team = newTeam();
    await store.aliases.put(team, channelScope, 'rmvol', 'volumes delete $1 --break-glass now', ALICE);
    const call = await callAlias(deps, callerIn(team, BOB).caller, 'rmvol 12');
    expect(call).toMatchObject({ kind: 'cannot_run', problem: { kind: 'break_glass' } });
    expect((await store.audit.list(team)).entries).toEqual([]);
  });
});
