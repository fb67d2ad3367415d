import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EngineKind } from '../../lib/api/operations/index.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { lastCardWith } from '../support/cards.js';
import { ADA, ALICE, CHANNEL, type E2E, startE2E } from '../support/e2e.js';

/**
 * `/cloud databases view ID` and the other verbs of one database typed without the engine: the bot
 * finds the engine from the id (the engine-neutral list, `GET /databases/instances`) and runs that
 * engine's operation under the same rules the engine's own command has.
 */

let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;

beforeAll(async () => {
  e2e = await startE2E();
  await e2e.login(ALICE, e2e.emulator.demoToken);
});

afterAll(async () => {
  await e2e?.close();
});

beforeEach(async () => {
  e2e.emulator.control.clearFaults();
  await e2e.stack.store.approvalPolicy.put(team(), {}, ADA);
});

function databaseOf(engine: EngineKind): { id: number; label: string } {
  const db = [...e2e.emulator.control.world.databases.values()].find((d) => d.kind === engine);
  if (!db) throw new Error(`no seeded ${engine} database`);
  return { id: db.id, label: db.label };
}

function calls(operationId: string, instanceId?: number): number {
  return e2e.emulator.control.requestCount(operationId, instanceId === undefined ? {} : { instanceId });
}

describe('databases view ID', () => {
  it('shows a PostgreSQL database through postgresql-view', async () => {
    const db = databaseOf('postgresql');
    const delivery = await e2e.command(ALICE, `databases view ${db.id}`);
    expect(delivery.status).toBe(200);
    expect(calls('databases.postgresql-view', db.id)).toBe(1);
    expect(calls('databases.mysql-view', db.id)).toBe(0);
    expect(e2e.textOf(delivery.message)).toContain(db.label);
  });

  it('shows a MySQL database through mysql-view', async () => {
    const db = databaseOf('mysql');
    const delivery = await e2e.command(ALICE, `databases view ${db.id}`);
    expect(calls('databases.mysql-view', db.id)).toBe(1);
    expect(e2e.textOf(delivery.message)).toContain(db.label);
  });

  it('says plainly that no database has an unknown id, and names both engines’ commands', async () => {
    const before = calls('databases.mysql-view') + calls('databases.postgresql-view');
    const delivery = await e2e.command(ALICE, 'databases view 987654');
    const text = e2e.textOf(delivery.message);
    expect(text).toContain('No database of yours has the id 987654');
    expect(text).toContain('databases list');
    expect(calls('databases.mysql-view') + calls('databases.postgresql-view')).toBe(before);
  });

  it('says the engine could not be found out when the API does not answer, and offers both engines’ commands', async () => {
    e2e.emulator.control.injectFault({ kind: 'status', status: 500, operations: ['databases.list'] });
    const delivery = await e2e.command(ALICE, 'databases view 42');
    const text = e2e.textOf(delivery.message);
    expect(text).toContain('Could not find out which engine database 42 is');
    expect(text).toContain('databases mysql-view 42');
    expect(text).toContain('databases postgresql-view 42');
    expect(delivery.message?.ephemeral).toBe(true);
  });
});

describe('other verbs of one database', () => {
  it('`databases backups ID` lists a PostgreSQL database’s backups through postgresql-backups-list', async () => {
    const db = databaseOf('postgresql');
    await e2e.command(ALICE, `databases backups ${db.id}`);
    expect(calls('databases.postgresql-backups-list', db.id)).toBe(1);
  });

  it('an argument problem after the id is told with the engine’s own usage', async () => {
    const db = databaseOf('postgresql');
    const delivery = await e2e.command(ALICE, `databases update ${db.id} --colour red`);
    expect(e2e.textOf(delivery.message)).toContain('postgresql-update');
    expect(calls('databases.postgresql-update', db.id)).toBe(0);
  });
});

describe('a change typed without the engine', () => {
  it('goes to the approval card as the engine’s own operation, and nothing runs', async () => {
    const db = databaseOf('postgresql');
    const delivery = await e2e.command(ALICE, `databases delete ${db.id}`);
    expect(e2e.textOf(delivery.message)).toContain('needs 1 approval');
    const card = lastCardWith(e2e.stack.standIn.store, CHANNEL, ActionId.approve);
    expect(e2e.textOf(card)).toContain('databases.postgresql-delete');
    expect(e2e.textOf(card)).toContain('Deletes the PostgreSQL database cluster');
    const pending = await e2e.stack.store.approvals.listPending(team());
    expect(pending.map((approval) => approval.operationId)).toContain('databases.postgresql-delete');
    expect(calls('databases.postgresql-delete', db.id)).toBe(0);
  });
});
