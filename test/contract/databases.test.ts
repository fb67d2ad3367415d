import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, HOUR, MINUTE, SECOND } from '../../infra/local/emulator/clock.js';
import type { RunningEmulator } from '../../infra/local/emulator/server.js';
import type { ApiClient } from '../../lib/api/client.js';
import { apiErrorOf, clientFor, op, raw, reasonsOf, startTestEmulator } from './support.js';

/**
 * Managed databases through the client: databases rules 1-9 and the status preconditions.
 * Seed: `orders` (MySQL, one node, active), `analytics` (PostgreSQL, three nodes, active),
 * `inventory` (MySQL, provisioning for ten more minutes).
 */

let emulator: RunningEmulator;
let demo: ApiClient;
const MYSQL = '/databases/mysql/instances';
const POSTGRES = '/databases/postgresql/instances';
let orders: number;
let analytics: number;
let inventory: number;

type Database = {
  id: number;
  label: string;
  status: string;
  version: string;
  used_disk_size_gb: number;
  allow_list: string[];
};
type Backup = { id: number; type: string; label: string; created: string };

beforeAll(async () => {
  emulator = await startTestEmulator();
  demo = clientFor(emulator, emulator.control.tokens.demo);
  const all = (await demo.call(op('GET /databases/instances'), {})) as { data: Database[] };
  const idOf = (label: string) => all.data.find((db) => db.label === label)?.id as number;
  orders = idOf('orders');
  analytics = idOf('analytics');
  inventory = idOf('inventory');
});

afterAll(async () => {
  await emulator?.close();
});

const view = async (base: string, instanceId: number) =>
  (await demo.call(op(`GET ${base}/{instanceId}`), { instanceId })) as Database;
const backupsOf = async (base: string, instanceId: number) =>
  ((await demo.call(op(`GET ${base}/{instanceId}/backups`), { instanceId })) as { data: Backup[] }).data;

async function activeMysql(label: string): Promise<number> {
  const created = (await demo.call(op(`POST ${MYSQL}`), {
    label,
    region: 'us-east',
    type: 'g6-standard-1',
    engine: 'mysql/8.0.30',
  })) as Database;
  expect(created.status).toBe('provisioning');
  emulator.control.advance(20 * MINUTE);
  return created.id;
}

