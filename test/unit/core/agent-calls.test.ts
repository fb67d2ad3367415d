import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations, requireOperation } from '../../../lib/api/operations/index.js';
import type { ApprovalSurface } from '../../../lib/changes/ports.js';
import { agentRead, agentRequestStatus } from '../../../lib/core/agent-calls.js';
import { agentChange } from '../../../lib/core/agent-changes.js';
import { agentKindOf } from '../../../lib/core/agent-operations.js';
import type { Caller } from '../../../lib/core/caller.js';
import { createStore, type Store } from '../../../lib/store/index.js';
import { callerKeys } from '../../../lib/store/read-ahead.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * What an agent may do for its person, called as the MCP surface calls it, with no Slack and no
 * API: every refusal here comes before any call, so the API's address goes nowhere.
 */

const TEAM = 'T0AGENTS';
const HOME = 'C0OPS';
const READ_ONLY = 'C0READ';

let table: TestTable;
let store: Store;
const logger = new Logger({ serviceName: 'agent-calls-test', logLevel: 'SILENT' });
const deps = () => ({ store, logger, api: { baseUrl: 'http://127.0.0.1:9/v4', timeoutMs: 100 } });

beforeAll(async () => {
  table = await createTestTable();
  store = createStore(table.ctx, randomLocalCipher());
  await store.channelPolicy.put(TEAM, READ_ONLY, { allowedClasses: ['read'] }, 'U0ADMIN');
});
afterAll(() => table.dispose());

function agentCaller(user: string, channel = HOME): Caller {
  return {
    team: TEAM,
    user,
    channel,
    surface: 'agent',
    agent: { grantId: 'g1', clientId: 'https://agent.example.com/c.json', name: 'Agent' },
    isWorkspaceAdmin: async () => {
      throw new Error('no agent rule asks whether the person is an admin');
    },
  };
}

/** A surface that fails the test if the workflow reaches it. */
const unreachableSurface = new Proxy({} as ApprovalSurface, {
  get: (_, name) => () => {
    throw new Error(`the approval surface was reached (${String(name)})`);
  },
});

describe('the kind of an operation, for agents', () => {
  it('is read for every GET, destructive only where the table says, change otherwise', () => {
    for (const op of operations) {
      const kind = agentKindOf(op);
      if (op.method === 'GET') expect(kind).toBe('read');
      else expect(kind).toBe(op.destructive ? 'destructive' : 'change');
    }
  });
});

describe('refusals before any call', () => {
  it('a read of an operation that is not one names the tool that reaches it', async () => {
    const outcome = await agentRead(deps(), agentCaller('U0A'), {
      operation: 'volumes.delete',
      arguments: { volumeId: 1 },
    });
    expect(outcome).toMatchObject({ kind: 'wrong_tool', expected: 'destructive' });
  });

  it('a change of an unknown operation is refused by name', async () => {
    const outcome = await agentChange(
      { ...deps(), previewTarget: async () => 'not_found' },
      unreachableSurface,
      agentCaller('U0A'),
      { operation: '__proto__', arguments: {} },
      'change',
    );
    expect(outcome).toEqual({ kind: 'unknown_operation', operation: '__proto__' });
  });

  it('invalid arguments are refused with what is wrong', async () => {
    const outcome = await agentRead(deps(), agentCaller('U0A'), {
      operation: 'volumes.view',
      arguments: { volumeId: 'twelve' },
    });
    expect(outcome).toMatchObject({ kind: 'invalid_input' });
    expect(JSON.stringify(outcome)).toContain('volumeId');
  });

  it('a change in a read-only home channel is refused by its policy, before the token is read', async () => {
    const outcome = await agentChange(
      { ...deps(), previewTarget: async () => 'not_found' },
      unreachableSurface,
      agentCaller('U0A', READ_ONLY),
      { operation: 'volumes.delete', arguments: { volumeId: 1 } },
      'destructive',
    );
    expect(outcome).toMatchObject({ kind: 'channel_refused', refusal: { allowedClasses: ['read'] } });
  });

  it('a person without a linked token is told so, and nothing is asked', async () => {
    const outcome = await agentChange(
      { ...deps(), previewTarget: async () => 'not_found' },
      unreachableSurface,
      agentCaller('U0NOTOKEN'),
      { operation: 'volumes.delete', arguments: { volumeId: 1 } },
      'destructive',
    );
    expect(outcome).toMatchObject({ kind: 'no_token', problem: 'not_linked' });
  });
});

describe("the caller's items read ahead", () => {
  it("give a read its home channel's policy and the person's token: neither is read again", async () => {
    const cipher = randomLocalCipher();
    await createStore(table.ctx, cipher).tokenLinks.saveLink({
      team: TEAM,
      user: 'U0AHEAD',
      token: 'demo-token-0123456789abcdef',
      label: 'ahead',
      apiUsername: 'ahead',
      scopes: '*',
      expiry: null,
    });
    const asked: string[] = [];
    const keyOf = (key: { readonly pk?: unknown; readonly sk?: unknown } | undefined) =>
      `${String(key?.pk)} ${String(key?.sk)}`;
    const counting = {
      ...table.table,
      get: (input: Parameters<typeof table.table.get>[0]) => {
        asked.push(keyOf(input.Key));
        return table.table.get(input);
      },
      batchGet: (input: Parameters<typeof table.table.batchGet>[0]) => {
        for (const request of Object.values(input.RequestItems ?? {})) {
          for (const key of request.Keys ?? []) asked.push(keyOf(key));
        }
        return table.table.batchGet(input);
      },
    };
    const counted = createStore({ ...table.ctx, table: counting }, cipher);
    const callerRead = counted.readAhead(callerKeys(TEAM, 'U0AHEAD', HOME));
    // The API's address goes nowhere: the read fails after the guard and the token, as a read may.
    await expect(
      agentRead(
        { ...deps(), store: counted },
        agentCaller('U0AHEAD'),
        { operation: 'volumes.list', arguments: {} },
        {
          callerRead,
        },
      ),
    ).rejects.toThrow();
    for (const key of callerKeys(TEAM, 'U0AHEAD', HOME)) {
      expect(
        asked.filter((k) => k === keyOf(key)),
        keyOf(key),
      ).toHaveLength(1);
    }
  });
});

describe("a request's state", () => {
  it('is found for the person who asked, and for nobody else', async () => {
    const approval = await store.approvals.create({
      team: TEAM,
      requester: 'U0ASKER',
      operationId: requireOperation('volumes.delete').id,
      input: { volumeId: 3 },
      summary: 'volume 3',
      channel: HOME,
      requiredApprovals: 2,
      expiryMinutes: 30,
    });
    expect(await agentRequestStatus(deps(), agentCaller('U0ASKER'), approval.id)).toMatchObject({
      kind: 'found',
      request: { state: 'waiting_for_approval', approvals: 0, requiredApprovals: 2 },
    });
    expect(await agentRequestStatus(deps(), agentCaller('U0OTHER'), approval.id)).toEqual({
      kind: 'not_found',
    });
  });

  it('is not looked up for an id that is not a request id', async () => {
    expect(await agentRequestStatus(deps(), agentCaller('U0ASKER'), 'APPROVAL#x')).toEqual({
      kind: 'not_found',
    });
  });
});
