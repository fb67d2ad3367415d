import { describe, expect, it } from 'vitest';
import { responseSchemaOf } from '../../../lib/api/operation.js';
import { databaseOperations } from '../../../lib/api/operations/databases.js';
import { getOperation, requireOperation } from '../../../lib/api/operations/index.js';
import { issuesOf, publishedExample } from '../../support/openapi-examples.js';

const KINDS = ['mysql', 'postgresql'] as const;

const validMySql = {
  label: 'orders',
  region: 'us-east',
  type: 'g6-dedicated-2',
  engine: 'mysql/8.0.26',
};
const validPostgreSql = { ...validMySql, engine: 'postgresql/13.2' };

describe('databases.mysql-create', () => {
  it('accepts a one-node cluster with the required fields', () => {
    expect(issuesOf('databases.mysql-create', validMySql)).toEqual([]);
  });
  it('accepts a three-node cluster with semi_synch or asynch replication', () => {
    for (const replication_type of ['semi_synch', 'asynch']) {
      expect(
        issuesOf('databases.mysql-create', { ...validMySql, cluster_size: 3, replication_type }),
      ).toEqual([]);
    }
  });
  it('requires label, region, type and engine', () => {
    expect(issuesOf('databases.mysql-create', {})).toEqual([
      'label: is required',
      'region: is required',
      'type: is required',
      'engine: is required',
    ]);
  });
  it('rejects a label outside 3..32 characters', () => {
    expect(issuesOf('databases.mysql-create', { ...validMySql, label: 'db' })).toEqual([
      'label: must be 3 to 32 characters',
    ]);
    expect(issuesOf('databases.mysql-create', { ...validMySql, label: 'x'.repeat(33) })).toEqual([
      'label: is 33 characters; the most it can be is 32',
    ]);
  });
  it('rejects a cluster size other than 1 or 3', () => {
    expect(issuesOf('databases.mysql-create', { ...validMySql, cluster_size: 2 })).toEqual([
      'cluster_size: must be 1 or 3',
    ]);
  });
  it('rejects an engine not in engine/version format for the kind', () => {
    for (const engine of ['mysql', '8.0.26', 'postgresql/13.2']) {
      expect(issuesOf('databases.mysql-create', { ...validMySql, engine })).toEqual([
        'engine: must be in engine/version format, e.g. mysql/8.0.26',
      ]);
    }
  });
  it('rejects an allow_list entry that is not an IPv4 address or CIDR range', () => {
    for (const entry of ['example.com', '203.0.113.256', '203.0.113.0/33']) {
      expect(
        issuesOf('databases.mysql-create', { ...validMySql, allow_list: ['203.0.113.1/32', entry] }),
      ).toEqual(['allow_list.1: must be an IPv4 address or CIDR range, e.g. 203.0.113.7 or 192.0.2.0/24']);
    }
  });
  it('accepts single IP addresses in allow_list ("Single IPs or CIDR ranges")', () => {
    expect(
      issuesOf('databases.mysql-create', { ...validMySql, allow_list: ['203.0.113.7', '192.0.2.0/24'] }),
    ).toEqual([]);
  });
  it('replication_type must be none for a one-node cluster', () => {
    expect(issuesOf('databases.mysql-create', { ...validMySql, replication_type: 'semi_synch' })).toEqual([
      'replication_type: must be none for a one-node cluster',
    ]);
  });
  it('replication_type must be asynch or semi_synch for a three-node cluster', () => {
    expect(
      issuesOf('databases.mysql-create', { ...validMySql, cluster_size: 3, replication_type: 'none' }),
    ).toEqual(['replication_type: must be asynch or semi_synch for a three-node cluster']);
  });
  it('rejects replication_commit_type, which is PostgreSQL only', () => {
    expect(issuesOf('databases.mysql-create', { ...validMySql, replication_commit_type: 'local' })).toEqual([
      ': Unrecognized key: "replication_commit_type"',
    ]);
  });
});

