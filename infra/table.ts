import {
  CreateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { TABLE_DEFINITION } from '../lib/store/table-definition.js';

/** Input for `CreateTableCommand` (DynamoDB Local and tests). TTL is set separately, see `createTable`. */
export function toCreateTableInput(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey, dueReportsIndex, billingMode } = TABLE_DEFINITION;
  return {
    TableName: tableName,
    BillingMode: billingMode,
    AttributeDefinitions: [
      { AttributeName: partitionKey, AttributeType: 'S' },
      { AttributeName: sortKey, AttributeType: 'S' },
      { AttributeName: dueReportsIndex.partitionKey, AttributeType: 'S' },
      { AttributeName: dueReportsIndex.sortKey, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: dueReportsIndex.name,
        KeySchema: [
          { AttributeName: dueReportsIndex.partitionKey, KeyType: 'HASH' },
          { AttributeName: dueReportsIndex.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  };
}

/** A CloudFormation `AWS::DynamoDB::Table` resource; `tableName` may be a string or an intrinsic (`!Sub`). */
export function toCloudFormationTable(tableName: unknown) {
  const input = toCreateTableInput('unused');
  return {
    Type: 'AWS::DynamoDB::Table',
    DeletionPolicy: 'Retain',
    UpdateReplacePolicy: 'Retain',
    Properties: {
      TableName: tableName,
      BillingMode: input.BillingMode,
      AttributeDefinitions: input.AttributeDefinitions,
      KeySchema: input.KeySchema,
      GlobalSecondaryIndexes: input.GlobalSecondaryIndexes,
      TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.ttlAttribute, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: TABLE_DEFINITION.pointInTimeRecovery },
    },
  } as const;
}

/**
 * Creates the table (unless it exists already) and turns TTL on, as CloudFormation would.
 * Point-in-time recovery is left out: DynamoDB Local has no backups to configure.
 */
export async function createTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new CreateTableCommand(toCreateTableInput(tableName)));
  } catch (error) {
    // Already there (a second start against a persistent database): it was set up then.
    if (error instanceof ResourceInUseException) return;
    throw error;
  }
  await waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName: tableName });
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.ttlAttribute, Enabled: true },
    }),
  );
}
