import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../infra/local/emulator/server.js';
import { operations } from '../../lib/api/operations/index.js';
import { DOCUMENTED_OPERATIONS } from '../support/documented-operations.js';
import {
  DATABASE_KINDS,
  databaseCatalogTour,
  databaseKindTour,
  imageTour,
  incidentTour,
  managedTour,
  nodeTour,
  profileTour,
  type Tour,
  volumeTour,
} from './operation-tour.js';
import { clientFor, op, startTestEmulator } from './support.js';

/**
 * The project's client against the emulator over HTTP, once for every operation: the client builds
 * each request from its row and parses each answer with the row's response schema.
 */

let emulator: RunningEmulator;
const covered = new Set<string>();

beforeAll(async () => {
  emulator = await startTestEmulator();
});

afterAll(async () => {
  await emulator?.close();
});

function clientTour(): Tour {
  return {
    emulator,
    send: async (signature, input = {}, options = {}) => {
      const client = clientFor(emulator, options.token ?? emulator.control.tokens.demo);
      const result = await client.call(op(signature), input as never);
      covered.add(signature);
      return result;
    },
  };
}

describe('the client drives every operation', () => {
  it('profile', () => profileTour(clientTour()));
  it('managed monitoring', () => managedTour(clientTour()));
  it('database engines, types and the all-kinds list', () => databaseCatalogTour(clientTour()));
  it.each(DATABASE_KINDS)('$kind databases', (kind) => databaseKindTour(clientTour(), kind));
  it('volumes', () => volumeTour(clientTour()));
  it('images', () => imageTour(clientTour()));
  it('nodes', () => nodeTour(clientTour()));
  it('node actions, disks, types, kernels, regions and events', () => incidentTour(clientTour()));

  it('covered every documented operation of the table', () => {
    const all = operations.map((o) => `${o.method} ${o.path}`);
    expect([...all].sort()).toEqual([...DOCUMENTED_OPERATIONS].sort());
    expect(all.filter((signature) => !covered.has(signature))).toEqual([]);
  });
});
