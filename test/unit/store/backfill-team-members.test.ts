import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type BackfillClient,
  backfillTeamMembers,
  parseBackfillArguments,
} from '../../../infra/backfill-team-members.js';
import { localDynamoDbClientConfig } from '../../../infra/local/dynamodb.js';
import { removeTeam } from '../../../lib/core/installations.js';
import { createStore } from '../../../lib/store/index.js';
import { keys } from '../../../lib/store/keys.js';
import { ReportSubscriptionRepository } from '../../../lib/store/report-subscriptions.js';
import { recordTeamMember } from '../../../lib/store/team-data.js';
import { TokenLinkRepository } from '../../../lib/store/token-links.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * Token links saved before member items existed have none, so a workspace's removal, which finds
 * users by their member items, would leave those users' sealed API tokens in the table. The
 * backfill (`npm run backfill:members`) writes the missing member items once after a deploy.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const run = promisify(execFile);

let test: TestTable;
let links: TokenLinkRepository;
const cipher = randomLocalCipher();
beforeAll(async () => {
  test = await createTestTable();
  links = new TokenLinkRepository(test.ctx, cipher);
  await seedAsTheEarlierVersionDid();
});
afterAll(() => test.dispose());

const EXPIRY = new Date('2031-01-01T00:00:00Z');

async function link(team: string, user: string, profile = 'default') {
  await links.saveLink({
    team,
    user,
    profile,
    token: `secret-token-${team}-${user}-${profile}`,
    label: 'ci',
    apiUsername: user.toLowerCase(),
    scopes: '*',
    expiry: EXPIRY,
  });
}

async function partition(pk: string) {
  const page = await test.table.query({
    TableName: test.ctx.tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': pk },
    ConsistentRead: true,
  });
  return page.Items ?? [];
}

async function members(team: string): Promise<string[]> {
  return (await partition(keys.team(team)))
    .map((item) => String(item.sk))
    .filter((sk) => sk.startsWith(keys.memberPrefix))
    .sort();
}

/**
 * Two teams whose users linked tokens (and got an expiry reminder) before member items existed:
 * the items are saved as today, then the member items removed. One user of the second team linked
 * with this version and has its member item.
 */
async function seedAsTheEarlierVersionDid() {
  await link('T0GONE', 'U0ALPHA');
  await link('T0GONE', 'U0ALPHA', 'staging');
  await link('T0GONE', 'U0BETA');
  await new ReportSubscriptionRepository(test.ctx).claimExpiryReminder(
    'T0GONE',
    'U0GAMMA',
    'default',
    EXPIRY,
  );
  await link('T0STAYS', 'U0ALPHA');
  await link('T0STAYS', 'U0DELTA');
  for (const team of ['T0GONE', 'T0STAYS']) {
    for (const sk of await members(team)) {
      await test.table.delete({ TableName: test.ctx.tableName, Key: { pk: keys.team(team), sk } });
    }
  }
  await link('T0STAYS', 'U0NEW');
}

/** The command as an operator runs it, against DynamoDB Local named by the SDK's variable. */
async function runCommand(...args: string[]) {
  return run(process.execPath, ['--import', 'tsx', 'infra/backfill-team-members.ts', ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      AWS_ENDPOINT_URL_DYNAMODB: inject('dynamoEndpoint'),
      AWS_REGION: 'local',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  });
}

