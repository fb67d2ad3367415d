import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { allowInstall, type InstallRedirect } from '../../infra/local/bot-stack.js';
import { localDynamoDbClientConfig } from '../../infra/local/dynamodb.js';
import { SECOND_TEAM } from '../../infra/local/slack/oauth.js';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import type { SlackWorkspace } from '../../infra/local/slack/workspace.js';
import { castVote } from '../../lib/changes/votes.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { inSlackTeam } from '../../lib/slack-kit/web-client.js';
import { keys } from '../../lib/store/keys.js';
import { lastCardWith } from '../support/cards.js';
import { ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';

/**
 * One deployment serving two workspaces of the stand-in, installed through "Add to Slack" over
 * real HTTP: the bot's install page, the stand-in's authorize page, the redirect back with a code,
 * Bolt's OAuth callback exchanging it (`oauth.v2.access`) and storing the installation.
 */

const B_CHANNEL = 'C0PLATFORM';
let e2e: E2E;
let teamA: SlackWorkspace;
let teamB: SlackWorkspace;

beforeAll(async () => {
  e2e = await startE2E({ stack: { workspaces: 'many' } });
  teamA = e2e.stack.workspace;
  teamB = e2e.stack.workspaceFor(SECOND_TEAM);
});
afterAll(async () => {
  await e2e?.close();
});

/**
 * A browser opens the install page and allows the app for `team` on Slack's authorize page (each
 * page must answer as it should, or this throws); the redirect is left to the test.
 */
async function authorize(team: string): Promise<InstallRedirect> {
  const installUrl = e2e.stack.installUrl;
  if (!installUrl) throw new Error('the stack is not a distributed app');
  return allowInstall(installUrl, team);
}

async function finish(redirect: InstallRedirect): Promise<{ status: number; html: string }> {
  const response = await request(redirect.url, { headers: { cookie: redirect.cookie } });
  return { status: response.statusCode, html: await response.body.text() };
}

const installationOf = (team: string) =>
  e2e.stack.store.installations.find({ teamId: team, enterpriseId: undefined, isEnterpriseInstall: false });

/** The workspace whose bot token made the newest call of `method` (the stand-in records it). */
function teamOfLastCall(method: string): string | undefined {
  return e2e.stack.standIn.store.callsTo(method).at(-1)?.team;
}

async function login(workspace: SlackWorkspace, user: string, channel: string) {
  await workspace.command(user, channel, 'login');
  const view = e2e.stack.standIn.store
    .views()
    .filter((v) => v.user === user && !v.closed)
    .at(-1);
  if (!view) throw new Error(`no login modal for ${user}`);
  await workspace.submitView(user, view, {
    profile: { profile_input: 'default' },
    token: { token_input: e2e.emulator.demoToken },
  });
  await e2e.stack.drain();
}

function lastCard(channel: string): StoredMessage {
  const card = lastCardWith(e2e.stack.standIn.store, channel, ActionId.approve);
  if (!card) throw new Error(`no approval card in ${channel}`);
  return card;
}

async function requestDeletion(workspace: SlackWorkspace, channel: string) {
  const volume = e2e.emulator.control.createVolume({
    label: `doomed-${Math.random().toString(36).slice(2, 8)}`,
  });
  await workspace.command(ALICE, channel, `volumes delete ${volume.id}`);
  await e2e.stack.drain();
  return { volumeId: volume.id, card: lastCard(channel) };
}

describe('before any installation', () => {
  it('refuses a command from a workspace where the app is not installed, and runs nothing', async () => {
    const delivery = await teamB.command(ALICE, B_CHANNEL, 'help');
    expect(delivery.status).toBeGreaterThanOrEqual(400);
    expect(delivery.message).toBeUndefined();
    expect(e2e.stack.standIn.store.messages(B_CHANNEL)).toEqual([]);
  });
});

describe('Add to Slack', () => {
  it('installs into two workspaces, each installation holding its own bot token', async () => {
    for (const team of [teamA.teamId, teamB.teamId]) {
      const done = await finish(await authorize(team));
      expect(done.status).toBe(200);
      expect(done.html).toContain('is installed in');
    }
    const [a, b] = await Promise.all([installationOf(teamA.teamId), installationOf(teamB.teamId)]);
    expect(a?.bot?.token).toMatch(/^xoxb-T0LOCAL-/);
    expect(b?.bot?.token).toMatch(/^xoxb-T0SECOND-/);
  });

  it('refuses a redirect whose state was forged, and stores nothing', async () => {
    await e2e.stack.store.installations.remove({
      teamId: SECOND_TEAM.id,
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    const redirect = await authorize(SECOND_TEAM.id);
    const forged = new URL(redirect.url);
    forged.searchParams.set('state', 'forged-state-value');
    const cookie = 'slack-app-oauth-state=forged-state-value';
    const done = await finish({ url: forged.toString(), cookie });
    expect(done.status).toBe(400);
    expect(done.html).toContain('already used, has expired');
    await expect(installationOf(SECOND_TEAM.id)).resolves.toBeUndefined();
    // The genuine redirect still completes: the forged one consumed nothing.
    expect((await finish(redirect)).status).toBe(200);
  });

  it('refuses a replayed redirect (same state, same browser)', async () => {
    const redirect = await authorize(SECOND_TEAM.id);
    expect((await finish(redirect)).status).toBe(200);
    const replay = await finish(redirect);
    expect(replay.status).toBe(400);
    expect(replay.html).not.toContain('xoxb-');
  });
});

describe('two installed workspaces', () => {
  beforeAll(async () => {
    await login(teamA, ALICE, CHANNEL);
    await login(teamB, ALICE, B_CHANNEL);
  });

  it("opens each workspace's login modal with that workspace's bot token", async () => {
    await teamB.command(BOB, B_CHANNEL, 'login');
    expect(teamOfLastCall('views.open')).toBe(SECOND_TEAM.id);
    await teamA.command(BOB, CHANNEL, 'login');
    expect(teamOfLastCall('views.open')).toBe(teamA.teamId);
  });

  it("runs an approved change in each workspace and updates its card with that workspace's token", async () => {
    for (const [workspace, channel] of [
      [teamA, CHANNEL],
      [teamB, B_CHANNEL],
    ] as const) {
      const { volumeId, card } = await requestDeletion(workspace, channel);
      expect(teamOfLastCall('chat.postMessage')).toBe(workspace.teamId);
      await workspace.click(BOB, card, { actionId: ActionId.approve });
      await e2e.stack.drain();
      expect(e2e.emulator.control.volumeExists(volumeId)).toBe(false);
      // The worker updated the card: the routed client picked the job's team's token.
      expect(teamOfLastCall('chat.update')).toBe(workspace.teamId);
    }
  });

  it("posts each workspace's new-issue alert with that workspace's token (regression: alerts went out with no token)", async () => {
    for (const [workspace, channel] of [
      [teamA, CHANNEL],
      [teamB, B_CHANNEL],
    ] as const) {
      await workspace.command(ALICE, channel, 'reports add alerts --every 1h');
      const sub = (await e2e.stack.store.reports.list(workspace.teamId)).find((r) => r.kind === 'alerts');
      if (!sub) throw new Error(`no alerts subscription in ${workspace.teamId}`);
      const issue = e2e.emulator.control.createManagedIssue({ label: `down in ${workspace.teamId}` });
      await workspace.command(ALICE, channel, `reports run ${sub.id}`);
      await e2e.stack.drain();
      const alert = e2e.stack.standIn.store
        .messages(channel)
        .find((m) => `${m.text}${JSON.stringify(m.blocks)}`.includes(`New managed issue ${issue.id}`));
      expect(alert, `no alert for issue ${issue.id} in ${channel}`).toBeDefined();
      const posts = e2e.stack.standIn.store
        .callsTo('chat.postMessage')
        .filter((c) => c.body.channel === channel);
      expect(posts.at(-1)).toMatchObject({ ok: true, team: workspace.teamId });
      await workspace.command(ALICE, channel, `reports remove ${sub.id}`);
    }
  });

  it("never lets a request from one workspace read or change the other's approvals, reports or links", async () => {
    const { card } = await requestDeletion(teamA, CHANNEL);
    const approvalId = (await e2e.stack.store.approvals.listPending(teamA.teamId)).at(-1)?.id;
    expect(approvalId).toBeDefined();
    await teamA.command(ALICE, CHANNEL, 'reports add issues --every 1h');
    const [report] = await e2e.stack.store.reports.list(teamA.teamId);
    if (!report) throw new Error('no report in team A');

    // Signed with the app's secret, from team B, naming team A's approval (its card's button).
    await teamB.click(BOB, { ...card, channel: B_CHANNEL }, { actionId: ActionId.approve });
    await teamB.command(ALICE, B_CHANNEL, `reports remove ${report.id}`);
    await teamB.command(ALICE, B_CHANNEL, `reports pause ${report.id}`);
    await teamB.command(ALICE, B_CHANNEL, 'logout');
    await e2e.stack.drain();

    const approval = await e2e.stack.store.approvals.get(teamA.teamId, approvalId as string);
    expect(approval).toMatchObject({ status: 'pending', approvals: [] });
    expect(await e2e.stack.store.reports.get(teamA.teamId, report.id)).toMatchObject({ paused: false });
    expect((await e2e.stack.store.tokenLinks.getToken(teamA.teamId, ALICE)).status).toBe('found');
    const listed = await teamB.command(ALICE, B_CHANNEL, 'approvals list');
    expect(JSON.stringify(listed.message?.blocks ?? listed.body)).not.toContain(approvalId as string);
  });
});

describe('uninstall', () => {
  it('removes the installation, pauses its reports, deletes its links, and refuses later commands', async () => {
    // Alice logged out of team B above; her link there is needed for a report and a request.
    await login(teamB, ALICE, B_CHANNEL);
    await teamB.command(ALICE, B_CHANNEL, 'reports add alerts --every 15m');
    const pendingBefore = await requestDeletion(teamB, B_CHANNEL);
    expect(await e2e.stack.store.reports.list(SECOND_TEAM.id)).not.toHaveLength(0);
    expect(await e2e.stack.store.approvals.listPending(SECOND_TEAM.id)).not.toHaveLength(0);

    const delivery = await teamB.uninstall('Ev0UNINSTALL');
    expect(delivery.status).toBe(200);

    await expect(installationOf(SECOND_TEAM.id)).resolves.toBeUndefined();
    const reports = await e2e.stack.store.reports.list(SECOND_TEAM.id);
    expect(reports.every((sub) => sub.paused)).toBe(true);
    expect((await e2e.stack.store.tokenLinks.getToken(SECOND_TEAM.id, ALICE)).status).toBe('missing');
    const approvals = await e2e.stack.store.approvals.listPending(SECOND_TEAM.id);
    expect(approvals).toEqual([]);
    const audit = await e2e.stack.store.audit.list(SECOND_TEAM.id);
    expect(audit.entries.filter((entry) => entry.action === 'app.uninstalled')).toHaveLength(1);
    expect(
      audit.entries.some(
        (entry) => entry.result === 'expired' && entry.detail?.includes('card could not be updated'),
      ),
    ).toBe(true);
    expect(e2e.emulator.control.volumeExists(pendingBefore.volumeId)).toBe(true);

    // Team A is untouched.
    await expect(installationOf(teamA.teamId)).resolves.toBeDefined();
    expect((await e2e.stack.store.tokenLinks.getToken(teamA.teamId, ALICE)).status).toBe('found');

    const later = await teamB.command(ALICE, B_CHANNEL, 'nodes list');
    expect(later.status).toBeGreaterThanOrEqual(400);
    expect(later.message).toBeUndefined();
  });

  it('is harmless when Slack delivers the event again', async () => {
    const again = await teamB.uninstall('Ev0UNINSTALL');
    expect(again.status).toBe(200);
    const audit = await e2e.stack.store.audit.list(SECOND_TEAM.id);
    expect(audit.entries.filter((entry) => entry.action === 'app.uninstalled')).toHaveLength(1);
  });
});

describe('tokens_revoked', () => {
  beforeAll(async () => {
    await e2e.stack.install(SECOND_TEAM.id);
    await login(teamB, ALICE, B_CHANNEL);
  });

  it('leaves the installation alone when only user tokens were revoked', async () => {
    const delivery = await teamB.event({ type: 'tokens_revoked', tokens: { oauth: [ALICE] } });
    expect(delivery.status).toBe(200);
    await expect(installationOf(SECOND_TEAM.id)).resolves.toBeDefined();
    expect((await e2e.stack.store.tokenLinks.getToken(SECOND_TEAM.id, ALICE)).status).toBe('found');
  });

  it("removes the installation when the bot's token is revoked, pauses reports, closes requests, deletes links", async () => {
    await teamB.command(ALICE, B_CHANNEL, 'reports add issues --every 1h');
    const pending = await requestDeletion(teamB, B_CHANNEL);
    const auditBefore = (await e2e.stack.store.audit.list(SECOND_TEAM.id)).entries.length;

    const delivery = await teamB.revokeBotToken('Ev0REVOKED');
    expect(delivery.status).toBe(200);

    await expect(installationOf(SECOND_TEAM.id)).resolves.toBeUndefined();
    const reports = await e2e.stack.store.reports.list(SECOND_TEAM.id);
    expect(reports.length).toBeGreaterThan(0);
    expect(reports.every((sub) => sub.paused)).toBe(true);
    expect((await e2e.stack.store.tokenLinks.getToken(SECOND_TEAM.id, ALICE)).status).toBe('missing');
    expect(await e2e.stack.store.approvals.listPending(SECOND_TEAM.id)).toEqual([]);
    expect(e2e.emulator.control.volumeExists(pending.volumeId)).toBe(true);
    const audit = (await e2e.stack.store.audit.list(SECOND_TEAM.id)).entries;
    expect(audit.length).toBeGreaterThan(auditBefore);
    expect(audit.filter((entry) => entry.action === 'app.tokens_revoked')).toHaveLength(1);

    const later = await teamB.command(ALICE, B_CHANNEL, 'nodes list');
    expect(later.status).toBeGreaterThanOrEqual(400);
    expect(later.message).toBeUndefined();
    // Team A keeps its installation and its links.
    await expect(installationOf(teamA.teamId)).resolves.toBeDefined();
    expect((await e2e.stack.store.tokenLinks.getToken(teamA.teamId, ALICE)).status).toBe('found');
  });

  it('is harmless when Slack delivers the event again', async () => {
    expect((await teamB.revokeBotToken('Ev0REVOKED')).status).toBe(200);
    const audit = (await e2e.stack.store.audit.list(SECOND_TEAM.id)).entries;
    expect(audit.filter((entry) => entry.action === 'app.tokens_revoked')).toHaveLength(1);
  });
});

describe('requests already approved when the app is removed', () => {
  beforeAll(async () => {
    await e2e.stack.install(SECOND_TEAM.id);
    await login(teamB, ALICE, B_CHANNEL);
  });

  it('ends an approved request no worker started as not run, with an audit line, and leaves an executing one to its worker', async () => {
    const approvals = e2e.stack.store.approvals;
    const idOf = async () => (await approvals.listPending(SECOND_TEAM.id)).at(-1)?.id as string;
    // Approved, and the worker's invocation has not started yet (the decision is written first).
    const waiting = await requestDeletion(teamB, B_CHANNEL);
    const waitingId = await idOf();
    expect(
      (
        await castVote(e2e.stack.store, {
          team: SECOND_TEAM.id,
          approvalId: waitingId,
          user: BOB,
          decision: 'approve',
        })
      ).outcome,
    ).toBe('approved');
    // Approved and claimed: a worker is running it.
    await requestDeletion(teamB, B_CHANNEL);
    const runningId = await idOf();
    await castVote(e2e.stack.store, {
      team: SECOND_TEAM.id,
      approvalId: runningId,
      user: BOB,
      decision: 'approve',
    });
    expect((await approvals.claimExecution(SECOND_TEAM.id, runningId)).claimed).toBe(true);

    expect((await teamB.uninstall('Ev0UNINSTALL2')).status).toBe(200);

    const notRun = await approvals.get(SECOND_TEAM.id, waitingId);
    expect(notRun).toMatchObject({ status: 'not_run', result: { outcome: 'not_run' } });
    expect(notRun?.result?.detail).toContain('nothing was run');
    // Nobody can start it any more: a late worker's claim loses.
    expect((await approvals.claimExecution(SECOND_TEAM.id, waitingId)).claimed).toBe(false);
    expect(e2e.emulator.control.volumeExists(waiting.volumeId)).toBe(true);
    const audit = (await e2e.stack.store.audit.list(SECOND_TEAM.id)).entries;
    expect(
      audit.filter((entry) => entry.approvalId === waitingId && entry.result === 'not_run'),
    ).toHaveLength(1);

    // The executing one is its worker's to finish (or the sweep's, if the worker died).
    expect((await approvals.get(SECOND_TEAM.id, runningId))?.status).toBe('executing');
    expect(await approvals.finish(SECOND_TEAM.id, runningId, 'executed', 'done')).toBe(true);
  });
});

describe('token rotation', () => {
  /** Slack's rotating bot tokens last 12 hours; Bolt renews one within 2 hours of its expiry. */
  const TOKEN_SECONDS = 12 * 60 * 60;
  let rotating: E2E;
  let team: SlackWorkspace;
  const raw = DynamoDBDocumentClient.from(
    new DynamoDBClient(localDynamoDbClientConfig(inject('dynamoEndpoint'))),
  );

  beforeAll(async () => {
    // Bolt reads `Date.now()` to decide when to refresh: the whole process's clock moves, timers
    // stay real. Faked before the stack starts, so the stand-in's and the token cache's clocks
    // are this one too.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    rotating = await startE2E({ stack: { workspaces: 'many', tokenExpiresInSeconds: TOKEN_SECONDS } });
    team = rotating.stack.workspaceFor(SECOND_TEAM);
    await rotating.stack.install(SECOND_TEAM.id);
  });
  afterAll(async () => {
    await rotating?.close();
    raw.destroy();
    vi.useRealTimers();
  });

  const installation = () =>
    rotating.stack.store.installations.find({
      teamId: SECOND_TEAM.id,
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });

  it('runs a command after the bot token expired with a refreshed token, stored sealed, never the old one again', async () => {
    const before = await installation();
    const oldToken = before?.bot?.token;
    expect(oldToken).toMatch(/^xoxe\.xoxb-T0SECOND-/);
    expect(before?.bot?.refreshToken).toMatch(/^xoxe-T0SECOND-/);
    await team.command(ALICE, B_CHANNEL, 'login');
    expect(rotating.stack.standIn.store.callsTo('views.open').at(-1)).toMatchObject({
      ok: true,
      team: SECOND_TEAM.id,
    });
    const refreshesBefore = rotating.stack.standIn.store.callsTo('oauth.v2.access').length;

    vi.setSystemTime(Date.now() + (TOKEN_SECONDS + 60) * 1000);
    expect(rotating.stack.standIn.oauth.stateOf(oldToken as string)).toBe('expired');
    const callsBefore = rotating.stack.standIn.store.calls().length;

    const delivery = await team.command(BOB, B_CHANNEL, 'login');
    await rotating.stack.drain();
    expect(delivery.status).toBe(200);
    const after = rotating.stack.standIn.store.calls().slice(callsBefore);
    expect(after.filter((call) => call.method === 'views.open')).toMatchObject([
      { ok: true, team: SECOND_TEAM.id },
    ]);
    // The old token was never offered again: the stand-in would have answered token_expired.
    expect(after.filter((call) => !call.ok)).toEqual([]);
    const refreshes = rotating.stack.standIn.store.callsTo('oauth.v2.access').slice(refreshesBefore);
    expect(refreshes).toMatchObject([{ ok: true, body: { grant_type: 'refresh_token' } }]);

    const renewed = await installation();
    const newToken = renewed?.bot?.token as string;
    expect(newToken).toMatch(/^xoxe\.xoxb-T0SECOND-/);
    expect(newToken).not.toBe(oldToken);
    expect(rotating.stack.standIn.oauth.stateOf(newToken)).toBe('valid');
    expect(renewed?.bot?.refreshToken).not.toBe(before?.bot?.refreshToken);
    // Sealed at rest: the item holds ciphertext, never the token or the refresh token.
    const item = await raw.send(
      new GetCommand({
        TableName: rotating.stack.tableName,
        Key: { pk: keys.team(SECOND_TEAM.id), sk: keys.installation },
      }),
    );
    const stored = JSON.stringify(item.Item);
    expect(item.Item?.bot_token_ciphertext).toBeDefined();
    expect(stored).not.toContain(newToken);
    expect(stored).not.toContain(renewed?.bot?.refreshToken as string);
  });

  it('renews an expired token before a job without an incoming event posts, with the newest refresh token', async () => {
    const before = await installation();
    vi.setSystemTime(Date.now() + (TOKEN_SECONDS + 60) * 1000);
    expect(rotating.stack.standIn.oauth.stateOf(before?.bot?.token as string)).toBe('expired');
    const refreshesBefore = rotating.stack.standIn.store.callsTo('oauth.v2.access').length;
    const callsBefore = rotating.stack.standIn.store.calls().length;

    // What the reporter does: a post for the team, through the background client.
    const posted = await inSlackTeam(SECOND_TEAM.id, () =>
      rotating.stack.worker.slack.chat.postMessage({ channel: B_CHANNEL, text: 'Managed issues: none' }),
    );
    expect(posted.ok).toBe(true);
    const after = rotating.stack.standIn.store.calls().slice(callsBefore);
    expect(after.filter((call) => !call.ok)).toEqual([]);
    // One refresh, with the refresh token the previous one stored (the first is spent: Slack
    // would have answered invalid_refresh_token).
    expect(rotating.stack.standIn.store.callsTo('oauth.v2.access').slice(refreshesBefore)).toMatchObject([
      { ok: true, body: { grant_type: 'refresh_token' } },
    ]);
    const renewed = await installation();
    expect(renewed?.bot?.token).not.toBe(before?.bot?.token);
    expect(renewed?.bot?.refreshToken).not.toBe(before?.bot?.refreshToken);
  });
});