describe('databases.postgresql-create', () => {
  it('accepts a three-node cluster with asynch replication and local commits', () => {
    expect(
      issuesOf('databases.postgresql-create', {
        ...validPostgreSql,
        cluster_size: 3,
        replication_type: 'asynch',
        replication_commit_type: 'local',
      }),
    ).toEqual([]);
  });
  it('rejects a MySQL engine', () => {
    expect(issuesOf('databases.postgresql-create', { ...validPostgreSql, engine: 'mysql/8.0.26' })).toEqual([
      'engine: must be in engine/version format, e.g. postgresql/13.2',
    ]);
  });
  it('rejects semi_synch, which only MySQL offers', () => {
    expect(
      issuesOf('databases.postgresql-create', {
        ...validPostgreSql,
        cluster_size: 3,
        replication_type: 'semi_synch',
      }),
    ).toEqual(['replication_type: must be one of none, asynch']);
  });
  it('replication_type must be none for a one-node cluster', () => {
    expect(
      issuesOf('databases.postgresql-create', { ...validPostgreSql, replication_type: 'asynch' }),
    ).toEqual(['replication_type: must be none for a one-node cluster']);
  });
  it('replication_type must be asynch for a three-node cluster', () => {
    expect(
      issuesOf('databases.postgresql-create', {
        ...validPostgreSql,
        cluster_size: 3,
        replication_type: 'none',
      }),
    ).toEqual(['replication_type: must be asynch for a three-node cluster']);
  });
  it('replication_commit_type must be local or off with asynch replication', () => {
    expect(
      issuesOf('databases.postgresql-create', {
        ...validPostgreSql,
        cluster_size: 3,
        replication_type: 'asynch',
        replication_commit_type: 'remote_write',
      }),
    ).toEqual(['replication_commit_type: must be local or off when replication_type is asynch']);
  });
  it('applies the commit rule when asynch is only the three-node default', () => {
    expect(
      issuesOf('databases.postgresql-create', {
        ...validPostgreSql,
        cluster_size: 3,
        replication_commit_type: 'on',
      }),
    ).toEqual(['replication_commit_type: must be local or off when replication_type is asynch']);
  });
  it('allows any commit type for a one-node cluster', () => {
    expect(
      issuesOf('databases.postgresql-create', { ...validPostgreSql, replication_commit_type: 'on' }),
    ).toEqual([]);
  });
  it('rejects an unknown commit type', () => {
    expect(
      issuesOf('databases.postgresql-create', { ...validPostgreSql, replication_commit_type: 'sync' }),
    ).toEqual(['replication_commit_type: must be one of on, local, remote_write, remote_apply, off']);
  });
});

describe.each(KINDS)('databases.%s-update', (kind) => {
  const id = `databases.${kind}-update`;
  const weekly = { day_of_week: 1, duration: 3, frequency: 'weekly', hour_of_day: 0, week_of_month: null };

  it('accepts a label, an allow list and a weekly maintenance window', () => {
    expect(
      issuesOf(id, { instanceId: 5, label: 'orders-v2', allow_list: ['0.0.0.0/0'], updates: weekly }),
    ).toEqual([]);
  });
  it('accepts a monthly window with week_of_month', () => {
    expect(
      issuesOf(id, { instanceId: 5, updates: { ...weekly, frequency: 'monthly', week_of_month: 2 } }),
    ).toEqual([]);
  });
  it('rule 4: allow_list and type cannot change together', () => {
    expect(issuesOf(id, { instanceId: 5, allow_list: ['203.0.113.1'], type: 'g6-dedicated-4' })).toEqual([
      'type: cannot be changed together with allow_list',
    ]);
  });
  it('week_of_month is required for monthly maintenance', () => {
    expect(issuesOf(id, { instanceId: 5, updates: { ...weekly, frequency: 'monthly' } })).toEqual([
      'updates.week_of_month: is required when frequency is monthly',
    ]);
  });
  it('week_of_month must be null for weekly maintenance, the default frequency', () => {
    expect(issuesOf(id, { instanceId: 5, updates: { ...weekly, week_of_month: 2 } })).toEqual([
      'updates.week_of_month: must be null when frequency is weekly',
    ]);
    expect(issuesOf(id, { instanceId: 5, updates: { day_of_week: 3, week_of_month: 2 } })).toEqual([
      'updates.week_of_month: must be null when frequency is weekly',
    ]);
  });
  it('rejects maintenance values outside their ranges', () => {
    expect(
      issuesOf(id, {
        instanceId: 5,
        updates: { day_of_week: 8, duration: 4, hour_of_day: 24, frequency: 'daily', week_of_month: 5 },
      }),
    ).toEqual([
      'updates.day_of_week: must be between 1 and 7',
      'updates.duration: must be between 1 and 3',
      'updates.frequency: must be one of weekly, monthly',
      'updates.hour_of_day: must be between 0 and 23',
      'updates.week_of_month: must be between 1 and 4',
    ]);
  });
  it('rejects a maintenance window that is not an object', () => {
    expect(issuesOf(id, { instanceId: 5, updates: 'weekly' })).toEqual(['updates: must be an object']);
  });
  it('rejects a label longer than 32 characters', () => {
    expect(issuesOf(id, { instanceId: 5, label: 'x'.repeat(33) })).toEqual([
      'label: is 33 characters; the most it can be is 32',
    ]);
  });
});

