import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { castVote } from '../../../lib/changes/votes.js';
import { openTable } from '../../../lib/runtime.js';
import { AlertClaimRepository } from '../../../lib/store/alert-claims.js';
import { ApprovalRepository } from '../../../lib/store/approvals.js';
import { ChannelPolicyRepository } from '../../../lib/store/channel-policy.js';
import { DeliveryClaims } from '../../../lib/store/delivery-claims.js';
import type { HttpTable } from '../../../lib/store/http-table.js';
import { OAuthStateStore } from '../../../lib/store/installations.js';
import { putNew, updateIf } from '../../../lib/store/items.js';
import { keys } from '../../../lib/store/keys.js';
import { StepUpRepository } from '../../../lib/store/step-up.js';
import type { StoreContext } from '../../../lib/store/store-context.js';
import { TokenLinkRepository } from '../../../lib/store/token-links.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * A write that reached DynamoDB but whose answer was lost on the way back (a dropped connection):
 * the client retries, and the retry's condition fails because the first attempt landed. That
 * failure is the bot's own write, not someone else's: a first delivery must still count as first
 * (or the command is dropped in silence), and a new item must still count as written.
 */

/** Forwards to DynamoDB Local; drops the connection after the next matching write has been done. */
async function startLossyProxy(upstream: string): Promise<{
  server: Server;
  endpoint: string;
  loseNextAnswer: (target: string) => void;
  lost: () => number;
}> {
  let losing: string | undefined;
  let lost = 0;
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(
        (entry): entry is [string, string] =>
          typeof entry[1] === 'string' && !['host', 'connection', 'content-length'].includes(entry[0]),
      ),
    );
    const answer = await fetch(upstream, { method: 'POST', headers, body: Buffer.concat(chunks) });
    const body = Buffer.from(await answer.arrayBuffer());
    if (losing !== undefined && request.headers['x-amz-target'] === `DynamoDB_20120810.${losing}`) {
      losing = undefined;
      lost++;
      request.socket.destroy();
      return;
    }
    response.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0' });
    response.end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    server,
    endpoint: `http://127.0.0.1:${address.port}`,
    loseNextAnswer: (target) => {
      losing = target;
    },
    lost: () => lost,
  };
}

let test: TestTable;
let proxy: Awaited<ReturnType<typeof startLossyProxy>>;
let table: HttpTable;
let ctx: StoreContext;

beforeAll(async () => {
  test = await createTestTable();
  proxy = await startLossyProxy(inject('dynamoEndpoint'));
  // The Slack function's two attempts, with room for the proxy's extra hop on a busy machine.
  table = openTable({ DYNAMODB_ENDPOINT: proxy.endpoint, DYNAMODB_REQUEST_TIMEOUT_MS: 5000 }, 'slack');
  ctx = { ...test.ctx, table };
});
afterEach(() => {
  expect(proxy.lost()).toBeGreaterThan(0);
});
afterAll(async () => {
  table?.destroy();
  proxy?.server.close();
  await test?.dispose();
});

