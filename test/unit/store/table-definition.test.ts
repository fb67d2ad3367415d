import { DescribeTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toCloudFormationTable, toCreateTableInput } from '../../../infra/table.js';
import { TABLE_DEFINITION } from '../../../lib/store/table-definition.js';
import { createTestTable, type TestTable } from '../../support/store.js';

describe('the table definition', () => {
  it('gives CloudFormation the same keys and index as the local table, plus TTL and point-in-time recovery', () => {
    const local = toCreateTableInput('chatops');
    const { Properties } = toCloudFormationTable('chatops');
    expect(Properties.KeySchema).toEqual(local.KeySchema);
    expect(Properties.AttributeDefinitions).toEqual(local.AttributeDefinitions);
    expect(Properties.GlobalSecondaryIndexes).toEqual(local.GlobalSecondaryIndexes);
    expect(Properties.BillingMode).toBe('PAY_PER_REQUEST');
    expect(Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'expires_at', Enabled: true });
    expect(Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
  });

  it('passes a CloudFormation intrinsic through as the table name', () => {
    const name = { Ref: 'TableNameParameter' };
    expect(toCloudFormationTable(name).Properties.TableName).toBe(name);
  });
});

describe('createTable on DynamoDB Local', () => {
  let table: TestTable;
  beforeAll(async () => {
    table = await createTestTable();
  });
  afterAll(() => table.dispose());

  it('creates the keys, the due-reports index and TTL on expires_at', async () => {
    const { Table } = await table.client.send(new DescribeTableCommand({ TableName: table.ctx.tableName }));
    expect(Table?.KeySchema).toEqual(toCreateTableInput(table.ctx.tableName).KeySchema);
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName)).toEqual([
      TABLE_DEFINITION.dueReportsIndex.name,
    ]);
    const ttl = await table.client.send(new DescribeTimeToLiveCommand({ TableName: table.ctx.tableName }));
    expect(ttl.TimeToLiveDescription).toMatchObject({
      AttributeName: 'expires_at',
      TimeToLiveStatus: 'ENABLED',
    });
  });
});