describe.each(KINDS)('databases.%s-backup-snapshot', (kind) => {
  const id = `databases.${kind}-backup-snapshot`;

  it('accepts a label of letters, digits and underscores with a target', () => {
    expect(issuesOf(id, { instanceId: 5, label: 'before_migration_2', target: 'secondary' })).toEqual([]);
  });
  it('requires a label', () => {
    expect(issuesOf(id, { instanceId: 5 })).toEqual(['label: is required']);
  });
  it('rejects a label longer than 30 characters', () => {
    expect(issuesOf(id, { instanceId: 5, label: 'x'.repeat(31) })).toEqual([
      'label: is 31 characters; the most it can be is 30',
    ]);
  });
  it('rejects a label with characters other than ASCII letters, digits and underscores', () => {
    expect(issuesOf(id, { instanceId: 5, label: 'before-migration' })).toEqual([
      'label: may contain only ASCII letters, digits and underscores',
    ]);
  });
  it('rejects a target other than primary or secondary', () => {
    expect(issuesOf(id, { instanceId: 5, label: 'snap', target: 'replica' })).toEqual([
      'target: must be one of primary, secondary',
    ]);
  });
  it('accepts the snapshot backup of the documents and the `{}` of the published spec', () => {
    const response = requireOperation(id).response;
    expect(response.safeParse({}).success).toBe(true);
    expect(
      response.parse({ id: 9, type: 'snapshot', label: 'before_migration', created: '2024-01-01T00:00:00' }),
    ).toMatchObject({ id: 9, label: 'before_migration' });
  });
});

describe.each(KINDS)('databases %s rows', (kind) => {
  it('use the concrete paths of the kind', () => {
    expect(requireOperation(`databases.${kind}-backup-restore`).path).toBe(
      `/databases/${kind}/instances/{instanceId}/backups/{backupId}/restore`,
    );
    expect(requireOperation(`databases.${kind}-backup-restore`).pathParams).toEqual([
      'instanceId',
      'backupId',
    ]);
  });
  it('need approval to delete, restore over data or reset credentials', () => {
    for (const action of ['delete', 'backup-delete', 'backup-restore', 'creds-reset']) {
      expect(requireOperation(`databases.${kind}-${action}`).destructive, action).toBeDefined();
    }
    expect(requireOperation(`databases.${kind}-backup-restore`).destructive?.consequence).toBe(
      "Erases all existing data of the database and replaces it with the backup's; restoring after a credentials reset leaves the cluster failed.",
    );
    expect(requireOperation(`databases.${kind}-patch`).destructive).toBeUndefined();
  });
  it('keep credentials private to the person who asked', () => {
    expect(getOperation(`databases.${kind}-creds-view`).sensitive).toBe(true);
    expect(getOperation(`databases.${kind}-view`).sensitive).toBe(false);
  });
  it('name the grants: add_databases to create, unrestricted users to delete and reset credentials', () => {
    expect(getOperation(`databases.${kind}-create`).grants).toEqual(['add_databases']);
    expect(getOperation(`databases.${kind}-delete`).grants).toEqual(['unrestricted_only']);
    expect(getOperation(`databases.${kind}-creds-reset`).grants).toEqual(['unrestricted_only']);
  });
  it('watch a new database until it settles', () => {
    expect(getOperation(`databases.${kind}-create`).watch).toEqual({
      statusField: 'status',
      final: ['active', 'failed', 'degraded'],
      view: `databases.${kind}-view`,
    });
  });
  it('need read_write to list and view backups, as the documents list', () => {
    expect(getOperation(`databases.${kind}-backups-list`).scopes).toEqual(['databases:read_write']);
    expect(getOperation(`databases.${kind}-backup-view`).scopes).toEqual(['databases:read_write']);
  });
});

describe('databases shared rows', () => {
  it('serve engines and types without a token', () => {
    for (const id of [
      'databases.engines',
      'databases.engines-view',
      'databases.types',
      'databases.types-view',
    ]) {
      expect(requireOperation(id).access, id).toBe('public');
      expect(requireOperation(id).scopes, id).toEqual([]);
    }
  });
  it('list every kind with the filterable fields of a database', () => {
    const list = getOperation('databases.list');
    expect([list.path, list.paginated]).toEqual(['/databases/instances', true]);
    expect(list.filterable).toEqual(['label', 'type', 'engine', 'version', 'region', 'status']);
  });
  it('count 33 rows', () => {
    expect(databaseOperations).toHaveLength(33);
  });
});

describe('databases responses', () => {
  it.each(databaseOperations.map((op) => [op.id, op] as const))(
    '%s accepts the published example',
    (_id, op) => {
      const result = responseSchemaOf(op).safeParse(publishedExample(op));
      expect(result.error?.issues ?? []).toEqual([]);
    },
  );
});
