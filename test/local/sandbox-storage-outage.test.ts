import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDbLocal } from '../../infra/local/dynamodb.js';
import { SECOND_TEAM } from '../../infra/local/slack/oauth.js';
import type { ActionResult } from '../../infra/local/slack/page/server.js';
import type { PageState } from '../../infra/local/slack/page/state.js';
import { type Sandbox, startSandbox } from '../../infra/local/start.js';
import { startOwnDynamoDbLocal } from '../support/dynamodb-local.js';

/**
 * The sandbox page while the bot's DynamoDB is gone: the page is Slack, which does not read the
 * bot's table, so it keeps showing the workspaces and channels, and a command is answered with
 * what the bot says about its storage. This file stops its own DynamoDB Local (as
 * test/e2e/storage-outage.test.ts does); the global one is shared and never touched.
 */

const STORAGE_MESSAGE = "The bot's storage is not answering";
const ALICE = 'U0ALICE';

let dynamo: DynamoDbLocal;
let sandbox: Sandbox;

beforeAll(async () => {
  dynamo = await startOwnDynamoDbLocal({ tableName: null });
  sandbox = await startSandbox({
    dynamoEndpoint: dynamo.endpoint,
    pagePort: 0,
    emulatorPort: 0,
    // No reporter run during the test: it would only log the outage.
    reportIntervalMs: 3_600_000,
  });
  await dynamo.stop();
}, 90_000);

afterAll(async () => {
  await sandbox?.close();
  await dynamo?.stop();
});

async function state(query: Record<string, string>): Promise<{ status: number; body: PageState }> {
  const response = await fetch(`${sandbox.pageUrl}/api/state?${new URLSearchParams(query)}`);
  return { status: response.status, body: (await response.json()) as PageState };
}

describe('the sandbox page with DynamoDB down', () => {
  it('keeps answering its polls with the workspaces as Slack knows them', async () => {
    const seen = await state({ user: ALICE });
    expect(seen.status).toBe(200);
    expect(seen.body.teams.map((team) => [team.id, team.installed])).toEqual([
      ['T0LOCAL', true],
      [SECOND_TEAM.id, false],
    ]);
    expect(seen.body.channel.id).toBe('C0OPS');
    expect((await state({ user: ALICE, team: SECOND_TEAM.id })).status).toBe(200);
  });

  it("shows a command's answer as Slack would: the bot's own words about its storage", async () => {
    const response = await fetch(`${sandbox.pageUrl}/api/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: ALICE, channel: 'C0OPS', text: '/cloud volumes list' }),
    });
    const result = (await response.json()) as ActionResult;
    await sandbox.stack.drain();
    expect(result).toMatchObject({ ok: true, status: 200 });
    const after = await state({ user: ALICE, channel: 'C0OPS' });
    expect(after.status).toBe(200);
    const answer = after.body.messages.at(-1);
    expect(answer?.ephemeral).toBe(true);
    expect(JSON.stringify(answer)).toContain(STORAGE_MESSAGE);
  });
});
