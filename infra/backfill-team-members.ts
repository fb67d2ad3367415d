import { parseArgs } from 'node:util';
import { type AttributeValue, DynamoDBClient, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { parseMemberKey, parseUserPartition, type TeamUser } from '../lib/store/keys.js';
import { teamMemberItem } from '../lib/store/team-data.js';

/**
 * Writes the member items (`TEAM#T` / `MEMBER#U`) that an earlier version of the bot did not write.
 * A workspace's removal finds its users' partitions (`TEAM#T#USER#U`: token links, active profiles,
 * expiry reminders) only through those items, so without them an uninstall would leave the sealed
 * API tokens of users who linked before this version. Run once by an operator after deploying:
 *
 *   npm run backfill:members -- --table NAME [--region R] [--segments N] [--dry-run]
 *
 * It scans the whole table, which the functions' roles may not (they find everything by key), so
 * it runs with the operator's credentials and the SDK's usual chain (profiles, SSO, environment),
 * and at the endpoint the environment names (`AWS_ENDPOINT_URL_DYNAMODB`, `AWS_ENDPOINT_URL`), as
 * the functions' table client does. Only keys are read (a projection of `pk, sk`), so no token or
 * other item content passes through it, and it prints counts only. Each member item is put only
 * if absent: a rerun writes nothing, and an item the bot wrote meanwhile is left as it is.
 */

export interface BackfillOptions {
  readonly tableName: string;
  /** Parallel scan segments (DynamoDB's `Segment` / `TotalSegments`). */
  readonly segments: number;
  /** Count what is missing, write nothing. */
  readonly dryRun: boolean;
}

export interface BackfillCounts {
  /** Items the scan read (keys only). */
  readonly itemsScanned: number;
  /** Teams with at least one user partition. */
  readonly teams: number;
  /** User partitions found, each a (team, user) pair that needs a member item. */
  readonly usersFound: number;
  /** Member items that were there already (seen by the scan, or written by the bot meanwhile). */
  readonly alreadyPresent: number;
  /** Member items missing when the scan ran; in a dry run, what a real run would write. */
  readonly missing: number;
  /** Member items this run wrote (0 in a dry run). */
  readonly written: number;
}

/** What the backfill needs of the SDK's client, so tests can step between its calls. */
export type BackfillClient = Pick<DynamoDBClient, 'send'>;

/** Conditional puts in flight at once: quick on a large table, gentle on an on-demand one. */
const WRITES_AT_ONCE = 8;
const MAX_SEGMENTS = 64;

export async function backfillTeamMembers(
  client: BackfillClient,
  options: BackfillOptions,
): Promise<BackfillCounts> {
  const users = new Map<string, TeamUser>();
  const present = new Set<string>();
  let itemsScanned = 0;

  const scanSegment = async (segment: number) => {
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({
          TableName: options.tableName,
          ProjectionExpression: 'pk, sk',
          // A member item written just before the scan reached it is seen, not written again.
          ConsistentRead: true,
          ...(options.segments > 1 ? { Segment: segment, TotalSegments: options.segments } : {}),
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      for (const item of page.Items ?? []) {
        itemsScanned += 1;
        const pk = item.pk?.S;
        const sk = item.sk?.S;
        if (pk === undefined || sk === undefined) continue;
        const owner = parseUserPartition(pk);
        if (owner) users.set(pairKey(owner), owner);
        const member = parseMemberKey(pk, sk);
        if (member) present.add(pairKey(member));
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  };
  await Promise.all(Array.from({ length: options.segments }, (_, segment) => scanSegment(segment)));

  const missing = [...users.entries()].filter(([key]) => !present.has(key)).map(([, owner]) => owner);
  let written = 0;
  let writtenMeanwhile = 0;
  if (!options.dryRun) {
    for (let i = 0; i < missing.length; i += WRITES_AT_ONCE) {
      const outcomes = await Promise.all(
        missing.slice(i, i + WRITES_AT_ONCE).map((owner) => putIfAbsent(client, options.tableName, owner)),
      );
      written += outcomes.filter((outcome) => outcome === 'written').length;
      writtenMeanwhile += outcomes.filter((outcome) => outcome === 'present').length;
    }
  }
  return {
    itemsScanned,
    teams: new Set([...users.values()].map((owner) => owner.team)).size,
    usersFound: users.size,
    alreadyPresent: users.size - missing.length + writtenMeanwhile,
    missing: missing.length,
    written,
  };
}

async function putIfAbsent(
  client: BackfillClient,
  tableName: string,
  owner: TeamUser,
): Promise<'written' | 'present'> {
  const item = teamMemberItem(owner.team, owner.user);
  try {
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: Object.fromEntries(Object.entries(item).map(([name, value]) => [name, { S: value }])),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return 'written';
  } catch (error) {
    // The bot recorded the member after the scan: its item stands.
    if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return 'present';
    throw error;
  }
}

function pairKey(owner: TeamUser): string {
  // Ids never hold a space (keys.ts checks them), so the pair cannot be read two ways.
  return `${owner.team} ${owner.user}`;
}

/** The command line, parsed once. DynamoDB table names: 3 to 255 of `a-z A-Z 0-9 _ - .`. */
const ArgumentsSchema = z.object({
  table: z.string().regex(/^[A-Za-z0-9_.-]{3,255}$/, 'is not a DynamoDB table name'),
  region: z.string().min(1).optional(),
  segments: z.coerce.number().int().min(1).max(MAX_SEGMENTS).default(1),
  'dry-run': z.boolean().default(false),
});

const USAGE =
  'usage: npm run backfill:members -- --table NAME [--region REGION] [--segments N (1-64)] [--dry-run]';

export type BackfillArguments = z.infer<typeof ArgumentsSchema>;

/** The arguments, or a message saying what is wrong with them. */
export function parseBackfillArguments(
  argv: readonly string[],
): { ok: true; args: BackfillArguments } | { ok: false; message: string } {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        table: { type: 'string' },
        region: { type: 'string' },
        segments: { type: 'string' },
        'dry-run': { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { ok: false, message: `${error instanceof Error ? error.message : String(error)}\n${USAGE}` };
  }
  const parsed = ArgumentsSchema.safeParse(values);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message}`);
    return { ok: false, message: `${problems.join('\n')}\n${USAGE}` };
  }
  return { ok: true, args: parsed.data };
}

export function describeCounts(tableName: string, dryRun: boolean, counts: BackfillCounts): string[] {
  return [
    `Team member backfill of table ${tableName}${dryRun ? ' (dry run: nothing written)' : ''}`,
    `items scanned:                ${counts.itemsScanned}`,
    `users found:                  ${counts.usersFound} (in ${counts.teams} team(s))`,
    `member items already present: ${counts.alreadyPresent}`,
    dryRun
      ? `member items to write:        ${counts.missing}`
      : `member items written:         ${counts.written}`,
  ];
}

/** The command: its exit status (0 done, 1 failed, 2 bad arguments). */
export async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseBackfillArguments(argv);
  if (!parsed.ok) {
    console.error(parsed.message);
    return 2;
  }
  const { table, region, segments, 'dry-run': dryRun } = parsed.args;
  // The SDK's standard retries, with more attempts than a request path could afford: a long scan
  // of an on-demand table may be throttled for a while.
  const client = new DynamoDBClient({ ...(region ? { region } : {}), maxAttempts: 10 });
  try {
    const counts = await backfillTeamMembers(client, { tableName: table, segments, dryRun });
    for (const line of describeCounts(table, dryRun, counts)) console.log(line);
    return 0;
  } catch (error) {
    // Name and message only: the SDK's errors carry no item contents, but the request is not shown.
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
    const hint = region === undefined && /region/i.test(reason) ? ' (give --region or set AWS_REGION)' : '';
    console.error(`Team member backfill of table ${table} failed: ${reason}${hint}`);
    console.error('Run it again once the cause is fixed: it writes only what is missing.');
    return 1;
  } finally {
    client.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main(process.argv.slice(2));
}
