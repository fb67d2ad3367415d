import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../../infra/local/emulator/server.js';
import { ApiError } from '../../../lib/api/errors.js';
import { getOperation } from '../../../lib/api/operations/index.js';
import { type OperationDeps, runOperation } from '../../../lib/core/operations.js';
import { createStore, type Store } from '../../../lib/store/index.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * Running an operation for a person, as every surface does it, without Slack: the token it goes
 * out with, what is written down about a change, and what a rejected token leaves behind.
 */

const TEAM = 'T0CORE';
const CHANNEL = 'C0CORE';

let emulator: RunningEmulator;
let table: TestTable;
let store: Store;
let deps: OperationDeps;
let person = 0;

beforeAll(async () => {
  emulator = await startEmulator();
  table = await createTestTable();
  store = createStore(table.ctx, randomLocalCipher());
  deps = {
    store,
    api: { baseUrl: emulator.url, timeoutMs: 5_000 },
    logger: new Logger({ serviceName: 'core-operations-test', logLevel: 'SILENT' }),
  };
});
afterEach(() => emulator.control.clearFaults());
afterAll(async () => {
  await emulator?.close();
  await table?.dispose();
});

/** A new person, linked with a token of `scopes` (or not linked at all). */
async function personWith(scopes: string | undefined): Promise<string> {
  person += 1;
  const user = `U0P${person}`;
  if (scopes !== undefined) {
    const { token } = emulator.control.createToken('demo', { scopes });
    await store.tokenLinks.saveLink({
      team: TEAM,
      user,
      token,
      label: 'test',
      apiUsername: 'demo',
      scopes,
      expiry: null,
    });
  }
  return user;
}

function request(user: string, operationId: string, input: Record<string, unknown> = {}) {
  return { team: TEAM, user, channel: CHANNEL, op: getOperation(operationId as never), input, options: {} };
}

async function auditOf(user: string) {
  const { entries } = await store.audit.list(TEAM, { limit: 100 });
  return entries.filter((entry) => entry.actor === user);
}

describe('runOperation (the core)', () => {
  it('calls nothing for a person with no linked token, and names the profile that has none', async () => {
    const user = await personWith(undefined);
    emulator.control.resetRequestCounts();
    const outcome = await runOperation(deps, request(user, 'volumes.list'));
    expect(outcome).toEqual({ kind: 'no_token', problem: 'not_linked', profile: 'default' });
    expect(emulator.control.requestCount('volumes.list')).toBe(0);
  });

  it("answers with the API's output, read with the person's own token, and audits no read", async () => {
    const user = await personWith('*');
    const outcome = await runOperation(deps, request(user, 'volumes.list'));
    expect(outcome.kind).toBe('answered');
    expect(outcome.kind === 'answered' && outcome.output).toMatchObject({ page: 1, data: expect.any(Array) });
    expect(await auditOf(user)).toEqual([]);
  });

  it('writes a change down as succeeded, with the target it acted on', async () => {
    const user = await personWith('*');
    const volume = emulator.control.createVolume({ label: 'core-test-delete' });
    const outcome = await runOperation(deps, request(user, 'volumes.delete', { volumeId: volume.id }));
    expect(outcome.kind).toBe('answered');
    expect(emulator.control.volumeExists(volume.id)).toBe(false);
    expect(await auditOf(user)).toMatchObject([
      { action: 'volumes.delete', result: 'succeeded', target: `volumeId=${volume.id}` },
    ]);
  });

  it('writes a change whose answer was lost as in doubt, not failed, and throws the error on', async () => {
    const user = await personWith('*');
    const volume = emulator.control.createVolume({ label: 'core-test-doubt' });
    emulator.control.injectFault({
      kind: 'drop',
      operations: ['volumes.delete'],
      afterActing: true,
      times: 1,
    });
    const run = runOperation(deps, request(user, 'volumes.delete', { volumeId: volume.id }));
    await expect(run).rejects.toBeInstanceOf(ApiError);
    // It did happen; only a read-back may say so, and the audit does not claim it failed.
    expect(emulator.control.volumeExists(volume.id)).toBe(false);
    expect(await auditOf(user)).toMatchObject([{ action: 'volumes.delete', result: 'in_doubt' }]);
  });

  it('writes a change the API refused as failed, with the reason', async () => {
    const user = await personWith('volumes:read_only');
    const volume = emulator.control.createVolume({ label: 'core-test-refused' });
    await expect(
      runOperation(deps, request(user, 'volumes.delete', { volumeId: volume.id })),
    ).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect(emulator.control.volumeExists(volume.id)).toBe(true);
    expect(await auditOf(user)).toMatchObject([
      { action: 'volumes.delete', result: 'failed', detail: 'forbidden' },
    ]);
  });

  it('marks a token the API rejects, so the next run asks for a new one without calling the API', async () => {
    const user = await personWith('*');
    const lookup = await store.tokenLinks.getToken(TEAM, user);
    expect(lookup.status).toBe('found');
    if (lookup.status !== 'found') return;
    emulator.control.revokeToken(lookup.token);
    await expect(runOperation(deps, request(user, 'volumes.list'))).rejects.toMatchObject({
      code: 'unauthorized',
    });
    emulator.control.resetRequestCounts();
    const again = await runOperation(deps, request(user, 'volumes.list'));
    expect(again).toEqual({ kind: 'no_token', problem: 'rejected', profile: 'default' });
    expect(emulator.control.requestCount('volumes.list')).toBe(0);
  });
});
