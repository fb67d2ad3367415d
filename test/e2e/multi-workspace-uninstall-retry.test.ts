import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowInstall } from '../../infra/local/bot-stack.js';
import type { DynamoDbLocal } from '../../infra/local/dynamodb.js';
import { startOwnDynamoDbLocal } from '../support/dynamodb-local.js';
import { ALICE, BOB, type E2E, startE2E } from '../support/e2e.js';

/**
 * An uninstall that cannot finish must not be answered 200: Slack would never deliver it again,
 * and the workspace's linked API tokens would stay. Regression: the app's error handler logged the
 * failure and Bolt answered 200. Now Slack sees a failure, retries (X-Slack-Retry-Num), and the
 * retry finishes the removal and writes the audit line.
 */

let dbPath: string;
let dynamo: DynamoDbLocal;
let e2e: E2E;

beforeAll(async () => {
  dbPath = await mkdtemp(join(tmpdir(), 'chatops-uninstall-'));
  dynamo = await startOwnDynamoDbLocal({ tableName: null, dbPath });
  e2e = await startE2E({ stack: { workspaces: 'many', dynamoEndpoint: dynamo.endpoint } });
  const installUrl = e2e.stack.installUrl;
  if (!installUrl) throw new Error('the stack is not a distributed app');
  const redirect = await allowInstall(installUrl, e2e.stack.workspace.teamId);
  const finished = await request(redirect.url, { headers: { cookie: redirect.cookie } });
  await finished.body.text();
  expect(finished.statusCode).toBe(200);
}, 60_000);

afterAll(async () => {
  await e2e?.close();
  await dynamo?.stop();
  if (dbPath) await rm(dbPath, { recursive: true, force: true });
});

describe('an uninstall while DynamoDB is down', () => {
  it('is answered with a failure, and its retry deletes every linked token and writes the audit line', async () => {
    const team = e2e.stack.workspace.teamId;
    for (const user of [ALICE, BOB]) {
      const delivery = await e2e.login(user, e2e.emulator.demoToken);
      expect(delivery.status).toBe(200);
      expect((await e2e.stack.store.tokenLinks.getToken(team, user)).status).toBe('found');
    }

    await dynamo.stop();
    const failed = await e2e.stack.workspace.uninstall('Ev0UNINSTALLDOWN');
    expect(failed.status).toBeGreaterThanOrEqual(500);

    dynamo = await startOwnDynamoDbLocal({ tableName: null, dbPath, port: dynamo.port });
    const retried = await e2e.stack.workspace.event({ type: 'app_uninstalled' }, 'Ev0UNINSTALLDOWN', {
      num: 1,
      reason: 'http_error',
    });
    expect(retried.status).toBe(200);

    for (const user of [ALICE, BOB]) {
      expect((await e2e.stack.store.tokenLinks.getToken(team, user)).status).toBe('missing');
    }
    const audit = (await e2e.stack.store.audit.list(team)).entries;
    const removals = audit.filter((entry) => entry.action === 'app.uninstalled');
    expect(removals).toHaveLength(1);
    expect(removals[0]?.detail).toContain('2 linked API token(s) deleted');
  }, 90_000);
});
