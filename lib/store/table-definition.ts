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