describe('a write whose answer was lost', () => {
  it('still counts a delivery claim as the first, and a repeat after it as a repeat', async () => {
    const claims = new DeliveryClaims(ctx);
    proxy.loseNextAnswer('PutItem');
    expect(await claims.claimOnce('command:T0LOST:trigger-1')).toBe(true);
    expect(await claims.claimOnce('command:T0LOST:trigger-1')).toBe(false);
  });

  it('still counts a new item as written, once, and a different item at its key as a collision', async () => {
    const item = { pk: 'TEAM#T0LOST', sk: 'NEW#1', kind: 'test', count: 3, tags: ['a'] };
    proxy.loseNextAnswer('PutItem');
    await putNew(ctx, item);
    const { Items } = await test.table.query({
      TableName: test.ctx.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'TEAM#T0LOST' },
    });
    expect(Items).toEqual([item]);
    proxy.loseNextAnswer('PutItem');
    await putNew(ctx, { pk: 'TEAM#T0LOST', sk: 'NEW#2', kind: 'test' });
    await expect(putNew(ctx, { ...item, count: 4 })).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
    });
  });

  it("still stores a login whose one transaction landed: the link, active, with the user's member item", async () => {
    const links = new TokenLinkRepository(ctx, randomLocalCipher());
    const lostBefore = proxy.lost();
    proxy.loseNextAnswer('TransactWriteItems');
    await links.saveLink(
      {
        team: 'T0LOST',
        user: 'U0LOST',
        profile: 'ops',
        token: 'tok_lost_answer_0123456789',
        label: 'ops',
        apiUsername: 'me',
        scopes: 'unknown',
        expiry: null,
      },
      { activate: true },
    );
    expect(proxy.lost()).toBe(lostBefore + 1);
    expect(await links.getToken('T0LOST', 'U0LOST')).toMatchObject({
      status: 'found',
      token: 'tok_lost_answer_0123456789',
      link: { profile: 'ops' },
    });
    const member = await test.table.get({
      TableName: test.ctx.tableName,
      Key: { pk: keys.team('T0LOST'), sk: keys.member('U0LOST') },
    });
    expect(member.Item).toMatchObject({ kind: 'team_member', user_id: 'U0LOST' });
  });

  it('still counts a conditional update as applied by this writer, and a second one as refused', async () => {
    const key = { pk: 'TEAM#T0LOST', sk: 'COUNTER#1' };
    await test.table.put({ TableName: test.ctx.tableName, Item: { ...key, kind: 'test', version: 1 } });
    const bump = (from: number) =>
      updateIf(ctx, key, {
        UpdateExpression: 'SET version = :next',
        ConditionExpression: 'version = :from',
        ExpressionAttributeValues: { ':next': from + 1, ':from': from },
      });
    const lostBefore = proxy.lost();
    proxy.loseNextAnswer('UpdateItem');
    expect(await bump(1)).toBe(true);
    expect(proxy.lost()).toBe(lostBefore + 1);
    // Another writer that read version 1 too lost the race.
    expect(await bump(1)).toBe(false);
    const { Item } = await test.table.get({ TableName: test.ctx.tableName, Key: key });
    expect(Item).toMatchObject({ version: 2 });
  });

  it("still takes a person's step-up code once: the code that landed is not refused as used", async () => {
    const cipher = randomLocalCipher();
    const stepUp = new StepUpRepository(ctx, cipher);
    expect(await stepUp.startEnrollment('T0LOST', 'U0MFA', 'JBSWY3DPEHPK3PXP')).toBe(true);
    const lostBefore = proxy.lost();
    proxy.loseNextAnswer('UpdateItem');
    expect(await stepUp.takeStep('T0LOST', 'U0MFA', 1000, true)).toBe(true);
    expect(proxy.lost()).toBe(lostBefore + 1);
    expect(await stepUp.takeStep('T0LOST', 'U0MFA', 1000, false)).toBe(false);
    expect(await stepUp.takeStep('T0LOST', 'U0MFA', 1001, false)).toBe(true);
  });

  it("still lets an approver's proof use its step-up challenge, once", async () => {
    const stepUp = new StepUpRepository(ctx, randomLocalCipher());
    const challenge = await stepUp.createChallenge({
      team: 'T0LOST',
      user: 'U0MFA',
      approvalId: 'a1',
      decision: 'approve',
      methods: 'code',
      expiresAt: new Date(ctx.now().getTime() + 5 * 60_000),
    });
    const lostBefore = proxy.lost();
    proxy.loseNextAnswer('UpdateItem');
    expect(await stepUp.useChallenge('T0LOST', challenge.id, 'U0MFA')).toEqual({ kind: 'used', challenge });
    expect(proxy.lost()).toBe(lostBefore + 1);
    expect(await stepUp.useChallenge('T0LOST', challenge.id, 'U0MFA')).toEqual({ kind: 'unusable' });
  });

  it('counts a break-glass use once, and does not refuse the use whose answer was lost', async () => {
    const policies = new ChannelPolicyRepository(ctx);
    const lostBefore = proxy.lost();
    proxy.loseNextAnswer('UpdateItem');
    expect(await policies.useBreakGlass('T0LOST', 'U0GLASS', 2)).toBe(true);
    expect(proxy.lost()).toBe(lostBefore + 1);
    // The limit is 2: the resend did not count a second use.
    expect(await policies.useBreakGlass('T0LOST', 'U0GLASS', 2)).toBe(true);
    expect(await policies.useBreakGlass('T0LOST', 'U0GLASS', 2)).toBe(false);
    proxy.loseNextAnswer('UpdateItem');
    expect(await policies.useBreakGlass('T0LOST', 'U0GLASS2', 1)).toBe(true);
    expect(await policies.useBreakGlass('T0LOST', 'U0GLASS2', 1)).toBe(false);
  });

  it("still holds the reporter's claim of an alert it wrote, so the alert is posted this run", async () => {
    const claims = new AlertClaimRepository(ctx);
    const key = { team: 'T0LOST', subscription: 'sub1', issue: 42 };
    const lostBefore = proxy.lost();
    proxy.loseNextAnswer('PutItem');
    const first = await claims.claim(key);
    expect(proxy.lost()).toBe(lostBefore + 1);
    expect(first.status).toBe('claimed');
    // Another run's claim of the same alert finds it held by the first.
    expect(await claims.claim(key)).toMatchObject({
      status: 'held',
      by: first.status === 'claimed' ? { token: first.claim.token } : {},
    });
  });

  it("counts a flapping alert's reopening once when the answer to its update was lost", async () => {
    const claims = new AlertClaimRepository(ctx);
    const key = { team: 'T0LOST', subscription: 'sub1', issue: 43 };
    const first = await claims.claim(key);
    if (first.status !== 'claimed') throw new Error('not claimed');
    expect(await claims.markPosted(first.claim, '1700000000.000100')).toBe(true);
    expect(await claims.recordClosed(key)).toBe(true);
    expect(await claims.recordClosed(key)).toBe(false);
    const hourAgo = new Date(ctx.now().getTime() - 3_600_000);
    const lostBefore = proxy.lost();
    proxy.loseNextAnswer('UpdateItem');
    const reopened = await claims.reopen(key, hourAgo);
    expect(proxy.lost()).toBe(lostBefore + 1);
    expect(reopened).toMatchObject({ reopenCount: 1, closedAt: null });
    // Another run listing it again finds the reopening counted, not a second one.
    expect(await claims.reopen(key, hourAgo)).toMatchObject({ reopenCount: 1 });
    expect(await claims.takeTelling(key, 1)).toBe(true);
    expect(await claims.takeTelling(key, 1)).toBe(false);
  });

  it('still says a logout removed the link when the answer to its delete was lost', async () => {
    const links = new TokenLinkRepository(ctx, randomLocalCipher());
    await links.saveLink(
      {
        team: 'T0LOST',
        user: 'U0OUT',
        profile: 'ops',
        token: 'tok_lost_logout_0123456789',
        label: 'ops',
        apiUsername: 'me',
        scopes: 'unknown',
        expiry: null,
      },
      { activate: true },
    );
    const lostBefore = proxy.lost();
    proxy.loseNextAnswer('DeleteItem');
    expect(await links.deleteLink('T0LOST', 'U0OUT', 'ops')).toBe(true);
    expect(proxy.lost()).toBe(lostBefore + 1);
    expect(await links.deleteLink('T0LOST', 'U0OUT', 'ops')).toBe(false);
    expect((await links.getToken('T0LOST', 'U0OUT')).status).not.toBe('found');
  });

  it("still says an mfa reset removed the person's authenticator app when the answer was lost", async () => {
    const stepUp = new StepUpRepository(ctx, randomLocalCipher());
    expect(await stepUp.startEnrollment('T0LOST', 'U0RESET', 'JBSWY3DPEHPK3PXP')).toBe(true);
    const lostBefore = proxy.lost();
    proxy.loseNextAnswer('DeleteItem');
    expect(await stepUp.reset('T0LOST', 'U0RESET')).toBe(true);
    expect(proxy.lost()).toBe(lostBefore + 1);
    expect(await stepUp.reset('T0LOST', 'U0RESET')).toBe(false);
    expect(await stepUp.enrollment('T0LOST', 'U0RESET')).toBeUndefined();
  });

  it('still installs with an Add to Slack state whose use was answered lost, and refuses its replay', async () => {
    const states = new OAuthStateStore(ctx);
    const options = { scopes: ['commands'], redirectUri: 'https://bot.example/slack/oauth_redirect' };
    const state = await states.generateStateParam(options);
    const lostBefore = proxy.lost();
    proxy.loseNextAnswer('UpdateItem');
    expect(await states.verifyStateParam(ctx.now(), state)).toEqual(options);
    expect(proxy.lost()).toBe(lostBefore + 1);
    await expect(states.verifyStateParam(ctx.now(), state)).rejects.toMatchObject({
      reason: 'unknown_or_used',
    });
  });

  it("still counts the requester's cancellation as cancelled, not as decided by someone else", async () => {
    const approvals = new ApprovalRepository(ctx, randomLocalCipher());
    const { id } = await newRequest(approvals, 1);
    const lostBefore = proxy.lost();
    proxy.loseNextAnswer('UpdateItem');
    const result = await approvals.cancel('T0LOST', id, 'U0REQ');
    expect(proxy.lost()).toBe(lostBefore + 1);
    expect(result).toMatchObject({ outcome: 'cancelled', approval: { status: 'cancelled' } });
    expect((await approvals.get('T0LOST', id))?.cancelledBy?.user).toBe('U0REQ');
    // A second cancellation of the same request is its own attempt: already decided.
    expect((await approvals.cancel('T0LOST', id, 'U0REQ')).outcome).toBe('already_decided');
  });

  it('still counts a break-glass approval as approved by this requester, once', async () => {
    const approvals = new ApprovalRepository(ctx, randomLocalCipher());
    const { id } = await newRequest(approvals, 2);
    const lostBefore = proxy.lost();
    proxy.loseNextAnswer('UpdateItem');
    const approved = await approvals.approveBreakGlass('T0LOST', id, 'U0REQ', 'db down');
    expect(proxy.lost()).toBe(lostBefore + 1);
    expect(approved).toMatchObject({ status: 'approved', breakGlass: { user: 'U0REQ', reason: 'db down' } });
    expect(approved?.approvals.map((vote) => vote.user)).toEqual(['U0REQ']);
    // Breaking the glass again is another attempt on a request that is no longer pending.
    expect(await approvals.approveBreakGlass('T0LOST', id, 'U0REQ', 'db down')).toBeUndefined();
  });

  it("still gives the worker the claim it made, and the worker's outcome as written by it", async () => {
    const approvals = new ApprovalRepository(ctx, randomLocalCipher());
    const { id } = await newRequest(approvals, 1);
    await castVote(
      { approvals, now: ctx.now },
      { team: 'T0LOST', approvalId: id, user: 'U0VOTER', decision: 'approve' },
    );
    const lostBefore = proxy.lost();
    proxy.loseNextAnswer('UpdateItem');
    const claim = await approvals.claimExecution('T0LOST', id);
    expect(claim).toMatchObject({
      claimed: true,
      input: { volumeId: 12 },
      approval: { status: 'executing' },
    });
    // Another worker's claim of the same request is refused.
    expect((await approvals.claimExecution('T0LOST', id)).claimed).toBe(false);
    proxy.loseNextAnswer('UpdateItem');
    expect(await approvals.finish('T0LOST', id, 'executed', 'Deleted')).toBe(true);
    expect(proxy.lost()).toBe(lostBefore + 2);
    expect(await approvals.finish('T0LOST', id, 'failed', 'a second finish')).toBe(false);
    expect(await approvals.get('T0LOST', id)).toMatchObject({
      status: 'executed',
      result: { outcome: 'executed', detail: 'Deleted' },
    });
  });

  it('still tells the sweep it expired a request that ran out of time, once', async () => {
    const approvals = new ApprovalRepository(ctx, randomLocalCipher());
    const { id } = await newRequest(approvals, 1);
    const later = new ApprovalRepository(
      { ...ctx, now: () => new Date(ctx.now().getTime() + 16 * 60_000) },
      randomLocalCipher(),
    );
    const lostBefore = proxy.lost();
    proxy.loseNextAnswer('UpdateItem');
    expect(await later.expire('T0LOST', id)).toBe(true);
    expect(proxy.lost()).toBe(lostBefore + 1);
    expect(await later.expire('T0LOST', id)).toBe(false);
  });

  it.each([
    ['an approval that completes the request', 'approve', 1, 'approved'],
    ['an approval that counts toward two', 'approve', 2, 'recorded'],
    ['a denial', 'deny', 1, 'denied'],
  ] as const)('still counts %s as this vote, once', async (_, decision, requiredApprovals, outcome) => {
    const approvals = new ApprovalRepository(ctx, randomLocalCipher());
    const { id } = await newRequest(approvals, requiredApprovals);
    const lostBefore = proxy.lost();
    proxy.loseNextAnswer('UpdateItem');
    const result = await castVote(
      { approvals, now: ctx.now },
      { team: 'T0LOST', approvalId: id, user: 'U0VOTER', decision },
    );
    expect(proxy.lost()).toBe(lostBefore + 1);
    expect(result.outcome).toBe(outcome);
    const stored = await approvals.get('T0LOST', id);
    if (decision === 'deny') expect(stored?.deniedBy?.user).toBe('U0VOTER');
    else expect(stored?.approvals.map((vote) => vote.user)).toEqual(['U0VOTER']);
  });
});

function newRequest(approvals: ApprovalRepository, requiredApprovals: number) {
  return approvals.create({
    team: 'T0LOST',
    requester: 'U0REQ',
    operationId: 'volumes.delete',
    input: { volumeId: 12 },
    summary: 'Delete volume 12',
    channel: 'C0OPS',
    requiredApprovals,
    expiryMinutes: 15,
  });
}
