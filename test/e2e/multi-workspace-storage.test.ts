import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowInstall } from '../../infra/local/bot-stack.js';
import type { DynamoDbLocal } from '../../infra/local/dynamodb.js';
import { startOwnDynamoDbLocal } from '../support/dynamodb-local.js';
import { CHANNEL, type E2E, startE2E } from '../support/e2e.js';

/**
 * A distributed app reads each request's installation from the table before any listener runs.
 * With DynamoDB down that read failed, Bolt treated it as "not authorised", and Slack got an HTTP
 * 500: the person saw Slack's generic "dispatch_failed", not why. The request is still Slack's
 * (signed), so the bot now answers it with the storage message, as a one-workspace bot does.
 */

const STORAGE_MESSAGE = "The bot's storage is not answering, so nothing was changed. Try again in a minute.";
const CAROL = 'U0CAROL';

let dynamo: DynamoDbLocal;
let e2e: E2E;

beforeAll(async () => {
  dynamo = await startOwnDynamoDbLocal({ tableName: null });
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
});

describe('many workspaces, DynamoDB stopped', () => {
  it('answers commands with the storage message (help with help), never an HTTP failure', async () => {
    const before = await e2e.stack.workspace.command(CAROL, CHANNEL, 'help');
    expect(before.status).toBe(200);

    await dynamo.stop();
    for (const text of ['volumes list', 'whoami', 'help']) {
      const delivery = await e2e.stack.workspace.command(CAROL, CHANNEL, text);
      expect(delivery.status, text).toBe(200);
      const answer = e2e.textOf(delivery.message);
      expect(answer, text).not.toContain('Something went wrong');
      if (text === 'help') expect(answer, text).toContain('/cloud');
      else expect(answer, text).toContain(STORAGE_MESSAGE);
    }
  }, 60_000);
});
