import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../../infra/local/emulator/server.js';
import type { ApiCallEvent } from '../../../lib/api/client.js';
import { createApiClient } from '../../../lib/api/client-factory.js';
import { getOperation } from '../../../lib/api/operations/index.js';

/**
 * Every production client comes from `createApiClient`, so what it wires is what every caller
 * gets. These run against the emulator over HTTP.
 */

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator?.close();
});

describe('createApiClient', () => {
  it('reports every call to the metrics hook by operation id (clients built elsewhere used to skip it)', async () => {
    const events: ApiCallEvent[] = [];
    const settings = {
      baseUrl: emulator.url,
      timeoutMs: 5000,
      onCall: (event: ApiCallEvent) => events.push(event),
    };
    const client = createApiClient(settings, emulator.demoToken);
    await client.call(getOperation('profile.view'), {});
    expect(events.map(({ operationId, method, outcome }) => ({ operationId, method, outcome }))).toEqual([
      { operationId: 'profile.view', method: 'GET', outcome: 'success' },
    ]);
  });

  it('keeps the metrics hook when a caller adds its own observer, and a throwing hook hides nothing from the other (login reads scopes this way)', async () => {
    const seen: string[] = [];
    const settings = {
      baseUrl: emulator.url,
      timeoutMs: 5000,
      onCall: (event: ApiCallEvent) => {
        seen.push(`metrics ${event.operationId}`);
        throw new Error('metrics backend down');
      },
    };
    let scopes: string | undefined;
    const client = createApiClient(settings, emulator.demoToken, {
      timeoutMs: 2000,
      observe: (event) => {
        seen.push(`observer ${event.operationId}`);
        scopes = event.oauthScopes;
      },
    });
    const profile = await client.call(getOperation('profile.view'), {});
    expect(profile).toMatchObject({ username: expect.any(String) });
    expect(seen).toEqual(['metrics profile.view', 'observer profile.view']);
    expect(scopes).toBeTruthy();
  });
});