describe('databases rules', () => {
  it('databases rule 3: a provisioning database refuses everything but viewing, then becomes active', async () => {
    expect((await view(MYSQL, inventory)).status).toBe('provisioning');
    const refused = [
      ['PUT /databases/mysql/instances/{instanceId}', { label: 'inventory-2' }],
      ['POST /databases/mysql/instances/{instanceId}/backups', { label: 'snap' }],
      ['GET /databases/mysql/instances/{instanceId}/credentials', {}],
      ['POST /databases/mysql/instances/{instanceId}/patch', {}],
      ['GET /databases/mysql/instances/{instanceId}/ssl', {}],
      ['GET /databases/mysql/instances/{instanceId}/backups', {}],
      ['DELETE /databases/mysql/instances/{instanceId}', {}],
    ] as const;
    for (const [signature, input] of refused) {
      const error = await apiErrorOf(demo.call(op(signature), { instanceId: inventory, ...input }));
      expect(error.status, signature).toBe(400);
      expect(error.message, signature).toMatch(/provisioning/);
    }
    emulator.control.advance(10 * MINUTE);
    expect((await view(MYSQL, inventory)).status).toBe('active');
  });

  it('databases rule 1: restricted users need the add_databases grant to create', async () => {
    const dev = clientFor(emulator, emulator.control.tokens.restricted);
    const input = { label: 'dev-db', region: 'us-east', type: 'g6-nanode-1', engine: 'postgresql/16.2' };
    const refused = await apiErrorOf(dev.call(op(`POST ${POSTGRES}`), input));
    expect(refused.status).toBe(403);
    expect(refused.message).toMatch(/add_databases/);
    emulator.control.setGlobalGrants('dev', { add_databases: true });
    const created = (await dev.call(op(`POST ${POSTGRES}`), input)) as Database;
    expect(created.status).toBe('provisioning');
    // The creator may use what it created.
    await expect(
      dev.call(op(`GET ${POSTGRES}/{instanceId}`), { instanceId: created.id }),
    ).resolves.toBeDefined();
  });

  it('databases rule 2: update needs read_write on the database; delete and credentials reset only unrestricted users', async () => {
    const dev = clientFor(emulator, emulator.control.tokens.restricted);
    const readOnly = await apiErrorOf(
      dev.call(op(`PUT ${MYSQL}/{instanceId}`), { instanceId: orders, label: 'orders-x' }),
    );
    expect(readOnly.status).toBe(403);
    emulator.control.grant({ username: 'dev', kind: 'database', id: orders, permission: 'read_write' });
    await expect(
      dev.call(op(`PUT ${MYSQL}/{instanceId}`), { instanceId: orders, label: 'orders' }),
    ).resolves.toBeDefined();
    for (const signature of [
      `DELETE ${MYSQL}/{instanceId}`,
      `POST ${MYSQL}/{instanceId}/credentials/reset`,
    ]) {
      const error = await apiErrorOf(dev.call(op(signature), { instanceId: orders }));
      expect(error.status, signature).toBe(403);
    }
    expect((await view(MYSQL, orders)).status).toBe('active');
  });

  it('databases rule 4: allow_list and type change in separate requests; allow_list replaces; type only grows', async () => {
    const instanceId = await activeMysql('rule-four');
    const both = await raw(emulator, `PUT ${MYSQL}/{instanceId}`, {
      token: emulator.control.tokens.demo,
      params: { instanceId },
      body: { allow_list: ['10.0.0.0/8'], type: 'g6-standard-2' },
    });
    expect(both.status).toBe(400);
    expect(reasonsOf(both.body)).toEqual(['type: cannot be changed together with allow_list']);

    await demo.call(op(`PUT ${MYSQL}/{instanceId}`), {
      instanceId,
      allow_list: ['203.0.113.0/24', '198.51.100.7/32'],
    });
    const replaced = (await demo.call(op(`PUT ${MYSQL}/{instanceId}`), {
      instanceId,
      allow_list: ['192.0.2.1/32'],
    })) as Database;
    expect(replaced.allow_list).toEqual(['192.0.2.1/32']);
    // The allow_list is still being applied: a resize must wait.
    const early = await apiErrorOf(
      demo.call(op(`PUT ${MYSQL}/{instanceId}`), { instanceId, type: 'g6-standard-2' }),
    );
    expect(early.message).toMatch(/update is still being applied/);
    emulator.control.advance(MINUTE);

    const smaller = await apiErrorOf(
      demo.call(op(`PUT ${MYSQL}/{instanceId}`), { instanceId, type: 'g6-nanode-1' }),
    );
    expect(smaller.errors).toEqual([
      { field: 'type', reason: 'must be a type with more disk space than g6-standard-1' },
    ]);
    const resized = (await demo.call(op(`PUT ${MYSQL}/{instanceId}`), {
      instanceId,
      type: 'g6-standard-2',
    })) as Database;
    expect(resized.status).toBe('updating');
    const during = await apiErrorOf(
      demo.call(op(`PUT ${MYSQL}/{instanceId}`), { instanceId, label: 'rule-four-b' }),
    );
    expect(during.message).toMatch(/resize is running/);
    emulator.control.advance(10 * MINUTE);
    expect(await view(MYSQL, instanceId)).toMatchObject({ status: 'active', type: 'g6-standard-2' });
  });

  it('databases rule 5: a fourth snapshot is refused; one backup runs at a time; secondary needs three nodes', async () => {
    const instanceId = await activeMysql('rule-five');
    const snapshot = (label: string, target?: 'primary' | 'secondary') =>
      demo.call(op(`POST ${MYSQL}/{instanceId}/backups`), { instanceId, label, ...(target && { target }) });
    await snapshot('first');
    const concurrent = await apiErrorOf(snapshot('second'));
    expect(concurrent.message).toMatch(/only one backup may run at a time/);
    emulator.control.advance(5 * MINUTE);
    await snapshot('second');
    emulator.control.advance(5 * MINUTE);
    await snapshot('third');
    emulator.control.advance(5 * MINUTE);
    const snapshots = (await backupsOf(MYSQL, instanceId)).filter((b) => b.type === 'snapshot');
    expect(snapshots.map((b) => b.label).sort()).toEqual(['first', 'second', 'third']);
    const fourth = await apiErrorOf(snapshot('fourth'));
    expect(fourth.message).toMatch(/at most 3 snapshots/);
    await demo.call(op(`DELETE ${MYSQL}/{instanceId}/backups/{backupId}`), {
      instanceId,
      backupId: snapshots[0]?.id as number,
    });
    await expect(snapshot('fourth')).resolves.toMatchObject({ type: 'snapshot', label: 'fourth' });
    emulator.control.advance(5 * MINUTE);
    const replica = await apiErrorOf(
      demo.call(op(`POST ${MYSQL}/{instanceId}/backups`), {
        instanceId: inventory,
        label: 'replica',
        target: 'secondary',
      }),
    );
    expect(replica.errors).toEqual([
      { field: 'target', reason: 'secondary needs a high-availability cluster of three nodes' },
    ]);
    await expect(
      demo.call(op(`POST ${POSTGRES}/{instanceId}/backups`), {
        instanceId: analytics,
        label: 'replica',
        target: 'secondary',
      }),
    ).resolves.toMatchObject({ label: 'replica' });
    emulator.control.advance(5 * MINUTE);
  });

  it("databases rule 6: a restore replaces the data with the backup's; after a credentials reset the cluster fails", async () => {
    const record = emulator.control.world.databases.get(analytics);
    if (!record) throw new Error('no analytics database');
    const [latest, older] = (await backupsOf(POSTGRES, analytics)).filter((b) => b.type === 'auto');
    record.used_disk_size_gb = 55;
    await demo.call(op(`POST ${POSTGRES}/{instanceId}/backups/{backupId}/restore`), {
      instanceId: analytics,
      backupId: latest?.id as number,
    });
    expect((await view(POSTGRES, analytics)).status).toBe('restoring');
    emulator.control.advance(10 * MINUTE);
    expect(await view(POSTGRES, analytics)).toMatchObject({ status: 'active', used_disk_size_gb: 31 });

    await demo.call(op(`POST ${POSTGRES}/{instanceId}/credentials/reset`), { instanceId: analytics });
    await demo.call(op(`POST ${POSTGRES}/{instanceId}/backups/{backupId}/restore`), {
      instanceId: analytics,
      backupId: older?.id as number,
    });
    emulator.control.advance(10 * MINUTE);
    expect((await view(POSTGRES, analytics)).status).toBe('failed');
    // A failed cluster may still be restored or deleted (rule 3).
    await expect(
      demo.call(op(`POST ${POSTGRES}/{instanceId}/backups/{backupId}/restore`), {
        instanceId: analytics,
        backupId: latest?.id as number,
      }),
    ).resolves.toEqual({});
  });

  it('databases rule 7: a credentials reset takes a few seconds before the new password applies', async () => {
    const credentials = () =>
      demo.call(op(`GET ${MYSQL}/{instanceId}/credentials`), { instanceId: orders }) as Promise<{
        password: string;
      }>;
    const before = await credentials();
    await demo.call(op(`POST ${MYSQL}/{instanceId}/credentials/reset`), { instanceId: orders });
    expect((await credentials()).password).toBe(before.password);
    emulator.control.advance(5 * SECOND);
    const after = await credentials();
    expect(after.password).not.toBe(before.password);
    expect(after.password.length).toBeGreaterThanOrEqual(16);
  });

  it('databases rule 8: patching updates the operating system, never the engine version', async () => {
    const before = await view(MYSQL, orders);
    await demo.call(op(`POST ${MYSQL}/{instanceId}/patch`), { instanceId: orders });
    expect((await view(MYSQL, orders)).status).toBe('updating');
    const restore = await apiErrorOf(
      demo.call(op(`POST ${MYSQL}/{instanceId}/backups/{backupId}/restore`), {
        instanceId: orders,
        backupId: (await backupsOf(MYSQL, orders))[0]?.id as number,
      }),
    );
    expect(restore.message).toMatch(/updating/);
    emulator.control.advance(10 * MINUTE);
    expect(await view(MYSQL, orders)).toMatchObject({ status: 'active', version: before.version });
  });

  it('databases rule 9: an automatic backup is taken every day at 0:00 UTC and each is kept 7 days', async () => {
    const autos = async () => (await backupsOf(MYSQL, orders)).filter((b) => b.type === 'auto');
    const before = await autos();
    expect(before).toHaveLength(7);
    expect(before.every((b) => b.created.endsWith('T00:00:00'))).toBe(true);
    emulator.control.advance(DAY);
    const after = await autos();
    expect(after).toHaveLength(7);
    expect(after[0]?.created).not.toBe(before[0]?.created);
    expect(Date.parse(`${after[0]?.created}Z`) - Date.parse(`${before[0]?.created}Z`)).toBe(DAY);
  });

  it('databases rule 8: in the maintenance window a one-node cluster is down for patching, a three-node one is not', async () => {
    const oneNode = await activeMysql('window-one');
    await demo.call(op(`PUT ${MYSQL}/{instanceId}`), {
      instanceId: oneNode,
      updates: { day_of_week: 3, hour_of_day: 4, duration: 2, frequency: 'weekly', week_of_month: null },
    });
    const threeNode = (await demo.call(op(`POST ${MYSQL}`), {
      label: 'window-three',
      region: 'us-east',
      type: 'g6-standard-1',
      engine: 'mysql/8.0.30',
      cluster_size: 3,
    })) as Database;
    emulator.control.advance(20 * MINUTE);
    await demo.call(op(`PUT ${MYSQL}/{instanceId}`), {
      instanceId: threeNode.id,
      updates: { day_of_week: 3, hour_of_day: 4, duration: 2, frequency: 'weekly', week_of_month: null },
    });
    // Next Wednesday 04:30 UTC.
    const now = emulator.control.now();
    const dayOfWeek = new Date(now).getUTCDay() || 7;
    const wednesday = Math.floor(now / DAY) * DAY + ((3 - dayOfWeek + 7) % 7 || 7) * DAY;
    emulator.control.advance(wednesday + 4 * HOUR + 30 * MINUTE - now);
    expect((await view(MYSQL, oneNode)).status).toBe('updating');
    expect((await view(MYSQL, threeNode.id)).status).toBe('active');
    emulator.control.advance(2 * HOUR);
    expect((await view(MYSQL, oneNode)).status).toBe('active');
  });
});

describe('database catalogue', () => {
  it('engines and types need no token; engines can be filtered', async () => {
    const anonymous = clientFor(emulator, undefined);
    const engines = (await anonymous.call(
      op('GET /databases/engines'),
      {},
      { filter: { engine: 'postgresql' } },
    )) as {
      data: { id: string }[];
    };
    expect(engines.data.map((e) => e.id)).toEqual(['postgresql/16.2', 'postgresql/14.6', 'postgresql/13.2']);
    await expect(
      anonymous.call(op('GET /databases/types/{typeId}'), { typeId: 'g6-nanode-1' }),
    ).resolves.toMatchObject({
      id: 'g6-nanode-1',
    });
  });

  it('a database of the other engine kind is not found under this kind', async () => {
    const error = await apiErrorOf(demo.call(op(`GET ${POSTGRES}/{instanceId}`), { instanceId: orders }));
    expect(error.status).toBe(404);
  });
});
