import {
  CreateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';

/**
 * The bot's one DynamoDB table, described once as data. `serverless.yml` takes its
 * CloudFormation resource from `toCloudFormationTable`, and DynamoDB Local (local stack and
 * tests) creates the same table from `toCreateTableInput`, so the two cannot drift apart.
 *
 * Item layout (single-table design; every key carries the Slack team id):
 *   TEAM#T#USER#U   LINK#<profile>           token link (token encrypted)
 *   TEAM#T#USER#U   ACTIVE                   active profile name
 *   TEAM#T          APPROVAL#<id>            approval request
 *   TEAM#T          POLICY                   approval policy
 *   TEAM#T          REPORT#<id>              report subscription (gsi1 while not paused)
 *   TEAM#T          AUDIT#<iso time>#<id>    audit entry
 *   TEAM#T          WATCH#<id>               status watch of a long operation (gsi1 under WATCH while running)
 *   TEAM#T          MEMBER#<user>            the user has items under TEAM#T#USER#<user> (found on uninstall)
 *   TEAM#T#USER#U   REMINDER#EXPIRY#…        token expiry reminder already sent
 *   CLAIM#<key>     CLAIM                    Slack delivery claim (idempotency)
 *   IDEMPOTENCY#worker  <hash>               Powertools idempotency record of a worker job
 */

export const DEFAULT_TABLE_NAME = 'cloud-chatops';

export const TABLE_DEFINITION = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Sparse index of report subscriptions that are not paused, ordered by next run time. */
  dueReportsIndex: { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  /** Epoch seconds; DynamoDB deletes the item some time after it passes (reads filter earlier). */
  ttlAttribute: 'expires_at',
  billingMode: 'PAY_PER_REQUEST',
  pointInTimeRecovery: true,
} as const;

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