describe('backfilling team member items', () => {
  it('with --dry-run, counts what is missing and writes nothing', async () => {
    const { stdout, stderr } = await runCommand('--table', test.ctx.tableName, '--dry-run');

    // Counts only: no ids, no token, no item content.
    expect(stdout.trim().split('\n')).toEqual([
      `Team member backfill of table ${test.ctx.tableName} (dry run: nothing written)`,
      'items scanned:                13',
      'users found:                  6 (in 2 team(s))',
      'member items already present: 1',
      'member items to write:        5',
    ]);
    expect(stderr).toBe('');
    expect(await members('T0GONE')).toEqual([]);
    expect(await members('T0STAYS')).toEqual(['MEMBER#U0NEW']);
  });

  it('writes the member item of every user partition, scanning in parallel segments', async () => {
    const client = new DynamoDBClient(localDynamoDbClientConfig(inject('dynamoEndpoint')));
    try {
      const counts = await backfillTeamMembers(client, {
        tableName: test.ctx.tableName,
        segments: 3,
        dryRun: false,
      });
      expect(counts).toEqual({
        itemsScanned: 13,
        teams: 2,
        usersFound: 6,
        alreadyPresent: 1,
        missing: 5,
        written: 5,
      });
    } finally {
      client.destroy();
    }
    expect(await members('T0GONE')).toEqual(['MEMBER#U0ALPHA', 'MEMBER#U0BETA', 'MEMBER#U0GAMMA']);
    expect(await members('T0STAYS')).toEqual(['MEMBER#U0ALPHA', 'MEMBER#U0DELTA', 'MEMBER#U0NEW']);
    const [written] = (await partition(keys.team('T0GONE'))).filter((item) => item.sk === 'MEMBER#U0BETA');
    expect(written).toEqual({
      pk: 'TEAM#T0GONE',
      sk: 'MEMBER#U0BETA',
      kind: 'team_member',
      user_id: 'U0BETA',
    });
  });

  it('writes nothing when run again', async () => {
    const { stdout } = await runCommand('--table', test.ctx.tableName);

    expect(stdout.trim().split('\n')).toEqual([
      `Team member backfill of table ${test.ctx.tableName}`,
      'items scanned:                18',
      'users found:                  6 (in 2 team(s))',
      'member items already present: 6',
      'member items written:         0',
    ]);
  });

  it("lets the uninstall of one team delete all its users' links and reminders, and none of the other team's", async () => {
    const store = createStore(test.ctx, cipher);
    const logger = new Logger({ serviceName: 'backfill-test', logLevel: 'SILENT' });

    const removal = await removeTeam(
      { store, logger },
      {
        team: 'T0GONE',
        enterprise: undefined,
        reason: 'app_uninstalled',
      },
    );

    expect(removal.linksDeleted).toBe(3);
    for (const user of ['U0ALPHA', 'U0BETA', 'U0GAMMA']) {
      expect(await partition(keys.user('T0GONE', user))).toEqual([]);
    }
    expect(await members('T0GONE')).toEqual([]);
    for (const user of ['U0ALPHA', 'U0DELTA', 'U0NEW']) {
      expect((await links.getToken('T0STAYS', user)).status).toBe('found');
    }
    expect(await members('T0STAYS')).toEqual(['MEMBER#U0ALPHA', 'MEMBER#U0DELTA', 'MEMBER#U0NEW']);
  });

  it('leaves a member item the bot wrote after the scan as it is, and counts it as present', async () => {
    await link('T0RACE', 'U0FIRST');
    await link('T0RACE', 'U0SECOND');
    for (const sk of await members('T0RACE')) {
      await test.table.delete({ TableName: test.ctx.tableName, Key: { pk: keys.team('T0RACE'), sk } });
    }
    const sdk = new DynamoDBClient(localDynamoDbClientConfig(inject('dynamoEndpoint')));
    // The bot links U0FIRST again between the backfill's scan and its write.
    let botWrote = false;
    const racing = {
      send: async (command: unknown) => {
        if (
          command instanceof PutItemCommand &&
          command.input.Item?.sk?.S === 'MEMBER#U0FIRST' &&
          !botWrote
        ) {
          botWrote = true;
          await recordTeamMember(test.ctx, 'T0RACE', 'U0FIRST');
        }
        return sdk.send(command as PutItemCommand);
      },
    } as BackfillClient;
    try {
      const counts = await backfillTeamMembers(racing, {
        tableName: test.ctx.tableName,
        segments: 1,
        dryRun: false,
      });
      expect(botWrote).toBe(true);
      // T0STAYS's three users (T0GONE's left with the uninstall) and T0RACE's two.
      expect(counts).toMatchObject({ usersFound: 5, missing: 2, written: 1, alreadyPresent: 4 });
    } finally {
      sdk.destroy();
    }
    expect(await members('T0RACE')).toEqual(['MEMBER#U0FIRST', 'MEMBER#U0SECOND']);
  });
});

describe('the command line', () => {
  it('needs --table, and takes --region, --segments and --dry-run', () => {
    expect(
      parseBackfillArguments(['--table', 'cloud-chatops-prod', '--region', 'eu-west-1', '--segments', '4']),
    ).toEqual({
      ok: true,
      args: { table: 'cloud-chatops-prod', region: 'eu-west-1', segments: 4, 'dry-run': false },
    });
    expect(parseBackfillArguments(['--table', 't1x', '--dry-run'])).toMatchObject({
      ok: true,
      args: { segments: 1, 'dry-run': true },
    });
  });

  it.each([
    [[], /--table/],
    [['--table', 'a b'], /--table: is not a DynamoDB table name/],
    [['--table', 'tbl', '--segments', '0'], /--segments/],
    [['--table', 'tbl', '--segments', 'many'], /--segments/],
    [['--table', 'tbl', '--force'], /Unknown option '--force'/],
    [['--table', 'tbl', 'extra'], /positional/i],
  ])('refuses %j with a message and the usage', (argv, message) => {
    const parsed = parseBackfillArguments(argv);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.message).toMatch(message);
    expect(parsed.message).toContain('usage: npm run backfill:members');
  });

  it('exits with status 2 on bad arguments, before touching any table', async () => {
    const error = await runCommand('--segments', '3').catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 2 });
    expect((error as { stderr: string }).stderr).toContain('usage: npm run backfill:members');
  });
});
